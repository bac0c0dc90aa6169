import { and, eq, sql } from "drizzle-orm";
import { cartReads, pricingReadsFor, resolveLine, totalsFor, type CartTotals } from "#worker/cart";
import { loadPricingConfig, type PricingConfig } from "#worker/pricing";
import { cleanAddress, lineItemShape, type CartRow, type CatalogProduct, type LineRow, type ResolvedLine } from "#worker/cart";
import { checkouts, type CheckoutLine, type LineSnapshot, type StoredAddress, type StoredContactDetails } from "#worker/cart";
import { conflict } from "#worker/platform/batch";
import { isMerchant, nowIso, requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, badField, notFound, unauthenticated } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { toMinor } from "#worker/platform/money";
import type { UpdateCheckoutRequest } from "./schemas";
import { contactInfo, type CheckoutRow } from "./shapes";
import { orders } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Checkouts (made from a cart by create-checkout): read with live prices, set the buyer's email, addresses and
 * shipping option, and place the order (place-order.ts). Placing an order re-prices everything on the server and writes the order,
 * its lines and activities, the stock reservation, coupon use, the cart's completion, the checkout's completion
 * and the events as ONE D1 batch: all of it or nothing.
 */

// ---------------------------------------------------------------------------------------------------------------
// Access

function checkoutNotFound(id: string): ApiError {
  return notFound("CHECKOUT_NOT_FOUND", "Checkout", id);
}

/** True when the caller is the buyer who owns this checkout / order (the same visitor or member). */
export function isOwner(ctx: Ctx, row: { ownerKind: string; ownerId: string }): boolean {
  const a = ctx.auth;
  if (a.kind === "member")
    return (row.ownerKind === "member" && row.ownerId === a.identityId) || (row.ownerKind === "visitor" && row.ownerId === a.visitorId);
  if (a.kind === "visitor") return row.ownerKind === "visitor" && row.ownerId === a.visitorId;
  return false;
}

/**
 * Guard for changing a checkout (its details, or placing its order): its buyer, or a merchant with orders.write.
 * Staff may read anyone's checkout, but not rewrite it; to anyone else it does not exist.
 */
export function requireCheckoutChange(ctx: Ctx, row: { id: string; ownerKind: string; ownerId: string }): void {
  if (isOwner(ctx, row)) return;
  if (!isMerchant(ctx.auth)) throw checkoutNotFound(row.id);
  requirePermission(ctx, "orders.write");
}

/**
 * A checkout as one read brings it: the row, the catalogue rows its lines refer to, the pricing rules for its coupon
 * and the order it made (if any). Enough to price it, change it and place its order without reading again.
 */
export interface CheckoutRead {
  row: CheckoutRow;
  products: Map<string, CatalogProduct>;
  pricing: PricingConfig;
  orderId: string | null;
}

/**
 * The checkout, when the caller may see it (its buyer or the merchant); 401 without a token, 404 otherwise. One D1
 * round trip: the row, its lines' catalogue rows, the pricing rules for its coupon and its order's id, in one batch.
 */
export async function readCheckout(ctx: Ctx, id: string): Promise<CheckoutRead> {
  if (ctx.auth.kind === "anonymous")
    throw unauthenticated("Checkout calls need the buyer's access token (or a merchant's) in the Authorization header");
  const db = ctx.db;
  const catalogue = cartReads(ctx, [], [], sql`${id}`);
  const pricing = pricingReadsFor(db, [sql`(SELECT ck.coupon_code FROM checkouts ck WHERE ck.id = ${id})`]);
  const statements = [
    db.select().from(checkouts).where(eq(checkouts.id, id)).limit(1),
    db.select({ id: orders.id }).from(orders).where(eq(orders.checkoutId, id)).limit(1),
    ...catalogue.statements,
    ...pricing.statements,
  ];
  const results = await runBatch(db, statements);
  const [row] = results[0] as CheckoutRow[];
  if (!row || !(isMerchant(ctx.auth) || isOwner(ctx, row))) throw checkoutNotFound(id);
  const n = catalogue.statements.length;
  const { products } = catalogue.finish(results.slice(2, 2 + n));
  // A coupon code SQLite cannot key like the pricing does is priced on its own (a rare extra round trip).
  const config = pricing.finish(results.slice(2 + n), [row.couponCode])[0] ?? (await loadPricingConfig(ctx, row.couponCode));
  return { row, products, pricing: config, orderId: (results[1] as { id: string }[])[0]?.id ?? null };
}

// ---------------------------------------------------------------------------------------------------------------
// Pricing: the checkout's lines re-read against the catalogue and priced by the pricing engine

/** A checkout line as a cart line row, so the cart's resolver can re-read it against the catalogue. */
function lineRowOf(row: CheckoutRow, l: CheckoutLine, position: number): LineRow {
  const w = l.lineItem as Record<string, any>;
  const snapshot: LineSnapshot = {
    productName: w.productName?.original ?? "Item",
    image: w.image ?? null,
    weight: w.physicalProperties?.weight ?? 0,
    sku: w.physicalProperties?.sku ?? null,
    descriptionLines: w.descriptionLines ?? [],
    url: w.url ?? null,
    itemType: w.itemType,
    paymentOption: w.paymentOption,
    shippable: w.physicalProperties?.shippable,
    quantityAvailable: l.custom ? (w.availability?.quantityAvailable ?? null) : undefined,
  };
  return {
    id: String(w.id ?? newId()),
    cartId: row.cartId,
    position,
    itemKey: l.catalogItemId && l.variantId ? `${l.catalogItemId}:${l.variantId}` : null,
    appId: w.catalogReference?.appId ?? null,
    catalogItemId: l.catalogItemId,
    variantId: l.variantId,
    options: w.catalogReference?.options ?? null,
    quantity: l.quantity,
    custom: l.custom,
    price: l.price,
    fullPrice: l.custom ? toMinorFrom(w.fullPrice?.amount, l.price, row.currency) : l.price,
    snapshot,
    addedDate: row.createdDate,
  };
}

function toMinorFrom(amount: string | undefined, fallback: number, currency: string): number {
  return amount ? toMinor(Number(amount), currency) : fallback;
}

/** Extra checkout fields the checkouts table has no column for, kept in its `totals` JSON. */
export interface CheckoutExtras {
  billingContactDetails?: StoredContactDetails | null;
  buyerNote?: string | null;
}
export const extrasOf = (row: CheckoutRow): CheckoutExtras => ((row.totals as Record<string, unknown>)?.extras as CheckoutExtras) ?? {};

export interface PricedCheckout {
  resolved: ResolvedLine[];
  totals: CartTotals;
}

/** Re-prices a checkout: live catalogue prices and stock and the pricing rules in one D1 round trip, then the engine. */
export async function priceCheckout(ctx: Ctx, row: CheckoutRow): Promise<PricedCheckout> {
  const read = await readCheckout(ctx, row.id);
  return priceCheckoutWith(ctx, row, read.products, read.pricing);
}

/**
 * Prices a checkout from catalogue rows and pricing rules already read (readCheckout, or the page's one read of the
 * cart and its checkout): no round trip. `row` may hold changes not written yet (updateCheckout prices them first).
 */
export async function priceCheckoutWith(
  ctx: Ctx,
  row: CheckoutRow,
  products: Map<string, CatalogProduct>,
  pricing: PricingConfig,
): Promise<PricedCheckout> {
  const resolved = row.lineItems.map((l, i) => resolveLine(lineRowOf(row, l, i), products, row.currency, ctx.origin));
  const pseudoCart = {
    couponCode: row.couponCode,
    merchantDiscounts: row.merchantDiscounts,
    selectedShippingOption: row.selectedShippingOption,
    contactInfo: null,
    currency: row.currency,
  } as unknown as CartRow;
  const totals = await totalsFor(
    ctx,
    pseudoCart,
    resolved,
    {
      selectedShippingOption: row.selectedShippingOption ?? null,
      shippingAddress: row.shippingAddress ?? null,
      billingAddress: row.billingAddress ?? row.shippingAddress ?? null,
    },
    pricing,
  );
  return { resolved, totals };
}

/** The checkout in the Wix shape, with live prices. */
export function checkoutShape(ctx: Ctx, row: CheckoutRow, priced: PricedCheckout, orderId?: string | null) {
  const w = priced.totals.wire;
  const extras = extrasOf(row);
  return {
    id: row.id,
    cartId: row.cartId,
    lineItems: priced.resolved.map((r) => lineItemShape(r, row.currency, ctx.origin)),
    billingInfo: contactInfo(row.billingAddress, extras.billingContactDetails ?? null),
    shippingInfo: {
      shippingDestination: contactInfo(row.shippingAddress, row.contactDetails),
      selectedCarrierServiceOption: w.shippingInfo.selectedCarrierServiceOption,
      carrierServiceOptions: w.shippingInfo.carrierServiceOptions,
      region: w.shippingInfo.region,
    },
    buyerInfo: row.buyerInfo,
    ...(extras.buyerNote ? { buyerNote: extras.buyerNote } : {}),
    priceSummary: w.priceSummary,
    calculatedLineItems: w.calculatedLineItems,
    appliedDiscounts: w.appliedDiscounts,
    additionalFees: w.additionalFees,
    taxSummary: w.taxSummary,
    violations: w.violations,
    membershipOptions: w.membershipOptions,
    currency: row.currency,
    conversionCurrency: row.currency,
    paymentCurrency: row.currency,
    weightUnit: row.weightUnit,
    taxIncludedInPrices: priced.totals.result.taxIncludedInPrices,
    channelType: row.channelType,
    completed: row.status === "COMPLETED",
    ...(orderId ? { orderId } : {}),
    purchaseFlowId: row.purchaseFlowId,
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
  };
}

export async function orderIdOfCheckout(ctx: Ctx, checkoutId: string): Promise<string | null> {
  const [o] = await ctx.db.select({ id: orders.id }).from(orders).where(eq(orders.checkoutId, checkoutId)).limit(1);
  return o?.id ?? null;
}

/** GET /ecom/v1/checkouts/{id}. One D1 round trip. */
export async function getCheckout(ctx: Ctx, id: string) {
  return { checkout: await shapeOfRead(ctx, await readCheckout(ctx, id)) };
}

/** A checkout read (readCheckout, or the page's read of the cart and its checkout) in the Wix shape, priced. */
export async function shapeOfRead(ctx: Ctx, read: CheckoutRead) {
  const priced = await priceCheckoutWith(ctx, read.row, read.products, read.pricing);
  return checkoutShape(ctx, read.row, priced, read.row.status === "COMPLETED" ? read.orderId : null);
}

export function checkoutCompleted(id: string): ApiError {
  return new ApiError(400, "CHECKOUT_ALREADY_COMPLETED", `Checkout ${id} was already used to place an order and cannot be changed`, {
    data: { checkoutId: id },
    message: "Checkout already completed",
  });
}

/** PATCH /ecom/v1/checkouts/{id}: buyer email, shipping destination and option, billing info. Two D1 round trips. */
export async function updateCheckout(ctx: Ctx, id: string, req: UpdateCheckoutRequest) {
  const { checkout } = await updateCheckoutFrom(ctx, await readCheckout(ctx, id), req);
  return { checkout };
}

/**
 * updateCheckout on a checkout already read in this request: one D1 round trip (the guarded write; a change made
 * since the read is a conflict). Answers the checkout's shape and the read as it now stands.
 */
export async function updateCheckoutFrom(ctx: Ctx, read: CheckoutRead, req: UpdateCheckoutRequest) {
  requireCheckoutChange(ctx, read.row);
  const { next, priced, extras } = await applyCheckoutUpdate(ctx, read, req);
  const now = nowIso();
  const result = (await ctx.db
    .update(checkouts)
    .set({ ...checkoutChanges(next, priced, extras), updatedDate: now })
    .where(and(eq(checkouts.id, read.row.id), eq(checkouts.status, "OPEN"), eq(checkouts.updatedDate, read.row.updatedDate)))) as unknown as D1Result;
  if (!result.meta.changes) throw conflict("Checkout");
  next.totals = { ...(priced.totals.wire as unknown as Record<string, unknown>), extras };
  next.updatedDate = now;
  return { checkout: checkoutShape(ctx, next, priced), read: { ...read, row: next } as CheckoutRead };
}

/** The columns an update writes (the totals keep the extras the table has no column for). */
export function checkoutChanges(next: CheckoutRow, priced: PricedCheckout, extras: CheckoutExtras) {
  return {
    buyerInfo: next.buyerInfo,
    shippingAddress: next.shippingAddress,
    billingAddress: next.billingAddress,
    contactDetails: next.contactDetails,
    selectedShippingOption: next.selectedShippingOption,
    totals: { ...(priced.totals.wire as unknown as Record<string, unknown>), extras },
    subtotal: priced.totals.result.priceSummary.subtotal,
    total: priced.totals.result.priceSummary.total,
  };
}

/** Works out an update on a checkout read (no round trip): the changed row, re-priced, or the error it gets. */
export async function applyCheckoutUpdate(
  ctx: Ctx,
  read: CheckoutRead,
  req: UpdateCheckoutRequest,
): Promise<{ next: CheckoutRow; priced: PricedCheckout; extras: CheckoutExtras }> {
  const row = read.row;
  const id = row.id;
  if (row.status !== "OPEN") throw checkoutCompleted(id);
  const c = req.checkout;
  const next: CheckoutRow = structuredClone(row);
  const extras: CheckoutExtras = { ...extrasOf(row) };
  if (c.buyerInfo && c.buyerInfo.email !== undefined) {
    const { email: _e, ...rest } = next.buyerInfo;
    next.buyerInfo = c.buyerInfo.email ? { ...rest, email: c.buyerInfo.email } : rest;
  }
  const dest = c.shippingInfo?.shippingDestination;
  if (dest) {
    if (dest.address !== undefined) next.shippingAddress = cleanAddress(dest.address as StoredAddress | null) ?? null;
    if (dest.contactDetails !== undefined) next.contactDetails = (dest.contactDetails as StoredContactDetails | null) ?? null;
  }
  if (c.shippingInfo?.selectedCarrierServiceOption !== undefined) {
    const o = c.shippingInfo.selectedCarrierServiceOption;
    next.selectedShippingOption = o ? { code: o.code, ...(o.carrierId ? { carrierId: o.carrierId } : {}) } : null;
  }
  if (c.billingInfo) {
    if (c.billingInfo.address !== undefined) next.billingAddress = cleanAddress(c.billingInfo.address as StoredAddress | null) ?? null;
    if (c.billingInfo.contactDetails !== undefined)
      extras.billingContactDetails = (c.billingInfo.contactDetails as StoredContactDetails | null) ?? null;
  }
  if (c.buyerNote !== undefined) extras.buyerNote = c.buyerNote ?? null;
  next.totals = { ...(row.totals as Record<string, unknown>), extras };

  const priced = await priceCheckoutWith(ctx, next, read.products, read.pricing);
  if (next.selectedShippingOption) {
    const codes = priced.totals.wire.shippingInfo.carrierServiceOptions.flatMap((x) => x.shippingOptions.map((o) => (o as { code: string }).code));
    if (!codes.includes(next.selectedShippingOption.code)) {
      throw badField(
        "checkout.shippingInfo.selectedCarrierServiceOption.code",
        `is not a shipping option for this address (available: ${codes.join(", ") || "none"})`,
        "VALIDATION",
        {
          code: next.selectedShippingOption.code,
          available: codes,
        },
      );
    }
  }
  return { next, priced, extras };
}
