import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const recoveryRoutes = new Hono<AppEnv>();
