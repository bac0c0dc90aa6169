import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

export const verificationRoutes = new Hono<AppEnv>();
