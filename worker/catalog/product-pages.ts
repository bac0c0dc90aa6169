import { asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { runBatch } from "#worker/platform/unit-of-work";
import { isMerchant, type Ctx, requireMerchant } from "#worker/platform/context";
import { invalidArgument, notFound, type FieldViolation } from "#worker/platform/errors";
import { v1Options, v1Product, v1Variant, v3Product, type LoadedProduct } from "./shapes";
import { products, type StoredMedia } from "./tables";
import { matching, variantInStock } from "./variants";
import { outerProductId, selectLoaded, shapeOptions, toLoaded, visibleProduct, type LoadedRow } from "./product-reads";
import type { Db } from "#worker/platform/db";

/** What the storefront and the console read about one product: its shapes, its page, its editor, its availability. */

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

/** How many suggested products the storefront's product page shows. */
export const RELATED_LIMIT = 4;

/**
 * A ranking's products a shopper may see, best first: `ranking` is an SQL query of `product_id, score` rows (higher
 * scores first); hidden products are left out, ties go to the newest product.
 */
const joinRanking = (ranking: SQL) => [sql`(${ranking}) AS ranked`, sql`ranked.product_id = ${outerProductId}`] as const;
const RANKED_ORDER = [sql`ranked.score DESC`, desc(products.createdDate), asc(products.id)] as const;

/** The ids of a ranking's visible products, best first, at most `limit` (a statement for a batch). */
export function rankedProductIds(db: Db, ranking: SQL, limit: number) {
  return db
    .select({ id: products.id })
    .from(products)
    .innerJoin(...joinRanking(ranking))
    .where(eq(products.visible, true))
    .orderBy(...RANKED_ORDER)
    .limit(limit);
}

/**
 * Everything the storefront's product page reads, in one D1 round trip (a batch of SELECTs): the visible product
 * by slug (PRODUCT_NOT_FOUND otherwise), shaped for the shopper (V1 and V3), the shopper's selection (the options'
 * choices asked for, and any option with a single visible choice chosen for them), the choices' availability for it
 * (as productOptionsAvailability), and, for each ranking `suggest` makes of the product (an SQL subquery of its id),
 * up to RELATED_LIMIT of the ranking's visible products, best first.
 */
export async function getProductPage(ctx: Ctx, slug: string, wanted: (optionName: string) => string | null, suggest: (item: SQL) => readonly SQL[]) {
  const item = sql`SELECT id FROM products WHERE slug = ${slug}`;
  const [rows, ...suggestedRows] = (await runBatch(ctx.db, [
    selectLoaded(ctx.db).where(eq(products.slug, slug)).limit(1),
    ...suggest(item).map((ranking) =>
      selectLoaded(ctx.db)
        .innerJoin(...joinRanking(ranking))
        .where(eq(products.visible, true))
        .orderBy(...RANKED_ORDER)
        .limit(RELATED_LIMIT),
    ),
  ])) as LoadedRow[][];
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
    suggestions: suggestedRows.map((list) => list.map((r) => v1Product(toLoaded(r), opts, true))),
  };
}

/** What the console's product editor shows, in one D1 round trip: the product (any visibility, or none for a new
 * one) and the brands and ribbons in use, offered as suggestions. */
export async function loadProductEditor(
  ctx: Ctx,
  id: string | null,
): Promise<{ product: LoadedProduct | null; brands: string[]; ribbons: string[] }> {
  requireMerchant(ctx);
  const names = (column: typeof products.brand | typeof products.ribbon) =>
    ctx.db
      .selectDistinct({ name: sql<string>`${column}` })
      .from(products)
      .where(sql`${column} IS NOT NULL AND ${column} <> ''`)
      .orderBy(column)
      .limit(200);
  const [brands, ribbons, rows] = await runBatch(ctx.db, [
    names(products.brand),
    names(products.ribbon),
    selectLoaded(ctx.db)
      .where(eq(products.id, id ?? ""))
      .limit(1),
  ]);
  return { product: id && rows[0] ? toLoaded(rows[0]) : null, brands: brands.map((b) => b.name), ribbons: ribbons.map((r) => r.name) };
}

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
