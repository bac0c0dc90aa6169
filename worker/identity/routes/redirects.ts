import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const redirectsRoutes = new Hono<AppEnv>();
