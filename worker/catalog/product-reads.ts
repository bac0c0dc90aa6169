import { rawStatement } from "#worker/platform/db";
import { eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { Statement } from "#worker/events";
import { isMerchant, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { notFound } from "#worker/platform/errors";
import { currencyDigits } from "#worker/platform/money";
import type { LoadedProduct, ProductRow, ShapeOptions } from "./shapes";
import { products } from "./tables";
import type { VariantRow } from "./variants";

/** Product reads every catalogue service shares: one product (or many) with its variants in one SELECT, and the
 * denormalised summary columns its writers keep right. */

/**
 * The outer product's id, spelled out: drizzle renders a column inside a select field unqualified (`"id"`), which
 * inside the variants subquery would resolve to `v.id` and match nothing.
 */
export const outerProductId = sql.raw(`"products"."id"`);

/** A product row with its variants and collection ids, as one SELECT (correlated JSON subqueries). */
const loadedColumns = {
  ...getTableColumns(products),
  variantsJson: sql<string>`(SELECT json_group_array(json_object('id', v.id, 'choices', json(v.choices), 'position', v.position,
      'price', v.price, 'cost', v.cost, 'weight', v.weight, 'sku', v.sku, 'visible', v.visible, 'quantity', v.quantity,
      'inStock', v.in_stock)) FROM (SELECT * FROM variants v WHERE v.product_id = ${outerProductId} ORDER BY v.position) v)`.as("variants_json"),
  collectionIdsJson: sql<string>`(SELECT json_group_array(cp.collection_id) FROM collection_products cp WHERE cp.product_id = ${outerProductId})`.as(
    "collection_ids_json",
  ),
};

export function selectLoaded(db: Db) {
  return db.select(loadedColumns).from(products);
}

export type LoadedRow = Awaited<ReturnType<ReturnType<typeof selectLoaded>["all"]>>[number];

export function toLoaded(r: LoadedRow): LoadedProduct {
  const { variantsJson, collectionIdsJson, ...row } = r;
  const vs = (JSON.parse(variantsJson) as (Omit<VariantRow, "productId" | "visible" | "inStock"> & { visible: number; inStock: number })[]).map(
    (v) => ({ ...v, productId: row.id, visible: !!v.visible, inStock: !!v.inStock }),
  );
  return { row: row as ProductRow, variants: vs, collectionIds: JSON.parse(collectionIdsJson) as string[] };
}

export function shapeOptions(ctx: Ctx, merchantData = false): ShapeOptions {
  return { currency: ctx.currency, origin: ctx.origin, merchant: merchantData && isMerchant(ctx.auth) };
}

/** Loads one product by id (any visibility), or null. */
export async function loadProduct(db: Db, id: string): Promise<LoadedProduct | null> {
  const rows = await selectLoaded(db).where(eq(products.id, id)).limit(1);
  return rows[0] ? toLoaded(rows[0]) : null;
}

/** A product a caller may see: hidden products exist only for the merchant. */
export async function visibleProduct(ctx: Ctx, id: string): Promise<LoadedProduct> {
  const p = await loadProduct(ctx.db, id);
  if (!p || (!p.row.visible && !isMerchant(ctx.auth))) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return p;
}

/** GET product (V1). Cost and profit only for the merchant who asks with includeMerchantSpecificData. */

/**
 * Recomputes a product's denormalised columns (price range, stock, variant SKUs) from its variants, in SQL, so any
 * batch that changes variants or stock (here, or an order reserving stock) keeps them right. The discount formula
 * matches pricing.ts.
 */
export function refreshSummary(db: Db, ids: string[], currency: string): Statement {
  const factor = 10 ** currencyDigits(currency);
  const actual = (base: SQL) => sql`(CASE products.discount_type
      WHEN 'AMOUNT' THEN max(0, ${base} - CAST(round(products.discount_value * ${sql.raw(String(factor))}) AS INTEGER))
      WHEN 'PERCENT' THEN CAST(round(${base} * (100 - products.discount_value) / 100.0) AS INTEGER)
      ELSE ${base} END)`;
  const vprice = actual(sql`coalesce(v.price, products.price)`);
  return rawStatement(
    db,
    sql`UPDATE products SET
      min_price = coalesce((SELECT min(${vprice}) FROM variants v WHERE v.product_id = products.id AND v.visible = 1), ${actual(sql`products.price`)}),
      max_price = coalesce((SELECT max(${vprice}) FROM variants v WHERE v.product_id = products.id AND v.visible = 1), ${actual(sql`products.price`)}),
      quantity = CASE WHEN products.track_inventory = 1
        THEN (SELECT coalesce(sum(coalesce(v.quantity, 0)), 0) FROM variants v WHERE v.product_id = products.id AND v.visible = 1) ELSE NULL END,
      in_stock = EXISTS (SELECT 1 FROM variants v WHERE v.product_id = products.id AND v.visible = 1
        AND (CASE WHEN products.track_inventory = 1 THEN coalesce(v.quantity, 0) > 0 ELSE v.in_stock = 1 END)),
      variant_skus = coalesce((SELECT group_concat(v.sku, ' ') FROM variants v WHERE v.product_id = products.id AND v.sku IS NOT NULL), '')
    WHERE products.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  );
}

export type { ProductRow };

/** Product names by id (ids that match nothing are left out), e.g. for a merchant task's title. */
export async function productNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: products.id, name: products.name })
    .from(products)
    .where(sql`${products.id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])}))`);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * How a merchant tells variants apart: their choices in option order ("S / Red", empty for a product without
 * options) and SKU, keyed `productId/variantId`.
 */
export async function variantLabels(
  db: Db,
  refs: { productId: string; variantId: string }[],
): Promise<Map<string, { choices: string; sku: string | null }>> {
  if (!refs.length) return new Map();
  const rows = await db.all<{ pid: string; vid: string; choices: string; sku: string | null }>(
    sql`SELECT v.product_id AS pid, v.id AS vid, v.choices, v.sku FROM json_each(${JSON.stringify(refs.map((r) => [r.productId, r.variantId]))}) j
      JOIN variants v ON v.product_id = json_extract(j.value, '$[0]') AND v.id = json_extract(j.value, '$[1]')`,
  );
  return new Map(
    rows.map((r) => [
      `${r.pid}/${r.vid}`,
      { choices: Object.values(JSON.parse(r.choices) as Record<string, string>).join(" / "), sku: r.sku || null },
    ]),
  );
}

/**
 * Products with their variants and collection ids (any visibility) by id or by slug, in one D1 round trip; for
 * work over many products at once, such as the CSV export and import (catalog/imports.ts). Up to 500 keys a call.
 */
export async function loadProductsBy(db: Db, by: "id" | "slug", keys: string[]): Promise<LoadedProduct[]> {
  if (!keys.length) return [];
  return loadedProducts(await productsByQuery(db, by, keys));
}

/** loadProductsBy's query, to run inside a caller's batch; map its rows with loadedProducts. */
export function productsByQuery(db: Db, by: "id" | "slug", keys: string[]) {
  const column = by === "id" ? products.id : products.slug;
  return selectLoaded(db).where(sql`${column} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(keys)].slice(0, 500))}))`);
}

export function loadedProducts(rows: LoadedRow[]): LoadedProduct[] {
  return rows.map(toLoaded);
}
