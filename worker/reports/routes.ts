import { Hono } from "hono";
import type { AppEnv } from "#worker/platform/http";
import { consoleSearch } from "./search";

/**
 * Report calls (merchants), mounted at /api/v1:
 *
 *   GET /console-search?q=   → {q, products, orders, customers, collections}   staff
 */
export const reportRoutes = new Hono<AppEnv>().get("/console-search", async (c) => c.json(await consoleSearch(c.get("ctx"), c.req.query("q") ?? "")));
