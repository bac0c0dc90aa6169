import { Hono } from "hono";
import type { AppEnv } from "../platform/http";

// Placeholder while the automations' calls are being built in this change (abandoned checkouts, back in stock).
export const automationRoutes = new Hono<AppEnv>();
