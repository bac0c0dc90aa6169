import { rawStatement } from "../platform/db";
import { and, asc, desc, eq, getTableColumns, inArray, ne, sql, type SQL } from "drizzle-orm";
import { commit, flushEvents, newEvent, outboxInsert, outboxInsertIfChanged, type EventEnvelope, type Statement } from "../events/outbox";
import { EventType } from "../events/types";
import { assertInBatch, clearAssertions, conflict, isAssertionFailure, isUniqueViolation } from "../platform/batch";
import { isMerchant, nowIso, type Ctx, requireMerchant, requirePermission } from "../platform/context";
import type { Db } from "../platform/db";
import { ApiError, badField, invalidArgument, notFound, type FieldViolation } from "../platform/errors";
import { ALL_PRODUCTS_COLLECTION_ID, DEFAULT_VARIANT_ID, newId, slugify } from "../platform/ids";
import { currencyDigits, toMajor, toMinor } from "../platform/money";
import { compileQuery, pagingMetadata, type FieldMap, type QueryInput } from "../platform/query";
import { unitsCompatible } from "./pricing";
import type { MediaInput, ProductInput, ProductPatch, VariantOverride } from "./schemas";
import { flushStockEvents, manualStockChange, type StockChange } from "./inventory";
import { freeSlug } from "./slugs";
import { releaseUnusedMedia } from "./media";
import { descriptionToPlain, descriptionToRich, richToPlain } from "./rich-text";
import { storeVariant, v1Options, v1Product, v1Variant, v3Product, type LoadedProduct, type ProductRow, type ShapeOptions } from "./shapes";
import { collectionProducts, collections, productNumbers, products, variants, type StoredMedia, type StoredOption } from "./tables";
import { choicesKey, combinationCount, matching, MAX_VARIANTS, planVariants, variantInStock, type VariantRow } from "./variants";

/** The product service: reads in one D1 round trip, writes as one batch with their events. */

// ---------------------------------------------------------------------------------------------------------------
// Loading

/**
 * The outer product's id, spelled out: drizzle renders a column inside a select field unqualified (`"id"`), which
 * inside the variants subquery would resolve to `v.id` and match nothing.
 */
const outerProductId = sql.raw(`"products"."id"`);

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

function selectLoaded(db: Db) {
  return db.select(loadedColumns).from(products);
}

type LoadedRow = Awaited<ReturnType<ReturnType<typeof selectLoaded>["all"]>>[number];

function toLoaded(r: LoadedRow): LoadedProduct {
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
async function visibleProduct(ctx: Ctx, id: string): Promise<LoadedProduct> {
  const p = await loadProduct(ctx.db, id);
  if (!p || (!p.row.visible && !isMerchant(ctx.auth))) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return p;
}

/** GET product (V1). Cost and profit only for the merchant who asks with includeMerchantSpecificData. */
export async function getProduct(ctx: Ctx, id: string, includeMerchantSpecificData = false) {
  return v1Product(await visibleProduct(ctx, id), shapeOptions(ctx, includeMerchantSpecificData));
}

/** GET product (V3 shape). */
export async function getProductV3(ctx: Ctx, id: string) {
  return v3Product(await visibleProduct(ctx, id), shapeOptions(ctx, true));
}

/** A visible product by slug, for the storefront. */
export async function getProductBySlug(ctx: Ctx, slug: string) {
  const rows = await selectLoaded(ctx.db).where(eq(products.slug, slug)).limit(1);
  const p = rows[0] ? toLoaded(rows[0]) : null;
  if (!p || (!p.row.visible && !isMerchant(ctx.auth))) throw notFound("PRODUCT_NOT_FOUND", "Product", slug, "slug");
  return v1Product(p, shapeOptions(ctx));
}

/** How many related products the storefront's product page shows. */
export const RELATED_LIMIT = 4;

/**
 * Everything the storefront's product page reads, in one D1 round trip (a batch of two SELECTs): the visible product
 * by slug (PRODUCT_NOT_FOUND otherwise), shaped for the shopper (V1 and V3), the shopper's selection (the options'
 * choices asked for, and any option with a single visible choice chosen for them), the choices' availability for it
 * (as productOptionsAvailability), and up to RELATED_LIMIT other visible products from its first collection besides
 * All Products (from all products when it has none), newest first like the listings.
 */
export async function getProductPage(ctx: Ctx, slug: string, wanted: (optionName: string) => string | null) {
  const firstCollection = sql`(SELECT cp.collection_id FROM collection_products cp JOIN products p ON p.id = cp.product_id
    WHERE p.slug = ${slug} AND cp.collection_id <> ${ALL_PRODUCTS_COLLECTION_ID} LIMIT 1)`;
  const [rows, relatedRows] = await ctx.db.batch([
    selectLoaded(ctx.db).where(eq(products.slug, slug)).limit(1),
    selectLoaded(ctx.db)
      .where(
        and(
          eq(products.visible, true),
          ne(products.slug, slug),
          sql`(${firstCollection} IS NULL OR ${outerProductId} IN (SELECT product_id FROM collection_products WHERE collection_id = ${firstCollection}))`,
        ),
      )
      .orderBy(desc(products.createdDate), asc(products.id))
      .limit(RELATED_LIMIT),
  ]);
  const p = rows[0] ? toLoaded(rows[0]) : null;
  if (!p || (!p.row.visible && !isMerchant(ctx.auth))) throw notFound("PRODUCT_NOT_FOUND", "Product", slug, "slug");
  const selection: Record<string, string> = {};
  for (const o of p.row.productOptions) {
    const asked = wanted(o.name);
    const visible = o.choices.filter((c) => c.visible);
    if (asked && o.choices.some((c) => c.description === asked)) selection[o.name] = asked;
    else if (visible.length === 1) selection[o.name] = visible[0].description;
  }
  const opts = shapeOptions(ctx);
  return {
    product: v1Product(p, opts),
    v3: v3Product(p, shapeOptions(ctx, true)),
    selection,
    availability: availabilityOf(ctx, p, selection),
    related: relatedRows.map((r) => v1Product(toLoaded(r), opts, true)),
  };
}

/** What the console's product editor shows, in one D1 round trip: the product (any visibility, or none for a new
 * one) and the brands and ribbons in use, offered as suggestions. */
export async function loadProductEditor(ctx: Ctx, id: string | null): Promise<{ product: LoadedProduct | null; brands: string[]; ribbons: string[] }> {
  requireMerchant(ctx);
  const names = (column: typeof products.brand | typeof products.ribbon) =>
    ctx.db.selectDistinct({ name: sql<string>`${column}` }).from(products).where(sql`${column} IS NOT NULL AND ${column} <> ''`).orderBy(column).limit(200);
  const [brands, ribbons, rows] = await ctx.db.batch([names(products.brand), names(products.ribbon), selectLoaded(ctx.db).where(eq(products.id, id ?? "")).limit(1)]);
  return { product: id && rows[0] ? toLoaded(rows[0]) : null, brands: brands.map((b) => b.name), ribbons: ribbons.map((r) => r.name) };
}

// ---------------------------------------------------------------------------------------------------------------
// Queries

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

const productFieldResolver = (name: string) => productFields[name] ?? (name.startsWith("options.") && name.length > 8 ? optionField(name.slice(8)) : undefined);

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
  const [rows, [{ total }]] = await ctx.db.batch([
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
  const [rows, [{ total }]] = await ctx.db.batch([
    selectLoaded(ctx.db).where(where).orderBy(...compiled.orderBy).limit(compiled.limit).offset(compiled.offset),
    ctx.db.select({ total: sql<number>`count(*)` }).from(products).where(where),
  ]);
  const opts = shapeOptions(ctx, true);
  const next = compiled.offset + rows.length < total ? btoa(String(compiled.offset + rows.length)).replace(/=+$/, "") : null;
  return {
    products: rows.map((r) => v3Product(toLoaded(r), opts)),
    pagingMetadata: { count: rows.length, total, cursors: { next, prev: null }, hasNext: next !== null },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Options availability and variants

/** Which choices can still be picked given a partial selection, and the variant a full selection picks. */
export async function productOptionsAvailability(ctx: Ctx, id: string, selection: Record<string, string>) {
  return availabilityOf(ctx, await visibleProduct(ctx, id), selection);
}

/** productOptionsAvailability for a product already loaded. */
function availabilityOf(ctx: Ctx, p: LoadedProduct, selection: Record<string, string>) {
  const { row } = p;
  const violations: FieldViolation[] = [];
  for (const [name, choice] of Object.entries(selection)) {
    const option = row.productOptions.find((o) => o.name === name);
    if (!option) violations.push({ field: `options.${name}`, description: `is not an option of this product`, violatedRule: "VALIDATION", data: {} });
    else if (!option.choices.some((c) => c.description === choice))
      violations.push({ field: `options.${name}`, description: `has no choice "${choice}"`, violatedRule: "VALIDATION", data: {} });
  }
  if (violations.length) throw invalidArgument(violations);
  const opts = shapeOptions(ctx);
  const complete = row.productOptions.every((o) => selection[o.name] !== undefined);
  const selected = complete ? matching(p.variants, selection).find((v) => v.visible) : undefined;
  const selectedShape = selected ? v1Variant(row, selected, opts) : null;
  const choiceMediaIds = row.productOptions.flatMap((o) => o.choices.filter((c) => selection[o.name] === c.description).flatMap((c) => c.mediaIds));
  const media = choiceMediaIds.map((mid) => row.media.find((m) => m.id === mid)).filter((m): m is StoredMedia => !!m);
  const mediaBlock = v1Product({ ...p, row: { ...row, media: media.length ? media : row.media } }, opts, false).media;
  return {
    selectedVariant: selectedShape
      ? {
          id: selected!.id,
          choices: selected!.choices,
          price: selectedShape.variant.priceData,
          convertedPriceData: selectedShape.variant.convertedPriceData,
          weight: selectedShape.variant.weight,
          sku: selectedShape.variant.sku,
          visible: selected!.visible,
          inStock: selectedShape.stock.inStock,
          ...(row.trackInventory ? { quantity: selected!.quantity ?? 0 } : {}),
        }
      : null,
    media: mediaBlock,
    productOptions: v1Options(p, opts, selection),
    availableForPurchase: !!selected && row.visible && variantInStock(selected, row.trackInventory),
  };
}

/** Variants of one product, filtered by choices and/or ids, with offset paging. */
export async function queryProductVariants(
  ctx: Ctx,
  id: string,
  req: { choices?: Record<string, string>; variantIds?: string[]; paging?: { limit?: number; offset?: number }; includeMerchantSpecificData?: boolean },
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
  const [rows, [{ total }]] = await ctx.db.batch([
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

// ---------------------------------------------------------------------------------------------------------------
// Writing

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
  return rawStatement(db, sql`UPDATE products SET
      min_price = coalesce((SELECT min(${vprice}) FROM variants v WHERE v.product_id = products.id AND v.visible = 1), ${actual(sql`products.price`)}),
      max_price = coalesce((SELECT max(${vprice}) FROM variants v WHERE v.product_id = products.id AND v.visible = 1), ${actual(sql`products.price`)}),
      quantity = CASE WHEN products.track_inventory = 1
        THEN (SELECT coalesce(sum(coalesce(v.quantity, 0)), 0) FROM variants v WHERE v.product_id = products.id AND v.visible = 1) ELSE NULL END,
      in_stock = EXISTS (SELECT 1 FROM variants v WHERE v.product_id = products.id AND v.visible = 1
        AND (CASE WHEN products.track_inventory = 1 THEN coalesce(v.quantity, 0) > 0 ELSE v.in_stock = 1 END)),
      variant_skus = coalesce((SELECT group_concat(v.sku, ' ') FROM variants v WHERE v.product_id = products.id AND v.sku IS NOT NULL), '')
    WHERE products.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
}

/** D1 allows 100 bound parameters per statement: variant inserts go 9 rows (11 columns) at a time. */
function insertVariants(db: Db, rows: VariantRow[]): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < rows.length; i += 9) out.push(db.insert(variants).values(rows.slice(i, i + 9)));
  return out;
}

function storedMedia(m: MediaInput): StoredMedia {
  const isVideo = m.mediaType === "video" || /\.(mp4|webm|mov)(\?|$)/i.test(m.url);
  return {
    id: newId(),
    mediaType: isVideo ? "video" : "image",
    url: m.url,
    ...(m.title ? { title: m.title } : {}),
    ...(m.altText ? { altText: m.altText } : {}),
    // Sizes cannot be read without fetching the file; 800×800 is the documented default.
    width: m.width ?? 800,
    height: m.height ?? 800,
    ...(m.thumbnailUrl ? { thumbnailUrl: m.thumbnailUrl } : {}),
  };
}

/** Options from the wire, keeping the ids (and choice media) of options and choices that already exist. */
function storedOptions(input: NonNullable<ProductInput["productOptions"]>, previous: StoredOption[], violations: FieldViolation[]): StoredOption[] {
  const names = new Set<string>();
  return input.map((o, i) => {
    const at = `product.productOptions[${i}]`;
    if (names.has(o.name.toLowerCase())) violations.push({ field: `${at}.name`, description: `repeats the option "${o.name}"`, violatedRule: "VALIDATION", data: {} });
    names.add(o.name.toLowerCase());
    const prev = previous.find((p) => p.name === o.name);
    const seen = new Set<string>();
    return {
      id: prev?.id ?? newId(),
      name: o.name,
      optionType: o.optionType,
      choices: o.choices.map((c, j) => {
        const description = c.description ?? c.value;
        if (seen.has(description.toLowerCase()))
          violations.push({ field: `${at}.choices[${j}].description`, description: `repeats the choice "${description}"`, violatedRule: "VALIDATION", data: {} });
        seen.add(description.toLowerCase());
        if (o.optionType === "color" && !/^#[0-9a-fA-F]{6}$/.test(c.value))
          violations.push({ field: `${at}.choices[${j}].value`, description: "must be a colour code like #1F3A5F", violatedRule: "FORMAT", data: {} });
        const prevChoice = prev?.choices.find((pc) => pc.description === description);
        return { value: c.value, description, visible: c.visible ?? true, mediaIds: prevChoice?.mediaIds ?? [] };
      }),
    };
  });
}

/** Applies per-variant overrides; each must match at least one variant. */
/** An override that gives a variant its own price, cost, weight, SKU or visibility (stock alone needs no manageVariants). */
function ownVariantData(o: VariantOverride): boolean {
  return o.price !== undefined || o.cost !== undefined || o.weight !== undefined || o.sku !== undefined || o.visible !== undefined;
}

function applyOverrides(
  rows: VariantRow[],
  overrides: VariantOverride[],
  trackInventory: boolean,
  currency: string,
  field: string,
  violations: FieldViolation[],
): Set<VariantRow> {
  const touched = new Set<VariantRow>();
  overrides.forEach((o, i) => {
    const at = `${field}[${i}]`;
    let targets = rows;
    if (o.choices) targets = matching(targets, o.choices);
    if (o.variantIds) targets = targets.filter((v) => o.variantIds!.includes(v.id));
    if (!o.choices && !o.variantIds) {
      violations.push({ field: `${at}.choices`, description: "is required (or variantIds)", violatedRule: "REQUIRED_FIELD", data: {} });
      return;
    }
    if (targets.length === 0) {
      violations.push({ field: o.choices ? `${at}.choices` : `${at}.variantIds`, description: "matches no variant of this product", violatedRule: "VALIDATION", data: {} });
      return;
    }
    for (const v of targets) {
      if (o.price !== undefined) v.price = toMinor(o.price, currency);
      if (o.cost !== undefined) v.cost = toMinor(o.cost, currency);
      if (o.weight !== undefined) v.weight = o.weight;
      if (o.sku !== undefined) v.sku = o.sku || null;
      if (o.visible !== undefined) v.visible = o.visible;
      if (o.stock?.quantity !== undefined) {
        if (!trackInventory) violations.push({ field: `${at}.stock.quantity`, description: "needs stock.trackInventory on the product", violatedRule: "VALIDATION", data: {} });
        v.quantity = o.stock.quantity;
      }
      if (o.stock?.inStock !== undefined) v.inStock = o.stock.inStock;
      touched.add(v);
    }
  });
  return touched;
}

function checkCommon(p: { pricePerUnitData?: ProductInput["pricePerUnitData"]; discount?: ProductInput["discount"] | null }, violations: FieldViolation[]) {
  const ppu = p.pricePerUnitData;
  if (ppu && !unitsCompatible(ppu.totalMeasurementUnit, ppu.baseMeasurementUnit)) {
    violations.push({ field: "product.pricePerUnitData.baseMeasurementUnit", description: `cannot be compared with ${ppu.totalMeasurementUnit}`, violatedRule: "VALIDATION", data: {} });
  }
}

/** Media that belong to choices: `media[].choice` links an item to a choice of an option. */
function linkChoiceMedia(options: StoredOption[], media: StoredMedia[], inputs: MediaInput[], field: string, violations: FieldViolation[]) {
  inputs.forEach((m, i) => {
    if (!m.choice) return;
    const choice = options.find((o) => o.name === m.choice!.option)?.choices.find((c) => c.description === m.choice!.choice);
    if (!choice) violations.push({ field: `${field}[${i}].choice`, description: `names no choice of this product`, violatedRule: "VALIDATION", data: {} });
    else choice.mediaIds.push(media[i].id);
  });
}

export interface PreparedProduct {
  row: ProductRow;
  variants: VariantRow[];
  statements: Statement[];
  events: EventEnvelope[];
}

/** Builds the rows, statements and event of a new product without running them (used by create and the demo loader). */
export function prepareCreateProduct(ctx: Ctx, input: ProductInput, slug: string): PreparedProduct {
  const violations: FieldViolation[] = [];
  const { currency } = ctx;
  const options = storedOptions(input.productOptions ?? [], [], violations);
  if (combinationCount(options) > MAX_VARIANTS)
    violations.push({ field: "product.productOptions", description: `make more than ${MAX_VARIANTS} variants`, violatedRule: "MAX_SIZE", data: {} });
  checkCommon(input, violations);
  const manageVariants = input.manageVariants ?? false;
  if (input.variants?.some(ownVariantData) && !manageVariants)
    violations.push({ field: "product.manageVariants", description: "must be true to give variants their own data", violatedRule: "VALIDATION", data: {} });
  if (violations.length) throw invalidArgument(violations);

  const media = (input.media ?? []).map(storedMedia);
  linkChoiceMedia(options, media, input.media ?? [], "product.media", violations);
  const trackInventory = input.stock?.trackInventory ?? input.stock?.quantity !== undefined;
  const id = newId();
  const now = nowIso();
  const { add: variantRows } = planVariants(id, options, [], {
    quantity: trackInventory ? (input.stock?.quantity ?? 0) : null,
    inStock: input.stock?.inStock ?? true,
  });
  applyOverrides(variantRows, input.variants ?? [], trackInventory, currency, "product.variants", violations);
  if (violations.length) throw invalidArgument(violations);

  // The rich description when given, else the description read as HTML or Markdown; the plain text is the given
  // description's own when both are given (a summary beside a longer rich text), else the rich description's.
  const richDescription = input.richDescription ?? descriptionToRich(input.description ?? "");
  const description = input.richDescription && input.description !== undefined ? descriptionToPlain(input.description) : richToPlain(richDescription.nodes);
  const row = {
    id,
    numericId: 0,
    slug,
    name: input.name,
    productType: input.productType,
    description,
    richDescription: richDescription as { nodes: unknown[] },
    sku: input.sku || null,
    visible: input.visible,
    price: toMinor(input.priceData.price, currency),
    cost: input.costAndProfitData ? toMinor(input.costAndProfitData.itemCost, currency) : null,
    weight: input.weight ?? null,
    discountType: input.discount?.type ?? "NONE",
    discountValue: input.discount?.value ?? 0,
    pricePerUnitData: input.pricePerUnitData ?? null,
    brand: input.brand || null,
    ribbon: input.ribbon || null,
    manageVariants,
    trackInventory,
    productOptions: options,
    media,
    infoSections: (input.additionalInfoSections ?? []).map((s) => ({ id: newId(), title: s.title, description: s.description })),
    seoData: (input.seoData as Record<string, unknown> | undefined) ?? null,
    minPrice: 0,
    maxPrice: 0,
    inStock: true,
    quantity: null,
    variantSkus: "",
    createdDate: now,
    updatedDate: now,
    lastUpdated: now,
  } satisfies ProductRow;
  const event = newEvent(ctx, EventType.productCreated, id, {
    productId: id,
    name: row.name,
    slug: row.slug,
    visible: row.visible,
    productType: row.productType,
    price: { currency, price: input.priceData.price },
    ...(input.costAndProfitData ? { costAndProfitData: { itemCost: input.costAndProfitData.itemCost } } : {}),
  });
  const { numericId: _n, ...insertable } = row;
  const statements: Statement[] = [
    // Take the next number, then use it in the same batch (the statements run in order on one connection).
    ctx.db.insert(productNumbers).values({}),
    ctx.db.insert(products).values({ ...insertable, numericId: sql`last_insert_rowid()` }),
    ...insertVariants(ctx.db, variantRows),
    refreshSummary(ctx.db, [id], currency),
    outboxInsert(ctx.db, event),
  ];
  return { row, variants: variantRows, statements, events: [event] };
}

/** Runs write statements plus a final re-read of the product; maps constraint failures to clear errors. */
async function writeAndLoad(
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
    if (isUniqueViolation(err, "products.slug")) throw new ApiError(409, "DUPLICATE_SLUG", "Another product already uses this slug", { message: "Slug already in use" });
    if (isAssertionFailure(err)) throw conflict(entity);
    throw err;
  }
  const rows = results[results.length - 1] as LoadedRow[];
  if (!rows[0]) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return toLoaded(rows[0]);
}

/** Creates a product with its generated variants. */
export async function createProduct(ctx: Ctx, input: ProductInput) {
  requirePermission(ctx, "catalog.write");
  const slug = input.slug ?? (await freeSlug(ctx.db, products, slugify(input.name)));
  const prepared = prepareCreateProduct(ctx, input, slug);
  const loaded = await writeAndLoad(ctx, prepared.row.id, prepared.statements, prepared.events);
  return v1Product(loaded, shapeOptions(ctx, true));
}

/** The first statement of every read-modify-write: the row is still the version we read (else the batch aborts). */
function expectVersion(ctx: Ctx, p: LoadedProduct): Statement {
  return assertInBatch(ctx.db, sql`EXISTS (SELECT 1 FROM products WHERE id = ${p.row.id} AND updated_date = ${p.row.updatedDate})`);
}

/** Bumps updated dates so every write is a new version (ISO strings at ms precision; never equal to the old one). */
function nextStamp(previous: string): string {
  const now = nowIso();
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
}

function variantUpdate(ctx: Ctx, v: VariantRow): Statement {
  return ctx.db
    .update(variants)
    .set({ position: v.position, price: v.price, cost: v.cost, weight: v.weight, sku: v.sku, visible: v.visible, quantity: v.quantity, inStock: v.inStock })
    .where(and(eq(variants.productId, v.productId), eq(variants.id, v.id)));
}

function sameVariant(a: VariantRow, b: VariantRow): boolean {
  return (
    a.position === b.position && a.price === b.price && a.cost === b.cost && a.weight === b.weight && a.sku === b.sku &&
    a.visible === b.visible && a.quantity === b.quantity && a.inStock === b.inStock
  );
}

/** Statements that bring a product's variant rows from `before` to `after`, and which variants changed. */
function variantStatements(ctx: Ctx, before: VariantRow[], after: VariantRow[]): { statements: Statement[]; changed: VariantRow[]; removed: VariantRow[] } {
  const old = new Map(before.map((v) => [v.id, v]));
  const keepIds = new Set(after.map((v) => v.id));
  const removed = before.filter((v) => !keepIds.has(v.id));
  const added = after.filter((v) => !old.has(v.id));
  const updated = after.filter((v) => old.has(v.id) && !sameVariant(v, old.get(v.id)!));
  const statements: Statement[] = [];
  for (let i = 0; i < removed.length; i += 90) {
    statements.push(
      ctx.db.delete(variants).where(and(eq(variants.productId, removed[0].productId), inArray(variants.id, removed.slice(i, i + 90).map((v) => v.id)))),
    );
  }
  statements.push(...insertVariants(ctx.db, added), ...updated.map((v) => variantUpdate(ctx, v)));
  return { statements, changed: [...added, ...updated], removed };
}

function variantsChangedEvent(ctx: Ctx, productId: string, changed: VariantRow[], removed: VariantRow[]): EventEnvelope {
  return newEvent(ctx, EventType.variantsChanged, productId, {
    productId,
    variants: [
      ...changed.map((v) => ({ variantId: v.id, choices: v.choices, changedFields: ["price", "cost", "weight", "sku", "visible", "stock"] })),
      ...removed.map((v) => ({ variantId: v.id, choices: v.choices, removed: true })),
    ],
  });
}

async function loadForWrite(ctx: Ctx, id: string): Promise<LoadedProduct> {
  requirePermission(ctx, "catalog.write");
  const p = await loadProduct(ctx.db, id);
  if (!p) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return p;
}

/** Updates any subset of a product's fields. Changing options regenerates variants, keeping matching ones. */
export async function updateProduct(ctx: Ctx, id: string, patch: ProductPatch) {
  // Setting quantities or in-stock flags of an existing product is a stock change, as it is through the inventory calls.
  if (patch.stock?.quantity !== undefined || patch.stock?.inStock !== undefined || patch.variants?.some((v) => v.stock)) requirePermission(ctx, "inventory.write");
  const current = await loadForWrite(ctx, id);
  if (patch.stock?.trackInventory !== undefined && patch.stock.trackInventory !== current.row.trackInventory) requirePermission(ctx, "inventory.write");
  const { currency } = ctx;
  const violations: FieldViolation[] = [];
  const before = current.row;
  const row: ProductRow = { ...before, productOptions: structuredClone(before.productOptions), media: [...before.media] };
  const changed = new Set<string>();
  const set = <K extends keyof ProductRow>(key: K, value: ProductRow[K], wireName: string) => {
    if (JSON.stringify(row[key]) !== JSON.stringify(value)) changed.add(wireName);
    row[key] = value;
  };

  if (patch.name !== undefined) set("name", patch.name, "name");
  if (patch.slug !== undefined) set("slug", patch.slug, "slug");
  if (patch.productType !== undefined) set("productType", patch.productType, "productType");
  if (patch.richDescription !== undefined) {
    set("richDescription", patch.richDescription, "richDescription");
    set("description", patch.description !== undefined ? descriptionToPlain(patch.description) : richToPlain(patch.richDescription.nodes), "description");
  } else if (patch.description !== undefined) {
    const rich = descriptionToRich(patch.description);
    set("richDescription", rich as { nodes: unknown[] }, "richDescription");
    set("description", richToPlain(rich.nodes), "description");
  }
  if (patch.sku !== undefined) set("sku", patch.sku || null, "sku");
  if (patch.visible !== undefined) set("visible", patch.visible, "visible");
  if (patch.weight !== undefined) set("weight", patch.weight, "weight");
  if (patch.priceData !== undefined) set("price", toMinor(patch.priceData.price, currency), "priceData");
  if (patch.costAndProfitData !== undefined) set("cost", toMinor(patch.costAndProfitData.itemCost, currency), "costAndProfitData");
  if (patch.discount !== undefined) {
    // null clears the discount.
    set("discountType", patch.discount?.type ?? "NONE", "discount");
    set("discountValue", patch.discount?.value ?? 0, "discount");
  }
  if (patch.pricePerUnitData !== undefined) set("pricePerUnitData", patch.pricePerUnitData, "pricePerUnitData");
  if (patch.brand !== undefined) set("brand", patch.brand || null, "brand");
  if (patch.ribbon !== undefined) set("ribbon", patch.ribbon || null, "ribbon");
  if (patch.manageVariants !== undefined) set("manageVariants", patch.manageVariants, "manageVariants");
  if (patch.additionalInfoSections !== undefined) {
    set(
      "infoSections",
      patch.additionalInfoSections.map((s) => ({ id: before.infoSections.find((o) => o.title === s.title)?.id ?? newId(), ...s })),
      "additionalInfoSections",
    );
  }
  if (patch.seoData !== undefined) set("seoData", patch.seoData as Record<string, unknown>, "seoData");
  // As at create, a quantity without trackInventory turns tracking on (rather than being silently dropped).
  const trackInventory = patch.stock?.trackInventory ?? (patch.stock?.quantity !== undefined ? true : undefined);
  if (trackInventory !== undefined) set("trackInventory", trackInventory, "stock");
  checkCommon({ pricePerUnitData: patch.pricePerUnitData ?? undefined, discount: patch.discount }, violations);

  if (patch.productOptions !== undefined) {
    const options = storedOptions(patch.productOptions, before.productOptions, violations);
    if (combinationCount(options) > MAX_VARIANTS)
      violations.push({ field: "product.productOptions", description: `make more than ${MAX_VARIANTS} variants`, violatedRule: "MAX_SIZE", data: {} });
    // Media ids linked to choices must still exist.
    set("productOptions", options, "productOptions");
  }
  if (patch.media !== undefined) {
    const media = patch.media.map(storedMedia);
    for (const o of row.productOptions) for (const c of o.choices) c.mediaIds = [];
    linkChoiceMedia(row.productOptions, media, patch.media, "product.media", violations);
    set("media", media, "media");
  }
  if (violations.length) throw invalidArgument(violations);

  // Variants: regenerate from options when they changed, then apply stock and overrides.
  let rows = current.variants.map((v) => ({ ...v }));
  if (patch.productOptions !== undefined) {
    const plan = planVariants(id, row.productOptions, rows, {
      quantity: row.trackInventory ? (patch.stock?.quantity ?? 0) : null,
      inStock: patch.stock?.inStock ?? true,
    });
    rows = [...plan.keep, ...plan.add].sort((a, b) => a.position - b.position);
  }
  if (patch.stock) {
    for (const v of rows) {
      if (row.trackInventory && patch.stock.quantity !== undefined) v.quantity = patch.stock.quantity;
      if (row.trackInventory && v.quantity === null) v.quantity = 0;
      if (!row.trackInventory) v.quantity = null;
      if (patch.stock.inStock !== undefined) v.inStock = patch.stock.inStock;
    }
  }
  if (before.manageVariants && !row.manageVariants) {
    // Variants stop having their own data: they take the product's again (as resetToDefault does).
    for (const v of rows) Object.assign(v, { price: null, cost: null, weight: null, sku: null, visible: true });
  }
  if (patch.variants?.length) {
    if (!row.manageVariants && patch.variants.some(ownVariantData)) violations.push({ field: "product.manageVariants", description: "must be true to give variants their own data", violatedRule: "VALIDATION", data: {} });
    applyOverrides(rows, patch.variants, row.trackInventory, currency, "product.variants", violations);
  }
  if (violations.length) throw invalidArgument(violations);
  if (patch.slug !== undefined && patch.slug !== before.slug) {
    const free = await freeSlug(ctx.db, products, patch.slug, id);
    if (free !== patch.slug) throw new ApiError(409, "DUPLICATE_SLUG", `Another product already uses the slug "${patch.slug}"`, { message: "Slug already in use" });
  }

  const variantChange = variantStatements(ctx, current.variants, rows);
  if (variantChange.changed.length || variantChange.removed.length) changed.add("variants");
  // Nothing differs: no new version and no ProductChanged event with an empty field list.
  if (!changed.size) return v1Product(current, shapeOptions(ctx, true));
  const stamp = nextStamp(before.updatedDate);
  const { id: _id, numericId: _nid, createdDate: _c, minPrice: _a, maxPrice: _b, inStock: _s, quantity: _q, variantSkus: _k, ...fields } = row;
  const events = [newEvent(ctx, EventType.productChanged, id, { productId: id, changedFields: [...changed] })];
  if (variantChange.changed.length || variantChange.removed.length) events.push(variantsChangedEvent(ctx, id, variantChange.changed, variantChange.removed));
  const writes: Statement[] = [
    ctx.db.update(products).set({ ...fields, updatedDate: stamp, lastUpdated: stamp }).where(eq(products.id, id)),
    ...variantChange.statements,
  ];
  // Writes that may move stock go through the inventory's change log (cause MANUAL) and its events.
  const stock = variantChange.statements.length || changed.has("stock") ? manualStockChange(ctx, id, writes) : undefined;
  const loaded = await writeAndLoad(
    ctx,
    id,
    [
      expectVersion(ctx, current),
      ...(stock ? stock.statements : writes),
      refreshSummary(ctx.db, [id], currency),
      ...events.map((e) => outboxInsert(ctx.db, e)),
      clearAssertions(ctx.db),
    ],
    events,
    "Product",
    stock,
  );
  return v1Product(loaded, shapeOptions(ctx, true));
}

/**
 * A copy of a product: every field, option, variant (with its own data and stock), media item and collection, under
 * a new id and a free slug, hidden until the merchant shows it (so shoppers never see two of the same by surprise).
 */
export async function duplicateProduct(ctx: Ctx, id: string) {
  const source = await loadForWrite(ctx, id);
  const r = source.row;
  const { currency } = ctx;
  const money = (minor: number | null) => (minor === null ? undefined : toMajor(minor, currency));
  const choiceOf = (mediaId: string) => {
    for (const o of r.productOptions) for (const c of o.choices) if (c.mediaIds.includes(mediaId)) return { option: o.name, choice: c.description };
    return undefined;
  };
  const name = `${r.name.slice(0, 73)} (copy)`;
  const input: ProductInput = {
    name,
    productType: r.productType,
    description: r.description,
    ...(r.richDescription ? { richDescription: r.richDescription as ProductInput["richDescription"] } : {}),
    ...(r.sku ? { sku: r.sku } : {}),
    visible: false,
    ...(r.weight !== null ? { weight: r.weight } : {}),
    priceData: { price: toMajor(r.price, currency) },
    ...(r.cost !== null ? { costAndProfitData: { itemCost: toMajor(r.cost, currency) } } : {}),
    discount: { type: r.discountType, value: r.discountValue },
    ...(r.pricePerUnitData ? { pricePerUnitData: r.pricePerUnitData as ProductInput["pricePerUnitData"] } : {}),
    ...(r.ribbon ? { ribbon: r.ribbon } : {}),
    ...(r.brand ? { brand: r.brand } : {}),
    manageVariants: r.manageVariants,
    productOptions: r.productOptions.map((o) => ({ name: o.name, optionType: o.optionType, choices: o.choices.map((c) => ({ value: c.value, description: c.description, visible: c.visible })) })),
    stock: { trackInventory: r.trackInventory },
    additionalInfoSections: r.infoSections.map(({ title, description }) => ({ title, description })),
    ...(r.seoData ? { seoData: r.seoData as ProductInput["seoData"] } : {}),
    media: r.media.map(({ id: mediaId, width, height, ...m }) => ({ ...m, width, height, ...(choiceOf(mediaId) ? { choice: choiceOf(mediaId) } : {}) })),
    // Each variant's own data (when it has any) and its stock, matched by its choices.
    variants: source.variants.map((v) => ({
      choices: v.choices,
      ...(r.manageVariants
        ? { price: money(v.price), cost: money(v.cost), weight: v.weight ?? undefined, sku: v.sku ?? undefined, visible: v.visible }
        : {}),
      stock: r.trackInventory ? { quantity: v.quantity ?? 0 } : { inStock: v.inStock },
    })),
  };
  const slug = await freeSlug(ctx.db, products, slugify(name));
  const prepared = prepareCreateProduct(ctx, input, slug);
  const now = nowIso();
  const memberships = source.collectionIds
    .filter((c) => c !== ALL_PRODUCTS_COLLECTION_ID)
    .map((collectionId) => ctx.db.insert(collectionProducts).values({ collectionId, productId: prepared.row.id, addedDate: now }).onConflictDoNothing());
  const loaded = await writeAndLoad(ctx, prepared.row.id, [...prepared.statements, ...memberships], prepared.events);
  return v1Product(loaded, shapeOptions(ctx, true));
}

/** Deletes a product (its variants and collection memberships go with it). */
export async function deleteProduct(ctx: Ctx, id: string): Promise<void> {
  requirePermission(ctx, "catalog.write");
  const event = newEvent(ctx, EventType.productDeleted, id, { productId: id });
  // The event row is written only if the delete removed the product (outboxInsertIfChanged), so only then flush it.
  // The media it had are read in the same batch, so the files nobody else uses can go once the delete committed.
  const [had, deleted] = (await ctx.db.batch([
    ctx.db.select({ media: products.media }).from(products).where(eq(products.id, id)),
    ctx.db.delete(products).where(eq(products.id, id)),
    outboxInsertIfChanged(ctx.db, event),
  ])) as unknown as [{ media: StoredMedia[] }[], D1Result];
  if (!deleted.meta.changes) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  ctx.waitUntil(flushEvents(ctx.env, ctx.db, [event]));
  ctx.waitUntil(releaseUnusedMedia(ctx, had.flatMap((r) => r.media.flatMap((m) => [m.url, m.thumbnailUrl ?? ""]))));
}

/** Writes a changed copy of a product's JSON/scalar columns with a version check and a ProductChanged event. */
async function writeProductColumns(
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
    ctx.db.update(products).set({ ...fields, updatedDate: stamp, lastUpdated: stamp }).where(eq(products.id, current.row.id)),
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

/** PATCH …/variants: per-variant price, cost, weight, SKU, visibility and stock. Needs manageVariants. */
export async function updateProductVariants(ctx: Ctx, id: string, overrides: VariantOverride[]) {
  const current = await loadForWrite(ctx, id);
  if (!current.row.manageVariants) throw badField("manageVariants", "is false for this product: turn it on to give variants their own data");
  const rows = current.variants.map((v) => ({ ...v }));
  const violations: FieldViolation[] = [];
  applyOverrides(rows, overrides, current.row.trackInventory, ctx.currency, "variants", violations);
  if (violations.length) throw invalidArgument(violations);
  const change = variantStatements(ctx, current.variants, rows);
  const loaded = await writeProductColumns(ctx, current, {}, ["variants"], {
    statements: change.statements,
    events: [variantsChangedEvent(ctx, id, change.changed, [])],
    movesStock: overrides.some((o) => o.stock !== undefined),
  });
  const opts = shapeOptions(ctx, true);
  return { variants: loaded.variants.map((v) => v1Variant(loaded.row, v, opts)) };
}

/** Resets every variant to the product's own price, cost, weight and SKU, and makes them visible again. */
export async function resetProductVariants(ctx: Ctx, id: string): Promise<void> {
  const current = await loadForWrite(ctx, id);
  const rows = current.variants.map((v) => ({ ...v, price: null, cost: null, weight: null, sku: null, visible: true }));
  const change = variantStatements(ctx, current.variants, rows);
  await writeProductColumns(ctx, current, {}, ["variants"], { statements: change.statements, events: [variantsChangedEvent(ctx, id, change.changed, [])] });
}

/** Adds media items (by URL) to a product; an item may name the choice it shows. */
export async function addProductMedia(ctx: Ctx, id: string, inputs: MediaInput[]): Promise<void> {
  const current = await loadForWrite(ctx, id);
  if (current.row.media.length + inputs.length > 50) throw badField("media", `would give the product more than 50 media items (it has ${current.row.media.length})`, "MAX_SIZE");
  const added = inputs.map(storedMedia);
  const options = structuredClone(current.row.productOptions);
  const violations: FieldViolation[] = [];
  linkChoiceMedia(options, added, inputs, "media", violations);
  if (violations.length) throw invalidArgument(violations);
  await writeProductColumns(ctx, current, { media: [...current.row.media, ...added], productOptions: options }, ["media"]);
}

function checkMediaIds(current: LoadedProduct, ids: string[], field: string) {
  const known = new Set(current.row.media.map((m) => m.id));
  const violations: FieldViolation[] = [];
  ids.forEach((mid, i) => {
    if (!known.has(mid)) violations.push({ field: `${field}[${i}]`, description: "is not a media item of this product", violatedRule: "VALIDATION", data: {} });
  });
  if (violations.length) throw invalidArgument(violations);
}

/** Removes media items (and unlinks them from choices). */
export async function removeProductMedia(ctx: Ctx, id: string, mediaIds: string[]): Promise<void> {
  const current = await loadForWrite(ctx, id);
  checkMediaIds(current, mediaIds, "mediaIds");
  const gone = new Set(mediaIds);
  const options = current.row.productOptions.map((o) => ({ ...o, choices: o.choices.map((c) => ({ ...c, mediaIds: c.mediaIds.filter((m) => !gone.has(m)) })) }));
  await writeProductColumns(ctx, current, { media: current.row.media.filter((m) => !gone.has(m.id)), productOptions: options }, ["media"]);
  ctx.waitUntil(releaseUnusedMedia(ctx, current.row.media.filter((m) => gone.has(m.id)).flatMap((m) => [m.url, m.thumbnailUrl ?? ""])));
}

/** Puts a product's media in this order (every item once); the first is the main image. */
export async function reorderProductMedia(ctx: Ctx, id: string, mediaIds: string[]): Promise<void> {
  const current = await loadForWrite(ctx, id);
  checkMediaIds(current, mediaIds, "mediaIds");
  if (new Set(mediaIds).size !== mediaIds.length || mediaIds.length !== current.row.media.length) {
    throw badField("mediaIds", `must list each of the product's ${current.row.media.length} media items once`);
  }
  const byId = new Map(current.row.media.map((m) => [m.id, m]));
  await writeProductColumns(ctx, current, { media: mediaIds.map((m) => byId.get(m)!) }, ["media"]);
}

/** Sets (or, with an empty text, clears) one media item's alt text. */
export async function setProductMediaAltText(ctx: Ctx, id: string, mediaId: string, altText: string): Promise<void> {
  const current = await loadForWrite(ctx, id);
  checkMediaIds(current, [mediaId], "mediaIds");
  const text = altText.trim();
  if (text.length > 200) throw badField("altText", "must be at most 200 characters", "MAX_LENGTH");
  const media = current.row.media.map((m) => {
    if (m.id !== mediaId) return m;
    const { altText: _old, ...rest } = m;
    return text ? { ...rest, altText: text } : rest;
  });
  await writeProductColumns(ctx, current, { media }, ["media"]);
}

/** Links (add) or unlinks (remove) media items to option choices. */
export async function setChoiceMedia(ctx: Ctx, id: string, entries: { option: string; choice: string; mediaIds: string[] }[], mode: "add" | "remove"): Promise<void> {
  const current = await loadForWrite(ctx, id);
  const options = structuredClone(current.row.productOptions);
  const violations: FieldViolation[] = [];
  entries.forEach((e, i) => {
    const option = options.find((o) => o.name === e.option);
    const choice = option?.choices.find((c) => c.description === e.choice);
    if (!option) violations.push({ field: `media[${i}].option`, description: "is not an option of this product", violatedRule: "VALIDATION", data: {} });
    else if (!choice) violations.push({ field: `media[${i}].choice`, description: `is not a choice of ${e.option}`, violatedRule: "VALIDATION", data: {} });
    const known = new Set(current.row.media.map((m) => m.id));
    e.mediaIds.forEach((m, j) => {
      if (!known.has(m)) violations.push({ field: `media[${i}].mediaIds[${j}]`, description: "is not a media item of this product", violatedRule: "VALIDATION", data: {} });
    });
    if (choice) choice.mediaIds = mode === "add" ? [...new Set([...choice.mediaIds, ...e.mediaIds])] : choice.mediaIds.filter((m) => !e.mediaIds.includes(m));
  });
  if (violations.length) throw invalidArgument(violations);
  await writeProductColumns(ctx, current, { productOptions: options }, ["productOptions"]);
}

/** Deletes all options: the product keeps one default variant holding its whole stock. */
export async function deleteProductOptions(ctx: Ctx, id: string): Promise<void> {
  const current = await loadForWrite(ctx, id);
  const { row } = current;
  const total = current.variants.reduce((n, v) => n + (v.quantity ?? 0), 0);
  const anyInStock = current.variants.some((v) => variantInStock(v, row.trackInventory));
  const single: VariantRow = {
    productId: id, id: DEFAULT_VARIANT_ID, choices: {}, position: 0, price: null, cost: null, weight: null, sku: null, visible: true,
    quantity: row.trackInventory ? total : null, inStock: anyInStock,
  };
  const existing = current.variants.find((v) => v.id === DEFAULT_VARIANT_ID && choicesKey(v.choices) === choicesKey({}));
  const change = variantStatements(ctx, current.variants, [existing ? { ...existing, ...single } : single]);
  await writeProductColumns(ctx, current, { productOptions: [], manageVariants: false }, ["productOptions", "manageVariants"], {
    statements: change.statements,
    events: [variantsChangedEvent(ctx, id, change.changed, change.removed)],
    movesStock: true,
  });
}

/** Clears the product's brand or ribbon. */
export async function removeProductField(ctx: Ctx, id: string, field: "brand" | "ribbon"): Promise<void> {
  const current = await loadForWrite(ctx, id);
  await writeProductColumns(ctx, current, { [field]: null }, [field]);
}

export type { ProductRow };

/** Product names by id (ids that match nothing are left out), e.g. for a merchant task's title. */
export async function productNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.select({ id: products.id, name: products.name }).from(products).where(sql`${products.id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])}))`);
  return new Map(rows.map((r) => [r.id, r.name]));
}

/**
 * What the merchant's product filters offer: every collection, and the brands and ribbons products carry (all in
 * one batch, one D1 round trip). Merchants only: hidden collections are included.
 */
export async function productFilterValues(ctx: Ctx): Promise<{ collections: { id: string; name: string }[]; brands: string[]; ribbons: string[] }> {
  requireMerchant(ctx);
  const [cols, brands, ribbons] = await ctx.db.batch([
    ctx.db.select({ id: collections.id, name: collections.name }).from(collections).orderBy(collections.name).limit(500),
    ctx.db.selectDistinct({ value: products.brand }).from(products).where(sql`${products.brand} IS NOT NULL AND ${products.brand} <> ''`).orderBy(products.brand).limit(500),
    ctx.db.selectDistinct({ value: products.ribbon }).from(products).where(sql`${products.ribbon} IS NOT NULL AND ${products.ribbon} <> ''`).orderBy(products.ribbon).limit(500),
  ]);
  return { collections: cols, brands: brands.map((b) => b.value!), ribbons: ribbons.map((r) => r.value!) };
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
