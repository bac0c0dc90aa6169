/**
 * What the catalogue pages share between server and browser: the card and facet shapes, sort choices, listing links
 * and the page metadata (title, description, canonical URL, Open Graph). No server imports here.
 */

export const SHOP_NAME = "Edge Storefront";

/** Products per listing page. */
export const PAGE_SIZE = 24;

export const SORTS = {
  newest: { label: "Newest", sort: [{ fieldName: "createdDate", order: "DESC" }] },
  "price-asc": { label: "Price: low to high", sort: [{ fieldName: "price", order: "ASC" }] },
  "price-desc": { label: "Price: high to low", sort: [{ fieldName: "price", order: "DESC" }] },
  "name-asc": { label: "Name: A to Z", sort: [{ fieldName: "name", order: "ASC" }] },
  "name-desc": { label: "Name: Z to A", sort: [{ fieldName: "name", order: "DESC" }] },
} as const;
export type SortKey = keyof typeof SORTS | "relevance";

/** What the shopper asked for, read from the URL (a plain GET form writes it). */
export interface ListingState {
  q: string;
  sort: SortKey;
  page: number;
  min: number | null;
  max: number | null;
  brands: string[];
  /** Option name → chosen choices, from `opt.<Name>=<choice>`. */
  options: Record<string, string[]>;
  inStock: boolean;
}

/** True when the shopper narrowed the listing (filters, not sort or page). */
export function hasFilters(s: ListingState): boolean {
  return s.min !== null || s.max !== null || s.brands.length > 0 || Object.keys(s.options).length > 0 || s.inStock;
}

export interface ProductCard {
  id: string;
  slug: string;
  name: string;
  brand: string;
  ribbon: string;
  image: { url: string; alt: string; width: number; height: number } | null;
  /** The lowest price a shopper pays, formatted. */
  price: string;
  /** The price before the product's discount, when there is one. */
  compareAt: string | null;
  /** Variants cost different amounts: the price is a "from" price. */
  from: boolean;
  inStock: boolean;
}

export interface FacetChoice {
  value: string;
  label: string;
  count: number;
  selected: boolean;
  /** Colour swatch (a #hex) for colour options. */
  swatch?: string;
}

export interface Facets {
  brands: FacetChoice[];
  options: { name: string; color: boolean; choices: FacetChoice[] }[];
  inStock: { count: number; selected: boolean };
  price: { min: number; max: number; currencySymbol: string } | null;
}

/** The URL of a listing with some of its state changed (sort, page, one filter value removed); the page resets. */
export function listingHref(pathname: string, search: string, change: Record<string, string | null>, remove?: [string, string]): string {
  const next = new URLSearchParams(search);
  for (const [k, v] of Object.entries(change)) {
    if (v === null) next.delete(k);
    else next.set(k, v);
  }
  if (remove) {
    const kept = next.getAll(remove[0]).filter((v) => v !== remove[1]);
    next.delete(remove[0]);
    for (const v of kept) next.append(remove[0], v);
  }
  if (!("page" in change)) next.delete("page");
  const qs = next.toString();
  return `${pathname}${qs ? `?${qs}` : ""}`;
}

/** Page metadata every catalogue page returns from its loader. */
export interface Seo {
  title: string;
  description: string;
  canonical: string;
  image?: string;
  type?: "website" | "product";
  noindex?: boolean;
}

/** Meta tags for a page: title, description, canonical link, Open Graph and Twitter card. */
export function seoMeta(seo: Seo | undefined) {
  if (!seo) return [{ title: SHOP_NAME }];
  return [
    { title: seo.title },
    { name: "description", content: seo.description },
    { tagName: "link", rel: "canonical", href: seo.canonical },
    { property: "og:site_name", content: SHOP_NAME },
    { property: "og:type", content: seo.type ?? "website" },
    { property: "og:title", content: seo.title },
    { property: "og:description", content: seo.description },
    { property: "og:url", content: seo.canonical },
    ...(seo.image ? [{ property: "og:image", content: seo.image }] : []),
    { name: "twitter:card", content: seo.image ? "summary_large_image" : "summary" },
    ...(seo.noindex ? [{ name: "robots", content: "noindex, follow" }] : []),
  ];
}
