import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const sessionEndRoutes = new Hono<AppEnv>();
