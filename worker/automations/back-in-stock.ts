import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import { discountedPrice, loadProduct, products, variants } from "#worker/catalog";
import { STORES_APP_ID } from "../cart/schemas";
import { emailOutcomes, sendEmail } from "../email/send";
import { flushEvents, newEvent, outboxInsertIfChanged, unflushedRowsOf, type EventEnvelope, type Statement } from "../events/outbox";
import { outbox } from "../events/tables";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "../platform/context";
import type { Db } from "../platform/db";
import { invalidArgument, notFound, type FieldViolation } from "../platform/errors";
import { newId } from "../platform/ids";
import { formatMoney } from "../platform/money";
import { publicOrigin } from "../platform/public-origin";
import { compileQuery, type FieldMap, type QueryInput } from "../platform/query";
import { emailKey, hitLimits, type Limit } from "../platform/rate-limit";
import { parseWith } from "../platform/validation";
import { AutomationEventType } from "./events";
import { backInStockRequests } from "./tables";

/**
 * Back-in-stock notification requests (wire doc §2.5). A shopper (anonymous allowed: it is a storefront form) asks
 * to hear when a product or variant is back; reading, querying and deleting are the merchant's. When the item's
 * stock goes from none to some (inventory's stock-status event, whatever moved it) or the merchant reports it back,
 * each RECEIVED request moves to PROCESSING, its shopper gets one email, and it ends NOTIFICATION_SENT or FAILED
 * with the reason. Each change emits back_in_stock_notification_request_created / _updated / _deleted.
 *
 * One request per email and item: asking again answers the existing request (200, same id). A request that was
 * already notified (or failed) is armed again (RECEIVED), since the shopper is asking about a new sell-out.
 */

export interface BackInStockRequestShape {
  id: string;
  email: string;
  catalogReference: { appId: string; catalogItemId: string; options?: Record<string, unknown> };
  status: "RECEIVED" | "PROCESSING" | "NOTIFICATION_SENT" | "FAILED";
  autoNotified?: boolean;
  createdDate: string;
  updatedDate: string;
  itemUrl?: string;
  itemDetails?: Record<string, unknown>;
  /** Why it FAILED (an extension of the Wix shape). */
  failureReason?: string;
}

export interface CreateBackInStockInput {
  email: string;
  catalogReference: { appId?: string; catalogItemId: string; options?: { variantId?: string } & Record<string, unknown> };
  itemUrl?: string;
  itemDetails?: Record<string, unknown>;
}

/** Shopper requests per address and per client address (a form anyone may post). */
const LIMITS = {
  email: async (email: string): Promise<Limit> => ({ key: await emailKey("back-in-stock:email", email), max: 20, windowSeconds: 3600, what: "back-in-stock requests for this email" }),
  address: (ip: string): Limit => ({ key: `back-in-stock:ip:${ip}`, max: 30, windowSeconds: 3600, what: "back-in-stock requests from this address" }),
};

const emailSchema = z.email().max(254);

/**
 * Creates a request (RECEIVED) for a product or one of its variants, or answers the existing one for that email and
 * item. Bad email, unknown product or variant: 400 with field violations. Rate-limited per email and client address.
 */
export async function createBackInStockRequest(ctx: Ctx, input: CreateBackInStockInput, opts: { clientAddress?: string } = {}): Promise<{ request: BackInStockRequestShape }> {
  const violations: FieldViolation[] = [];
  const email = String(input.email ?? "").trim();
  if (!emailSchema.safeParse(email).success) violations.push({ field: "request.email", description: "must be an email address", violatedRule: "FORMAT", data: {} });
  const ref = input.catalogReference ?? ({} as CreateBackInStockInput["catalogReference"]);
  if (ref.appId !== undefined && ref.appId !== STORES_APP_ID) {
    violations.push({ field: "request.catalogReference.appId", description: `is not a catalogue of this store (Wix Stores is ${STORES_APP_ID})`, violatedRule: "VALIDATION", data: {} });
  }
  const productId = typeof ref.catalogItemId === "string" ? ref.catalogItemId.trim() : "";
  const variantId = typeof ref.options?.variantId === "string" ? ref.options.variantId.trim() : "";
  const product = productId && productId.length <= 100 ? await loadProduct(ctx.db, productId) : null;
  if (!product || !product.row.visible) {
    violations.push({ field: "request.catalogReference.catalogItemId", description: "is not a product of this store", violatedRule: "VALIDATION", data: { catalogItemId: productId } });
  } else if (variantId && !product.variants.some((v) => v.id === variantId && v.visible)) {
    violations.push({ field: "request.catalogReference.options.variantId", description: "is not a variant of this product", violatedRule: "VALIDATION", data: { variantId } });
  }
  if (violations.length) throw invalidArgument(violations);
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
  const [inserted] = (await ctx.db.batch([
    ctx.db.insert(backInStockRequests).values(values).onConflictDoNothing(),
    outboxInsertIfChanged(ctx.db, created),
  ])) as D1Result[];
  if (inserted.meta.changes) {
    ctx.waitUntil(flushEvents(ctx.env, ctx.db, [created]));
    return { request: shape(values) };
  }
  // Asked before: answer that request, armed again if it was already notified or failed.
  const match = and(eq(backInStockRequests.emailKey, key), eq(backInStockRequests.catalogItemId, productId), eq(backInStockRequests.variantId, variantId));
  const [existing] = await ctx.db.select().from(backInStockRequests).where(match);
  if (existing.status === "NOTIFICATION_SENT" || existing.status === "FAILED") {
    const rearmed = { ...existing, status: "RECEIVED" as const, reason: null, processingKey: null, updatedDate: now };
    const updated = newEvent(ctx, AutomationEventType.backInStockUpdated, existing.id, domainEvent("updated", shape(rearmed)));
    await ctx.db.batch([
      ctx.db
        .update(backInStockRequests)
        .set({ status: "RECEIVED", reason: null, processingKey: null, updatedDate: now })
        .where(and(eq(backInStockRequests.id, existing.id), sql`${backInStockRequests.status} IN ('NOTIFICATION_SENT', 'FAILED')`)),
      outboxInsertIfChanged(ctx.db, updated),
    ]);
    ctx.waitUntil(flushEvents(ctx.env, ctx.db, [updated]));
    return { request: shape(rearmed) };
  }
  return { request: shape(existing) };
}

type Row = typeof backInStockRequests.$inferSelect;

export function shape(r: Row): BackInStockRequestShape {
  return {
    id: r.id,
    email: r.email,
    catalogReference: { appId: r.appId, catalogItemId: r.catalogItemId, ...(r.variantId ? { options: { variantId: r.variantId } } : {}) },
    status: r.status,
    ...(r.autoNotified !== null ? { autoNotified: r.autoNotified } : {}),
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
    ...(r.itemUrl ? { itemUrl: r.itemUrl } : {}),
    ...(r.itemDetails ? { itemDetails: r.itemDetails } : {}),
    ...(r.reason ? { failureReason: r.reason } : {}),
  };
}

/** Domain-event data (wire doc §5): `{entityId, entityFqdn, slug, createdEvent | updatedEvent | deletedEvent}`. */
function domainEvent(slug: "created" | "updated" | "deleted", entity: BackInStockRequestShape) {
  const base = { entityId: entity.id, entityFqdn: "wix.ecom.v1.back_in_stock_notification_request", slug };
  if (slug === "created") return { ...base, createdEvent: { entity } };
  if (slug === "updated") return { ...base, updatedEvent: { currentEntity: entity } };
  return { ...base, deletedEvent: { deletedEntity: entity } };
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
  const [result] = (await ctx.db.batch([ctx.db.delete(backInStockRequests).where(eq(backInStockRequests.id, id)), outboxInsertIfChanged(ctx.db, deleted)])) as D1Result[];
  if (!result.meta.changes) throw notFound("BACK_IN_STOCK_REQUEST_NOT_FOUND", "Back-in-stock notification request", id);
  ctx.waitUntil(flushEvents(ctx.env, ctx.db, [deleted]));
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
  const compiled = compileQuery(q, requestFields, { currency: ctx.currency, tieBreaker: backInStockRequests.id, defaultSort: [sql`${backInStockRequests.createdDate} DESC`] });
  const [rows, [{ total }]] = await ctx.db.batch([
    ctx.db.select().from(backInStockRequests).where(compiled.where).orderBy(...compiled.orderBy).limit(compiled.limit).offset(compiled.offset),
    ctx.db.select({ total: count() }).from(backInStockRequests).where(compiled.where),
  ]);
  return { requests: rows.map(shape), metadata: { count: rows.length, offset: compiled.offset, total } };
}

// ---------------------------------------------------------------------------------------------------------------
// The merchant's view by item (console)

export interface BackInStockItemSummary {
  productId: string;
  /** "" for requests about the product as a whole. */
  variantId: string;
  /** Null when the product is gone. */
  productName: string | null;
  /** The variant's choices (empty for the product as a whole, or a variant that is gone). */
  choices: Record<string, string>;
  waiting: number;
  processing: number;
  notified: number;
  failed: number;
  lastRequested: string;
  /** Stock now: the tracked quantity (the product's total for product-wide requests), or null when untracked. */
  quantity: number | null;
  inStock: boolean;
}

const r = backInStockRequests;
const countOf = (status: BackInStockRequestShape["status"]) => sql<number>`coalesce(sum(${r.status} = ${status}), 0)`;

/**
 * The item's stock as the summary shows it, from the joined product and variant (or all the product's variants).
 * Every computed column is named: D1's batch answers rows keyed by column name, so two unnamed expressions with the
 * same text (the counts differ only in a bound status) would overwrite each other.
 */
const stockColumns = {
  quantity: sql<number | null>`CASE WHEN ${products.trackInventory} THEN
    CASE WHEN ${variants.id} IS NOT NULL THEN coalesce(${variants.quantity}, 0)
    ELSE (SELECT coalesce(sum(coalesce(v2.quantity, 0)), 0) FROM variants v2 WHERE v2.product_id = ${products.id} AND v2.visible = 1) END
    END`.as("stock_quantity"),
  inStock: sql<number>`CASE WHEN ${products.id} IS NULL THEN 0
    WHEN ${variants.id} IS NOT NULL THEN (CASE WHEN ${products.trackInventory} THEN coalesce(${variants.quantity}, 0) > 0 ELSE ${variants.inStock} END)
    ELSE EXISTS (SELECT 1 FROM variants v2 WHERE v2.product_id = ${products.id} AND v2.visible = 1
      AND (CASE WHEN ${products.trackInventory} THEN coalesce(v2.quantity, 0) > 0 ELSE v2.in_stock END)) END`.as("stock_in_stock"),
};

/**
 * Back-in-stock requests grouped by item (product and variant): how many wait, are being sent, were notified or
 * failed, most waiting first, with the product's name and the stock now. Counted in SQL over one page of items;
 * one batch (one D1 round trip) with the number of items.
 */
export async function backInStockByItem(ctx: Ctx, opts: { limit: number; offset: number }): Promise<{ items: BackInStockItemSummary[]; total: number }> {
  requireMerchant(ctx);
  const page = ctx.db
    .select({
      productId: r.catalogItemId,
      variantId: r.variantId,
      waiting: countOf("RECEIVED").as("waiting"),
      processing: countOf("PROCESSING").as("processing"),
      notified: countOf("NOTIFICATION_SENT").as("notified"),
      failed: countOf("FAILED").as("failed"),
      lastRequested: sql<string>`max(${r.createdDate})`.as("last_requested"),
    })
    .from(r)
    .groupBy(r.catalogItemId, r.variantId)
    .orderBy(sql`waiting DESC, last_requested DESC, ${r.catalogItemId}, ${r.variantId}`)
    .limit(opts.limit)
    .offset(opts.offset)
    .as("page");
  const [rows, [{ total }]] = await ctx.db.batch([
    ctx.db
      .select({
        productId: page.productId,
        variantId: page.variantId,
        waiting: page.waiting,
        processing: page.processing,
        notified: page.notified,
        failed: page.failed,
        lastRequested: page.lastRequested,
        productName: products.name,
        choices: variants.choices,
        ...stockColumns,
      })
      .from(page)
      .leftJoin(products, eq(products.id, page.productId))
      .leftJoin(variants, and(eq(variants.productId, page.productId), eq(variants.id, page.variantId)))
      .orderBy(sql`${page.waiting} DESC, ${page.lastRequested} DESC, ${page.productId}, ${page.variantId}`),
    ctx.db.select({ total: sql<number>`count(DISTINCT ${r.catalogItemId} || char(31) || ${r.variantId})`.as("total") }).from(r),
  ]);
  return {
    items: rows.map((row) => ({ ...row, choices: row.choices ?? {}, inStock: !!row.inStock })),
    total,
  };
}

/**
 * One item's requests (newest first, one page), its counts and its product: one batch (one D1 round trip).
 * 404 when no request and no product match.
 */
export async function backInStockItem(
  ctx: Ctx,
  item: { productId: string; variantId: string },
  opts: { limit: number; offset: number },
): Promise<{ item: BackInStockItemSummary; requests: BackInStockRequestShape[]; total: number }> {
  requireMerchant(ctx);
  const match = and(eq(r.catalogItemId, item.productId), eq(r.variantId, item.variantId));
  const [rows, [counts], [product]] = await ctx.db.batch([
    ctx.db.select().from(r).where(match).orderBy(sql`${r.createdDate} DESC, ${r.id}`).limit(opts.limit).offset(opts.offset),
    ctx.db
      .select({
        waiting: countOf("RECEIVED").as("waiting"),
        processing: countOf("PROCESSING").as("processing"),
        notified: countOf("NOTIFICATION_SENT").as("notified"),
        failed: countOf("FAILED").as("failed"),
        total: count().as("total"),
        lastRequested: sql<string | null>`max(${r.createdDate})`.as("last_requested"),
      })
      .from(r)
      .where(match),
    ctx.db
      .select({ productName: products.name, choices: variants.choices, ...stockColumns })
      .from(products)
      .leftJoin(variants, and(eq(variants.productId, products.id), eq(variants.id, item.variantId)))
      .where(eq(products.id, item.productId)),
  ]);
  if (!counts.total && !product) throw notFound("BACK_IN_STOCK_ITEM_NOT_FOUND", "Back-in-stock item", item.variantId ? `${item.productId}/${item.variantId}` : item.productId);
  const { total, lastRequested, ...tally } = counts;
  return {
    item: {
      ...item,
      ...tally,
      lastRequested: lastRequested ?? "",
      productName: product?.productName ?? null,
      choices: product?.choices ?? {},
      quantity: product?.quantity ?? null,
      inStock: !!product?.inStock,
    },
    requests: rows.map(shape),
    total,
  };
}

export const reportRequest = z
  .object({
    catalogReference: z.object({ appId: z.string().optional(), catalogItemId: z.string().min(1).max(100), options: z.record(z.string(), z.unknown()).nullish() }).optional(),
    requestIds: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
    itemDetails: z.record(z.string(), z.unknown()).optional(),
    extraAutomationTemplateParameters: z.record(z.string(), z.string()).optional(),
  })
  .refine((r) => !!r.catalogReference !== !!r.requestIds, { message: "give catalogReference or requestIds (one of them)", path: ["catalogReference"] });

/** The merchant reports an item back in stock: its RECEIVED requests (or the ones named) are notified now. */
export async function reportItemsBackInStock(ctx: Ctx, body: unknown): Promise<Record<string, never>> {
  await reportBackInStock(ctx, body);
  return {};
}

/**
 * reportItemsBackInStock with its outcome (the console shows it): how many shoppers were emailed, how many failed
 * (with the reason on each request), and how many wait for the email sweep's retries.
 */
export async function reportBackInStock(ctx: Ctx, body: unknown): Promise<{ sent: number; failed: number; held: number }> {
  requirePermission(ctx, "automations.manage");
  const req = parseWith(reportRequest, body);
  const variantId = typeof req.catalogReference?.options?.variantId === "string" ? req.catalogReference.options.variantId : null;
  const match = req.requestIds
    ? sql`${backInStockRequests.id} IN (SELECT value FROM json_each(${JSON.stringify(req.requestIds)}))`
    : variantId
      ? sql`${backInStockRequests.catalogItemId} = ${req.catalogReference!.catalogItemId} AND ${backInStockRequests.variantId} IN (${variantId}, '')`
      : sql`${backInStockRequests.catalogItemId} = ${req.catalogReference!.catalogItemId}`;
  return notifyRequests(ctx, match, `report:${newId()}`);
}

/**
 * The console's "report back in stock" for one item of the by-item view. A variant is reported as the API reports
 * it (its own requests and the product-wide ones, as when its stock comes back). The product as a whole is reported
 * by naming its product-wide requests, so shoppers waiting for one particular variant are not told it is back.
 */
export async function reportItemBackInStock(ctx: Ctx, item: { productId: string; variantId: string }): Promise<{ sent: number; failed: number; held: number }> {
  requirePermission(ctx, "automations.manage");
  if (item.variantId) return reportBackInStock(ctx, { catalogReference: { catalogItemId: item.productId, options: { variantId: item.variantId } } });
  const waiting = await ctx.db
    .select({ id: r.id })
    .from(r)
    .where(and(eq(r.catalogItemId, item.productId), eq(r.variantId, ""), eq(r.status, "RECEIVED")))
    .limit(500);
  const total = { sent: 0, failed: 0, held: 0 };
  // The report call takes at most 100 request ids.
  for (let i = 0; i < waiting.length; i += 100) {
    const one = await reportBackInStock(ctx, { requestIds: waiting.slice(i, i + 100).map((w) => w.id) });
    total.sent += one.sent;
    total.failed += one.failed;
    total.held += one.held;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Notifying

/**
 * Notifies the RECEIVED requests `match` selects, under `key` (the event or report that caused it): they move to
 * PROCESSING, each shopper gets one email (keyed by request and cause, so a redelivered event never sends twice),
 * and each ends NOTIFICATION_SENT, or FAILED with the reason. A redelivery finishes the requests its key claimed.
 */
export async function notifyRequests(ctx: Ctx, match: ReturnType<typeof sql>, key: string): Promise<{ sent: number; failed: number; held: number }> {
  const { db } = ctx;
  const now = nowIso();
  const received = await db.select().from(backInStockRequests).where(and(eq(backInStockRequests.status, "RECEIVED"), match)).limit(500);
  const events: EventEnvelope[] = [];
  if (received.length) {
    const statements: Statement[] = [];
    for (const r of received) {
      const e = newEvent(ctx, AutomationEventType.backInStockUpdated, r.id, domainEvent("updated", shape({ ...r, status: "PROCESSING", processingKey: key, updatedDate: now })));
      statements.push(
        db
          .update(backInStockRequests)
          .set({ status: "PROCESSING", processingKey: key, updatedDate: now })
          .where(and(eq(backInStockRequests.id, r.id), eq(backInStockRequests.status, "RECEIVED"))),
        outboxInsertIfChanged(db, e),
      );
      events.push(e);
    }
    await db.batch(statements as [Statement, ...Statement[]]);
  }
  const mine = await db.select().from(backInStockRequests).where(and(eq(backInStockRequests.status, "PROCESSING"), eq(backInStockRequests.processingKey, key)));
  let sent = 0;
  let failed = 0;
  let held = 0;
  const products = new Map<string, Awaited<ReturnType<typeof loadProduct>>>();
  for (const r of mine) {
    if (!products.has(r.catalogItemId)) products.set(r.catalogItemId, await loadProduct(db, r.catalogItemId));
    const outcome = await notifyOne(ctx, r, products.get(r.catalogItemId) ?? null, key);
    if ("held" in outcome) {
      // The transport failed but the email sweep will try again: PROCESSING until that settles (settleWaitingRequests).
      await db.update(backInStockRequests).set({ emailId: outcome.emailId, updatedDate: nowIso() }).where(and(eq(backInStockRequests.id, r.id), eq(backInStockRequests.status, "PROCESSING")));
      held++;
      continue;
    }
    const finish = finishRequest(ctx, r, outcome);
    await db.batch(finish.statements);
    events.push(finish.event);
    if (outcome.status === "NOTIFICATION_SENT") sent++;
    else failed++;
  }
  // Events whose guarded row did not change were never written: flushing only sends what exists.
  if (events.length) ctx.waitUntil(flushExisting(ctx, events));
  return { sent, failed, held };
}

/** A PROCESSING request's end (NOTIFICATION_SENT or FAILED) and its updated event, guarded on it still processing. */
function finishRequest(ctx: Ctx, r: Row, outcome: Outcome): { statements: [Statement, Statement]; event: EventEnvelope } {
  const done = { ...r, ...outcome, updatedDate: nowIso() };
  const event = newEvent(ctx, AutomationEventType.backInStockUpdated, r.id, domainEvent("updated", shape(done)));
  const update = ctx.db
    .update(backInStockRequests)
    .set({ status: outcome.status, reason: outcome.reason, autoNotified: outcome.autoNotified, emailId: outcome.emailId, updatedDate: done.updatedDate })
    .where(and(eq(backInStockRequests.id, r.id), eq(backInStockRequests.status, "PROCESSING"), r.processingKey ? eq(backInStockRequests.processingKey, r.processingKey) : undefined));
  return { statements: [update, outboxInsertIfChanged(ctx.db, event)], event };
}

/**
 * Sweep: requests whose email's first hand-over failed (PROCESSING with an email) end NOTIFICATION_SENT or FAILED
 * (SEND_FAILED) once the email sweep's retries settle it. Returns how many it settled.
 */
export async function settleWaitingRequests(ctx: Ctx): Promise<number> {
  const { db } = ctx;
  const waiting = await db
    .select()
    .from(backInStockRequests)
    .where(and(eq(backInStockRequests.status, "PROCESSING"), isNotNull(backInStockRequests.emailId)))
    .orderBy(backInStockRequests.updatedDate)
    .limit(100);
  if (!waiting.length) return 0;
  const outcomes = await emailOutcomes(db, waiting.map((r) => r.emailId!));
  const statements: Statement[] = [];
  const events: EventEnvelope[] = [];
  for (const r of waiting) {
    const o = outcomes.get(r.emailId!);
    if (o?.retrying) continue;
    const outcome: Outcome =
      o?.status === "SENT"
        ? { status: "NOTIFICATION_SENT", reason: null, autoNotified: true, emailId: r.emailId }
        : o?.status === "SUPPRESSED"
          ? { status: "FAILED", reason: "UNSUBSCRIBED", autoNotified: null, emailId: r.emailId }
          : { status: "FAILED", reason: `SEND_FAILED: ${o?.error ?? "transport error"}`.slice(0, 500), autoNotified: null, emailId: r.emailId };
    const finish = finishRequest(ctx, r, outcome);
    statements.push(...finish.statements);
    events.push(finish.event);
  }
  if (!statements.length) return 0;
  await db.batch(statements as [Statement, ...Statement[]]);
  ctx.waitUntil(flushExisting(ctx, events));
  return events.length;
}

async function flushExisting(ctx: Ctx, events: EventEnvelope[]) {
  const ids = events.map((e) => e.id);
  const existing = new Set((await ctx.db.select({ id: outbox.id }).from(outbox).where(unflushedRowsOf(ids))).map((r) => r.id));
  const toSend = events.filter((e) => existing.has(e.id));
  if (toSend.length) await flushEvents(ctx.env, ctx.db, toSend);
}

type Outcome = { status: "NOTIFICATION_SENT" | "FAILED"; reason: string | null; autoNotified: boolean | null; emailId: string | null };

async function notifyOne(ctx: Ctx, r: Row, product: Awaited<ReturnType<typeof loadProduct>>, key: string): Promise<Outcome | { held: true; emailId: string }> {
  const variant = product?.variants.find((v) => (r.variantId ? v.id === r.variantId : v.visible));
  if (!product || !product.row.visible || !variant) return { status: "FAILED", reason: "ITEM_NOT_FOUND", autoNotified: null, emailId: null };
  const p = product.row;
  // Name, price, image and link come from the catalogue, never from what the form sent (no spoofed links in our mail).
  const price = discountedPrice(variant.price ?? p.price, p.discountType, p.discountValue, ctx.currency);
  const image = p.media.find((m) => m.mediaType === "image");
  const imageUrl = image ? (image.url.startsWith("/") ? publicOrigin(ctx) + image.url : image.url) : null;
  const options = Object.values(variant.choices).join(" / ");
  const result = await sendEmail(
    ctx,
    r.email,
    "back-in-stock",
    { item: { name: p.name, price: formatMoney(price, ctx.currency), imageUrl, options: r.variantId && options ? options : null }, itemUrl: `${publicOrigin(ctx)}/products/${p.slug}` },
    { idempotencyKey: `back-in-stock:${r.id}:${key}`, marketing: true, awaitDelivery: true },
  );
  if (result.status === "SUPPRESSED") return { status: "FAILED", reason: "UNSUBSCRIBED", autoNotified: null, emailId: result.id };
  if (result.retrying) return { held: true, emailId: result.id };
  if (result.status === "FAILED") return { status: "FAILED", reason: `SEND_FAILED: ${result.error ?? "transport error"}`.slice(0, 500), autoNotified: null, emailId: result.id };
  return { status: "NOTIFICATION_SENT", reason: null, autoNotified: true, emailId: result.id };
}

/** The stock-status event's variants that came back in stock (from out of stock). */
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
