import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const oauthRoutes = new Hono<AppEnv>();
