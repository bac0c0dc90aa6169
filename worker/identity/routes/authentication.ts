import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const authenticationRoutes = new Hono<AppEnv>();
