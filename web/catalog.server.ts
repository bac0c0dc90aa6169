import { cachedCatalogRead, getCollection, queryCollections, queryProducts as liveQueryProducts } from "#worker/catalog";
import type { Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { formatMoney, toMajor, toMinor } from "#worker/platform/money";
import { PAGE_SIZE, SORTS, type Facets, type ListingState, type ProductCard, type SortKey } from "#web/components/catalog/shared";

/**
 * Catalogue pages' server side: turns the URL's filter state into the catalogue's own product query
 * (queryProducts, the service behind query-platformized) and shapes products into the small cards the pages render.
 * Facet counts come from the same service, scanning the listing's scope (the collection, or the search results).
 */

/**
 * Each of the functions the pages call below goes through the shoppers' cache (worker/catalog/cache.ts), keeping what
 * the page renders (cards, counts, facets) rather than the products it is made from: the same answers, mostly without
 * a D1 round trip, and without parsing and shaping full products (with all their variants) on every render. Any
 * catalogue change purges them.
 */

/** How many products the facet counts look at (5 pages of the query's maximum). */
const FACET_SCAN_LIMIT = 500;

const priceParam = (v: string | null) => {
  if (v === null || v.trim() === "") return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 && n < 1e9 ? n : null;
};

export function readListingState(url: URL, { search = false } = {}): ListingState {
  const p = url.searchParams;
  const sortParam = p.get("sort") ?? "";
  const sort: SortKey = Object.hasOwn(SORTS, sortParam) ? (sortParam as SortKey) : search ? "relevance" : "newest";
  const page = Math.min(Math.max(Number.parseInt(p.get("page") ?? "1", 10) || 1, 1), 1000);
  const options: Record<string, string[]> = {};
  for (const [key, value] of p) {
    if (!key.startsWith("opt.") || key.length <= 4 || key.length > 60 || !value || value.length > 60) continue;
    if (!options[key.slice(4)] && Object.keys(options).length >= 10) continue;
    (options[key.slice(4)] ??= []).push(value);
  }
  let min = priceParam(p.get("min"));
  let max = priceParam(p.get("max"));
  if (min !== null && max !== null && min > max) [min, max] = [max, min];
  return {
    q: (p.get("q") ?? "").trim().slice(0, 200),
    sort,
    page,
    min,
    max,
    brands: [...new Set(p.getAll("brand").filter((b) => b && b.length <= 100))].slice(0, 20),
    options,
    inStock: p.get("instock") === "1",
  };
}

/** The query language filter for the state, within an optional collection. */
function filterOf(s: ListingState, collectionId: string | null) {
  const filter: Record<string, unknown> = {};
  if (collectionId) filter.collectionIds = { $hasSome: [collectionId] };
  if (s.min !== null || s.max !== null) filter.price = { ...(s.min !== null ? { $gte: s.min } : {}), ...(s.max !== null ? { $lte: s.max } : {}) };
  if (s.brands.length) filter.brand = { $in: s.brands };
  if (s.inStock) filter.inStock = true;
  for (const [name, choices] of Object.entries(s.options)) filter[`options.${name}`] = { $hasSome: choices };
  return filter;
}

type V1Product = Awaited<ReturnType<typeof liveQueryProducts>>["products"][number];

/** The lowest price a shopper can pay (over visible variants), in minor units, and the price before discount. */
function lowestPrices(p: V1Product, currency: string) {
  const variants = p.variants ?? [];
  const actual = variants.length
    ? variants.map((v) => toMinor(v.variant.priceData.discountedPrice, currency))
    : [toMinor(p.price.discountedPrice, currency)];
  const base = variants.length ? variants.map((v) => toMinor(v.variant.priceData.price, currency)) : [toMinor(p.price.price, currency)];
  return { min: Math.min(...actual), max: Math.max(...actual), base: Math.min(...base) };
}

/** A relative URL for an image the catalogue made absolute with this server's origin (the page works on any host). */
export function sameSiteUrl(url: string, origin: string): string {
  return url.startsWith(`${origin}/`) ? url.slice(origin.length) : url;
}

export function cardOf(p: V1Product, ctx: Ctx): ProductCard {
  const { min, max, base } = lowestPrices(p, ctx.currency);
  const main = p.media.items.find((m) => "image" in m && m.image);
  const image = main && "image" in main && main.image ? main.image : null;
  return {
    id: p.id,
    slug: p.slug,
    name: p.name,
    brand: p.brand,
    ribbon: p.ribbon,
    image: image
      ? { url: sameSiteUrl(image.url, ctx.origin), alt: image.altText || p.name, width: image.width || 800, height: image.height || 800 }
      : null,
    price: formatMoney(min, ctx.currency),
    compareAt: base > min ? formatMoney(base, ctx.currency) : null,
    from: max > min,
    inStock: p.stock.inStock,
  };
}

/** A page of products for the state (the critical part of a listing: one D1 round trip). */
export function listProducts(ctx: Ctx, s: ListingState, collectionId: string | null, limit = PAGE_SIZE) {
  return cachedCatalogRead(ctx, "listProducts", [s, collectionId, limit], () => liveListProducts(ctx, s, collectionId, limit));
}

async function liveListProducts(ctx: Ctx, s: ListingState, collectionId: string | null, limit: number) {
  const sort = s.sort === "relevance" ? undefined : SORTS[s.sort].sort;
  const filter = filterOf(s, collectionId);
  const result = await liveQueryProducts(ctx, {
    includeVariants: true,
    query: {
      ...(Object.keys(filter).length ? { filter } : {}),
      ...(sort ? { sort } : {}),
      paging: { limit, offset: (s.page - 1) * limit },
      ...(s.q ? { search: { expression: s.q } } : {}),
    },
  });
  return {
    cards: result.products.map((p) => cardOf(p, ctx)),
    total: result.metadata.total,
    pages: Math.max(1, Math.ceil(result.metadata.total / limit)),
  };
}

/** A few products by a plain query (home page rows, related products). */
export function productCards(ctx: Ctx, query: { filter?: Record<string, unknown>; sort?: { fieldName: string; order: string }[]; limit: number }) {
  return cachedCatalogRead(ctx, "productCards", query, async () => {
    const result = await liveQueryProducts(ctx, {
      includeVariants: true,
      query: { ...(query.filter ? { filter: query.filter } : {}), ...(query.sort ? { sort: query.sort } : {}), paging: { limit: query.limit } },
    });
    return result.products.map((p) => cardOf(p, ctx));
  });
}

interface ScopeItem {
  brand: string;
  price: number;
  inStock: boolean;
  options: Map<string, Set<string>>;
}

/**
 * Facets for the listing: each choice counts the products it would show together with the shopper's other filters
 * (choices of one facet are alternatives). Streamed after the first results; never throws (no facets on failure).
 */
export async function listingFacets(ctx: Ctx, s: ListingState, collectionId: string | null): Promise<Facets | null> {
  try {
    // A failure is not cached: it throws out of cachedCatalogRead, and the next view tries again.
    return await cachedCatalogRead(ctx, "listingFacets", [s, collectionId], () => liveListingFacets(ctx, s, collectionId));
  } catch (err) {
    console.error("facets failed", err);
    return null;
  }
}

async function liveListingFacets(ctx: Ctx, s: ListingState, collectionId: string | null): Promise<Facets | null> {
  const items: ScopeItem[] = [];
  const swatches = new Map<string, string>();
  const colorOptions = new Set<string>();
  const optionOrder = new Map<string, string[]>();
  for (let offset = 0; offset < FACET_SCAN_LIMIT; offset += 100) {
    const page = await liveQueryProducts(ctx, {
      includeVariants: true,
      query: {
        ...(collectionId ? { filter: { collectionIds: { $hasSome: [collectionId] } } } : {}),
        paging: { limit: 100, offset },
        ...(s.q ? { search: { expression: s.q } } : {}),
      },
    });
    for (const p of page.products) {
      const options = new Map<string, Set<string>>();
      for (const o of p.productOptions) {
        const order = optionOrder.get(o.name) ?? [];
        optionOrder.set(o.name, order);
        if (o.optionType === "color") colorOptions.add(o.name);
        const offered = new Set<string>();
        for (const c of o.choices) {
          if (!c.visible) continue;
          offered.add(c.description);
          if (!order.includes(c.description)) order.push(c.description);
          if (o.optionType === "color" && /^#[0-9a-f]{3,8}$/i.test(c.value)) swatches.set(`${o.name}\u0000${c.description}`, c.value);
        }
        options.set(o.name, offered);
      }
      items.push({ brand: p.brand, price: lowestPrices(p, ctx.currency).min, inStock: p.stock.inStock, options });
    }
    if (offset + page.products.length >= page.metadata.total || page.products.length === 0) break;
  }
  if (!items.length) return null;

  const minMinor = s.min !== null ? toMinor(s.min, ctx.currency) : null;
  const maxMinor = s.max !== null ? toMinor(s.max, ctx.currency) : null;
  const passes = (it: ScopeItem, leaveOut?: string) =>
    (minMinor === null || it.price >= minMinor) &&
    (maxMinor === null || it.price <= maxMinor) &&
    (leaveOut === "brand" || !s.brands.length || s.brands.includes(it.brand)) &&
    (leaveOut === "inStock" || !s.inStock || it.inStock) &&
    Object.entries(s.options).every(([name, chosen]) => leaveOut === `opt.${name}` || chosen.some((c) => it.options.get(name)?.has(c)));

  const brandCounts = new Map<string, number>();
  for (const it of items) if (it.brand && passes(it, "brand")) brandCounts.set(it.brand, (brandCounts.get(it.brand) ?? 0) + 1);
  for (const b of s.brands) if (!brandCounts.has(b)) brandCounts.set(b, 0);
  const brands = [...brandCounts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([b, count]) => ({ value: b, label: b, count, selected: s.brands.includes(b) }));

  const options = [...optionOrder].map(([name, order]) => {
    const chosen = s.options[name] ?? [];
    const choices = order.map((choice) => ({
      value: choice,
      label: choice,
      count: items.filter((it) => it.options.get(name)?.has(choice) && passes(it, `opt.${name}`)).length,
      selected: chosen.includes(choice),
      ...(swatches.has(`${name}\u0000${choice}`) ? { swatch: swatches.get(`${name}\u0000${choice}`) } : {}),
    }));
    return { name, color: colorOptions.has(name), choices: choices.filter((c) => c.count > 0 || c.selected) };
  });

  const prices = items.map((it) => it.price);
  const symbol = formatMoney(0, ctx.currency).replace(/[\d.,\s]/g, "");
  return {
    brands,
    // Options with only one choice across the scope do not narrow anything.
    options: options
      .filter((o) => o.choices.length > 1 || o.choices.some((c) => c.selected))
      .sort((a, b) => Number(b.color) - Number(a.color) || a.name.localeCompare(b.name)),
    inStock: { count: items.filter((it) => it.inStock && passes(it, "inStock")).length, selected: s.inStock },
    price: {
      min: Math.floor(toMajor(Math.min(...prices), ctx.currency)),
      max: Math.ceil(toMajor(Math.max(...prices), ctx.currency)),
      currencySymbol: symbol,
    },
  };
}

/** The visible collections for navigation (name, slug, product count, image), the built-in "All Products" left out. */
export function navCollections(ctx: Ctx) {
  return cachedCatalogRead(ctx, "navCollections", null, () => liveNavCollections(ctx));
}

/** The collections query the navigation reads. */
export const NAV_COLLECTIONS_QUERY = { paging: { limit: 50 } };

async function liveNavCollections(ctx: Ctx) {
  const { collections } = await queryCollections(ctx, NAV_COLLECTIONS_QUERY);
  return navCollectionsOf(ctx, collections);
}

/** The collections query's answer as the navigation's entries, the built-in "All Products" left out. */
export function navCollectionsOf(ctx: Ctx, collections: Awaited<ReturnType<typeof queryCollections>>["collections"]) {
  return collections
    .filter((c) => c.slug !== "all-products")
    .map((c) => ({
      id: c.id,
      slug: c.slug,
      name: c.name,
      count: c.numberOfProducts,
      description: c.description ?? "",
      image: c.media?.mainMedia?.image
        ? { url: sameSiteUrl(c.media.mainMedia.image.url, ctx.origin), alt: c.media.mainMedia.image.altText ?? "" }
        : null,
    }));
}

/** A collection by slug for a page, or the 404 page. */
export async function collectionOr404(ctx: Ctx, slug: string) {
  try {
    return await cachedCatalogRead(ctx, "getCollection", slug, () => getCollection(ctx, { slug }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new Response("Collection not found", { status: 404 });
    throw err;
  }
}
