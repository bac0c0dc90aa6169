import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { requireMerchant } from "#worker/platform/context";
import { pathId, type AppEnv } from "#worker/platform/http";
import { readQueryRequest } from "#worker/platform/query";
import { clientAddress } from "#worker/platform/rate-limit";
import { httpUrl, parseWith, readBody, readJson } from "#worker/platform/validation";
import {
  abandonedCheckoutSummary,
  addAbandonedCheckoutActivity,
  addActivityRequest,
  getAbandonedCheckout,
  queryAbandonedCheckouts,
} from "./abandoned-checkouts";
import {
  createBackInStockRequest,
  deleteBackInStockRequest,
  getBackInStockRequest,
  queryBackInStockRequests,
  reportItemsBackInStock,
} from "./back-in-stock";
import { automationSettingsPatch, getAutomationSettings, updateAutomationSettings } from "./settings";

/**
 * The automations' calls (full paths; mounted at /):
 *
 *   Abandoned checkouts (merchant; also under /v1 without the /ecom prefix):
 *   POST /ecom/v1/abandoned-checkout/query                {query:{filter, sort, paging | cursorPaging}}
 *                                                         → {abandonedCheckouts, metadata:{count, offset, total, recoveredCount, recoveredRevenue}}
 *   GET  /ecom/v1/abandoned-checkout/{id}                 → {abandonedCheckout} (with activities)
 *   POST /ecom/v1/abandoned-checkouts/{id}/add-activity   {activityType?, customActivity?:{title, description?}, actor?:{type: ADMIN|MEMBER|VISITOR|CONTACT, id?}}
 *                                                         → {abandonedCheckout}
 *   GET  /api/v1/abandoned-checkouts/summary              → {summary:{abandonedCount, recoveredCount, recoverableValue, recoveredRevenue, recoveryRate}}
 *   GET|PATCH /api/v1/automation-settings                 {settings:{…}} → {settings}
 *
 *   Back in stock (create: anyone, rate-limited; the rest merchant), under /back-in-stock-service/v1/back-in-stock-notification-requests:
 *   POST   ""                             {request:{email, catalogReference:{appId?, catalogItemId, options?:{variantId}}, itemUrl?}, itemDetails?}
 *                                         → {request} (status RECEIVED; the same email and item again answers the existing request)
 *   GET    "?.r=<query>" | POST /query    → {requests, metadata:{count, offset, total}}
 *   GET    /{id}  → {request};  DELETE /{id} → {}
 *   POST   /report-items-back-in-stock    {catalogReference | requestIds, itemDetails} → {} (notifies now)
 */
export const automationRoutes = new Hono<AppEnv>();

/** The caller is checked before the body: an anonymous bad request gets 401, not a validation error. */
const merchantOnly = createMiddleware<AppEnv>(async (c, next) => {
  requireMerchant(c.get("ctx"));
  await next();
});

const queryRequest = z.object({
  query: z
    .object({
      filter: z.unknown().optional(),
      sort: z.unknown().optional(),
      paging: z.unknown().optional(),
      cursorPaging: z.object({ limit: z.number().int().optional(), cursor: z.string().nullish() }).optional(),
    })
    .optional(),
});

// Guarded route by route: a "*" guard mounted under /v1 would answer 401 for every unknown /v1 path.
const abandoned = new Hono<AppEnv>()
  .post("/abandoned-checkout/query", merchantOnly, async (c) => {
    const { query } = parseWith(queryRequest, await readQueryRequest(c));
    return c.json(await queryAbandonedCheckouts(c.get("ctx"), query));
  })
  .get("/abandoned-checkout/:id", merchantOnly, async (c) => c.json(await getAbandonedCheckout(c.get("ctx"), pathId(c))))
  .post("/abandoned-checkouts/:id/add-activity", merchantOnly, async (c) => {
    const body = await readBody(c, addActivityRequest);
    return c.json(await addAbandonedCheckoutActivity(c.get("ctx"), pathId(c), body));
  });
for (const base of ["/ecom/v1", "/v1"]) automationRoutes.route(base, abandoned);

automationRoutes.get("/api/v1/abandoned-checkouts/summary", merchantOnly, async (c) => c.json(await abandonedCheckoutSummary(c.get("ctx"))));
automationRoutes.get("/api/v1/automation-settings", merchantOnly, async (c) => c.json(await getAutomationSettings(c.get("ctx"))));
automationRoutes.patch("/api/v1/automation-settings", merchantOnly, async (c) => {
  const { settings } = await readBody(c, z.object({ settings: automationSettingsPatch }).strict());
  return c.json(await updateAutomationSettings(c.get("ctx"), settings));
});

const createRequest = z.object({
  request: z.object({
    email: z.string().max(254),
    catalogReference: z.object({
      appId: z.string().max(100).optional(),
      catalogItemId: z.string().trim().min(1).max(100),
      options: z
        .object({ variantId: z.string().trim().min(1).max(100).optional() })
        .loose()
        .nullish(),
    }),
    itemUrl: httpUrl({ max: 2000 }).nullish(),
    // Read-only fields a client may send back are ignored.
    id: z.unknown().optional(),
    status: z.unknown().optional(),
  }),
  itemDetails: z
    .object({ name: z.string().max(500).optional(), price: z.string().max(50).optional(), image: httpUrl({ max: 2000 }).optional() })
    .loose()
    .optional(),
});

const BIS = "/back-in-stock-service/v1/back-in-stock-notification-requests";

automationRoutes.post(BIS, async (c) => {
  const body = await readBody(c, createRequest);
  const { request } = body;
  return c.json(
    await createBackInStockRequest(
      c.get("ctx"),
      {
        email: request.email,
        catalogReference: { ...request.catalogReference, options: request.catalogReference.options ?? undefined },
        itemUrl: request.itemUrl ?? undefined,
        itemDetails: body.itemDetails,
      },
      { clientAddress: clientAddress(c.req.raw.headers) },
    ),
  );
});
automationRoutes.get(BIS, merchantOnly, async (c) => {
  const { query } = parseWith(queryRequest, await readQueryRequest(c));
  return c.json(await queryBackInStockRequests(c.get("ctx"), query));
});
automationRoutes.post(`${BIS}/query`, merchantOnly, async (c) => {
  const { query } = parseWith(queryRequest, await readQueryRequest(c));
  return c.json(await queryBackInStockRequests(c.get("ctx"), query));
});
automationRoutes.post(`${BIS}/report-items-back-in-stock`, merchantOnly, async (c) =>
  c.json(await reportItemsBackInStock(c.get("ctx"), await readJson(c))),
);
automationRoutes.get(`${BIS}/:id`, merchantOnly, async (c) => c.json(await getBackInStockRequest(c.get("ctx"), pathId(c))));
automationRoutes.delete(`${BIS}/:id`, merchantOnly, async (c) => c.json(await deleteBackInStockRequest(c.get("ctx"), pathId(c))));
