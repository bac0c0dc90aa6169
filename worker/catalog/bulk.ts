import { eq, inArray, sql, type SQL } from "drizzle-orm";
import { commit, newEvent, outboxInsertIfChanged, type EventEnvelope, type Statement } from "#worker/events";
import { EventType } from "#worker/events";
import { nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import { currencyDigits, toMajor, toMinor } from "#worker/platform/money";
import { refreshSummary } from "./product-reads";
import type { z } from "zod";
import type { bulkAdjustRequest, bulkDeleteRequest, bulkUpdateRequest } from "./schemas";
import { releaseUnusedMedia } from "./media";
import { rawStatement } from "#worker/platform/db";
import { products, variants, type StoredMedia } from "./tables";

/**
 * Bulk edits. Each id succeeds or fails on its own; successes are written together in one batch, each with its
 * event, and the answer lists every id in request order with `bulkActionMetadata` counts.
 */

interface ItemResult {
  itemMetadata: { id: string; originalIndex: number; success: boolean; error?: { code: string; description: string; data: Record<string, unknown> } };
}

function summary(results: ItemResult[]) {
  const ok = results.filter((r) => r.itemMetadata.success).length;
  return { results, bulkActionMetadata: { totalSuccesses: ok, totalFailures: results.length - ok, undetailedFailures: 0 } };
}

const notFoundError = (id: string) => ({ code: "PRODUCT_NOT_FOUND", description: `Product ${id} not found`, data: { productId: id } });

/**
 * The new updated date of a row: now, or 1 ms past the stored one when that is not earlier (same millisecond, or a
 * clock behind). Every write must move the version on, or a concurrent read-modify-write's version check passes.
 */
function nextStampSql(now: string): SQL {
  return sql`(CASE WHEN ${products.updatedDate} >= ${now} THEN strftime('%Y-%m-%dT%H:%M:%fZ', ${products.updatedDate}, '+0.001 seconds') ELSE ${now} END)`;
}

interface ProductWork {
  id: string;
  update: Statement;
  event: EventEnvelope;
  /** Runs right after the event's insert, so `changes() > 0` in it means the product's update applied. */
  variantUpdate?: Statement;
}

/** Runs one guarded UPDATE per product followed by its event (written only if the update changed the row). */
async function runPerProduct(ctx: Ctx, items: ProductWork[]): Promise<boolean[]> {
  if (!items.length) return [];
  const statements: Statement[] = [];
  const updateAt: number[] = [];
  for (const i of items) {
    updateAt.push(statements.length);
    statements.push(i.update, outboxInsertIfChanged(ctx.db, i.event));
    if (i.variantUpdate) statements.push(i.variantUpdate);
  }
  statements.push(
    refreshSummary(
      ctx.db,
      items.map((i) => i.id),
      ctx.currency,
    ),
  );
  let applied: boolean[] = [];
  await commit(ctx, statements, (results) => {
    applied = items.map((_, n) => ((results[updateAt[n]] as D1Result).meta.changes ?? 0) > 0);
    return items.filter((_, n) => applied[n]).map((i) => i.event);
  });
  return applied;
}

/** Sets the same value (price, cost, weight, visibility, brand, ribbon, type) on many products. */
export async function bulkUpdateProducts(ctx: Ctx, req: z.output<typeof bulkUpdateRequest>) {
  requirePermission(ctx, "catalog.write");
  const { set } = req;
  const now = nowIso();
  const fields = {
    ...(set.price !== undefined ? { price: toMinor(set.price, ctx.currency) } : {}),
    ...(set.cost !== undefined ? { cost: toMinor(set.cost, ctx.currency) } : {}),
    ...(set.weight !== undefined ? { weight: set.weight } : {}),
    ...(set.visible !== undefined ? { visible: set.visible } : {}),
    ...(set.brand !== undefined ? { brand: set.brand || null } : {}),
    ...(set.ribbon !== undefined ? { ribbon: set.ribbon || null } : {}),
    ...(set.productType !== undefined ? { productType: set.productType } : {}),
  };
  const changedFields = Object.keys(set).map((k) => (k === "price" ? "priceData" : k === "cost" ? "costAndProfitData" : k));
  const unique = [...new Set(req.ids)];
  const applied = await runPerProduct(
    ctx,
    unique.map((id) => ({
      id,
      update: ctx.db
        .update(products)
        .set({ ...fields, updatedDate: nextStampSql(now), lastUpdated: nextStampSql(now) })
        .where(eq(products.id, id)),
      event: newEvent(ctx, EventType.productChanged, id, { productId: id, changedFields }),
      // A variant with its own price takes the new price as well, or shoppers would keep paying the old one.
      variantUpdate:
        fields.price !== undefined
          ? ctx.db
              .update(variants)
              .set({ price: fields.price })
              .where(sql`${variants.productId} = ${id} AND ${variants.price} IS NOT NULL AND changes() > 0`)
          : undefined,
    })),
  );
  const ok = new Map(unique.map((id, n) => [id, applied[n]]));
  return summary(
    req.ids.map((id, originalIndex) => ({
      itemMetadata: ok.get(id) ? { id, originalIndex, success: true } : { id, originalIndex, success: false, error: notFoundError(id) },
    })),
  );
}

/** The variants with their own price, per product, in id order. */
async function variantPrices(ctx: Ctx, productIds: string[]): Promise<Map<string, { id: string; price: number }[]>> {
  const rows = await ctx.db
    .select({ productId: variants.productId, id: variants.id, price: variants.price })
    .from(variants)
    .where(sql`${variants.productId} IN (SELECT value FROM json_each(${JSON.stringify(productIds)})) AND ${variants.price} IS NOT NULL`)
    .orderBy(variants.productId, variants.id);
  const out = new Map<string, { id: string; price: number }[]>();
  for (const r of rows) out.set(r.productId, [...(out.get(r.productId) ?? []), { id: r.id, price: r.price! }]);
  return out;
}

/** The variant prices a product had when read, as one string, so its update can be guarded on them not moving. */
const priceStamp = (priced: { id: string; price: number }[]) => priced.map((v) => `${v.id}:${v.price}`).join(",");

function variantPriceStamp(productId: string): SQL {
  return sql`(SELECT coalesce(group_concat(s, ','), '') FROM (SELECT v.id || ':' || v.price AS s FROM variants v
    WHERE v.product_id = ${productId} AND v.price IS NOT NULL ORDER BY v.id))`;
}

/** Sets each variant's new price (one JSON parameter, id to price) once the product's guarded update applied. */
function variantPriceUpdate(ctx: Ctx, productId: string, next: Record<string, number>): Statement {
  const map = JSON.stringify(next);
  return rawStatement(
    ctx.db,
    sql`UPDATE variants SET price = json_extract(${map}, '$."' || id || '"')
      WHERE product_id = ${productId} AND json_type(${map}, '$."' || id || '"') IS NOT NULL AND changes() > 0`,
  );
}

type Adjustment = { amount?: number; percentage?: { rate: number; roundToInt: boolean } };

/** New value after an adjustment; money in minor units, weight in kg (3 decimals). */
function adjusted(value: number, adj: Adjustment, kind: "money" | "weight", currency: string): number {
  const unit = kind === "money" ? 10 ** currencyDigits(currency) : 1000;
  let next: number;
  if (adj.amount !== undefined) next = value + (kind === "money" ? toMinor(adj.amount, currency) : Math.round(adj.amount * unit));
  else next = value * (1 + adj.percentage!.rate / 100);
  if (adj.percentage?.roundToInt) return Math.round(next / unit) * unit;
  return Math.round(next);
}

/**
 * Adjusts price, cost or weight by an amount or a percentage (optionally rounded to whole units). Each product's
 * update is guarded on the values it was computed from, so a concurrent edit makes that item fail instead of
 * being overwritten.
 */
export async function bulkAdjustProducts(ctx: Ctx, req: z.output<typeof bulkAdjustRequest>) {
  requirePermission(ctx, "catalog.write");
  const unique = [...new Set(req.ids)];
  const rows = await ctx.db
    .select({ id: products.id, price: products.price, cost: products.cost, weight: products.weight })
    .from(products)
    .where(inArray(products.id, unique));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ownPrices = req.adjust.price ? await variantPrices(ctx, unique) : new Map<string, { id: string; price: number }[]>();
  const failures = new Map<string, ItemResult["itemMetadata"]["error"]>();
  const now = nowIso();
  const work: ProductWork[] = [];
  for (const id of unique) {
    const row = byId.get(id);
    if (!row) {
      failures.set(id, notFoundError(id));
      continue;
    }
    const next: { price?: number; cost?: number; weight?: number } = {};
    const problems: string[] = [];
    const priced = ownPrices.get(id) ?? [];
    const variantNext: Record<string, number> = {};
    if (req.adjust.price) {
      next.price = adjusted(row.price, req.adjust.price, "money", ctx.currency);
      for (const v of priced) variantNext[v.id] = adjusted(v.price, req.adjust.price, "money", ctx.currency);
      const lowest = Math.min(...Object.values(variantNext));
      if (lowest < 0) problems.push(`variant price would be negative (${toMajor(lowest, ctx.currency)})`);
    }
    if (req.adjust.cost) {
      if (row.cost === null) problems.push("has no cost to adjust");
      else next.cost = adjusted(row.cost, req.adjust.cost, "money", ctx.currency);
    }
    if (req.adjust.weight) {
      if (row.weight === null) problems.push("has no weight to adjust");
      else next.weight = adjusted(Math.round(row.weight * 1000), req.adjust.weight, "weight", ctx.currency) / 1000;
    }
    for (const [k, v] of Object.entries(next)) if (v < 0) problems.push(`${k} would be negative (${k === "weight" ? v : toMajor(v, ctx.currency)})`);
    if (problems.length) {
      failures.set(id, { code: "INVALID_ADJUSTMENT", description: `Product ${id} ${problems.join("; ")}`, data: { productId: id } });
      continue;
    }
    const guard = sql`${products.id} = ${id} AND ${products.price} = ${row.price} AND ${products.cost} IS ${row.cost} AND ${products.weight} IS ${row.weight}
      AND ${variantPriceStamp(id)} = ${priceStamp(priced)}`;
    work.push({
      variantUpdate: priced.length ? variantPriceUpdate(ctx, id, variantNext) : undefined,
      id,
      update: ctx.db
        .update(products)
        .set({ ...next, updatedDate: nextStampSql(now), lastUpdated: nextStampSql(now) })
        .where(guard),
      event: newEvent(ctx, EventType.productChanged, id, {
        productId: id,
        changedFields: Object.keys(next).map((k) => (k === "price" ? "priceData" : k === "cost" ? "costAndProfitData" : k)),
      }),
    });
  }
  const applied = await runPerProduct(ctx, work);
  work.forEach((w, n) => {
    if (!applied[n])
      failures.set(w.id, { code: "CONFLICT", description: `Product ${w.id} changed while adjusting; try again`, data: { productId: w.id } });
  });
  return summary(
    req.ids.map((id, originalIndex) => {
      const error = failures.get(id);
      return { itemMetadata: error ? { id, originalIndex, success: false, error } : { id, originalIndex, success: true } };
    }),
  );
}

/**
 * Deletes many products (their variants and collection memberships go with them, as with deleteProduct): one batch
 * of a DELETE and its ProductDeleted event per product, the event written only when that delete removed a row, so an
 * id that is already gone fails on its own (PRODUCT_NOT_FOUND) and the others are still deleted. The media the
 * products had are read in the same batch, and the files nothing else shows are removed once it committed.
 */
export async function bulkDeleteProducts(ctx: Ctx, req: z.output<typeof bulkDeleteRequest>) {
  requirePermission(ctx, "catalog.write");
  const unique = [...new Set(req.ids)];
  const work = unique.map((id) => ({ id, event: newEvent(ctx, EventType.productDeleted, id, { productId: id }) }));
  // Id lists travel as one JSON parameter (D1 allows 100 bound parameters per statement).
  const readMedia = ctx.db
    .select({ media: products.media })
    .from(products)
    .where(sql`${products.id} IN (SELECT value FROM json_each(${JSON.stringify(unique)}))`);
  const statements: Statement[] = [
    readMedia,
    ...work.flatMap((w) => [ctx.db.delete(products).where(eq(products.id, w.id)), outboxInsertIfChanged(ctx.db, w.event)]),
  ];
  let deleted = new Map<string, boolean>();
  const [had] = await commit(ctx, statements, (results) => {
    deleted = new Map(work.map((w, n) => [w.id, ((results[n * 2 + 1] as D1Result).meta.changes ?? 0) > 0]));
    return work.filter((w) => deleted.get(w.id)).map((w) => w.event);
  });
  ctx.waitUntil(
    releaseUnusedMedia(
      ctx,
      (had as { media: StoredMedia[] }[]).flatMap((r) => r.media.flatMap((m) => [m.url, m.thumbnailUrl ?? ""])),
    ),
  );
  return summary(
    req.ids.map((id, originalIndex) => ({
      itemMetadata: deleted.get(id) ? { id, originalIndex, success: true } : { id, originalIndex, success: false, error: notFoundError(id) },
    })),
  );
}
