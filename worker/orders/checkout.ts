import { and, eq, sql } from "drizzle-orm";
import { cartReads, completeCartStatements, pricingReadsFor, resolveLine, totalsFor, type CartTotals } from "../cart/cart";
import { appliedCouponCode, loadPricingConfig, recordRuleUsageStatements, redeemCouponStatement, type PricingConfig } from "#worker/pricing";
import { cleanAddress, lineItemShape, type CartRow, type CatalogProduct, type LineRow, type ResolvedLine } from "../cart/shapes";
import { checkouts, type CheckoutLine, type LineSnapshot, type StoredAddress, type StoredContactDetails } from "../cart/tables";
import { emailStatement } from "../email/send";
import { shopSettings } from "../store/settings";
import { newEvent, outboxInsert, type Statement } from "../events/outbox";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure } from "../platform/batch";
import { actorOf, isMerchant, nowIso, requirePermission, type Ctx } from "../platform/context";
import { ApiError, badField, invalidArgument, notFound, unauthenticated, type FieldViolation } from "../platform/errors";
import { newId } from "../platform/ids";
import { inBatchLimitStatements, limitRefusal } from "../platform/rate-limit";
import { toDecimalString, toMinor } from "../platform/money";
import { explainStockFailure, flushStockEvents, reserveStockStatements, type StockLine } from "#worker/catalog";
import { orderLimits, type ShopperClient } from "#worker/cart/limits";
import { checkCard, paymentProvider, type ChargeResult } from "./payments";
import type { CreateOrderRequest, UpdateCheckoutRequest } from "./schemas";
import { contactInfo, orderEventData, orderShape, OrderEventType, type ActivityRow, type CheckoutRow, type LoadedOrder, type OrderLineRow, type OrderRow, type TransactionRow } from "./shapes";
import { orderActivities, orderLineItems, orderNumbers, orders, transactions } from "./tables";

/**
 * Checkouts (made from a cart by create-checkout): read with live prices, set the buyer's email, addresses and
 * shipping option, and place the order. Placing an order re-prices everything on the server and writes the order,
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
  if (a.kind === "member") return (row.ownerKind === "member" && row.ownerId === a.identityId) || (row.ownerKind === "visitor" && row.ownerId === a.visitorId);
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
  if (ctx.auth.kind === "anonymous") throw unauthenticated("Checkout calls need the buyer's access token (or a merchant's) in the Authorization header");
  const db = ctx.db;
  const catalogue = cartReads(ctx, [], [], sql`${id}`);
  const pricing = pricingReadsFor(db, [sql`(SELECT ck.coupon_code FROM checkouts ck WHERE ck.id = ${id})`]);
  const statements = [
    db.select().from(checkouts).where(eq(checkouts.id, id)).limit(1),
    db.select({ id: orders.id }).from(orders).where(eq(orders.checkoutId, id)).limit(1),
    ...catalogue.statements,
    ...pricing.statements,
  ];
  const results = (await db.batch(statements as unknown as [Statement, ...Statement[]])) as unknown[];
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
interface CheckoutExtras {
  billingContactDetails?: StoredContactDetails | null;
  buyerNote?: string | null;
}
const extrasOf = (row: CheckoutRow): CheckoutExtras => ((row.totals as Record<string, unknown>)?.extras as CheckoutExtras) ?? {};

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
export async function priceCheckoutWith(ctx: Ctx, row: CheckoutRow, products: Map<string, CatalogProduct>, pricing: PricingConfig): Promise<PricedCheckout> {
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

async function orderIdOfCheckout(ctx: Ctx, checkoutId: string): Promise<string | null> {
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

function checkoutCompleted(id: string): ApiError {
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
function checkoutChanges(next: CheckoutRow, priced: PricedCheckout, extras: CheckoutExtras) {
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
async function applyCheckoutUpdate(ctx: Ctx, read: CheckoutRead, req: UpdateCheckoutRequest): Promise<{ next: CheckoutRow; priced: PricedCheckout; extras: CheckoutExtras }> {
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
    if (c.billingInfo.contactDetails !== undefined) extras.billingContactDetails = (c.billingInfo.contactDetails as StoredContactDetails | null) ?? null;
  }
  if (c.buyerNote !== undefined) extras.buyerNote = c.buyerNote ?? null;
  next.totals = { ...(row.totals as Record<string, unknown>), extras };

  const priced = await priceCheckoutWith(ctx, next, read.products, read.pricing);
  if (next.selectedShippingOption) {
    const codes = priced.totals.wire.shippingInfo.carrierServiceOptions.flatMap((x) => x.shippingOptions.map((o) => (o as { code: string }).code));
    if (!codes.includes(next.selectedShippingOption.code)) {
      throw badField("checkout.shippingInfo.selectedCarrierServiceOption.code", `is not a shipping option for this address (available: ${codes.join(", ") || "none"})`, "VALIDATION", {
        code: next.selectedShippingOption.code,
        available: codes,
      });
    }
  }
  return { next, priced, extras };
}

// ---------------------------------------------------------------------------------------------------------------
// Placing the order

const REQUIRED = (field: string, description: string): FieldViolation => ({ field, description, violatedRule: "REQUIRED_FIELD", data: {} });

/**
 * POST /ecom/v1/checkouts/{id}/create-order → {orderId}. A checkout that already made its order answers that order.
 * Two D1 round trips: the checkout read (row, catalogue, pricing rules, order) and the order's batch.
 */
export async function createOrder(ctx: Ctx, id: string, req: CreateOrderRequest, client: ShopperClient = {}): Promise<{ orderId: string }> {
  return placeOrderFrom(ctx, await readCheckout(ctx, id), req, undefined, client);
}

/**
 * Places the order of a checkout already read in this request (readCheckout, or the checkout page's one read of the
 * cart and its checkout): one D1 round trip, the order's batch. With `update` (the page's last step sets the billing
 * address), the update is worked out as updateCheckout would and written by the batch's guard on the checkout,
 * which then also checks that the checkout is still the one read. A shopper's orders count against the limits of
 * limits.ts in the same batch (429 TOO_MANY_REQUESTS over them, with nothing written and no card charged).
 */
export async function placeOrderFrom(ctx: Ctx, read: CheckoutRead, req: CreateOrderRequest, update?: UpdateCheckoutRequest, client: ShopperClient = {}): Promise<{ orderId: string }> {
  requireCheckoutChange(ctx, read.row);
  const id = read.row.id;
  if (read.row.status === "COMPLETED") {
    if (read.orderId) return { orderId: read.orderId };
    throw checkoutCompleted(id);
  }
  const updated = update ? await applyCheckoutUpdate(ctx, read, update) : null;
  const row = updated?.next ?? read.row;
  const payment = req.paymentOption ?? "OFFLINE";
  if (payment !== "OFFLINE") checkCard(payment.card);

  const priced = updated?.priced ?? (await priceCheckoutWith(ctx, row, read.products, read.pricing));
  const { resolved, totals } = priced;
  const result = totals.result;
  if (!resolved.length) throw new ApiError(400, "EMPTY_CHECKOUT", "The checkout has no line items", { message: "Checkout is empty" });

  // What the buyer must have given.
  const email = row.buyerInfo.email;
  const physical = resolved.some((r) => (r.row.custom ? (r.row.snapshot.shippable ?? r.row.snapshot.itemType?.preset !== "DIGITAL") : r.row.snapshot.productType !== "digital"));
  const missing: FieldViolation[] = [];
  if (!email) missing.push(REQUIRED("checkout.buyerInfo.email", "is required to place an order (set it with PATCH /ecom/v1/checkouts/{id})"));
  if (physical && !row.shippingAddress?.country) {
    missing.push(REQUIRED("checkout.shippingInfo.shippingDestination.address", "is required to ship the physical items of this order (at least the country)"));
  }
  if (missing.length) throw invalidArgument(missing);

  // Lines that cannot be bought as they are.
  const blocked = resolved.filter((r) => r.status !== "AVAILABLE");
  if (blocked.length) {
    const names = blocked.map((r) => `"${r.row.snapshot.productName}" (${r.status === "PARTIALLY_AVAILABLE" ? `only ${r.quantityAvailable} left` : r.status === "NOT_FOUND" ? "no longer for sale" : "out of stock"})`);
    throw new ApiError(409, "LINE_ITEMS_NOT_AVAILABLE", `These items cannot be bought as they are: ${names.join(", ")}`, {
      data: { lineItems: blocked.map((r) => ({ id: r.row.id, productName: r.row.snapshot.productName, status: r.status, quantityAvailable: r.quantityAvailable ?? 0 })) },
      message: "Items not available",
    });
  }
  if (row.couponCode && result.couponProblem) {
    throw new ApiError(400, result.couponProblem.code, `Coupon "${row.couponCode}" cannot be used: ${result.couponProblem.description}`, {
      data: { couponCode: row.couponCode },
      message: "Coupon cannot be used",
    });
  }

  const now = nowIso();
  const orderId = newId();
  const actor = actorOf(ctx.auth);
  const currency = row.currency;
  const total = result.priceSummary.total;
  const wire = totals.wire;
  const lineShapes = resolved.map((r) => lineItemShape(r, currency, ctx.origin));
  const calculated = new Map(wire.calculatedLineItems.map((c) => [c.lineItemId, c.pricesBreakdown]));

  // The payment: charged before anything is written, so a decline writes nothing.
  let charge: ChargeResult | null = null;
  const provider = paymentProvider(ctx.env);
  const limits = orderLimits(ctx, client);
  if (payment !== "OFFLINE") {
    // A card is never charged for an order the limits would refuse (the batch checks them again).
    const refusal = await limitRefusal(ctx.db, limits);
    if (refusal) throw refusal;
    charge = await provider.charge(total, currency, payment.card);
    if (charge.status === "DECLINED") {
      throw new ApiError(402, "PAYMENT_DECLINED", `The card payment was declined (${charge.reason ?? "declined"}); nothing was charged and no order was placed. Try another card or pay offline.`, {
        data: { reason: charge.reason, checkoutId: id },
        message: "Payment declined",
      });
    }
  }
  const paid = charge?.status === "APPROVED";
  const paymentStatus = paid ? "PAID" : charge?.status === "PENDING" ? "PENDING" : "NOT_PAID";
  const status = charge?.status === "PENDING" ? "INITIALIZED" : "APPROVED";

  const buyerInfo = row.buyerInfo;
  const shippingDestination = contactInfo(row.shippingAddress, row.contactDetails);
  const selected = wire.shippingInfo.selectedCarrierServiceOption as Record<string, any> | null;
  const billing = contactInfo(row.billingAddress ?? row.shippingAddress, extrasOf(row).billingContactDetails ?? row.contactDetails);
  const details: Record<string, unknown> = {
    buyerInfo,
    cartId: row.cartId,
    purchaseFlowId: row.purchaseFlowId,
    weightUnit: row.weightUnit,
    taxIncludedInPrices: result.taxIncludedInPrices,
    siteLanguage: "en",
    buyerLanguage: "en",
    priceSummary: wire.priceSummary,
    appliedDiscounts: wire.appliedDiscounts,
    additionalFees: wire.additionalFees,
    taxSummary: wire.taxSummary,
    shippingInfo: {
      ...(selected ? { title: selected.title, code: selected.code, carrierId: selected.carrierId, cost: selected.cost } : {}),
      logistics: { shippingDestination },
    },
    billingInfo: billing,
    recipientInfo: shippingDestination,
    ...(extrasOf(row).buyerNote ? { buyerNote: extrasOf(row).buyerNote } : {}),
    ...(payment === "OFFLINE" ? { paymentOption: "FULL_PAYMENT_OFFLINE" } : { paymentOption: "FULL_PAYMENT_ONLINE" }),
  };
  const orderRow: OrderRow = {
    id: orderId,
    number: 0,
    checkoutId: id,
    cartId: row.cartId,
    ownerKind: row.ownerKind,
    ownerId: row.ownerId,
    buyerEmail: email ?? null,
    status,
    paymentStatus,
    fulfillmentStatus: "NOT_FULFILLED",
    currency,
    subtotal: result.priceSummary.subtotal,
    total,
    channelType: row.channelType,
    details,
    purchasedDate: now,
    createdDate: now,
    updatedDate: now,
  };
  const lineRows: OrderLineRow[] = resolved.map((r, i) => ({
    id: r.row.id,
    orderId,
    position: i,
    catalogItemId: r.row.catalogItemId,
    variantId: r.row.variantId,
    name: r.row.snapshot.productName,
    quantity: r.row.quantity,
    fulfilledQuantity: 0,
    price: r.row.price,
    details: { ...lineShapes[i], ...(calculated.get(r.row.id) ? calculated.get(r.row.id) : {}), availability: undefined } as Record<string, unknown>,
  }));
  const activity = (type: string, extra: Record<string, unknown> | null = null): ActivityRow => ({
    id: newId(),
    orderId,
    type,
    details: extra,
    actorType: actor.type,
    actorId: actor.id,
    createdDate: now,
  });
  const activityRows = [activity("ORDER_PLACED"), ...(paid ? [activity("ORDER_PAID", { transactionId: charge!.transactionId })] : [])];
  const transactionRows: TransactionRow[] = charge
    ? [{ id: newId(), orderId, amount: total, currency, status: charge.status, provider: provider.name, providerTransactionId: charge.transactionId, createdDate: now }]
    : [];

  const stockLines: StockLine[] = resolved
    .filter((r) => !r.row.custom && r.row.catalogItemId && r.row.variantId)
    .map((r) => ({ productId: r.row.catalogItemId!, variantId: r.row.variantId!, quantity: r.row.quantity, name: r.row.snapshot.productName }));
  const stock = stockLines.length ? reserveStockStatements(ctx, stockLines, "ORDER", orderId, `Order for checkout ${id}`) : { statements: [], eventIds: [] };
  const couponCode = appliedCouponCode(result);
  const cart = completeCartStatements(ctx, row.cartId, orderId);

  const loadedShape = (number: number): LoadedOrder => ({
    order: { ...orderRow, number },
    lines: lineRows,
    activities: activityRows,
    fulfillments: [],
    transactions: transactionRows,
  });
  const createdEvent = newEvent(ctx, OrderEventType.created, orderId, orderEventData("created", { ...orderShape(loadedShape(0)), number: undefined } as never));
  const paymentEvent = paid
    ? newEvent(ctx, OrderEventType.paymentStatusUpdated, orderId, { entityId: orderId, entityFqdn: "wix.ecom.v1.order", slug: "payment_status_updated", actionEvent: { body: { order: { id: orderId, paymentStatus } , previousPaymentStatus: "NOT_PAID" } } })
    : null;

  // The confirmation email, recorded by the order's batch; its order number is the one the batch assigns.
  const numberToken = `ORDERNUMBER${newId().replace(/[^A-Za-z0-9]/g, "")}`;
  let confirmation: ReturnType<typeof emailStatement> | null = null;
  if (email) {
    try {
      // The store's name and sender for the email (the KV copy of the store settings: no D1 round trip).
      const shop = await shopSettings(ctx);
      confirmation = emailStatement(
        ctx,
        email,
        "order-confirmation",
        {
          orderNumber: numberToken,
          orderId,
          lines: lineRows.map((l) => ({ name: l.name, quantity: l.quantity, total: toDecimalString(l.price * l.quantity, currency) })),
          subtotal: toDecimalString(result.priceSummary.subtotal, currency),
          shipping: toDecimalString(result.priceSummary.shipping, currency),
          tax: toDecimalString(result.priceSummary.tax, currency),
          discount: toDecimalString(result.priceSummary.discount, currency),
          total: toDecimalString(total, currency),
          currency,
          paid,
          name: row.contactDetails?.firstName ?? undefined,
        },
        { shop, idempotencyKey: `order-confirmation:${orderId}`, placeholder: { token: numberToken, value: sql`(SELECT CAST(${orders.number} AS TEXT) FROM ${orders} WHERE ${orders.id} = ${orderId})` } },
      );
    } catch (e) {
      console.error("order confirmation email could not be recorded", e);
    }
  }

  const { number: _n, ...insertable } = orderRow;
  const statements: Statement[] = [
    ...(inBatchLimitStatements(ctx.db, limits) as Statement[]),
    // The guard: only one order per checkout, however many requests race. With an update, it writes the update
    // too, and only onto the checkout as read (a change made since, e.g. in another tab, makes the batch fail).
    ctx.db
      .update(checkouts)
      .set({ ...(updated ? checkoutChanges(updated.next, updated.priced, updated.extras) : {}), status: "COMPLETED", updatedDate: now })
      .where(and(eq(checkouts.id, id), eq(checkouts.status, "OPEN"), updated ? eq(checkouts.updatedDate, read.row.updatedDate) : undefined)),
    assertPreviousChanged(ctx.db),
    ctx.db.insert(orderNumbers).values({}),
    ctx.db.insert(orders).values({ ...insertable, number: sql`last_insert_rowid()` }),
    ...lineRows.map((l) => ctx.db.insert(orderLineItems).values(l)),
    ...activityRows.map((a) => ctx.db.insert(orderActivities).values(a)),
    ...transactionRows.map((t) => ctx.db.insert(transactions).values(t)),
    ...stock.statements,
    ...(couponCode ? [redeemCouponStatement(ctx.db, couponCode), assertPreviousChanged(ctx.db)] : []),
    ...recordRuleUsageStatements(ctx.db, result),
    ...cart.statements,
    outboxInsert(ctx.db, createdEvent),
    ...(paymentEvent ? [outboxInsert(ctx.db, paymentEvent)] : []),
    ...(confirmation ? [confirmation.statement as Statement] : []),
    clearAssertions(ctx.db),
    // The order number the batch assigned, read back in the same round trip.
    ctx.db.select({ number: orders.number }).from(orders).where(eq(orders.id, orderId)),
  ];
  let number = 0;
  let emailResult: unknown;
  try {
    const results = (await ctx.db.batch(statements as [Statement, ...Statement[]])) as unknown[];
    number = (results[results.length - 1] as { number: number }[])[0]?.number ?? 0;
    emailResult = confirmation ? results[results.length - 3] : undefined;
  } catch (err) {
    if (charge) await provider.refund(charge.transactionId, total, currency).catch((e) => console.error("refund after failed order", e));
    // Another request placed this checkout's order first: answer it (idempotent).
    const existing = await orderIdOfCheckout(ctx, id).catch(() => null);
    if (existing) return { orderId: existing };
    const refused = limits.length && isAssertionFailure(err) ? await limitRefusal(ctx.db, limits).catch(() => null) : null;
    if (refused) throw refused;
    const explained = stockLines.length ? await explainStockFailure(ctx, err, stockLines) : err;
    if (explained instanceof ApiError) throw explained;
    if (couponCode && isAssertionFailure(err)) {
      throw new ApiError(400, "COUPON_USAGE_EXCEEDED", `Coupon "${couponCode}" has no uses left`, { data: { couponCode }, message: "Coupon cannot be used" });
    }
    if (isAssertionFailure(err)) throw conflict("Checkout");
    throw err;
  }
  flushStockEvents(ctx, stock, { statements: [], eventIds: [createdEvent.id, ...(paymentEvent ? [paymentEvent.id] : []), ...cart.events.map((e) => e.id)] });
  // The confirmation is recorded (the mailbox); it goes to the transport after the response, when one is configured.
  confirmation?.deliver(emailResult, { [numberToken]: String(number) });

  return { orderId };
}
