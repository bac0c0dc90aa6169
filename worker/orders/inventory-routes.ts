import { Hono } from "hono";
import type { AppEnv } from "../platform/http";

/** Inventory calls (full paths; mounted at /). */
export const inventoryRoutes = new Hono<AppEnv>();
