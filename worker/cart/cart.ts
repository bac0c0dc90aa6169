import { and, eq, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { discountedPrice, matching, products, type VariantRow, variants } from "#worker/catalog";
import { commit, newEvent, outboxInsert, outboxInsertIfChanged, type EventEnvelope, type Statement } from "../events/outbox";
import { identities } from "../identity/tables";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure, isUniqueViolation } from "../platform/batch";
import { hasPermission, nowIso, type Ctx } from "../platform/context";
import type { Db } from "../platform/db";
import { ApiError, forbidden, invalidArgument, unauthenticated, type FieldViolation } from "../platform/errors";
import { newId } from "../platform/ids";
import { toMinor } from "../platform/money";
import { inBatchLimitStatements, limitRefusal } from "../platform/rate-limit";
import { checkoutLimits, type ShopperClient } from "./limits";
import { codeKey, coupons, discountRuleCodes, discountRules } from "#worker/pricing";
import { computePricing, estimateTotalsWire, loadPricingConfig, priceCart, pricingReads, type PricingAddress, type PricingConfig, type PricingLine, type PricingResult, type Violation } from "#worker/pricing";
import {
  CART_INFO_FIELDS,
  MAX_LINE_ITEMS,
  MAX_QUANTITY,
  STORES_APP_ID,
  type AddToCartRequest,
  type CartInfoInput,
  type CreateCheckoutRequest,
  type CustomLineItemInput,
  type EstimateTotalsRequest,
  type LineItemInput,
  type UpdateCartRequest,
} from "./schemas";
import {
  CartEventType,
  cartEventData,
  cartShape,
  cleanAddress,
  lineImage,
  optionDescriptionLines,
  ownerBuyerInfo,
  type CartRow,
  type CartShape,
  type CatalogProduct,
  type LineRow,
  type ResolvedLine,
} from "./shapes";
import { cartLineItems, carts, checkouts, type CartOwnerKind, type CheckoutLine, type LineSnapshot, type StoredAddress } from "./tables";

/**
 * The current cart service: one ACTIVE cart per visitor or member, created on first use. A read is one D1 batch
 * (cart, lines, and the catalogue rows they refer to); a change reads the same way, works out the new cart in
 * memory, and writes it as one batch with its event, checked against the revision it read (a concurrent change
 * makes the batch fail and the change is worked out again).
 */

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
const UNLIMITED_PREORDER = 1_000_000_000;

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
  const results = (await ctx.db.batch([...reads.statements, ...extra] as unknown as [Statement, ...Statement[]])) as unknown[];
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
const activeCart = sql`${carts.status} = 'ACTIVE'`;

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
  const checkoutVariants = checkoutId ? sql` OR (${variants.productId}, ${variants.id}) IN (SELECT catalog_item_id, variant_id FROM ${checkoutLinesOf(checkoutId)})` : sql``;
  // No owners (a checkout read by id): no cart statements at all, only the checkout's catalogue rows. (A cart read
  // "WHERE 0" reads no rows, but would be a SCAN in every plan of the checkout calls.)
  const ownerMatch = sql.join(
    // The status in every branch: SQLite then answers each owner from the partial index (see activeCart).
    owners.map((o) => sql`(c.status = 'ACTIVE' AND c.owner_kind = ${o.kind} AND c.owner_id = ${o.id})`),
    sql` OR `,
  );
  const activeIds = sql`(SELECT c.id FROM carts c WHERE ${ownerMatch})`;
  const lineProducts = owners.length ? sql`${products.id} IN (SELECT l.catalog_item_id FROM cart_line_items l WHERE l.cart_id IN ${activeIds}) OR ` : sql``;
  const lineVariants = owners.length ? sql` OR (${variants.productId}, ${variants.id}) IN (SELECT l.catalog_item_id, l.variant_id FROM cart_line_items l WHERE l.cart_id IN ${activeIds})` : sql``;
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
    db
      .select(productColumns)
      .from(products)
      .where(sql`${lineProducts}${products.id} IN (SELECT value FROM json_each(${wanted}))${checkoutProducts}`),
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
export function pricingReadsFor(db: Ctx["db"], codes: SQL[], now: Date = new Date()) {
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
      const [couponRows, namingRules] = results.slice(base.statements.length + 2 * i, base.statements.length + 2 * i + 2) as { id: string; createdDate: string }[][];
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
  const ownCart = (column: string) => sql`(SELECT c.${sql.raw(column)} FROM carts c WHERE c.status = 'ACTIVE' AND c.owner_kind = ${owner.kind} AND c.owner_id = ${owner.id})`;
  const checkoutId = ownCart("checkout_id");
  const cart = cartReads(ctx, [owner], [], wants.checkout ? checkoutId : undefined);
  const codes = [...(wants.pricing || wants.checkout ? [ownCart("coupon_code")] : []), ...(wants.checkout ? [sql`(SELECT ck.coupon_code FROM checkouts ck WHERE ck.id = ${checkoutId})`] : [])];
  const pricing = codes.length ? pricingReadsFor(db, codes) : null;
  const checkoutRead = wants.checkout ? [db.select().from(checkouts).where(sql`${checkouts.id} = ${checkoutId}`)] : [];
  const memberRead = wants.checkout && owner.kind === "member" ? [db.select({ email: identities.email }).from(identities).where(eq(identities.id, owner.id)).limit(1)] : [];
  const statements = [...cart.statements, ...(pricing?.statements ?? []), ...checkoutRead, ...memberRead] as BatchItem<"sqlite">[];
  const results = (await db.batch(statements as unknown as [Statement, ...Statement[]])) as unknown[];
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

// ---------------------------------------------------------------------------------------------------------------
// Drafts: the cart worked out in memory before it is written

export interface LineDraft extends LineRow {
  /** The row as read (null for a new line). */
  stored: LineRow | null;
  /** Set when the line moves here from another cart (the member merge). */
  movedFromCartId?: string;
  /** The request field that raised this line's quantity (stock is checked for raised lines only). */
  raisedBy?: string;
}

export interface CartDraft {
  owner: CartOwner;
  /** The cart as read (null: this change creates it). */
  base: CartRow | null;
  cart: CartRow;
  lines: LineDraft[];
  /** The cart's lines as read. */
  storedLines: LineRow[];
  products: Map<string, CatalogProduct>;
}

/** A new, empty cart row for an owner. */
export function newCartRow(ctx: Ctx, owner: CartOwner, now = nowIso()): CartRow {
  return {
    id: newId(),
    ownerKind: owner.kind,
    ownerId: owner.id,
    status: "ACTIVE",
    currency: ctx.currency,
    weightUnit: "KG",
    buyerInfo: {},
    contactInfo: null,
    buyerNote: null,
    selectedShippingOption: null,
    businessLocationId: null,
    overrideCheckoutUrl: null,
    couponCode: null,
    merchantDiscounts: [],
    checkoutId: null,
    purchaseFlowId: newId(),
    revision: 1,
    createdDate: now,
    updatedDate: now,
    lastActivity: now,
    abandonChecked: null,
  };
}

export function draftOf(ctx: Ctx, owner: CartOwner, state: OwnerState, productMap: Map<string, CatalogProduct>): CartDraft {
  const cart = state.cart ? structuredClone(state.cart) : newCartRow(ctx, owner);
  return { owner, base: state.cart, cart, lines: state.lines.map((l) => ({ ...structuredClone(l), stored: l })), storedLines: state.lines, products: productMap };
}

// ---------------------------------------------------------------------------------------------------------------
// Catalogue lines: resolving references, re-reading prices and stock

/** A catalogue product's variant the shopper may buy: both visible. */
function liveVariant(p: CatalogProduct | undefined, variantId: string | null): { p: CatalogProduct; v: VariantRow } | null {
  if (!p || !p.visible || !variantId) return null;
  const v = p.variants.find((x) => x.id === variantId);
  return v && v.visible ? { p, v } : null;
}

function stockOf(p: CatalogProduct, v: VariantRow, quantity: number): { status: ResolvedLine["status"]; quantityAvailable: number | null } {
  if (p.trackInventory) {
    const q = Math.max(0, (v.quantity ?? 0) - p.preorderFloor);
    const status = q === 0 ? "NOT_AVAILABLE" : q < quantity ? "PARTIALLY_AVAILABLE" : "AVAILABLE";
    return { status, quantityAvailable: -p.preorderFloor >= UNLIMITED_PREORDER ? null : q };
  }
  return v.inStock ? { status: "AVAILABLE", quantityAvailable: null } : { status: "NOT_AVAILABLE", quantityAvailable: 0 };
}

function catalogSnapshot(p: CatalogProduct, v: VariantRow, origin: string): LineSnapshot {
  return {
    productName: p.name,
    slug: p.slug,
    productType: p.productType,
    image: lineImage(p, v.choices, origin),
    weight: v.weight ?? p.weight ?? 0,
    sku: v.sku ?? p.sku ?? null,
    descriptionLines: optionDescriptionLines(p, v.choices),
  };
}

/**
 * Re-reads a line against the catalogue: live price, name, image and stock when the item can still be bought;
 * otherwise NOT_FOUND with what the shopper last saw. The line's price and snapshot are refreshed in place.
 */
export function resolveLine(line: LineRow, productMap: Map<string, CatalogProduct>, currency: string, origin: string): ResolvedLine {
  if (line.custom) {
    const limit = line.snapshot.quantityAvailable ?? null;
    const status = limit === null || limit >= line.quantity ? "AVAILABLE" : limit === 0 ? "NOT_AVAILABLE" : "PARTIALLY_AVAILABLE";
    return { row: line, status, quantityAvailable: limit, product: null };
  }
  const live = liveVariant(productMap.get(line.catalogItemId ?? ""), line.variantId);
  if (!live) return { row: line, status: "NOT_FOUND", quantityAvailable: 0, product: null };
  const { p, v } = live;
  const base = v.price ?? p.price;
  line.fullPrice = base;
  line.price = discountedPrice(base, p.discountType, p.discountValue, currency);
  line.snapshot = catalogSnapshot(p, v, origin);
  return { row: line, ...stockOf(p, v, line.quantity), product: p };
}

export function resolveAll(ctx: Ctx, draft: { lines: LineRow[]; products: Map<string, CatalogProduct>; cart: CartRow }): ResolvedLine[] {
  return draft.lines.map((l) => resolveLine(l, draft.products, draft.cart.currency, ctx.origin));
}

/** The variant a catalogue reference names (by variantId, or by its choices), or violations saying why not. */
function resolveReference(input: LineItemInput, p: CatalogProduct | undefined, field: string, violations: FieldViolation[]): { variant: VariantRow; product: CatalogProduct } | null {
  const ref = input.catalogReference;
  const bad = (f: string, description: string, rule: FieldViolation["violatedRule"] = "VALIDATION", data: Record<string, unknown> = {}) =>
    violations.push({ field: `${field}.catalogReference${f}`, description, violatedRule: rule, data });
  if (ref.appId !== undefined && ref.appId !== STORES_APP_ID) {
    bad(".appId", `is not a catalogue of this store (Wix Stores is ${STORES_APP_ID})`, "VALIDATION", { appId: ref.appId });
    return null;
  }
  if (!p || !p.visible) {
    bad(".catalogItemId", "is not a product of this store", "VALIDATION", { catalogItemId: ref.catalogItemId });
    return null;
  }
  const opts = ref.options ?? {};
  if (opts.customTextFields && Object.keys(opts.customTextFields).length) {
    bad(".options.customTextFields", "are not offered by this product");
    return null;
  }
  if (opts.variantId) {
    const v = p.variants.find((x) => x.id === opts.variantId && x.visible);
    if (!v) bad(".options.variantId", "is not a variant of this product", "VALIDATION", { variantId: opts.variantId });
    return v ? { variant: v, product: p } : null;
  }
  const selection = opts.options ?? {};
  if (p.productOptions.length === 0) {
    if (Object.keys(selection).length) {
      bad(".options.options", "name options, but this product has none");
      return null;
    }
    const v = p.variants.find((x) => x.visible);
    if (!v) bad(".catalogItemId", "is not for sale", "VALIDATION", { catalogItemId: ref.catalogItemId });
    return v ? { variant: v, product: p } : null;
  }
  let ok = true;
  for (const [name, choice] of Object.entries(selection)) {
    const option = p.productOptions.find((o) => o.name === name);
    if (!option) {
      bad(`.options.options.${name}`, "is not an option of this product");
      ok = false;
    } else if (!option.choices.some((c) => c.description === choice && c.visible)) {
      bad(`.options.options.${name}`, `has no choice "${choice}"`);
      ok = false;
    }
  }
  const missing = p.productOptions.filter((o) => selection[o.name] === undefined).map((o) => o.name);
  if (missing.length) {
    bad(".options", `must choose ${missing.join(" and ")} (options.options), or give options.variantId`, "REQUIRED_FIELD", { missingOptions: missing });
    ok = false;
  }
  if (!ok) return null;
  const v = matching(p.variants, selection).find((x) => x.visible);
  if (!v) bad(".options.options", "is a combination this product does not sell");
  return v ? { variant: v, product: p } : null;
}

export function nextPosition(draft: CartDraft): number {
  return draft.lines.reduce((n, l) => Math.max(n, l.position + 1), 0);
}

/** Adds catalogue line items: an item already in the cart (same product and variant) gets the quantities added. */
export function addCatalogLines(draft: CartDraft, inputs: LineItemInput[], field: string, violations: FieldViolation[]): void {
  const now = nowIso();
  inputs.forEach((input, i) => {
    const at = `${field}[${i}]`;
    const found = resolveReference(input, draft.products.get(input.catalogReference.catalogItemId), at, violations);
    if (!found) return;
    const { product, variant } = found;
    const itemKey = `${product.id}:${variant.id}`;
    const existing = draft.lines.find((l) => l.itemKey === itemKey);
    if (existing) {
      const total = existing.quantity + input.quantity;
      if (total > MAX_QUANTITY) {
        violations.push({
          field: `${at}.quantity`,
          description: `would make ${total} of this item in the cart; at most ${MAX_QUANTITY}`,
          violatedRule: "MAX",
          data: { quantityInCart: existing.quantity, max: MAX_QUANTITY },
        });
        return;
      }
      existing.quantity = total;
      existing.raisedBy = `${at}.quantity`;
      return;
    }
    const options = input.catalogReference.options ?? null;
    // The resolved variant is part of the reference the cart shows (the shopper may have named choices instead).
    const shownOptions = product.productOptions.length ? { ...(options ?? {}), variantId: variant.id } : options && Object.keys(options).length ? options : null;
    draft.lines.push({
      id: newId(),
      cartId: draft.cart.id,
      position: nextPosition(draft),
      itemKey,
      appId: STORES_APP_ID,
      catalogItemId: product.id,
      variantId: variant.id,
      options: shownOptions,
      quantity: input.quantity,
      custom: false,
      price: 0,
      fullPrice: 0,
      snapshot: { productName: product.name },
      addedDate: now,
      stored: null,
      raisedBy: `${at}.quantity`,
    });
  });
}

/** Adds custom line items (the caller sets name and price; merchants only). They never merge. */
export function addCustomLines(draft: CartDraft, inputs: CustomLineItemInput[]): void {
  const now = nowIso();
  const currency = draft.cart.currency;
  for (const c of inputs) {
    const media = typeof c.media === "string" ? { url: c.media } : c.media;
    const url = typeof c.url === "string" ? { relativePath: safePath(c.url), url: c.url } : c.url;
    const preset = c.itemType?.preset ?? (c.itemType?.custom ? undefined : "PHYSICAL");
    draft.lines.push({
      id: newId(),
      cartId: draft.cart.id,
      position: nextPosition(draft),
      itemKey: null,
      appId: c.catalogReference?.appId ?? null,
      catalogItemId: c.catalogReference?.catalogItemId ?? null,
      variantId: c.catalogReference?.options?.variantId ?? null,
      options: c.catalogReference?.options ?? null,
      quantity: c.quantity,
      custom: true,
      price: toMinor(Number(c.price), currency),
      fullPrice: toMinor(Number(c.fullPrice ?? c.price), currency),
      snapshot: {
        productName: c.productName.original,
        descriptionLines: (c.descriptionLines ?? []).map((d) => ({ ...d, lineItemPart: "CATALOG" })),
        image: media?.url ? { id: media.id ?? "", url: media.url, width: media.width ?? 0, height: media.height ?? 0, altText: media.altText ?? null } : null,
        url: url?.url ? { relativePath: url.relativePath ?? safePath(url.url), url: url.url } : null,
        itemType: preset ? { preset } : { custom: c.itemType!.custom! },
        weight: c.physicalProperties?.weight ?? 0,
        sku: c.physicalProperties?.sku ?? null,
        shippable: c.physicalProperties?.shippable ?? preset === "PHYSICAL",
        paymentOption: c.paymentOption ?? "FULL_PAYMENT_ONLINE",
        priceDescription: c.priceDescription ?? null,
        quantityAvailable: c.quantityAvailable ?? null,
      },
      addedDate: now,
      stored: null,
    });
  }
}

function safePath(url: string): string {
  try {
    return new URL(url, "https://x.invalid").pathname;
  } catch {
    return "/";
  }
}

/** Stock check for the lines this change raised: at most what is in stock, and nothing that is sold out or gone. */
function checkRaisedStock(resolved: ResolvedLine[], violations: FieldViolation[]): void {
  for (const r of resolved) {
    const line = r.row as LineDraft;
    if (!line.raisedBy) continue;
    const data = { lineItemId: line.id, quantityAvailable: r.quantityAvailable ?? 0 };
    if (r.status === "NOT_FOUND") violations.push({ field: line.raisedBy, description: "is for an item that is no longer for sale", violatedRule: "VALIDATION", data });
    else if (r.status === "NOT_AVAILABLE") violations.push({ field: line.raisedBy, description: `is for ${line.snapshot.productName}, which is out of stock`, violatedRule: "VALIDATION", data });
    else if (r.status === "PARTIALLY_AVAILABLE")
      violations.push({ field: line.raisedBy, description: `is more than the ${r.quantityAvailable} of ${line.snapshot.productName} in stock`, violatedRule: "MAX", data });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

const cartFields = ["buyerInfo", "contactInfo", "buyerNote", "selectedShippingOption", "businessLocationId", "overrideCheckoutUrl", "couponCode", "merchantDiscounts", "checkoutId"] as const;

/** Whether the draft differs from what was read in anything the shopper changed (a refreshed snapshot alone is not a change). */
export function hasChanges(draft: CartDraft): boolean {
  if (!draft.base) return true;
  const base = draft.base;
  if (cartFields.some((f) => JSON.stringify(base[f] ?? null) !== JSON.stringify(draft.cart[f] ?? null))) return true;
  if (removedLineIds(draft).length) return true;
  return draft.lines.some((l) => !l.stored || !!l.movedFromCartId || l.stored.quantity !== l.quantity || l.stored.position !== l.position);
}

/** Lines the draft dropped, by id. */
function removedLineIds(draft: CartDraft): string[] {
  const kept = new Set(draft.lines.map((l) => l.id));
  return draft.storedLines.filter((l) => !kept.has(l.id)).map((l) => l.id);
}

/** Stamps the draft as a new revision: updatedDate, lastActivity and revision. */
export function stamp(draft: CartDraft, now = nowIso()): void {
  draft.cart.updatedDate = now;
  draft.cart.lastActivity = now;
  if (draft.base) draft.cart.revision = draft.base.revision + 1;
}

/**
 * The statements that write a draft: the cart row (inserted, or updated only if it is still the revision read),
 * removed, changed and new lines. End the batch with clearAssertions.
 */
export function cartStatements(ctx: Ctx, draft: CartDraft): Statement[] {
  const db = ctx.db;
  const out: Statement[] = [];
  const { cart } = draft;
  if (!draft.base) {
    out.push(db.insert(carts).values(cart));
  } else {
    const { id: _id, ownerKind: _k, ownerId: _o, createdDate: _c, purchaseFlowId: _p, currency: _cur, ...fields } = cart;
    out.push(
      db
        .update(carts)
        .set(fields)
        .where(and(eq(carts.id, cart.id), eq(carts.revision, draft.base.revision), eq(carts.status, "ACTIVE"))),
      assertPreviousChanged(db),
    );
  }
  const removed = removedLineIds(draft);
  if (removed.length) {
    out.push(db.delete(cartLineItems).where(and(eq(cartLineItems.cartId, cart.id), sql`${cartLineItems.id} IN (SELECT value FROM json_each(${JSON.stringify(removed)}))`)));
  }
  for (const l of draft.lines) {
    const { stored, movedFromCartId, raisedBy: _r, ...row } = l;
    if (!stored) {
      out.push(db.insert(cartLineItems).values(row));
    } else if (movedFromCartId) {
      out.push(
        db
          .update(cartLineItems)
          .set({ cartId: cart.id, position: row.position, quantity: row.quantity, price: row.price, fullPrice: row.fullPrice, snapshot: row.snapshot })
          .where(and(eq(cartLineItems.id, row.id), eq(cartLineItems.cartId, movedFromCartId))),
        assertPreviousChanged(db),
      );
    } else if (
      stored.quantity !== row.quantity ||
      stored.position !== row.position ||
      stored.price !== row.price ||
      stored.fullPrice !== row.fullPrice ||
      JSON.stringify(stored.snapshot) !== JSON.stringify(row.snapshot)
    ) {
      out.push(
        db
          .update(cartLineItems)
          .set({ position: row.position, quantity: row.quantity, price: row.price, fullPrice: row.fullPrice, snapshot: row.snapshot })
          .where(and(eq(cartLineItems.id, row.id), eq(cartLineItems.cartId, cart.id))),
      );
    }
  }
  return out;
}

/** cart_created for a new cart, cart_updated otherwise. */
export function cartChangeEvent(ctx: Ctx, draft: CartDraft, shape: CartShape): EventEnvelope {
  return draft.base
    ? newEvent(ctx, CartEventType.updated, shape.id, cartEventData("updated", shape))
    : newEvent(ctx, CartEventType.created, shape.id, cartEventData("created", shape));
}

/** Runs a read-change-write, again (up to three times) when a concurrent change got there first. */
export async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const raced = isAssertionFailure(err) || isUniqueViolation(err, "carts.owner") || isUniqueViolation(err, "cart_line_items.");
      if (!raced) throw err;
      if (attempt >= 2) throw conflict("The cart");
    }
  }
}

interface ChangeOptions {
  /** Whether the change may create the cart (adding items does; removing them does not). */
  create: boolean;
  /** Catalogue items the change adds (read in the same batch). */
  productIds?: string[];
  /** Works out the change on the draft; throws ApiError for bad input (nothing is written). */
  apply: (draft: CartDraft, violations: FieldViolation[]) => void;
  /** Runs after the stock check, before writing (e.g. coupon validation). */
  check?: (draft: CartDraft, resolved: ResolvedLine[]) => Promise<void>;
}

/** Changes the caller's cart: read, apply, validate, write with its event. Returns the cart as written. */
async function changeCart(ctx: Ctx, opts: ChangeOptions): Promise<CartShape> {
  const owner = cartOwnerOf(ctx);
  return withRetry(async () => {
    const loaded = await loadCarts(ctx, [owner], opts.productIds ?? []);
    const state = loaded.states.get(ownerKey(owner))!;
    if (!state.cart && !opts.create) throw cartNotFound();
    const draft = draftOf(ctx, owner, state, loaded.products);
    const violations: FieldViolation[] = [];
    opts.apply(draft, violations);
    if (violations.length) throw invalidArgument(violations);
    if (draft.lines.length > MAX_LINE_ITEMS) {
      throw invalidArgument([
        { field: "lineItems", description: `would give the cart ${draft.lines.length} line items; at most ${MAX_LINE_ITEMS}`, violatedRule: "MAX_SIZE", data: { max: MAX_LINE_ITEMS } },
      ]);
    }
    const resolved = resolveAll(ctx, draft);
    checkRaisedStock(resolved, violations);
    if (violations.length) throw invalidArgument(violations);
    if (opts.check) await opts.check(draft, resolved);
    if (!hasChanges(draft)) return cartShape(draft.cart, resolved, ctx.origin);
    stamp(draft);
    const shape = cartShape(draft.cart, resolved, ctx.origin);
    const event = cartChangeEvent(ctx, draft, shape);
    await commit(ctx, [...cartStatements(ctx, draft), outboxInsert(ctx.db, event), clearAssertions(ctx.db)], [event]);
    return shape;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The nine calls

/** GET: the caller's current cart, re-priced from the catalogue. 404 OWNED_CART_NOT_FOUND when there is none. */
export async function getCurrentCart(ctx: Ctx): Promise<{ cart: CartShape }> {
  const owner = cartOwnerOf(ctx);
  const loaded = await loadCarts(ctx, [owner], []);
  const state = loaded.states.get(ownerKey(owner))!;
  if (!state.cart) throw cartNotFound();
  return { cart: cartShape(state.cart, resolveAll(ctx, { ...state, cart: state.cart, products: loaded.products }), ctx.origin) };
}

/**
 * The current cart, or null when the caller has none (for pages that show an empty cart). Read with readCurrentCart,
 * so the page's own loader reading the cart too costs no second round trip.
 */
export async function findCurrentCart(ctx: Ctx): Promise<CartShape | null> {
  const { state, products } = await readCurrentCart(ctx);
  if (!state.cart) return null;
  // Resolving refreshes the lines in place: work on copies, since the read is shared.
  return cartShape(state.cart, resolveAll(ctx, { lines: structuredClone(state.lines), cart: state.cart, products }), ctx.origin);
}

function fieldMaskPaths(mask: UpdateCartRequest["cartFieldmask"]): string[] | null {
  if (mask === undefined) return null;
  const paths = typeof mask === "string" ? mask.split(",") : mask.paths;
  return paths.map((p) => p.trim()).filter(Boolean);
}

/** Writes cartInfo onto the draft: every field given (null clears it), or with a field mask exactly the fields it names. */
function applyCartInfo(draft: CartDraft, info: CartInfoInput, mask: string[] | null, violations: FieldViolation[]): void {
  let fields: readonly string[] = CART_INFO_FIELDS;
  if (mask) {
    const tops = new Set<string>();
    mask.forEach((path, i) => {
      const top = path.replace(/^cartInfo\./, "").split(".")[0];
      if ((CART_INFO_FIELDS as readonly string[]).includes(top)) tops.add(top);
      else violations.push({ field: `cartFieldmask.paths[${i}]`, description: `names no writable cart field (${CART_INFO_FIELDS.join(", ")})`, violatedRule: "VALIDATION", data: {} });
    });
    fields = [...tops];
  }
  const has = (f: string) => fields.includes(f) && (mask !== null || (info as Record<string, unknown>)[f] !== undefined);
  const cart = draft.cart;
  if (has("buyerNote")) cart.buyerNote = info.buyerNote ?? null;
  if (has("buyerInfo")) {
    const b = info.buyerInfo ?? {};
    const next = mask ? {} : { ...cart.buyerInfo };
    if (b.email !== undefined) (next as Record<string, unknown>).email = b.email ?? undefined;
    if (b.contactId !== undefined) (next as Record<string, unknown>).contactId = b.contactId ?? undefined;
    cart.buyerInfo = JSON.parse(JSON.stringify(next));
  }
  if (has("contactInfo")) {
    const address = cleanAddress(info.contactInfo?.address as StoredAddress | undefined);
    const contactDetails = info.contactInfo?.contactDetails ? Object.fromEntries(Object.entries(info.contactInfo.contactDetails).filter(([, v]) => v !== null && v !== undefined)) : undefined;
    cart.contactInfo = address || (contactDetails && Object.keys(contactDetails).length) ? { ...(address ? { address } : {}), ...(contactDetails ? { contactDetails } : {}) } : null;
  }
  if (has("selectedShippingOption")) cart.selectedShippingOption = info.selectedShippingOption ? { code: info.selectedShippingOption.code, ...(info.selectedShippingOption.carrierId ? { carrierId: info.selectedShippingOption.carrierId } : {}) } : null;
  if (has("businessLocationId")) cart.businessLocationId = info.businessLocationId ?? null;
  if (has("overrideCheckoutUrl")) cart.overrideCheckoutUrl = info.overrideCheckoutUrl ?? null;
}

/** Custom line items and merchant discounts set prices: only the owner, or staff granted orders.write, may send them. */
function requirePricingFor(ctx: Ctx, field: string): void {
  if (!hasPermission(ctx.auth, "orders.write")) throw forbidden(`${field} set prices, so only the store's owner or staff with the orders.write permission may send them`);
}

/** A coupon code the pricing refuses is a clear 400 with its reason (unknown, expired, used up, …). */
async function checkCoupon(ctx: Ctx, draft: CartDraft, resolved: ResolvedLine[]): Promise<void> {
  const code = draft.cart.couponCode;
  if (!code || code === draft.base?.couponCode) return;
  const result = await priceCart(ctx, pricingInput(draft.cart, resolved, {}));
  if (result.couponProblem) {
    throw new ApiError(400, result.couponProblem.code, result.couponProblem.description, { data: { couponCode: code }, message: "Coupon not applied" });
  }
}

/** PATCH: cartInfo, couponCode, merchantDiscounts (staff), and line items and custom line items to add. Creates the cart if needed. */
export async function updateCurrentCart(ctx: Ctx, req: UpdateCartRequest): Promise<{ cart: CartShape }> {
  if (req.customLineItems?.length) requirePricingFor(ctx, "customLineItems");
  if (req.merchantDiscounts) requirePricingFor(ctx, "merchantDiscounts");
  const mask = fieldMaskPaths(req.cartFieldmask);
  const cart = await changeCart(ctx, {
    create: true,
    productIds: (req.lineItems ?? []).map((l) => l.catalogReference.catalogItemId),
    apply(draft, violations) {
      if (req.cartInfo) applyCartInfo(draft, req.cartInfo, mask, violations);
      else if (mask?.length) violations.push({ field: "cartInfo", description: "is required with cartFieldmask", violatedRule: "REQUIRED_FIELD", data: {} });
      if (req.couponCode !== undefined) draft.cart.couponCode = req.couponCode;
      if (req.lineItems?.length) addCatalogLines(draft, req.lineItems, "lineItems", violations);
      if (req.customLineItems?.length) addCustomLines(draft, req.customLineItems);
      if (req.merchantDiscounts) {
        const ids = new Set(draft.lines.map((l) => l.id));
        draft.cart.merchantDiscounts = req.merchantDiscounts.map((d, i) => {
          (d.lineItemIds ?? []).forEach((id, j) => {
            if (!ids.has(id)) violations.push({ field: `merchantDiscounts[${i}].lineItemIds[${j}]`, description: "is not a line item of this cart", violatedRule: "VALIDATION", data: {} });
          });
          return {
            ...(d.amount !== undefined ? { amount: toMinor(Number(d.amount), draft.cart.currency) } : {}),
            ...(d.percentage !== undefined ? { percentage: d.percentage } : {}),
            ...(d.lineItemIds?.length ? { lineItemIds: d.lineItemIds } : {}),
          };
        });
      }
    },
    check: (draft, resolved) => checkCoupon(ctx, draft, resolved),
  });
  return { cart };
}

/** POST add-to-cart: adds catalogue line items (merging with the same item already there) and custom line items. */
export async function addToCurrentCart(ctx: Ctx, req: AddToCartRequest): Promise<{ cart: CartShape }> {
  if (!req.lineItems?.length && !req.customLineItems?.length) {
    throw invalidArgument([{ field: "lineItems", description: "must hold at least one line item to add", violatedRule: "REQUIRED_FIELD", data: {} }]);
  }
  if (req.customLineItems?.length) requirePricingFor(ctx, "customLineItems");
  const cart = await changeCart(ctx, {
    create: true,
    productIds: (req.lineItems ?? []).map((l) => l.catalogReference.catalogItemId),
    apply(draft, violations) {
      if (req.lineItems?.length) addCatalogLines(draft, req.lineItems, "lineItems", violations);
      if (req.customLineItems?.length) addCustomLines(draft, req.customLineItems);
      if (req.businessLocationId !== undefined) draft.cart.businessLocationId = req.businessLocationId ?? null;
    },
  });
  return { cart };
}

/** POST remove-line-items. Every id must be a line of the cart. */
export async function removeLineItems(ctx: Ctx, lineItemIds: string[]): Promise<{ cart: CartShape }> {
  const cart = await changeCart(ctx, {
    create: false,
    apply(draft, violations) {
      const ids = new Set(draft.lines.map((l) => l.id));
      lineItemIds.forEach((id, i) => {
        if (!ids.has(id)) violations.push({ field: `lineItemIds[${i}]`, description: "is not a line item of this cart", violatedRule: "VALIDATION", data: { lineItemId: id } });
      });
      const gone = new Set(lineItemIds);
      draft.lines = draft.lines.filter((l) => !gone.has(l.id));
    },
  });
  return { cart };
}

/** POST update-line-items-quantity: new quantities by line id; 0 removes the line. Raising one is checked against stock. */
export async function updateLineItemsQuantity(ctx: Ctx, items: { id: string; quantity: number }[]): Promise<{ cart: CartShape }> {
  const cart = await changeCart(ctx, {
    create: false,
    apply(draft, violations) {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        const line = draft.lines.find((l) => l.id === item.id);
        if (!line) violations.push({ field: `lineItems[${i}].id`, description: "is not a line item of this cart", violatedRule: "VALIDATION", data: { lineItemId: item.id } });
        else if (seen.has(item.id)) violations.push({ field: `lineItems[${i}].id`, description: "appears more than once", violatedRule: "VALIDATION", data: { lineItemId: item.id } });
        seen.add(item.id);
        if (!line) return;
        if (item.quantity > line.quantity) line.raisedBy = `lineItems[${i}].quantity`;
        line.quantity = item.quantity;
      });
      draft.lines = draft.lines.filter((l) => l.quantity > 0);
    },
  });
  return { cart };
}

/** POST remove-coupon. */
export async function removeCoupon(ctx: Ctx): Promise<{ cart: CartShape }> {
  const cart = await changeCart(ctx, {
    create: false,
    apply(draft) {
      draft.cart.couponCode = null;
    },
  });
  return { cart };
}

/** DELETE: removes the caller's current cart (its lines go with it). 404 when there is none. */
export async function deleteCurrentCart(ctx: Ctx): Promise<Record<string, never>> {
  const owner = cartOwnerOf(ctx);
  const [row] = await ctx.db
    .select({ id: carts.id })
    .from(carts)
    .where(and(eq(carts.ownerKind, owner.kind), eq(carts.ownerId, owner.id), activeCart))
    .limit(1);
  if (!row) throw cartNotFound();
  const event = newEvent(ctx, CartEventType.deleted, row.id, cartEventData("deleted", { id: row.id }));
  // The event is written only if this request deleted the cart (a concurrent delete may have got there first).
  const results = (await commit(
    ctx,
    [ctx.db.delete(cartLineItems).where(eq(cartLineItems.cartId, row.id)), ctx.db.delete(carts).where(eq(carts.id, row.id)), outboxInsertIfChanged(ctx.db, event)],
    [event],
  )) as D1Result[];
  if (!results[1].meta.changes) throw cartNotFound();
  return {};
}

/**
 * For the order flow: the statements that mark a cart COMPLETED once an order is placed from it (put them in the
 * order's batch). The shopper's next add starts a new cart. The event (cart deleted, with the order id) is written
 * only if the cart was still ACTIVE.
 */
export function completeCartStatements(ctx: Ctx, cartId: string, orderId: string): { statements: Statement[]; events: EventEnvelope[] } {
  const now = nowIso();
  const event = newEvent(ctx, CartEventType.deleted, cartId, cartEventData("deleted", { id: cartId }, { completedByOrderId: orderId }));
  return {
    statements: [
      ctx.db
        .update(carts)
        .set({ status: "COMPLETED", updatedDate: now, lastActivity: now, revision: sql`${carts.revision} + 1` })
        .where(and(eq(carts.id, cartId), eq(carts.status, "ACTIVE"))),
      outboxInsertIfChanged(ctx.db, event),
    ],
    events: [event],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Totals

export interface TotalsOptions {
  selectedShippingOption?: { code: string } | null;
  shippingAddress?: StoredAddress | null;
  billingAddress?: StoredAddress | null;
  calculateTax?: boolean | null;
  calculateShipping?: boolean | null;
  calculateAdditionalFees?: boolean | null;
}

function pricingAddress(a: StoredAddress | null | undefined): PricingAddress | null {
  if (!a) return null;
  const out: PricingAddress = {};
  if (a.country) out.country = a.country;
  if (a.subdivision) out.subdivision = a.subdivision;
  if (a.city) out.city = a.city;
  if (a.postalCode) out.postalCode = a.postalCode;
  if (a.addressLine) out.addressLine = a.addressLine;
  return Object.keys(out).length ? out : null;
}

const purchasable = (r: ResolvedLine) => r.status === "AVAILABLE" || r.status === "PARTIALLY_AVAILABLE";

/** The pricing engine's input for a cart: the lines that can be bought, the cart's coupon and discounts, the options given. */
function pricingInput(cart: CartRow, resolved: ResolvedLine[], opts: TotalsOptions) {
  const lines: PricingLine[] = resolved.filter(purchasable).map((r) => {
    const s = r.row.snapshot;
    const itemType = r.row.custom ? ((s.itemType?.preset as PricingLine["itemType"] | undefined) ?? (s.shippable ? "PHYSICAL" : "DIGITAL")) : s.productType === "digital" ? "DIGITAL" : "PHYSICAL";
    return {
      id: r.row.id,
      quantity: r.row.quantity,
      unitPrice: r.row.price,
      fullUnitPrice: r.row.fullPrice,
      weight: s.weight ?? 0,
      itemType,
      catalogItemId: r.row.custom ? null : r.row.catalogItemId,
      collectionIds: r.product?.collectionIds ?? [],
    };
  });
  const shipping = opts.selectedShippingOption ?? cart.selectedShippingOption;
  return {
    lines,
    couponCode: cart.couponCode,
    merchantDiscounts: cart.merchantDiscounts,
    shippingAddress: pricingAddress(opts.shippingAddress ?? cart.contactInfo?.address),
    billingAddress: pricingAddress(opts.billingAddress),
    selectedShippingOption: shipping ? { code: shipping.code } : null,
    ...(opts.calculateTax != null ? { calculateTax: opts.calculateTax } : {}),
    ...(opts.calculateShipping != null ? { calculateShipping: opts.calculateShipping } : {}),
    ...(opts.calculateAdditionalFees != null ? { calculateAdditionalFees: opts.calculateAdditionalFees } : {}),
  };
}

/** Violations for lines that cannot be bought as they are: gone or sold out (ERROR), fewer in stock (WARNING). */
function availabilityViolations(resolved: ResolvedLine[]): Violation[] {
  const out: Violation[] = [];
  for (const r of resolved) {
    const name = r.row.snapshot.productName;
    const target = { lineItem: { id: r.row.id, name: "LINE_ITEM_DEFAULT" as const } };
    if (r.status === "NOT_FOUND") out.push({ severity: "ERROR", target, description: `${name} is no longer for sale. Remove it to continue.`, code: "ITEM_NOT_FOUND", suggestedFix: "REMOVE_LINE_ITEM" });
    else if (r.status === "NOT_AVAILABLE") out.push({ severity: "ERROR", target, description: `${name} is out of stock. Remove it to continue.`, code: "ITEM_OUT_OF_STOCK", suggestedFix: "REMOVE_LINE_ITEM" });
    else if (r.status === "PARTIALLY_AVAILABLE")
      out.push({ severity: "WARNING", target, description: `Only ${r.quantityAvailable} of ${name} left in stock.`, code: "ITEM_PARTIALLY_AVAILABLE" });
  }
  return out;
}

export interface CartTotals {
  /** The estimate-totals fields (everything but `cart`), in the wire shape. */
  wire: ReturnType<typeof estimateTotalsWire> & { membershipOptions: Record<string, unknown[]>; violations: Violation[] };
  result: PricingResult;
}

/**
 * The cart's totals: the pricing engine over the lines that can be bought (discount rules, coupon, merchant
 * discounts, shipping, tax, fees), plus violations for the lines that cannot. One D1 round trip (the pricing reads).
 */
export async function totalsFor(ctx: Ctx, cart: CartRow, resolved: ResolvedLine[], opts: TotalsOptions = {}, preloaded?: PricingConfig): Promise<CartTotals> {
  // With the pricing rules already read (pricingReads batched with another read), no round trip is needed here.
  const input = pricingInput(cart, resolved, opts);
  const result = preloaded ? computePricing(preloaded, input, ctx.currency) : await priceCart(ctx, input);
  const wire = estimateTotalsWire(result);
  return {
    result,
    wire: {
      ...wire,
      membershipOptions: { eligibleMemberships: [], invalidMemberships: [], selectedMemberships: [] },
      violations: [...availabilityViolations(resolved), ...wire.violations],
    },
  };
}

/** POST estimate-totals: the cart with its price summary, shipping options, discounts, tax and violations. Writes nothing. */
export async function estimateTotals(ctx: Ctx, req: EstimateTotalsRequest) {
  const owner = cartOwnerOf(ctx);
  const loaded = await loadCarts(ctx, [owner], []);
  return estimateOf(ctx, loaded.states.get(ownerKey(owner))!, loaded.products, req);
}

/** estimate-totals with no options, for the cart page: one round trip (the cart and the pricing rules in one batch). */
export async function estimateCurrentCart(ctx: Ctx): Promise<Awaited<ReturnType<typeof estimateTotals>>> {
  const read = await readCurrentCart(ctx, { pricing: true });
  // Resolving refreshes the lines in place: work on copies, since the read is shared.
  return estimateOf(ctx, { ...read.state, lines: structuredClone(read.state.lines) }, read.products, {}, read.pricing ?? undefined);
}

async function estimateOf(ctx: Ctx, state: OwnerState, products: Map<string, CatalogProduct>, req: EstimateTotalsRequest, pricing?: PricingConfig) {
  if (!state.cart) throw cartNotFound();
  const resolved = resolveAll(ctx, { ...state, cart: state.cart, products });
  const totals = await totalsFor(
    ctx,
    state.cart,
    resolved,
    {
      selectedShippingOption: req.selectedShippingOption,
      shippingAddress: req.shippingAddress as StoredAddress | undefined,
      billingAddress: req.billingAddress as StoredAddress | undefined,
      calculateTax: req.calculateTax,
      calculateShipping: req.calculateShipping,
      calculateAdditionalFees: req.calculateAdditionalFees,
    },
    pricing,
  );
  return { cart: cartShape(state.cart, resolved, ctx.origin), ...totals.wire };
}

// ---------------------------------------------------------------------------------------------------------------
// Checkout

/**
 * POST create-checkout: a checkout holding a snapshot of the cart's lines and totals, the buyer's email and
 * addresses and the shipping option. A cart that already has an open checkout updates it (same id), as Wix does.
 * Refused when the cart is empty or holds items that cannot be bought as they are.
 */
export async function createCheckout(ctx: Ctx, req: CreateCheckoutRequest, client: ShopperClient = {}): Promise<{ checkoutId: string }> {
  const { checkoutId } = await createCheckoutFrom(ctx, req, undefined, client);
  return { checkoutId };
}

/**
 * create-checkout, answering the checkout row as written too. With `preloaded` (a readCurrentCart with pricing and
 * checkout, read earlier in this request), the first attempt works from it and costs one round trip (the write); a
 * retry after a concurrent change reads afresh. A shopper's checkouts count against orders/limits.ts in the write's
 * batch (429 TOO_MANY_REQUESTS over them, with nothing written).
 */
export async function createCheckoutFrom(
  ctx: Ctx,
  req: CreateCheckoutRequest,
  preloaded?: CurrentCartRead,
  client: ShopperClient = {},
): Promise<{ checkoutId: string; row: typeof checkouts.$inferSelect; inputs: { products: Map<string, CatalogProduct>; pricing: PricingConfig } | null }> {
  const owner = cartOwnerOf(ctx);
  let given = preloaded && preloaded.pricing ? preloaded : undefined;
  return withRetry(async () => {
    const memberEmail = owner.kind === "member" ? [ctx.db.select({ email: identities.email }).from(identities).where(eq(identities.id, owner.id)).limit(1)] : [];
    const loaded = given
      ? { states: new Map([[ownerKey(owner), given.state]]), products: given.products, extra: [given.memberEmail ? [{ email: given.memberEmail }] : []] }
      : await loadCarts(ctx, [owner], [], memberEmail);
    const pricing = given?.pricing ?? undefined;
    given = undefined;
    const state = loaded.states.get(ownerKey(owner))!;
    if (!state.cart) throw cartNotFound();
    const draft = draftOf(ctx, owner, state, loaded.products);
    const resolved = resolveAll(ctx, draft);
    if (!resolved.length) throw new ApiError(400, "EMPTY_CART", "The cart has no line items to check out", { message: "Cart is empty" });
    const blocked = resolved.filter((r) => r.status !== "AVAILABLE");
    if (blocked.length) {
      const names = blocked.map((r) => `${r.row.snapshot.productName} (${r.status === "PARTIALLY_AVAILABLE" ? `only ${r.quantityAvailable} left` : r.status === "NOT_FOUND" ? "no longer for sale" : "out of stock"})`);
      throw new ApiError(400, "LINE_ITEMS_NOT_AVAILABLE", `These items cannot be bought as they are: ${names.join(", ")}`, {
        data: { lineItems: blocked.map((r) => ({ id: r.row.id, productName: r.row.snapshot.productName, status: r.status, quantityAvailable: r.quantityAvailable ?? 0 })) },
        message: "Items not available",
      });
    }
    const cart = draft.cart;
    const shippingAddress = cleanAddress((req.shippingAddress as StoredAddress | undefined) ?? cart.contactInfo?.address) ?? null;
    const billingAddress = cleanAddress(req.billingAddress as StoredAddress | undefined) ?? shippingAddress;
    const selectedShippingOption = req.selectedShippingOption ?? cart.selectedShippingOption ?? null;
    const totals = await totalsFor(ctx, cart, resolved, { selectedShippingOption, shippingAddress, billingAddress }, pricing);
    const email = req.email ?? cart.buyerInfo.email ?? (loaded.extra[0] as { email: string }[] | undefined)?.[0]?.email ?? null;

    stamp(draft);
    const checkoutId = cart.checkoutId ?? newId();
    cart.checkoutId = checkoutId;
    const shape = cartShape(cart, resolved, ctx.origin);
    const lineItems: CheckoutLine[] = resolved.map((r, i) => ({
      lineItem: shape.lineItems[i],
      catalogItemId: r.row.catalogItemId,
      variantId: r.row.variantId,
      quantity: r.row.quantity,
      price: r.row.price,
      custom: r.row.custom,
    }));
    const now = cart.updatedDate;
    const values = {
      id: checkoutId,
      cartId: cart.id,
      ownerKind: owner.kind,
      ownerId: owner.id,
      status: "OPEN" as const,
      channelType: req.channelType ?? "WEB",
      currency: cart.currency,
      weightUnit: cart.weightUnit,
      lineItems,
      buyerInfo: ownerBuyerInfo(owner.kind, owner.id, email, cart.buyerInfo.contactId),
      shippingAddress,
      billingAddress,
      contactDetails: cart.contactInfo?.contactDetails ?? null,
      selectedShippingOption: selectedShippingOption ? { code: selectedShippingOption.code, ...(selectedShippingOption.carrierId ? { carrierId: selectedShippingOption.carrierId } : {}) } : null,
      couponCode: cart.couponCode,
      merchantDiscounts: cart.merchantDiscounts,
      totals: totals.wire as unknown as Record<string, unknown>,
      subtotal: totals.result.priceSummary.subtotal,
      total: totals.result.priceSummary.total,
      purchaseFlowId: cart.purchaseFlowId,
      createdDate: now,
      updatedDate: now,
    };
    const { id: _id, createdDate: _c, ...changes } = values;
    const cartEvent = newEvent(ctx, CartEventType.updated, cart.id, cartEventData("updated", shape));
    const checkoutEvent = newEvent(ctx, CartEventType.checkoutCreated, checkoutId, {
      entityId: checkoutId,
      entityFqdn: "wix.ecom.v1.checkout",
      slug: "created",
      createdEvent: { entity: { id: checkoutId, cartId: cart.id, buyerInfo: values.buyerInfo, lineItems: shape.lineItems, priceSummary: totals.wire.priceSummary, createdDate: now, updatedDate: now } },
    });
    const limits = checkoutLimits(ctx, client);
    await commit(
      ctx,
      [
        ...(inBatchLimitStatements(ctx.db, limits) as Statement[]),
        ...cartStatements(ctx, draft),
        ctx.db
          .insert(checkouts)
          .values(values)
          .onConflictDoUpdate({ target: checkouts.id, set: changes, setWhere: sql`${checkouts.status} = 'OPEN'` }),
        outboxInsert(ctx.db, cartEvent),
        outboxInsert(ctx.db, checkoutEvent),
        clearAssertions(ctx.db),
      ],
      [cartEvent, checkoutEvent],
    ).catch(async (err) => {
      throw (limits.length && isAssertionFailure(err) ? await limitRefusal(ctx.db, limits).catch(() => null) : null) ?? err;
    });
    // The row as stored (JSON columns as they read back), for a new checkout: one updated in place keeps its createdDate.
    const row = JSON.parse(JSON.stringify(values)) as typeof checkouts.$inferSelect;
    // What it was priced from, when that was the preloaded read (a retry re-read the cart without the rules).
    return { checkoutId, row, inputs: pricing ? { products: loaded.products, pricing } : null };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Reads for other domains' batches (the automations read a cart's state and contact alongside their own rows)

/** A cart's owner, currency and status. */
export function cartSummaryRead(db: Db, cartId: string) {
  return db.select({ ownerKind: carts.ownerKind, ownerId: carts.ownerId, currency: carts.currency, status: carts.status }).from(carts).where(eq(carts.id, cartId));
}

/** The buyer email given at checkout: of a checkout, or of a cart's current checkout. */
export function checkoutEmailRead(db: Db, of: { checkoutId: string } | { cartId: string }) {
  const email = sql<string | null>`json_extract(${checkouts.buyerInfo}, '$.email')`;
  return "checkoutId" in of
    ? db.select({ email }).from(checkouts).where(eq(checkouts.id, of.checkoutId))
    : db.select({ email }).from(checkouts).where(sql`${checkouts.id} = (SELECT checkout_id FROM carts WHERE id = ${of.cartId})`);
}
