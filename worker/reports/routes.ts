import { Hono } from "hono";
import type { AppEnv } from "#worker/platform/http";
import { reportCsv, reportPage } from "./sales";
import { consoleSearch } from "./search";

/**
 * Report calls (merchants), mounted at /api/v1:
 *
 *   GET /console-search?q=   → {q, products, orders, customers, collections}   staff
 *   GET /reports/:report?from=&to=&page=[&format=csv]   → {report} or text/csv   staff
 *       report: products, collections, customers, refunds, taxes or discounts; from/to: YYYY-MM-DD in the store's zone
 */
export const reportRoutes = new Hono<AppEnv>()
  .get("/console-search", async (c) => c.json(await consoleSearch(c.get("ctx"), c.req.query("q") ?? "")))
  .get("/reports/:report", async (c) => {
    const query = { from: c.req.query("from"), to: c.req.query("to"), page: Number(c.req.query("page")) || 1 };
    if (c.req.query("format") !== "csv") return c.json({ report: await reportPage(c.get("ctx"), c.req.param("report"), query) });
    const csv = await reportCsv(c.get("ctx"), c.req.param("report"), query);
    return new Response(csv.body, {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${csv.fileName}"` },
    });
  });
