import { and, eq, inArray, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, type EventEnvelope, type Statement } from "#worker/events";
import { EventType } from "#worker/events";
import { assertInBatch, clearAssertions, conflict, isAssertionFailure, isUniqueViolation } from "#worker/platform/batch";
import { nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, notFound } from "#worker/platform/errors";
import { flushStockEvents, manualStockChange, type StockChange } from "./stock-changes";
import type { LoadedProduct, ProductRow } from "./shapes";
import { products, variants } from "./tables";
import type { VariantRow } from "./variants";
import { type LoadedRow, loadProduct, refreshSummary, selectLoaded, toLoaded } from "./product-reads";

/** The write path every product change shares: a version check, variant row statements, stock changes and events,
 * one batch, and the product re-read. */

/** D1 allows 100 bound parameters per statement: variant inserts go 9 rows (11 columns) at a time. */
export function insertVariants(db: Db, rows: VariantRow[]): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < rows.length; i += 9) out.push(db.insert(variants).values(rows.slice(i, i + 9)));
  return out;
}

/** Runs write statements plus a final re-read of the product; maps constraint failures to clear errors. */
export async function writeAndLoad(
  ctx: Ctx,
  id: string,
  statements: Statement[],
  events: EventEnvelope[],
  entity = "Product",
  stock?: StockChange,
): Promise<LoadedProduct> {
  let results: unknown[];
  try {
    results = await commit(ctx, [...statements, selectLoaded(ctx.db).where(eq(products.id, id))], events);
    if (stock) flushStockEvents(ctx, stock);
  } catch (err) {
    if (isUniqueViolation(err, "products.slug"))
      throw new ApiError(409, "DUPLICATE_SLUG", "Another product already uses this slug", { message: "Slug already in use" });
    if (isAssertionFailure(err)) throw conflict(entity);
    throw err;
  }
  const rows = results[results.length - 1] as LoadedRow[];
  if (!rows[0]) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return toLoaded(rows[0]);
}

/** The first statement of every read-modify-write: the row is still the version we read (else the batch aborts). */
export function expectVersion(ctx: Ctx, p: LoadedProduct): Statement {
  return assertInBatch(ctx.db, sql`EXISTS (SELECT 1 FROM products WHERE id = ${p.row.id} AND updated_date = ${p.row.updatedDate})`);
}

/** Bumps updated dates so every write is a new version (ISO strings at ms precision; never equal to the old one). */
export function nextStamp(previous: string): string {
  const now = nowIso();
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
}

function variantUpdate(ctx: Ctx, v: VariantRow): Statement {
  return ctx.db
    .update(variants)
    .set({
      position: v.position,
      price: v.price,
      cost: v.cost,
      weight: v.weight,
      sku: v.sku,
      visible: v.visible,
      quantity: v.quantity,
      inStock: v.inStock,
    })
    .where(and(eq(variants.productId, v.productId), eq(variants.id, v.id)));
}

function sameVariant(a: VariantRow, b: VariantRow): boolean {
  return (
    a.position === b.position &&
    a.price === b.price &&
    a.cost === b.cost &&
    a.weight === b.weight &&
    a.sku === b.sku &&
    a.visible === b.visible &&
    a.quantity === b.quantity &&
    a.inStock === b.inStock
  );
}

/** Statements that bring a product's variant rows from `before` to `after`, and which variants changed. */
export function variantStatements(
  ctx: Ctx,
  before: VariantRow[],
  after: VariantRow[],
): { statements: Statement[]; changed: VariantRow[]; removed: VariantRow[] } {
  const old = new Map(before.map((v) => [v.id, v]));
  const keepIds = new Set(after.map((v) => v.id));
  const removed = before.filter((v) => !keepIds.has(v.id));
  const added = after.filter((v) => !old.has(v.id));
  const updated = after.filter((v) => old.has(v.id) && !sameVariant(v, old.get(v.id)!));
  const statements: Statement[] = [];
  for (let i = 0; i < removed.length; i += 90) {
    statements.push(
      ctx.db.delete(variants).where(
        and(
          eq(variants.productId, removed[0].productId),
          inArray(
            variants.id,
            removed.slice(i, i + 90).map((v) => v.id),
          ),
        ),
      ),
    );
  }
  statements.push(...insertVariants(ctx.db, added), ...updated.map((v) => variantUpdate(ctx, v)));
  return { statements, changed: [...added, ...updated], removed };
}

export function variantsChangedEvent(ctx: Ctx, productId: string, changed: VariantRow[], removed: VariantRow[]): EventEnvelope {
  return newEvent(ctx, EventType.variantsChanged, productId, {
    productId,
    variants: [
      ...changed.map((v) => ({ variantId: v.id, choices: v.choices, changedFields: ["price", "cost", "weight", "sku", "visible", "stock"] })),
      ...removed.map((v) => ({ variantId: v.id, choices: v.choices, removed: true })),
    ],
  });
}

export async function loadForWrite(ctx: Ctx, id: string): Promise<LoadedProduct> {
  requirePermission(ctx, "catalog.write");
  const p = await loadProduct(ctx.db, id);
  if (!p) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return p;
}

/** Writes a changed copy of a product's JSON/scalar columns with a version check and a ProductChanged event. */
export async function writeProductColumns(
  ctx: Ctx,
  current: LoadedProduct,
  fields: Partial<ProductRow>,
  changedFields: string[],
  extra: { statements?: Statement[]; events?: EventEnvelope[]; movesStock?: boolean } = {},
): Promise<LoadedProduct> {
  const stamp = nextStamp(current.row.updatedDate);
  const event = newEvent(ctx, EventType.productChanged, current.row.id, { productId: current.row.id, changedFields });
  const events = [event, ...(extra.events ?? [])];
  const writes: Statement[] = [
    ctx.db
      .update(products)
      .set({ ...fields, updatedDate: stamp, lastUpdated: stamp })
      .where(eq(products.id, current.row.id)),
    ...(extra.statements ?? []),
  ];
  const stock = extra.movesStock ? manualStockChange(ctx, current.row.id, writes) : undefined;
  return writeAndLoad(
    ctx,
    current.row.id,
    [
      expectVersion(ctx, current),
      ...(stock ? stock.statements : writes),
      refreshSummary(ctx.db, [current.row.id], ctx.currency),
      ...events.map((e) => outboxInsert(ctx.db, e)),
      clearAssertions(ctx.db),
    ],
    events,
    "Product",
    stock,
  );
}
