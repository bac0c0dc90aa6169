import { sql, type SQL } from "drizzle-orm";
import { ftsExpression } from "#worker/catalog";
import { customerPageSql } from "#worker/customers";
import { requireMerchant, type Ctx } from "#worker/platform/context";
import { rawStatement } from "#worker/platform/db";
import { formatMoney } from "#worker/platform/money";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The console's search: products (full-text), orders (by number or the start of the buyer's email), customers (the
 * start of an email, members and guests) and collections (the start of a name or slug), at most five of each, all
 * four read through indexes in ONE D1 batch.
 */

/** At most this many results of each kind. */
export const SEARCH_LIMIT = 5;

export type SearchKind = "products" | "orders" | "customers" | "collections";

export interface SearchHit {
  kind: SearchKind;
  id: string;
  title: string;
  subtitle: string;
  /** The console page of the hit. */
  href: string;
}

export interface SearchResults {
  q: string;
  products: SearchHit[];
  orders: SearchHit[];
  customers: SearchHit[];
  collections: SearchHit[];
}

const prefixEnd = (prefix: string) => `${prefix}\uffff`;

/** The four statements of a search for `q` (already trimmed), in the order products, orders, customers, collections. */
export function consoleSearchSql(currency: string, q: string): SQL[] {
  const match = ftsExpression(q) ?? '""';
  const lower = q.toLowerCase();
  const digits = /^#?\d{1,15}$/.test(q) ? Number(q.replace("#", "")) : -1;
  return [
    sql`SELECT p.id AS id, p.name AS name, p.sku AS sku, p.visible AS visible FROM product_search s
      JOIN products p ON p.numeric_id = s.rowid WHERE product_search MATCH ${match} ORDER BY s.rank LIMIT ${SEARCH_LIMIT}`,
    sql`SELECT id, number, buyer_email, status, payment_status, total, currency, purchased_date FROM (
        SELECT * FROM (SELECT * FROM orders WHERE number = ${digits})
        UNION ALL
        SELECT * FROM (SELECT * FROM orders WHERE buyer_email >= ${lower} AND buyer_email < ${prefixEnd(lower)} AND number <> ${digits}
          ORDER BY buyer_email, purchased_date DESC LIMIT ${SEARCH_LIMIT}))
      ORDER BY number = ${digits} DESC, purchased_date DESC LIMIT ${SEARCH_LIMIT}`,
    customerPageSql(currency, "", lower, SEARCH_LIMIT),
    sql`SELECT id, name, slug, visible FROM (
        SELECT * FROM (SELECT * FROM collections WHERE slug >= ${lower} AND slug < ${prefixEnd(lower)} ORDER BY slug LIMIT ${SEARCH_LIMIT})
        UNION
        SELECT * FROM (SELECT * FROM collections WHERE name COLLATE NOCASE >= ${q} AND name COLLATE NOCASE < ${prefixEnd(q)}
          ORDER BY name COLLATE NOCASE LIMIT ${SEARCH_LIMIT}))
      ORDER BY name COLLATE NOCASE LIMIT ${SEARCH_LIMIT}`,
  ];
}

const rowsOf = <T>(result: unknown) => ((result as { results?: T[] }).results ?? []) as T[];

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** Searches the store for the console (any staff member): an empty `q` finds nothing without reading. */
export async function consoleSearch(ctx: Ctx, raw: string): Promise<SearchResults> {
  requireMerchant(ctx);
  const q = raw.trim().slice(0, 100);
  const results: SearchResults = { q, products: [], orders: [], customers: [], collections: [] };
  if (!q) return results;
  const [products, orders, customers, collections] = await runBatch(
    ctx.db,
    consoleSearchSql(ctx.currency, q).map((s) => rawStatement(ctx.db, s)),
  );
  results.products = rowsOf<{ id: string; name: string; sku: string | null; visible: number }>(products).map((p) => ({
    kind: "products",
    id: p.id,
    title: p.name,
    subtitle: [p.sku ? `SKU ${p.sku}` : "", p.visible ? "Visible" : "Hidden"].filter(Boolean).join(" · "),
    href: `/console/products/${p.id}`,
  }));
  results.orders = rowsOf<{
    id: string;
    number: number;
    buyer_email: string | null;
    status: string;
    payment_status: string;
    total: number;
    currency: string;
  }>(orders).map((o) => ({
    kind: "orders",
    id: o.id,
    title: `Order #${o.number}`,
    subtitle: [o.buyer_email ?? "", formatMoney(Number(o.total), o.currency), o.payment_status.replace(/_/g, " ").toLowerCase()]
      .filter(Boolean)
      .join(" · "),
    href: `/console/orders/${o.id}`,
  }));
  results.customers = rowsOf<{ email: string; member_id: string | null; member_name: string | null; order_name: string | null; orders: number }>(
    customers,
  ).map((c) => ({
    kind: "customers",
    id: c.email,
    title: (c.member_name || c.order_name || "").trim() || c.email,
    subtitle: [c.email, c.member_id ? "Member" : "Guest", plural(Number(c.orders), "order")].join(" · "),
    href: `/console/customers/${encodeURIComponent(c.email)}`,
  }));
  results.collections = rowsOf<{ id: string; name: string; slug: string; visible: number }>(collections).map((c) => ({
    kind: "collections",
    id: c.id,
    title: c.name,
    subtitle: [`/${c.slug}`, c.visible ? "Visible" : "Hidden"].join(" · "),
    href: `/console/collections/${c.id}`,
  }));
  return results;
}
