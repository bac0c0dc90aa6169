import { and, count, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { products, variants } from "#worker/catalog";
import { requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { parseWith } from "#worker/platform/validation";
import { backInStockRequests } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import { notifyRequests } from "./back-in-stock-notify";
import { type BackInStockRequestShape, shape } from "./back-in-stock-shape";

/** The merchant's view of back-in-stock requests by item (console), and reporting items back in stock. */

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

export const r = backInStockRequests;
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
export async function backInStockByItem(
  ctx: Ctx,
  opts: { limit: number; offset: number },
): Promise<{ items: BackInStockItemSummary[]; total: number }> {
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
  const [rows, [{ total }]] = await runBatch(ctx.db, [
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
  const [rows, [counts], [product]] = await runBatch(ctx.db, [
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
  if (!counts.total && !product)
    throw notFound("BACK_IN_STOCK_ITEM_NOT_FOUND", "Back-in-stock item", item.variantId ? `${item.productId}/${item.variantId}` : item.productId);
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
    catalogReference: z
      .object({ appId: z.string().optional(), catalogItemId: z.string().min(1).max(100), options: z.record(z.string(), z.unknown()).nullish() })
      .optional(),
    requestIds: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
    itemDetails: z.record(z.string(), z.unknown()).optional(),
    extraAutomationTemplateParameters: z.record(z.string(), z.string()).optional(),
  })
  .refine((r) => !!r.catalogReference !== !!r.requestIds, {
    message: "give catalogReference or requestIds (one of them)",
    path: ["catalogReference"],
  });

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
export async function reportItemBackInStock(
  ctx: Ctx,
  item: { productId: string; variantId: string },
): Promise<{ sent: number; failed: number; held: number }> {
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
