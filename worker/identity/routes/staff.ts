import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const staffRoutes = new Hono<AppEnv>();
