import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { requireMerchant } from "#worker/platform/context";
import { pathId, type AppEnv } from "#worker/platform/http";
import { readQueryRequest } from "#worker/platform/query";
import { parseWith, readBody } from "#worker/platform/validation";
import {
  decrementInventory,
  getInventoryVariants,
  incrementInventory,
  inventoryHistory,
  queryInventory,
  updateInventoryItem,
  type AdjustmentInput,
} from "./inventory";
import { INVENTORY_CAUSES } from "./tables";

/**
 * Inventory calls (merchant only: API key or staff token), full paths, mounted at /. Each is served at the Wix
 * SDK's gateway path and at the Wix REST path without the prefix:
 *
 *   POST|GET(?.r=) /stores-reader/v2/inventoryItems/query        {query:{filter, sort, paging}} (filter/sort may be JSON strings)
 *                                                                → {inventoryItems, metadata:{items, offset, total}, totalResults}
 *   POST /stores-reader/v2/inventoryItems/{inventoryId}/getVariants  {variantIds?} → {inventoryItem}
 *   PATCH /stores/v2/inventoryItems/product/{productId}           {inventoryItem:{trackQuantity, variants:[{variantId, quantity, inStock}],
 *                                                                  preorderInfo:{enabled, message, limit}}, reason?} → {}
 *   POST /stores/v2/inventoryItems/increment                      {incrementData:[{productId|inventoryId, variantId, incrementBy}], reason?} → {}
 *   POST /stores/v2/inventoryItems/decrement                      {decrementData:[{…, decrementBy, preorderRequest?}], reason?} → {}
 *        (all items or none; 409 INSUFFICIENT_INVENTORY names the item that lacks stock)
 *   (the same under /v2/inventoryItems/…; reads also under /stores/v2/…)
 *   GET /api/v1/inventory/{productId}/history?limit=&offset=&variantId=&cause=  → {changes:[…], metadata}
 */

const id = z.string().trim().min(1).max(100);
const reason = z.string().trim().max(500).optional();

const queryRequest = z.object({
  query: z.object({ filter: z.unknown().optional(), sort: z.unknown().optional(), paging: z.unknown().optional() }).optional(),
});

const getVariantsRequest = z.object({
  inventoryId: id.optional(),
  productId: id.optional(),
  variantIds: z.array(id).max(1000).optional(),
});

const adjustment = (byField: "incrementBy" | "decrementBy") =>
  z.object({
    inventoryId: id.optional(),
    productId: id.optional(),
    variantId: id.optional(),
    [byField]: z.number().int().min(1).max(99_999),
    ...(byField === "decrementBy" ? { preorderRequest: z.boolean().optional() } : {}),
  });

export const incrementRequest = z.object({ incrementData: z.array(adjustment("incrementBy")).min(1).max(300), reason });
export const decrementRequest = z.object({ decrementData: z.array(adjustment("decrementBy")).min(1).max(300), reason });

/** The update call's body (also what the console's stock form is checked against). */
export const updateRequest = z.object({
  inventoryItem: z.object({
    // Read-only fields a client may send back from a read are accepted and ignored.
    id: z.string().max(100).nullish(),
    productId: id.optional(),
    trackQuantity: z.boolean().nullish(),
    variants: z
      .array(
        z.object({
          variantId: id,
          quantity: z.number().int().min(0).max(99_999_999).nullish(),
          inStock: z.boolean().nullish(),
          availableForPreorder: z.boolean().optional(),
        }),
      )
      .max(1000)
      .optional(),
    preorderInfo: z
      .object({
        enabled: z.boolean().optional(),
        message: z.string().trim().min(1).max(250).nullish(),
        limit: z.number().int().min(0).max(100_000).nullish(),
      })
      .optional(),
    lastUpdated: z.unknown().optional(),
    numericId: z.unknown().optional(),
  }),
  reason,
});

const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  variantId: id.optional(),
  cause: z.enum(INVENTORY_CAUSES).optional(),
});

type Adjustment = { inventoryId?: string; productId?: string; variantId?: string; preorderRequest?: boolean } & Record<string, unknown>;
const toAdjustments = (items: Adjustment[], byField: string): AdjustmentInput[] =>
  items.map((i) => ({
    inventoryId: i.inventoryId,
    productId: i.productId,
    variantId: i.variantId,
    by: i[byField] as number,
    preorderRequest: i.preorderRequest,
  }));

/** The caller is checked before the body: an anonymous bad request gets 401, not a validation error. */
const merchantOnly = createMiddleware<AppEnv>(async (c, next) => {
  requireMerchant(c.get("ctx"));
  await next();
});

const reads = new Hono<AppEnv>()
  .use("*", merchantOnly)
  .on(["GET", "POST"], "/query", async (c) => {
    const { query } = parseWith(queryRequest, await readQueryRequest(c));
    return c.json(await queryInventory(c.get("ctx"), query));
  })
  .post("/:inventoryId/getVariants", async (c) => {
    const body = await readBody(c, getVariantsRequest);
    return c.json(await getInventoryVariants(c.get("ctx"), pathId(c, "inventoryId"), body.variantIds));
  });

const writes = new Hono<AppEnv>()
  .use("*", merchantOnly)
  .patch("/product/:productId", async (c) => {
    const body = await readBody(c, updateRequest);
    await updateInventoryItem(c.get("ctx"), pathId(c, "productId"), body.inventoryItem, body.reason || null);
    return c.json({});
  })
  .post("/increment", async (c) => {
    const body = await readBody(c, incrementRequest);
    await incrementInventory(c.get("ctx"), toAdjustments(body.incrementData as Adjustment[], "incrementBy"), body.reason || null);
    return c.json({});
  })
  .post("/decrement", async (c) => {
    const body = await readBody(c, decrementRequest);
    await decrementInventory(c.get("ctx"), toAdjustments(body.decrementData as Adjustment[], "decrementBy"), body.reason || null);
    return c.json({});
  });

/** Inventory calls (full paths; mounted at /). */
export const inventoryRoutes = new Hono<AppEnv>();
for (const base of ["/stores-reader/v2/inventoryItems", "/stores/v2/inventoryItems", "/v2/inventoryItems"]) inventoryRoutes.route(base, reads);
for (const base of ["/stores/v2/inventoryItems", "/v2/inventoryItems"]) inventoryRoutes.route(base, writes);
inventoryRoutes.get("/api/v1/inventory/:productId/history", merchantOnly, async (c) => {
  const q = parseWith(historyQuery, c.req.query());
  return c.json(await inventoryHistory(c.get("ctx"), pathId(c, "productId"), q));
});
