import { and, count, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { loadProduct } from "#worker/catalog";
import { STORES_APP_ID } from "#worker/cart";
import { commit, newEvent, outboxInsertIfChanged } from "#worker/events";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { invalidArgument, notFound, type FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { compileQuery, type FieldMap, type QueryInput } from "#worker/platform/query";
import { emailKey, hitLimits, type Limit } from "#worker/platform/rate-limit";
import { AutomationEventType } from "./events";
import { backInStockRequests } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import { type BackInStockRequestShape, type CreateBackInStockInput, domainEvent, shape } from "./back-in-stock-shape";
export { type BackInStockRequestShape, type CreateBackInStockInput, shape } from "./back-in-stock-shape";
export {
  backInStockByItem,
  backInStockItem,
  type BackInStockItemSummary,
  reportBackInStock,
  reportItemBackInStock,
  reportItemsBackInStock,
  reportRequest,
} from "./back-in-stock-items";
export { notifyRequests, settleWaitingRequests } from "./back-in-stock-notify";

/**
 * Back-in-stock notification requests, as the Wix SDK sends them. A shopper (anonymous allowed: it is a storefront form) asks
 * to hear when a product or variant is back; reading, querying and deleting are the merchant's. When the item's
 * stock goes from none to some (inventory's stock-status event, whatever moved it) or the merchant reports it back,
 * each RECEIVED request moves to PROCESSING, its shopper gets one email, and it ends NOTIFICATION_SENT or FAILED
 * with the reason. Each change emits back_in_stock_notification_request_created / _updated / _deleted.
 *
 * One request per email and item: asking again answers the existing request (200, same id). A request that was
 * already notified (or failed) is armed again (RECEIVED), since the shopper is asking about a new sell-out.
 */

const LIMITS = {
  email: async (email: string): Promise<Limit> => ({
    key: await emailKey("back-in-stock:email", email),
    max: 20,
    windowSeconds: 3600,
    what: "back-in-stock requests for this email",
  }),
  address: (ip: string): Limit => ({ key: `back-in-stock:ip:${ip}`, max: 30, windowSeconds: 3600, what: "back-in-stock requests from this address" }),
};

const emailSchema = z.email().max(254);

/** The request's email and catalogue item, checked: every field's refusal at once. */
async function checkRequest(ctx: Ctx, input: CreateBackInStockInput): Promise<{ email: string; productId: string; variantId: string }> {
  const violations: FieldViolation[] = [];
  const email = String(input.email ?? "").trim();
  if (!emailSchema.safeParse(email).success)
    violations.push({ field: "request.email", description: "must be an email address", violatedRule: "FORMAT", data: {} });
  const ref = input.catalogReference ?? ({} as CreateBackInStockInput["catalogReference"]);
  if (ref.appId !== undefined && ref.appId !== STORES_APP_ID) {
    violations.push({
      field: "request.catalogReference.appId",
      description: `is not a catalogue of this store (Wix Stores is ${STORES_APP_ID})`,
      violatedRule: "VALIDATION",
      data: {},
    });
  }
  const productId = typeof ref.catalogItemId === "string" ? ref.catalogItemId.trim() : "";
  const variantId = typeof ref.options?.variantId === "string" ? ref.options.variantId.trim() : "";
  const product = productId && productId.length <= 100 ? await loadProduct(ctx.db, productId) : null;
  if (!product?.row.visible) {
    violations.push({
      field: "request.catalogReference.catalogItemId",
      description: "is not a product of this store",
      violatedRule: "VALIDATION",
      data: { catalogItemId: productId },
    });
  } else if (variantId && !product.variants.some((v) => v.id === variantId && v.visible)) {
    violations.push({
      field: "request.catalogReference.options.variantId",
      description: "is not a variant of this product",
      violatedRule: "VALIDATION",
      data: { variantId },
    });
  }
  if (violations.length) throw invalidArgument(violations);
  return { email, productId, variantId };
}

/**
 * Creates a request (RECEIVED) for a product or one of its variants, or answers the existing one for that email and
 * item. Bad email, unknown product or variant: 400 with field violations. Rate-limited per email and client address.
 */
export async function createBackInStockRequest(
  ctx: Ctx,
  input: CreateBackInStockInput,
  opts: { clientAddress?: string } = {},
): Promise<{ request: BackInStockRequestShape }> {
  const { email, productId, variantId } = await checkRequest(ctx, input);
  await hitLimits(ctx.db, [await LIMITS.email(email), ...(opts.clientAddress ? [LIMITS.address(opts.clientAddress)] : [])]);

  const key = email.toLowerCase();
  const now = nowIso();
  const id = newId();
  const values = {
    id,
    email,
    emailKey: key,
    appId: STORES_APP_ID,
    catalogItemId: productId,
    variantId,
    options: variantId ? { variantId } : null,
    itemUrl: input.itemUrl?.slice(0, 2000) ?? null,
    itemDetails: input.itemDetails ?? null,
    status: "RECEIVED" as const,
    autoNotified: null,
    reason: null,
    processingKey: null,
    emailId: null,
    createdDate: now,
    updatedDate: now,
  };
  const created = newEvent(ctx, AutomationEventType.backInStockCreated, id, domainEvent("created", shape(values)));
  const [inserted] = await commit(
    ctx,
    [ctx.db.insert(backInStockRequests).values(values).onConflictDoNothing(), outboxInsertIfChanged(ctx.db, created)],
    (r) => (r[0].meta.changes ? [created] : []),
  );
  if (inserted.meta.changes) return { request: shape(values) };
  // Asked before: answer that request, armed again if it was already notified or failed.
  const match = and(
    eq(backInStockRequests.emailKey, key),
    eq(backInStockRequests.catalogItemId, productId),
    eq(backInStockRequests.variantId, variantId),
  );
  const [existing] = await ctx.db.select().from(backInStockRequests).where(match);
  if (existing.status === "NOTIFICATION_SENT" || existing.status === "FAILED") {
    const rearmed = { ...existing, status: "RECEIVED" as const, reason: null, processingKey: null, updatedDate: now };
    const updated = newEvent(ctx, AutomationEventType.backInStockUpdated, existing.id, domainEvent("updated", shape(rearmed)));
    await commit(
      ctx,
      [
        ctx.db
          .update(backInStockRequests)
          .set({ status: "RECEIVED", reason: null, processingKey: null, updatedDate: now })
          .where(and(eq(backInStockRequests.id, existing.id), sql`${backInStockRequests.status} IN ('NOTIFICATION_SENT', 'FAILED')`)),
        outboxInsertIfChanged(ctx.db, updated),
      ],
      [updated],
    );
    return { request: shape(rearmed) };
  }
  return { request: shape(existing) };
}

// ---------------------------------------------------------------------------------------------------------------
// Merchant calls

export async function getBackInStockRequest(ctx: Ctx, id: string): Promise<{ request: BackInStockRequestShape }> {
  requireMerchant(ctx);
  const [row] = await ctx.db.select().from(backInStockRequests).where(eq(backInStockRequests.id, id));
  if (!row) throw notFound("BACK_IN_STOCK_REQUEST_NOT_FOUND", "Back-in-stock notification request", id);
  return { request: shape(row) };
}

export async function deleteBackInStockRequest(ctx: Ctx, id: string): Promise<Record<string, never>> {
  requirePermission(ctx, "automations.manage");
  const [row] = await ctx.db.select().from(backInStockRequests).where(eq(backInStockRequests.id, id));
  if (!row) throw notFound("BACK_IN_STOCK_REQUEST_NOT_FOUND", "Back-in-stock notification request", id);
  const deleted = newEvent(ctx, AutomationEventType.backInStockDeleted, id, domainEvent("deleted", shape(row)));
  const [result] = await commit(
    ctx,
    [ctx.db.delete(backInStockRequests).where(eq(backInStockRequests.id, id)), outboxInsertIfChanged(ctx.db, deleted)],
    (r) => (r[0].meta.changes ? [deleted] : []),
  );
  if (!result.meta.changes) throw notFound("BACK_IN_STOCK_REQUEST_NOT_FOUND", "Back-in-stock notification request", id);
  return {};
}

const requestFields: FieldMap = {
  id: { sql: backInStockRequests.id, type: "string", sortable: true },
  email: { sql: backInStockRequests.email, type: "string", sortable: true },
  status: { sql: backInStockRequests.status, type: "string", sortable: true },
  "catalogReference.catalogItemId": { sql: backInStockRequests.catalogItemId, type: "string", sortable: true },
  "catalogReference.appId": { sql: backInStockRequests.appId, type: "string" },
  "catalogReference.options.variantId": { sql: backInStockRequests.variantId, type: "string" },
  createdDate: { sql: backInStockRequests.createdDate, type: "date", sortable: true },
  updatedDate: { sql: backInStockRequests.updatedDate, type: "date", sortable: true },
};

/** Query (filter, sort, offset paging or cursorPaging.limit), newest first by default. */
export async function queryBackInStockRequests(ctx: Ctx, query: (QueryInput & { cursorPaging?: { limit?: number } }) | undefined) {
  requireMerchant(ctx);
  const q: QueryInput = { ...query };
  if (query?.cursorPaging && q.paging === undefined) q.paging = { limit: query.cursorPaging.limit };
  const compiled = compileQuery(q, requestFields, {
    currency: ctx.currency,
    tieBreaker: backInStockRequests.id,
    defaultSort: [sql`${backInStockRequests.createdDate} DESC`],
  });
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db
      .select()
      .from(backInStockRequests)
      .where(compiled.where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset),
    ctx.db.select({ total: count() }).from(backInStockRequests).where(compiled.where),
  ]);
  return { requests: rows.map(shape), metadata: { count: rows.length, offset: compiled.offset, total } };
}

export const stockStatusSchema = z
  .object({
    productId: z.string().min(1),
    variants: z
      .array(
        z
          .object({
            variantId: z.string(),
            inStock: z.boolean(),
            quantity: z.coerce.number().nullish(),
            oldValue: z.object({ inStock: z.boolean() }).loose().optional(),
          })
          .loose(),
      )
      .default([]),
  })
  .loose();

/** The requests an item coming back in stock answers: the variant's own, and the product-wide ones. */
export function requestsForVariants(productId: string, variantIds: string[]) {
  return sql`${backInStockRequests.catalogItemId} = ${productId} AND ${backInStockRequests.variantId} IN (SELECT value FROM json_each(${JSON.stringify([...variantIds, ""])}))`;
}

/** Back-in-stock requests waiting for their item (RECEIVED) and notified, for a caller's batch (the dashboard). */
export function backInStockCountsRead(db: Db) {
  return db
    .select({
      waiting: sql<number>`coalesce(sum(${backInStockRequests.status} = 'RECEIVED'), 0)`.as("bis_waiting"),
      notified: sql<number>`coalesce(sum(${backInStockRequests.status} = 'NOTIFICATION_SENT'), 0)`.as("bis_notified"),
    })
    .from(backInStockRequests);
}
