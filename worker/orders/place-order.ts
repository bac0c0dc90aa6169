import { config } from "#worker/platform/config";
import { and, eq, sql } from "drizzle-orm";
import { completeCartStatements, type CartTotals } from "#worker/cart";
import { appliedCouponCode, recordRuleUsageStatements, redeemCouponStatement } from "#worker/pricing";
import { lineItemShape, type ResolvedLine } from "#worker/cart";
import { checkouts } from "#worker/cart";
import { emailStatement } from "#worker/email";
import { shopSettings } from "#worker/store";
import { newEvent, outboxInsert, type EventEnvelope, type Statement } from "#worker/events";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure } from "#worker/platform/batch";
import { actorOf, nowIso, type Ctx } from "#worker/platform/context";
import { ApiError, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { inBatchLimitStatements, limitRefusal, type Limit } from "#worker/platform/rate-limit";
import { toDecimalString } from "#worker/platform/money";
import { runBatch } from "#worker/platform/unit-of-work";
import {
  applyCheckoutUpdate,
  checkoutChanges,
  checkoutCompleted,
  extrasOf,
  orderIdOfCheckout,
  priceCheckoutWith,
  readCheckout,
  requireCheckoutChange,
  type CheckoutRead,
  type PricedCheckout,
} from "./checkout";
import { explainStockFailure, flushStockEvents, reserveStockStatements, type StockLine } from "#worker/catalog";
import { orderLimits, type ShopperClient } from "#worker/cart";
import { checkCard, paymentProvider, stripeSettings, type ChargeResult, type PaymentProvider } from "#worker/payments";
import { startHostedPayment } from "./hosted-payment";
import type { CreateOrderRequest, UpdateCheckoutRequest } from "./schemas";
import {
  contactInfo,
  orderEventData,
  orderShape,
  OrderEventType,
  type ActivityRow,
  type CheckoutRow,
  type LoadedOrder,
  type OrderLineRow,
  type OrderRow,
  type TransactionRow,
} from "./shapes";
import { orderActivities, orderLineItems, orderNumbers, orders, transactions } from "./tables";

/**
 * Placing a checkout's order, as named steps: validate what the buyer gave, price it, take the payment, reserve the
 * stock, write the order in one batch (with its events and the confirmation email), then notify.
 */

const REQUIRED = (field: string, description: string): FieldViolation => ({ field, description, violatedRule: "REQUIRED_FIELD", data: {} });

/**
 * POST /ecom/v1/checkouts/{id}/create-order → {orderId}. A checkout that already made its order answers that order.
 * Two D1 round trips: the checkout read (row, catalogue, pricing rules, order) and the order's batch.
 */
export async function createOrder(ctx: Ctx, id: string, req: CreateOrderRequest, client: ShopperClient = {}): Promise<PlacedOrder> {
  return placeOrderFrom(ctx, await readCheckout(ctx, id), req, undefined, client);
}

/** A placed order; with ONLINE payment, the provider's hosted page to send the buyer to. */
export interface PlacedOrder {
  orderId: string;
  paymentRedirectUrl?: string;
}

/**
 * Places the order of a checkout already read in this request (readCheckout, or the checkout page's one read of the
 * cart and its checkout): one D1 round trip, the order's batch. With `update` (the page's last step sets the billing
 * address), the update is worked out as updateCheckout would and written by the batch's guard on the checkout,
 * which then also checks that the checkout is still the one read. A shopper's orders count against the limits of
 * limits.ts in the same batch (429 TOO_MANY_REQUESTS over them, with nothing written and no card charged).
 */
export async function placeOrderFrom(
  ctx: Ctx,
  read: CheckoutRead,
  req: CreateOrderRequest,
  update?: UpdateCheckoutRequest,
  client: ShopperClient = {},
): Promise<PlacedOrder> {
  requireCheckoutChange(ctx, read.row);
  const payment = req.paymentOption ?? "OFFLINE";
  const online = payment === "ONLINE";
  const stripe = stripeSettings(ctx.env);
  if (online && !stripe) throw noHostedPayment();
  if (typeof payment === "object") {
    if (stripe) throw cardRefused();
    // Without Stripe the local test provider takes the card; in production it is refused before the card is read.
    paymentProvider(ctx.env);
  }
  if (read.row.status === "COMPLETED") {
    // The same checkout again (a retry, the back button): its order, and for an unpaid online order its hosted page.
    if (read.orderId) return online ? startHostedPayment(ctx, read.orderId) : { orderId: read.orderId };
    throw checkoutCompleted(read.row.id);
  }
  const updated = update ? await applyCheckoutUpdate(ctx, read, update) : null;
  const row = updated?.next ?? read.row;
  if (typeof payment === "object") checkCard(payment.card);
  const priced = updated?.priced ?? (await priceCheckoutWith(ctx, row, read.products, read.pricing));
  validateOrder(row, priced);
  refuseUndeliverable(ctx, priced);

  const now = nowIso();
  const orderId = newId();
  const limits = orderLimits(ctx, client);
  const taken = await takePayment(ctx, row, priced.totals, payment, limits);
  const draft = draftOrder(ctx, row, priced, { orderId, now, taken, offline: payment === "OFFLINE", online });
  const stock = reserveStock(ctx, priced.resolved, orderId, row.id);
  const cart = completeCartStatements(ctx, row.cartId, orderId);
  const events = orderEvents(ctx, draft, taken);
  // An online order's confirmation goes out when the provider says it is paid (hosted-payment.ts), not before.
  const confirmation = online ? null : await confirmationEmail(ctx, row, draft, priced.totals, taken);

  const guard = ctx.db
    .update(checkouts)
    .set({ ...(updated ? checkoutChanges(updated.next, updated.priced, updated.extras) : {}), status: "COMPLETED", updatedDate: now })
    .where(and(eq(checkouts.id, row.id), eq(checkouts.status, "OPEN"), updated ? eq(checkouts.updatedDate, read.row.updatedDate) : undefined));
  const couponCode = appliedCouponCode(priced.totals.result);
  const statements: Statement[] = [
    ...(inBatchLimitStatements(ctx.db, limits) as Statement[]),
    // The guard: only one order per checkout, however many requests race. With an update, it writes the update
    // too, and only onto the checkout as read (a change made since, e.g. in another tab, makes the batch fail).
    guard,
    assertPreviousChanged(ctx.db),
    ...orderStatements(ctx, draft),
    ...stock.change.statements,
    ...(couponCode ? [redeemCouponStatement(ctx.db, couponCode), assertPreviousChanged(ctx.db)] : []),
    ...recordRuleUsageStatements(ctx.db, priced.totals.result),
    ...cart.statements,
    ...events.map((e) => outboxInsert(ctx.db, e)),
    ...(confirmation ? [confirmation.email.statement as Statement] : []),
    clearAssertions(ctx.db),
    // The order number the batch assigned, read back in the same round trip.
    ctx.db.select({ number: orders.number }).from(orders).where(eq(orders.id, orderId)),
  ];
  let number = 0;
  let emailResult: unknown;
  try {
    const results = await runBatch(ctx.db, statements);
    number = (results[results.length - 1] as { number: number }[])[0]?.number ?? 0;
    emailResult = confirmation ? results[results.length - 3] : undefined;
  } catch (err) {
    const placed = await explainOrderFailure(ctx, err, {
      checkoutId: row.id,
      taken,
      total: draft.order.total,
      currency: row.currency,
      limits,
      stockLines: stock.lines,
      couponCode,
    });
    return online ? startHostedPayment(ctx, placed.orderId) : placed;
  }
  // Notify: the events after the response, and the confirmation (recorded in the mailbox) to the transport.
  flushStockEvents(ctx, stock.change, { statements: [], eventIds: [...events.map((e) => e.id), ...cart.events.map((e) => e.id)] });
  confirmation?.email.deliver(emailResult, { [confirmation.numberToken]: String(number) });
  // The order and its reservation are written; now the hosted page. If Stripe fails here the order stays pending and
  // the buyer's retry (the same checkout) asks again with the same idempotency key.
  return online ? startHostedPayment(ctx, orderId) : { orderId };
}

/**
 * In production a digital item is sold only when its download link can be signed: without DOWNLOAD_SIGNING_SECRET
 * the buyer would pay for something the shop cannot deliver.
 */
function refuseUndeliverable(ctx: Ctx, priced: PricedCheckout): void {
  const c = config(ctx.env);
  if (!c.production || c.downloadSigningSecret) return;
  if (!priced.resolved.some((r) => !r.row.custom && r.row.snapshot.productType === "digital")) return;
  throw new ApiError(503, "DOWNLOADS_NOT_CONFIGURED", "Digital items cannot be delivered: DOWNLOAD_SIGNING_SECRET is not set", {
    message: "Digital delivery is not available",
    data: { variable: "DOWNLOAD_SIGNING_SECRET" },
  });
}

function noHostedPayment(): ApiError {
  return new ApiError(400, "PAYMENT_PROVIDER_NOT_CONFIGURED", "ONLINE payment needs Stripe, which this shop has not connected; pay OFFLINE", {
    message: "Payments not configured",
    data: { paymentOption: "ONLINE" },
  });
}

function cardRefused(): ApiError {
  return new ApiError(400, "CARD_NOT_ACCEPTED", "This shop never takes card numbers: choose ONLINE to pay on Stripe's payment page", {
    message: "Card not accepted",
    data: { paymentOption: "ONLINE" },
  });
}

/** Validate: the checkout has lines, the buyer gave what the order needs, every line can be bought, the coupon holds. */
function validateOrder(row: CheckoutRow, priced: PricedCheckout): void {
  const { resolved, totals } = priced;
  const result = totals.result;
  if (!resolved.length) throw new ApiError(400, "EMPTY_CHECKOUT", "The checkout has no line items", { message: "Checkout is empty" });

  // What the buyer must have given.
  const email = row.buyerInfo.email;
  const physical = resolved.some((r) =>
    r.row.custom ? (r.row.snapshot.shippable ?? r.row.snapshot.itemType?.preset !== "DIGITAL") : r.row.snapshot.productType !== "digital",
  );
  const missing: FieldViolation[] = [];
  if (!email) missing.push(REQUIRED("checkout.buyerInfo.email", "is required to place an order (set it with PATCH /ecom/v1/checkouts/{id})"));
  if (physical && !row.shippingAddress?.country) {
    missing.push(
      REQUIRED("checkout.shippingInfo.shippingDestination.address", "is required to ship the physical items of this order (at least the country)"),
    );
  }
  if (missing.length) throw invalidArgument(missing);

  // Lines that cannot be bought as they are.
  const blocked = resolved.filter((r) => r.status !== "AVAILABLE");
  if (blocked.length) {
    const names = blocked.map(
      (r) =>
        `"${r.row.snapshot.productName}" (${r.status === "PARTIALLY_AVAILABLE" ? `only ${r.quantityAvailable} left` : r.status === "NOT_FOUND" ? "no longer for sale" : "out of stock"})`,
    );
    throw new ApiError(409, "LINE_ITEMS_NOT_AVAILABLE", `These items cannot be bought as they are: ${names.join(", ")}`, {
      data: {
        lineItems: blocked.map((r) => ({
          id: r.row.id,
          productName: r.row.snapshot.productName,
          status: r.status,
          quantityAvailable: r.quantityAvailable ?? 0,
        })),
      },
      message: "Items not available",
    });
  }
  if (row.couponCode && result.couponProblem) {
    throw new ApiError(400, result.couponProblem.code, `Coupon "${row.couponCode}" cannot be used: ${result.couponProblem.description}`, {
      data: { couponCode: row.couponCode },
      message: "Coupon cannot be used",
    });
  }
}

type PaymentOption = NonNullable<CreateOrderRequest["paymentOption"]>;

/** The payment taken for an order: the card's charge (none offline) and the provider that made it. */
interface Payment {
  charge: ChargeResult | null;
  provider: PaymentProvider | null;
}

/** Take the payment: a card is charged before anything is written, so a decline writes nothing. */
async function takePayment(ctx: Ctx, row: CheckoutRow, totals: CartTotals, payment: PaymentOption, limits: Limit[]): Promise<Payment> {
  if (payment === "OFFLINE" || payment === "ONLINE") return { charge: null, provider: null };
  const provider = paymentProvider(ctx.env);
  // A card is never charged for an order the limits would refuse (the batch checks them again).
  const refusal = await limitRefusal(ctx.db, limits);
  if (refusal) throw refusal;
  const charge = await provider.charge(totals.result.priceSummary.total, row.currency, payment.card);
  if (charge.status === "DECLINED") {
    throw new ApiError(
      402,
      "PAYMENT_DECLINED",
      `The card payment was declined (${charge.reason ?? "declined"}); nothing was charged and no order was placed. Try another card or pay offline.`,
      {
        data: { reason: charge.reason, checkoutId: row.id },
        message: "Payment declined",
      },
    );
  }
  return { charge, provider };
}

/** An order as it will be written: its row, lines, activities and transactions. */
type OrderDraft = LoadedOrder;

/** The order's details: buyer, prices, shipping and billing, as the wire order carries them. */
function orderDetails(row: CheckoutRow, totals: CartTotals, offline: boolean): Record<string, unknown> {
  const wire = totals.wire;
  const shippingDestination = contactInfo(row.shippingAddress, row.contactDetails);
  const selected = wire.shippingInfo.selectedCarrierServiceOption as Record<string, any> | null;
  const billing = contactInfo(row.billingAddress ?? row.shippingAddress, extrasOf(row).billingContactDetails ?? row.contactDetails);
  return {
    buyerInfo: row.buyerInfo,
    cartId: row.cartId,
    purchaseFlowId: row.purchaseFlowId,
    weightUnit: row.weightUnit,
    taxIncludedInPrices: totals.result.taxIncludedInPrices,
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
    ...(offline ? { paymentOption: "FULL_PAYMENT_OFFLINE" } : { paymentOption: "FULL_PAYMENT_ONLINE" }),
  };
}

/** The order a priced checkout makes (number 0 until the batch assigns it). */
function draftOrder(
  ctx: Ctx,
  row: CheckoutRow,
  priced: PricedCheckout,
  o: { orderId: string; now: string; taken: Payment; offline: boolean; online: boolean },
): OrderDraft {
  const { resolved, totals } = priced;
  const { orderId, now, offline } = o;
  const { charge, provider } = o.taken;
  const actor = actorOf(ctx.auth);
  const currency = row.currency;
  const total = totals.result.priceSummary.total;
  const isPaid = charge?.status === "APPROVED";
  const order: OrderRow = {
    id: orderId,
    number: 0,
    checkoutId: row.id,
    cartId: row.cartId,
    ownerKind: row.ownerKind,
    ownerId: row.ownerId,
    buyerEmail: row.buyerInfo.email ?? null,
    // Waiting for the provider (a hosted page, a pending charge): approved once paid.
    status: charge?.status === "PENDING" || o.online ? "INITIALIZED" : "APPROVED",
    paymentStatus: isPaid ? "PAID" : charge?.status === "PENDING" ? "PENDING" : "NOT_PAID",
    fulfillmentStatus: "NOT_FULFILLED",
    currency,
    subtotal: totals.result.priceSummary.subtotal,
    total,
    channelType: row.channelType,
    checkoutSessionId: null,
    details: orderDetails(row, totals, offline),
    purchasedDate: now,
    createdDate: now,
    updatedDate: now,
  };
  const activity = (type: string, extra: Record<string, unknown> | null = null): ActivityRow => ({
    id: newId(),
    orderId,
    type,
    details: extra,
    actorType: actor.type,
    actorId: actor.id,
    createdDate: now,
  });
  return {
    order,
    lines: orderLines(ctx, resolved, totals, orderId, currency),
    activities: [activity("ORDER_PLACED"), ...(isPaid ? [activity("ORDER_PAID", { transactionId: charge!.transactionId })] : [])],
    fulfillments: [],
    transactions: charge
      ? [
          {
            id: newId(),
            orderId,
            amount: total,
            currency,
            status: charge.status,
            provider: provider?.name ?? "test",
            providerTransactionId: charge.transactionId,
            createdDate: now,
          },
        ]
      : ([] as TransactionRow[]),
    refunds: [],
  };
}

/** The order's lines, each with its calculated price breakdown. */
function orderLines(ctx: Ctx, resolved: ResolvedLine[], totals: CartTotals, orderId: string, currency: string): OrderLineRow[] {
  const lineShapes = resolved.map((r) => lineItemShape(r, currency, ctx.origin));
  const calculated = new Map(totals.wire.calculatedLineItems.map((c) => [c.lineItemId, c.pricesBreakdown]));
  return resolved.map((r, i) => ({
    id: r.row.id,
    orderId,
    position: i,
    catalogItemId: r.row.catalogItemId,
    variantId: r.row.variantId,
    name: r.row.snapshot.productName,
    quantity: r.row.quantity,
    fulfilledQuantity: 0,
    refundedQuantity: 0,
    restockedQuantity: 0,
    price: r.row.price,
    details: { ...lineShapes[i], ...(calculated.get(r.row.id) ? calculated.get(r.row.id) : {}), availability: undefined } as Record<string, unknown>,
  }));
}

/** Reserve: the stock of the order's catalogue lines, taken in the order's batch. */
function reserveStock(ctx: Ctx, resolved: ResolvedLine[], orderId: string, checkoutId: string) {
  const lines: StockLine[] = resolved
    .filter((r) => !r.row.custom && r.row.catalogItemId && r.row.variantId)
    .map((r) => ({ productId: r.row.catalogItemId!, variantId: r.row.variantId!, quantity: r.row.quantity, name: r.row.snapshot.productName }));
  const change = lines.length
    ? reserveStockStatements(ctx, lines, "ORDER", orderId, `Order for checkout ${checkoutId}`)
    : { statements: [], eventIds: [] };
  return { lines, change };
}

/** The order's created event, and its payment status event when the card was charged. */
function orderEvents(ctx: Ctx, draft: OrderDraft, taken: Payment): EventEnvelope[] {
  const { id: orderId, paymentStatus } = draft.order;
  const created = newEvent(ctx, OrderEventType.created, orderId, orderEventData("created", { ...orderShape(draft), number: undefined } as never));
  if (taken.charge?.status !== "APPROVED") return [created];
  const payment = newEvent(ctx, OrderEventType.paymentStatusUpdated, orderId, {
    entityId: orderId,
    entityFqdn: "wix.ecom.v1.order",
    slug: "payment_status_updated",
    actionEvent: { body: { order: { id: orderId, paymentStatus }, previousPaymentStatus: "NOT_PAID" } },
  });
  return [created, payment];
}

/** The rows of the order itself; its number is the one the orderNumbers insert just before it assigns. */
function orderStatements(ctx: Ctx, draft: OrderDraft): Statement[] {
  const { number: _n, ...insertable } = draft.order;
  return [
    ctx.db.insert(orderNumbers).values({}),
    ctx.db.insert(orders).values({ ...insertable, number: sql`last_insert_rowid()` }),
    ...draft.lines.map((l) => ctx.db.insert(orderLineItems).values(l)),
    ...draft.activities.map((a) => ctx.db.insert(orderActivities).values(a)),
    ...draft.transactions.map((t) => ctx.db.insert(transactions).values(t)),
  ];
}

/**
 * Notify: the confirmation email, recorded by the order's batch; its order number is the one the batch assigns, put
 * in for a placeholder token. None without a buyer email, or when it could not be prepared.
 */
async function confirmationEmail(ctx: Ctx, row: CheckoutRow, draft: OrderDraft, totals: CartTotals, taken: Payment) {
  const email = row.buyerInfo.email;
  const { id: orderId, currency } = draft.order;
  const prices = totals.result.priceSummary;
  const numberToken = `ORDERNUMBER${newId().replace(/[^A-Za-z0-9]/g, "")}`;
  if (!email) return null;
  try {
    // The store's name and sender for the email (the KV copy of the store settings: no D1 round trip).
    const shop = await shopSettings(ctx);
    const statement = emailStatement(
      ctx,
      email,
      "order-confirmation",
      {
        orderNumber: numberToken,
        orderId,
        lines: draft.lines.map((l) => ({ name: l.name, quantity: l.quantity, total: toDecimalString(l.price * l.quantity, currency) })),
        subtotal: toDecimalString(prices.subtotal, currency),
        shipping: toDecimalString(prices.shipping, currency),
        tax: toDecimalString(prices.tax, currency),
        discount: toDecimalString(prices.discount, currency),
        total: toDecimalString(prices.total, currency),
        currency,
        paid: taken.charge?.status === "APPROVED",
        name: row.contactDetails?.firstName ?? undefined,
      },
      {
        shop,
        idempotencyKey: `order-confirmation:${orderId}`,
        placeholder: { token: numberToken, value: sql`(SELECT CAST(${orders.number} AS TEXT) FROM ${orders} WHERE ${orders.id} = ${orderId})` },
      },
    );
    return { email: statement, numberToken };
  } catch (e) {
    console.error("order confirmation email could not be recorded", e);
    return null;
  }
}

/**
 * Why the order's batch failed, as the answer: the order another request placed first (idempotent), the limits,
 * the stock, the coupon's last use, or a conflict. A card charged for it is refunded first.
 */
async function explainOrderFailure(
  ctx: Ctx,
  err: unknown,
  o: {
    checkoutId: string;
    taken: Payment;
    total: number;
    currency: string;
    limits: Limit[];
    stockLines: StockLine[];
    couponCode: string | null | undefined;
  },
): Promise<PlacedOrder> {
  const { charge, provider } = o.taken;
  if (charge && provider)
    await provider.refund(charge.transactionId, o.total, o.currency).catch((e) => console.error("refund after failed order", e));
  // Another request placed this checkout's order first: answer it (idempotent).
  const existing = await orderIdOfCheckout(ctx, o.checkoutId).catch(() => null);
  if (existing) return { orderId: existing };
  const refused = o.limits.length && isAssertionFailure(err) ? await limitRefusal(ctx.db, o.limits).catch(() => null) : null;
  if (refused) throw refused;
  const explained = o.stockLines.length ? await explainStockFailure(ctx, err, o.stockLines) : err;
  if (explained instanceof ApiError) throw explained;
  if (o.couponCode && isAssertionFailure(err)) {
    throw new ApiError(400, "COUPON_USAGE_EXCEEDED", `Coupon "${o.couponCode}" has no uses left`, {
      data: { couponCode: o.couponCode },
      message: "Coupon cannot be used",
    });
  }
  if (isAssertionFailure(err)) throw conflict("Checkout");
  throw err;
}
