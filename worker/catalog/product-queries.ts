import { and, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import { runBatch } from "#worker/platform/unit-of-work";
import { isMerchant, type Ctx, requireMerchant } from "#worker/platform/context";
import { badField, notFound } from "#worker/platform/errors";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { compileQuery, pagingMetadata, type FieldMap, type QueryInput } from "#worker/platform/query";
import { storeVariant, v1Product, v1Variant, v3Product } from "./shapes";
import { collections, products, variants } from "./tables";
import { matching, type VariantRow } from "./variants";
import { loadProduct, selectLoaded, shapeOptions, toLoaded, visibleProduct } from "./product-reads";

/** The product and variant queries: filters, sorts, paging and full-text search. */

/** The JSON path of an option inside variants.choices, bound as a parameter (option names are user text). */
function choicePath(option: string): string {
  return `$."${option.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** Fields the product query accepts (filter) and sorts on. `price` is the lowest actual (discounted) price. */
export const productFields: FieldMap = {
  id: { sql: products.id, type: "string", sortable: true },
  name: { sql: products.name, type: "string", sortable: true },
  slug: { sql: products.slug, type: "string", sortable: true },
  sku: { sql: products.sku, type: "string", sortable: true },
  productType: { sql: products.productType, type: "string" },
  brand: { sql: products.brand, type: "string", sortable: true },
  ribbon: { sql: products.ribbon, type: "string", sortable: true },
  visible: { sql: products.visible, type: "boolean" },
  inStock: { sql: products.inStock, type: "boolean", sortable: true },
  "stock.inStock": { sql: products.inStock, type: "boolean" },
  price: { sql: products.minPrice, type: "money", sortable: true },
  "priceData.price": { sql: products.price, type: "money", sortable: true },
  "discount.type": { sql: products.discountType, type: "string" },
  numericId: { sql: products.numericId, type: "number", sortable: true },
  createdDate: { sql: products.createdDate, type: "date", sortable: true },
  updatedDate: { sql: products.updatedDate, type: "date", sortable: true },
  lastUpdated: { sql: products.lastUpdated, type: "date", sortable: true },
  collectionIds: collectionSet(),
  "collections.id": collectionSet(),
};

function collectionSet(): FieldMap[string] {
  const has = (values: string[]) =>
    sql`EXISTS (SELECT 1 FROM collection_products cp WHERE cp.product_id = ${products.id} AND cp.collection_id IN (SELECT value FROM json_each(${JSON.stringify(values)})))`;
  return {
    kind: "set",
    // The built-in "All Products" collection holds every product without membership rows.
    hasSome: (values) => (values.includes(ALL_PRODUCTS_COLLECTION_ID) ? sql`1 = 1` : has(values)),
    hasAll: (values) => {
      const wanted = [...new Set(values.filter((v) => v !== ALL_PRODUCTS_COLLECTION_ID))];
      if (!wanted.length) return sql`1 = 1`;
      return sql`(SELECT count(DISTINCT cp.collection_id) FROM collection_products cp WHERE cp.product_id = ${products.id}
        AND cp.collection_id IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))) = ${wanted.length}`;
    },
  };
}

/** `options.<Option name>`: products with a visible variant offering one of (or all of) the given choices. */
function optionField(name: string): FieldMap[string] {
  const path = choicePath(name);
  const has = (values: string[]) =>
    sql`EXISTS (SELECT 1 FROM variants v WHERE v.product_id = ${products.id} AND v.visible = 1
      AND json_extract(v.choices, ${path}) IN (SELECT value FROM json_each(${JSON.stringify(values)})))`;
  return {
    kind: "set",
    hasSome: has,
    hasAll: (values) => sql`(SELECT count(DISTINCT json_extract(v.choices, ${path})) FROM variants v WHERE v.product_id = ${products.id}
      AND v.visible = 1 AND json_extract(v.choices, ${path}) IN (SELECT value FROM json_each(${JSON.stringify([...new Set(values)])}))) = ${new Set(values).size}`,
  };
}

const productFieldResolver = (name: string) =>
  productFields[name] ?? (name.startsWith("options.") && name.length > 8 ? optionField(name.slice(8)) : undefined);

/** Turns shopper text into an FTS5 expression: every word must match as a prefix. */
export function ftsExpression(text: string): string | null {
  const words = text
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 10);
  if (!words.length) return null;
  return words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(" ");
}

export interface ProductQueryRequest {
  query?: QueryInput & { search?: { expression?: unknown } | string };
  includeVariants?: boolean;
  includeHiddenProducts?: boolean;
  includeMerchantSpecificData?: boolean;
}

/**
 * The product query (query-platformized): filter, sort, offset paging and optional full-text search
 * (`query.search.expression`), as one batch of two statements (page and total) = one D1 round trip.
 * Hidden products are left out unless the merchant asks for them.
 */
export async function queryProducts(ctx: Ctx, req: ProductQueryRequest) {
  const q = req.query ?? {};
  const searchRaw = typeof q.search === "string" ? q.search : q.search?.expression;
  if (searchRaw !== undefined && (typeof searchRaw !== "string" || searchRaw.length > 200)) {
    throw badField("query.search.expression", "must be a string of at most 200 characters");
  }
  const match = typeof searchRaw === "string" ? ftsExpression(searchRaw) : null;
  const relevance = match
    ? sql`(SELECT bm25(product_search, 10.0, 1.0, 5.0, 3.0) FROM product_search WHERE product_search MATCH ${match} AND product_search.rowid = ${products.numericId})`
    : undefined;
  const compiled = compileQuery(q, productFields, {
    currency: ctx.currency,
    tieBreaker: products.id,
    resolve: productFieldResolver,
    defaultSort: relevance ? [sql`${relevance} ASC`] : [sql`${products.createdDate} DESC`],
  });
  const conditions: SQL[] = [];
  if (compiled.where) conditions.push(compiled.where);
  if (!(req.includeHiddenProducts && isMerchant(ctx.auth))) conditions.push(eq(products.visible, true));
  if (searchRaw !== undefined) {
    conditions.push(match ? sql`${products.numericId} IN (SELECT rowid FROM product_search WHERE product_search MATCH ${match})` : sql`0 = 1`);
  }
  const where = conditions.length ? and(...conditions) : undefined;
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    selectLoaded(ctx.db)
      .where(where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset),
    ctx.db.select({ total: sql<number>`count(*)` }).from(products).where(where),
  ]);
  const opts = shapeOptions(ctx, req.includeMerchantSpecificData);
  const shaped = rows.map((r) => v1Product(toLoaded(r), opts, req.includeVariants === true));
  return { products: shaped, metadata: pagingMetadata(shaped.length, compiled.offset, total), totalResults: total };
}

/** The same query answered in the V3 shape (cursor paging over offsets). */
export async function queryProductsV3(ctx: Ctx, req: { query?: QueryInput & { cursorPaging?: { limit?: number; cursor?: string } } }) {
  const q = req.query ?? {};
  let offset = 0;
  const cursor = q.cursorPaging?.cursor;
  if (cursor) {
    try {
      offset = Number.parseInt(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")), 10);
    } catch {
      offset = Number.NaN; // not base64 at all
    }
    if (!Number.isInteger(offset) || offset < 0) throw badField("query.cursorPaging.cursor", "is not a cursor this server issued", "FORMAT");
  }
  const limit = q.cursorPaging?.limit ?? 50;
  const compiled = compileQuery({ ...q, paging: { limit, offset } }, productFields, {
    currency: ctx.currency,
    tieBreaker: products.id,
    resolve: productFieldResolver,
    defaultSort: [sql`${products.createdDate} DESC`],
  });
  const where = isMerchant(ctx.auth) ? compiled.where : and(compiled.where ?? sql`1 = 1`, eq(products.visible, true));
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    selectLoaded(ctx.db)
      .where(where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset),
    ctx.db.select({ total: sql<number>`count(*)` }).from(products).where(where),
  ]);
  const opts = shapeOptions(ctx, true);
  const next = compiled.offset + rows.length < total ? btoa(String(compiled.offset + rows.length)).replace(/=+$/, "") : null;
  return {
    products: rows.map((r) => v3Product(toLoaded(r), opts)),
    pagingMetadata: { count: rows.length, total, cursors: { next, prev: null }, hasNext: next !== null },
  };
}

/** Variants of one product, filtered by choices and/or ids, with offset paging. */
export async function queryProductVariants(
  ctx: Ctx,
  id: string,
  req: {
    choices?: Record<string, string>;
    variantIds?: string[];
    paging?: { limit?: number; offset?: number };
    includeMerchantSpecificData?: boolean;
  },
) {
  const p = await visibleProduct(ctx, id);
  // 0 means "the default", as in the query language.
  const limit = Math.min(req.paging?.limit || 100, 100);
  const offset = req.paging?.offset ?? 0;
  let list = isMerchant(ctx.auth) ? p.variants : p.variants.filter((v) => v.visible);
  if (req.choices && Object.keys(req.choices).length) list = matching(list, req.choices);
  if (req.variantIds?.length) list = list.filter((v) => req.variantIds!.includes(v.id));
  const opts = shapeOptions(ctx, req.includeMerchantSpecificData);
  const page = list.slice(offset, offset + limit).map((v) => v1Variant(p.row, v, opts));
  return { variants: page, metadata: pagingMetadata(page.length, offset, list.length), totalResults: list.length };
}

export const storeVariantFields: FieldMap = {
  productId: { sql: variants.productId, type: "string", sortable: true },
  variantId: { sql: variants.id, type: "string", sortable: true },
  id: { sql: sql`(${variants.productId} || '-' || ${variants.id})`, type: "string", sortable: true },
  productName: { sql: products.name, type: "string", sortable: true },
  sku: { sql: sql`coalesce(${variants.sku}, ${products.sku})`, type: "string", sortable: true },
  visible: { sql: sql`(${variants.visible} AND ${products.visible})`, type: "boolean" },
  inStock: {
    sql: sql`(CASE WHEN ${products.trackInventory} THEN coalesce(${variants.quantity}, 0) > 0 ELSE ${variants.inStock} END)`,
    type: "boolean",
  },
  managedVariant: { sql: products.manageVariants, type: "boolean" },
  "variant.priceData.price": { sql: sql`coalesce(${variants.price}, ${products.price})`, type: "money", sortable: true },
};

/** The store-wide variants query (`/v1/variants/query`): each result names its product. */
export async function queryStoreVariants(ctx: Ctx, query: QueryInput | undefined) {
  const compiled = compileQuery(query, storeVariantFields, { currency: ctx.currency, tieBreaker: sql`${variants.productId}, ${variants.position}` });
  const visibility = isMerchant(ctx.auth) ? undefined : and(eq(products.visible, true), eq(variants.visible, true));
  const where = and(compiled.where ?? sql`1 = 1`, visibility ?? sql`1 = 1`);
  // Only variant columns: inside a D1 batch drizzle maps rows by column name, so a second "id" (products.id)
  // would overwrite the variant's id.
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db
      .select({ v: getTableColumns(variants) })
      .from(variants)
      .innerJoin(products, eq(products.id, variants.productId))
      .where(where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset),
    ctx.db.select({ total: sql<number>`count(*)` }).from(variants).innerJoin(products, eq(products.id, variants.productId)).where(where),
  ]);
  const ids = [...new Set(rows.map((r) => r.v.productId))];
  const loaded = ids.length ? (await selectLoaded(ctx.db).where(inArray(products.id, ids))).map(toLoaded) : [];
  const byId = new Map(loaded.map((p) => [p.row.id, p]));
  const opts = shapeOptions(ctx, true);
  const shaped = rows.map((r) => storeVariant(byId.get(r.v.productId)!, { ...r.v } as VariantRow, opts));
  return { variants: shaped, metadata: pagingMetadata(shaped.length, compiled.offset, total) };
}

/** One store variant by its id (`<productId>-<variantId>`). */
export async function getStoreVariant(ctx: Ctx, storeVariantId: string) {
  const productId = storeVariantId.slice(0, 36);
  const variantId = storeVariantId.slice(37);
  const p = productId.length === 36 && variantId ? await loadProduct(ctx.db, productId) : null;
  const v = p?.variants.find((x) => x.id === variantId);
  if (!p || !v || (!isMerchant(ctx.auth) && (!p.row.visible || !v.visible))) throw notFound("VARIANT_NOT_FOUND", "Variant", storeVariantId);
  return storeVariant(p, v, shapeOptions(ctx, true));
}

/**
 * What the merchant's product filters offer: every collection, and the brands and ribbons products carry (all in
 * one batch, one D1 round trip). Merchants only: hidden collections are included.
 */
export async function productFilterValues(ctx: Ctx): Promise<{ collections: { id: string; name: string }[]; brands: string[]; ribbons: string[] }> {
  requireMerchant(ctx);
  const [cols, brands, ribbons] = await runBatch(ctx.db, [
    ctx.db.select({ id: collections.id, name: collections.name }).from(collections).orderBy(collections.name).limit(500),
    ctx.db
      .selectDistinct({ value: products.brand })
      .from(products)
      .where(sql`${products.brand} IS NOT NULL AND ${products.brand} <> ''`)
      .orderBy(products.brand)
      .limit(500),
    ctx.db
      .selectDistinct({ value: products.ribbon })
      .from(products)
      .where(sql`${products.ribbon} IS NOT NULL AND ${products.ribbon} <> ''`)
      .orderBy(products.ribbon)
      .limit(500),
  ]);
  return { collections: cols, brands: brands.map((b) => b.value!), ribbons: ribbons.map((r) => r.value!) };
}
