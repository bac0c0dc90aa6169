import { productFilterValues, queryProducts } from "#worker/catalog";
import type { Ctx } from "#worker/platform/context";
import { cardOf } from "#web/catalog.server";
import { PRODUCT_SORTS, type ProductFilters, type ProductSort } from "./products";

/**
 * The console's products table, read through the catalogue's product query (the one the API answers): the URL's
 * filters become one filter of the query language plus the full-text search, so the Worker reads one page of
 * products and their count in one D1 round trip, never the whole catalogue.
 */

export const PAGE_SIZE = 25;
const MAX_PAGE = 4000;

export function readProductFilters(url: URL): { filters: ProductFilters; fields: Record<string, string> } {
  const p = url.searchParams;
  const fields: Record<string, string> = {};
  const text = (name: string, max: number) => (p.get(name) ?? "").trim().slice(0, max);
  const price = (name: "min" | "max") => {
    const raw = text(name, 20);
    if (!raw) return "";
    if (!/^\d+(\.\d{1,2})?$/.test(raw)) {
      fields[name] = "Enter an amount such as 25 or 19.99.";
      return "";
    }
    return raw;
  };
  const page = Number(p.get("page") ?? "1");
  const filters: ProductFilters = {
    q: text("q", 200),
    collection: text("collection", 100),
    stock: p.get("stock") === "in" || p.get("stock") === "out" ? (p.get("stock") as "in" | "out") : "",
    visibility: p.get("visibility") === "visible" || p.get("visibility") === "hidden" ? (p.get("visibility") as "visible" | "hidden") : "",
    brand: text("brand", 100),
    ribbon: text("ribbon", 100),
    min: price("min"),
    max: price("max"),
    sort: (Object.keys(PRODUCT_SORTS).includes(p.get("sort") ?? "") ? p.get("sort") : "newest") as ProductSort,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
  };
  if (filters.min && filters.max && Number(filters.min) > Number(filters.max)) fields.max = "The highest price is below the lowest.";
  return { filters, fields };
}

/** The product query's filter, sort and search for the table's filters (shared by the table and its CSV export). */
export function consoleProductQuery(f: ProductFilters) {
  return {
    filter: productFilter(f),
    // With a search and no sort asked for, the best matches come first.
    ...(f.q && f.sort === "newest" ? {} : { sort: [PRODUCT_SORTS[f.sort]] }),
    ...(f.q ? { search: f.q } : {}),
  };
}

export function productFilter(f: ProductFilters): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  if (f.collection) parts.push({ collectionIds: { $hasSome: [f.collection] } });
  if (f.stock) parts.push({ inStock: f.stock === "in" });
  if (f.visibility) parts.push({ visible: f.visibility === "visible" });
  if (f.brand) parts.push({ brand: f.brand });
  if (f.ribbon) parts.push({ ribbon: f.ribbon });
  if (f.min) parts.push({ price: { $gte: Number(f.min) } });
  if (f.max) parts.push({ price: { $lte: Number(f.max) } });
  return parts.length ? { $and: parts } : {};
}

export interface ConsoleProductRow {
  id: string;
  name: string;
  slug: string;
  sku: string;
  visible: boolean;
  image: { url: string; alt: string } | null;
  price: string;
  brand: string;
  ribbon: string;
  variants: number;
  /** "In stock", "Out of stock", "2 of 12 variants out of stock", with units when tracked. */
  stock: { text: string; tone: "good" | "warn" | "bad" };
}

/** One page of products with the filters' choices: two D1 round trips (the page and its count; the choices). */
export async function listConsoleProducts(ctx: Ctx, f: ProductFilters) {
  const [result, choices] = await Promise.all([
    queryProducts(ctx, {
      query: (({ search, ...q }) => ({
        ...q,
        paging: { limit: PAGE_SIZE, offset: (f.page - 1) * PAGE_SIZE },
        ...(search ? { search: { expression: search } } : {}),
      }))(consoleProductQuery(f)),
      includeHiddenProducts: true,
      includeVariants: true,
      includeMerchantSpecificData: true,
    }),
    productFilterValues(ctx),
  ]);
  const rows: ConsoleProductRow[] = result.products.map((p) => {
    const card = cardOf(p, ctx);
    const visibleVariants = (p.variants ?? []).filter((v) => v.variant.visible);
    const out = visibleVariants.filter((v) => !v.stock.inStock).length;
    const units = p.stock.trackInventory ? ` · ${p.stock.quantity ?? 0} units` : "";
    const stock =
      out === 0 && p.stock.inStock
        ? { text: `In stock${units}`, tone: "good" as const }
        : !p.stock.inStock
          ? { text: "Out of stock", tone: "bad" as const }
          : { text: `${out} of ${visibleVariants.length} variants out of stock${units}`, tone: "warn" as const };
    return {
      id: p.id,
      name: p.name,
      slug: p.slug,
      sku: p.sku,
      visible: p.visible,
      image: card.image ? { url: card.image.url, alt: "" } : null,
      price: card.from ? `from ${card.price}` : card.price,
      brand: p.brand,
      ribbon: p.ribbon,
      variants: visibleVariants.length,
      stock,
    };
  });
  return { rows, total: result.totalResults, pages: Math.max(1, Math.ceil(result.totalResults / PAGE_SIZE)), choices };
}
