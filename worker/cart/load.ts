import { and, eq, or, sql, type SQL } from "drizzle-orm";
import { now as clockNow } from "#worker/platform/clock";
import type { BatchItem } from "drizzle-orm/batch";
import { products, variants } from "#worker/catalog";
import type { VariantRow } from "#worker/catalog";
import { identities } from "#worker/identity";
import type { Ctx } from "#worker/platform/context";
import { ApiError, forbidden, unauthenticated } from "#worker/platform/errors";
import { codeKey } from "#worker/pricing";
import { coupons, discountRuleCodes, discountRules } from "#worker/pricing";
import { loadPricingConfig, pricingReads, type PricingConfig } from "#worker/pricing";
import type { CartRow, CatalogProduct, LineRow } from "./shapes";
import { cartLineItems, carts, checkouts, type CartOwnerKind } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/** Reading carts: whose cart it is, the one-batch read of carts with their lines and catalogue rows, the pricing reads, and the current cart's read shared within a request. */

// ---------------------------------------------------------------------------------------------------------------
// Owners

export interface CartOwner {
  kind: CartOwnerKind;
  id: string;
}

/** The caller's cart owner: the member, or the visitor. Anyone else has no current cart. */
export function cartOwnerOf(ctx: Ctx): CartOwner {
  const auth = ctx.auth;
  if (auth.kind === "member") return { kind: "member", id: auth.identityId };
  if (auth.kind === "visitor") return { kind: "visitor", id: auth.visitorId };
  if (auth.kind === "anonymous") throw unauthenticated("The current cart needs a visitor's or member's access token in the Authorization header");
  throw forbidden("An API key has no current cart: call this with the visitor's or member's access token");
}

export const ownerKey = (o: CartOwner) => `${o.kind}:${o.id}`;

export function cartNotFound(): ApiError {
  return new ApiError(404, "OWNED_CART_NOT_FOUND", "The caller has no current cart (add an item to create one)", { message: "Cart not found" });
}

// ---------------------------------------------------------------------------------------------------------------
// Loading: one batch

/** Preorder without a limit (the inventory part's "no limit"). */
export const UNLIMITED_PREORDER = 1_000_000_000;

/** The outer product's id, spelled out: drizzle renders a column inside a select field unqualified. */
const outerProductId = sql.raw(`"products"."id"`);

const productColumns = {
  id: products.id,
  name: products.name,
  slug: products.slug,
  visible: products.visible,
  productType: products.productType,
  price: products.price,
  discountType: products.discountType,
  discountValue: products.discountValue,
  weight: products.weight,
  sku: products.sku,
  trackInventory: products.trackInventory,
  productOptions: products.productOptions,
  media: products.media,
  collectionIdsJson: sql<string>`(SELECT json_group_array(cp.collection_id) FROM collection_products cp WHERE cp.product_id = ${outerProductId})`.as(
    "collection_ids_json",
  ),
  // With preorder on (inventory's preorder_settings), tracked stock may go below zero down to minus the limit.
  preorderFloor: sql<number>`coalesce((SELECT -coalesce(ps.preorder_limit, ${UNLIMITED_PREORDER}) FROM preorder_settings ps
    WHERE ps.product_id = ${outerProductId} AND ps.enabled = 1), 0)`.as("preorder_floor"),
};

export interface OwnerState {
  cart: CartRow | null;
  lines: LineRow[];
}

export interface Loaded {
  states: Map<string, OwnerState>;
  products: Map<string, CatalogProduct>;
  /** Results of the extra statements, in order. */
  extra: unknown[];
}

/**
 * Reads the ACTIVE carts of these owners, their lines, and the catalogue rows the lines (and `productIds`, the
 * items a change is about to add) refer to: every variant of `productIds`, only the lines' own variants otherwise.
 * One D1 round trip, with any `extra` reads in the same batch.
 */
export async function loadCarts(ctx: Ctx, owners: CartOwner[], productIds: string[], extra: BatchItem<"sqlite">[] = []): Promise<Loaded> {
  const reads = cartReads(ctx, owners, productIds);
  const results = await runBatch(ctx.db, [...reads.statements, ...extra]);
  return { ...reads.finish(results.slice(0, reads.statements.length)), extra: results.slice(reads.statements.length) };
}

/** The lines of the checkout whose id `checkoutId` (a scalar SQL expression) gives, as (catalog item, variant) rows. */
const checkoutLinesOf = (checkoutId: SQL) =>
  sql`(SELECT json_extract(j.value, '$.catalogItemId') AS catalog_item_id, json_extract(j.value, '$.variantId') AS variant_id
    FROM checkouts ck, json_each(ck.line_items) j WHERE ck.id = ${checkoutId})`;

/**
 * "The owner's active cart", written with the literal 'ACTIVE' (not a bound parameter) so SQLite can use the partial
 * unique index carts_active_owner_unique (owner, WHERE status = 'ACTIVE'): with `status = ?` it scans every active
 * cart in the store instead, a read that grows with every visitor. With several owners (a member and their visitor
 * cart), each OR branch carries it, or SQLite falls back to that scan too.
 */
export const activeCart = sql`${carts.status} = 'ACTIVE'`;

/**
 * loadCarts' statements, to batch with other reads: `finish` takes exactly their results. With `checkoutId` (a
 * scalar SQL expression, e.g. the cart's checkout_id), the catalogue rows that checkout's lines refer to come too,
 * so the checkout can be priced from the same round trip.
 */
export function cartReads(ctx: Ctx, owners: CartOwner[], productIds: string[], checkoutId?: SQL) {
  const db = ctx.db;
  const wanted = JSON.stringify([...new Set(productIds)]);
  const checkoutProducts = checkoutId ? sql` OR ${products.id} IN (SELECT catalog_item_id FROM ${checkoutLinesOf(checkoutId)})` : sql``;
  // A row-value IN, not a correlated EXISTS: the checkout's lines are read once, not once per variant row.
  const checkoutVariants = checkoutId
    ? sql` OR (${variants.productId}, ${variants.id}) IN (SELECT catalog_item_id, variant_id FROM ${checkoutLinesOf(checkoutId)})`
    : sql``;
  // No owners (a checkout read by id): no cart statements at all, only the checkout's catalogue rows. (A cart read
  // "WHERE 0" reads no rows, but would be a SCAN in every plan of the checkout calls.)
  const ownerMatch = sql.join(
    // The status in every branch: SQLite then answers each owner from the partial index (see activeCart).
    owners.map((o) => sql`(c.status = 'ACTIVE' AND c.owner_kind = ${o.kind} AND c.owner_id = ${o.id})`),
    sql` OR `,
  );
  const activeIds = sql`(SELECT c.id FROM carts c WHERE ${ownerMatch})`;
  const lineProducts = owners.length
    ? sql`${products.id} IN (SELECT l.catalog_item_id FROM cart_line_items l WHERE l.cart_id IN ${activeIds}) OR `
    : sql``;
  const lineVariants = owners.length
    ? sql` OR (${variants.productId}, ${variants.id}) IN (SELECT l.catalog_item_id, l.variant_id FROM cart_line_items l WHERE l.cart_id IN ${activeIds})`
    : sql``;
  const cartStatements = owners.length
    ? [
        db
          .select()
          .from(carts)
          .where(or(...owners.map((o) => and(activeCart, eq(carts.ownerKind, o.kind), eq(carts.ownerId, o.id))))),
        db.select().from(cartLineItems).where(sql`${cartLineItems.cartId} IN ${activeIds}`).orderBy(cartLineItems.position),
      ]
    : [];
  const statements = [
    ...cartStatements,
    db.select(productColumns).from(products).where(sql`${lineProducts}${products.id} IN (SELECT value FROM json_each(${wanted}))${checkoutProducts}`),
    db
      .select()
      .from(variants)
      .where(
        // Row-value INs, not a correlated EXISTS: each branch is answered from the (product_id, id) index; an EXISTS
        // made SQLite scan every variant in the store on every cart read.
        sql`${variants.productId} IN (SELECT value FROM json_each(${wanted}))${lineVariants}${checkoutVariants}`,
      )
      .orderBy(variants.productId, variants.position),
  ] as BatchItem<"sqlite">[];
  const finish = (results: unknown[]): Omit<Loaded, "extra"> => {
    const [cartRows, lineRows, productRows, variantRows] = (owners.length ? results : [[], [], ...results]) as [
      CartRow[],
      LineRow[],
      (Omit<CatalogProduct, "variants" | "collectionIds"> & { collectionIdsJson: string })[],
      VariantRow[],
    ];
    const byProduct = new Map<string, VariantRow[]>();
    for (const v of variantRows) {
      const list = byProduct.get(v.productId) ?? [];
      list.push(v);
      byProduct.set(v.productId, list);
    }
    const productMap = new Map<string, CatalogProduct>();
    for (const { collectionIdsJson, ...p } of productRows) {
      productMap.set(p.id, { ...p, collectionIds: JSON.parse(collectionIdsJson) as string[], variants: byProduct.get(p.id) ?? [] });
    }
    const states = new Map<string, OwnerState>();
    for (const o of owners) {
      const cart = cartRows.find((c) => c.ownerKind === o.kind && c.ownerId === o.id) ?? null;
      states.set(ownerKey(o), { cart, lines: cart ? lineRows.filter((l) => l.cartId === cart.id) : [] });
    }
    return { states, products: productMap };
  };
  return { statements, finish };
}

// ---------------------------------------------------------------------------------------------------------------
// Pricing rules whose coupon code is read in the same batch

/** SQLite's lower(trim(x)): the pricing's codeKey for codes of ASCII letters and plain spaces. */
const sqliteCodeKey = (code: string) => code.replace(/^ +| +$/g, "").replace(/[A-Z]/g, (c) => c.toLowerCase());

/**
 * pricingReads for coupon codes not known yet: each a scalar SQL expression (the cart's or the checkout's
 * coupon_code) read in the same batch, so the cart, its checkout and the rules they are priced with come in one round
 * trip. The code-independent reads are pricingReads' own (settings, live rules, shipping, tax, fees; its coupon read
 * matches nothing); per code come the coupon and the switched-on rules naming it (pricingReads keeps an ended rule that
 * names the entered code, to report it as expired). `finish(results, codes)` takes the codes as read and gives one
 * config per code, or null for a code SQLite's lower/trim would key differently (non-ASCII letters, tabs): price
 * that one with loadPricingConfig.
 */
export function pricingReadsFor(db: Ctx["db"], codes: SQL[], now: Date = clockNow()) {
  const base = pricingReads(db, null, now);
  const perCode = codes.flatMap((code) => {
    const key = sql`lower(trim(coalesce(${code}, '')))`;
    return [
      db.select().from(coupons).where(sql`${coupons.codeKey} = ${key} AND ${key} <> ''`).limit(1),
      // By the codes index, never by walking every rule's trigger JSON (see discountRuleCodes); `+active` keeps
      // SQLite from answering this from the index of switched-on rules instead.
      db
        .select()
        .from(discountRules)
        .where(
          sql`${discountRules.id} IN (SELECT ${discountRuleCodes.ruleId} FROM ${discountRuleCodes} WHERE ${discountRuleCodes.codeKey} = ${key} AND ${key} <> '') AND +${discountRules.active} = 1`,
        ),
    ] as BatchItem<"sqlite">[];
  });
  const statements = [...base.statements, ...perCode];
  const finish = (results: unknown[], read: (string | null | undefined)[]): (PricingConfig | null)[] => {
    const shared = results.slice(0, base.statements.length) as unknown[][];
    return read.map((code, i) => {
      if (code && codeKey(code) !== sqliteCodeKey(code)) return null;
      const [couponRows, namingRules] = results.slice(base.statements.length + 2 * i, base.statements.length + 2 * i + 2) as {
        id: string;
        createdDate: string;
      }[][];
      const rules = [...(shared[1] as { id: string; createdDate: string }[])];
      for (const r of namingRules) if (!rules.some((x) => x.id === r.id)) rules.push(r);
      // pricingReads' order and bound: by createdDate, then id, at most CONFIG_LIMIT rows.
      rules.sort((a, b) => (a.createdDate < b.createdDate ? -1 : a.createdDate > b.createdDate ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return base.finish([shared[0], rules.slice(0, RULES_LIMIT), couponRows, ...shared.slice(3)]);
    });
  };
  return { statements, finish };
}

/** pricingReads' bound on rules (worker/pricing/load.ts CONFIG_LIMIT). */
const RULES_LIMIT = 500;

// ---------------------------------------------------------------------------------------------------------------
// The current cart as the pages read it: one batch per request, shared by the loaders that run side by side

export interface CurrentCartRead {
  owner: CartOwner;
  state: OwnerState;
  /** Catalogue rows of the cart's lines (and of its checkout's lines, when read). */
  products: Map<string, CatalogProduct>;
  /** The pricing rules for the cart's coupon, when asked for. */
  pricing: PricingConfig | null;
  /** The checkout the cart points at (its checkoutId) and the rules for that checkout's coupon, when asked for. */
  checkout: { row: typeof checkouts.$inferSelect; pricing: PricingConfig } | null;
  /** A member's email (create-checkout's default buyer email), when the checkout was asked for. */
  memberEmail: string | null;
}

export interface CurrentCartWants {
  pricing?: boolean;
  checkout?: boolean;
}

interface PendingRead {
  owner: CartOwner;
  wants: Required<CurrentCartWants>;
  started: boolean;
  result: Promise<CurrentCartRead>;
}

const pendingReads = new WeakMap<Ctx, PendingRead>();

/**
 * The caller's current cart for a page: the root loader (cart count) and the page's own loader (cart page, checkout)
 * run side by side and each asks for it, so calls made in the same turn of the event loop share one D1 batch that
 * holds what any of them asked for (the pricing rules, the cart's checkout). A call made once that batch is under way
 * and wants no more than it shares it too; anything later reads afresh, so a write between reads is always seen.
 */
export function readCurrentCart(ctx: Ctx, wants: CurrentCartWants = {}): Promise<CurrentCartRead> {
  const owner = cartOwnerOf(ctx);
  // Shared only with calls for the same owner (an action may change who the request is for).
  const found = pendingReads.get(ctx);
  const pending = found && ownerKey(found.owner) === ownerKey(owner) ? found : undefined;
  if (pending && !pending.started) {
    pending.wants.pricing ||= !!wants.pricing;
    pending.wants.checkout ||= !!wants.checkout;
    return pending.result;
  }
  if (pending && (pending.wants.pricing || !wants.pricing) && (pending.wants.checkout || !wants.checkout)) return pending.result;
  const entry: PendingRead = { owner, wants: { pricing: !!wants.pricing, checkout: !!wants.checkout }, started: false, result: null as never };
  entry.result = (async () => {
    // Lets the other loaders of this request join before the batch is sent.
    await new Promise((resolve) => setTimeout(resolve, 0));
    entry.started = true;
    try {
      return await runCurrentCartRead(ctx, owner, entry.wants);
    } finally {
      if (pendingReads.get(ctx) === entry) pendingReads.delete(ctx);
    }
  })();
  pendingReads.set(ctx, entry);
  return entry.result;
}

async function runCurrentCartRead(ctx: Ctx, owner: CartOwner, wants: Required<CurrentCartWants>): Promise<CurrentCartRead> {
  const db = ctx.db;
  const ownCart = (column: string) =>
    sql`(SELECT c.${sql.raw(column)} FROM carts c WHERE c.status = 'ACTIVE' AND c.owner_kind = ${owner.kind} AND c.owner_id = ${owner.id})`;
  const checkoutId = ownCart("checkout_id");
  const cart = cartReads(ctx, [owner], [], wants.checkout ? checkoutId : undefined);
  const codes = [
    ...(wants.pricing || wants.checkout ? [ownCart("coupon_code")] : []),
    ...(wants.checkout ? [sql`(SELECT ck.coupon_code FROM checkouts ck WHERE ck.id = ${checkoutId})`] : []),
  ];
  const pricing = codes.length ? pricingReadsFor(db, codes) : null;
  const checkoutRead = wants.checkout ? [db.select().from(checkouts).where(sql`${checkouts.id} = ${checkoutId}`)] : [];
  const memberRead =
    wants.checkout && owner.kind === "member"
      ? [db.select({ email: identities.email }).from(identities).where(eq(identities.id, owner.id)).limit(1)]
      : [];
  const statements = [...cart.statements, ...(pricing?.statements ?? []), ...checkoutRead, ...memberRead] as BatchItem<"sqlite">[];
  const results = await runBatch(db, statements);
  let at = cart.statements.length;
  const loaded = cart.finish(results.slice(0, at));
  const pricingResults = results.slice(at, (at += pricing?.statements.length ?? 0));
  const [checkoutRow] = wants.checkout ? (results[at++] as (typeof checkouts.$inferSelect)[]) : [];
  const memberEmail = memberRead.length ? ((results[at++] as { email: string }[])[0]?.email ?? null) : null;
  const state = loaded.states.get(ownerKey(owner))!;
  const read = pricing ? pricing.finish(pricingResults, [state.cart?.couponCode, ...(wants.checkout ? [checkoutRow?.couponCode] : [])]) : [];
  // A code the batch could not key like the pricing does is priced on its own (a rare extra round trip).
  const configFor = (i: number, code: string | null | undefined) => read[i] ?? loadPricingConfig(ctx, code);
  const cartPricing = codes.length ? await configFor(0, state.cart?.couponCode) : null;
  const checkout = checkoutRow ? { row: checkoutRow, pricing: await configFor(1, checkoutRow.couponCode) } : null;
  return { owner, state, products: loaded.products, pricing: wants.pricing ? cartPricing : null, checkout, memberEmail };
}
