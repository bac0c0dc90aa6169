import { and, asc, eq, sql } from "drizzle-orm";
import { releaseStockStatements } from "#worker/catalog";
import { emailStatement } from "#worker/email";
import type { Processor, Statement } from "#worker/events";
import {
  createCheckoutSession,
  expireCheckoutSession,
  isProviderDown,
  retrieveCheckoutSession,
  StripeEventTypes,
  stripeSettings,
  type SessionInput,
  type SessionState,
  type StripeEventData,
} from "#worker/payments";
import { shopSettings } from "#worker/store";
import { taskStatement } from "#worker/tasks";
import { isAssertionFailure } from "#worker/platform/batch";
import { systemCtx, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { formatMoney, toDecimalString, toMinor } from "#worker/platform/money";
import { publicOrigin } from "#worker/platform/public-origin";
import { runBatch } from "#worker/platform/unit-of-work";
import { isOwner } from "./checkout";
import { paidAmount, refundedAmount } from "./actions";
import { loadOrders, paymentEvent, restockedCancelEvent, writeChange } from "./orders";
import { completeRefund, failRefund } from "./refunds";
import type { LoadedOrder } from "./shapes";
import { orders, PENDING_ONLINE_ORDER, transactions } from "./tables";

/**
 * Online payment on the provider's hosted page (Stripe Checkout). Placing the order writes it INITIALIZED and
 * NOT_PAID with its stock reserved; startHostedPayment then makes the order's Checkout Session from the order as
 * written. Stripe's events (verified and recorded once by worker/payments) reach `hostedPaymentProcessor`, which
 * marks the order paid (and sends the confirmation, once), cancels it and releases its stock, records a refund, or
 * raises a merchant task for a dispute. The confirmation page, reached before the webhook, asks Stripe itself and
 * marks the order paid through the same function. Every change is guarded on the order's state as read, so two
 * paths racing make one change; an event that finds its change already made (or no order of ours) does nothing.
 */

/** The activity reason of an online order cancelled because its payment was not completed. */
export const PAYMENT_NOT_COMPLETED = "PAYMENT_NOT_COMPLETED";

const PAID_STATUSES = new Set(["PAID", "PARTIALLY_REFUNDED", "FULLY_REFUNDED"]);

/**
 * How long the hosted page takes payment: Stripe's minimum of 30 minutes, plus a minute for the time between writing
 * the order and Stripe making the session. Counted from the order's creation, so a retry sends the same parameters
 * under the same idempotency key and gets the same session back.
 */
const SESSION_SECONDS = 31 * 60;

/** How long an online order holds its stock unpaid: its session's life, then time for Stripe's expired event. */
export const ONLINE_HOLD_MINUTES = 45;

async function loadOne(ctx: Ctx, id: string | null): Promise<LoadedOrder | null> {
  if (!id) return null;
  const [o] = await loadOrders(ctx, [id]);
  return o ?? null;
}

const minorOf = (money: unknown, currency: string) => {
  const amount = Number((money as { amount?: string } | undefined)?.amount ?? 0);
  return Number.isFinite(amount) ? toMinor(amount, currency) : 0;
};

/** The session's input: the order's lines, shipping, tax and fees as the order holds them (our prices, never the browser's). */
function sessionInput(ctx: Ctx, o: LoadedOrder): SessionInput {
  const { order } = o;
  const d = order.details as Record<string, any>;
  const s = d.priceSummary ?? {};
  const origin = publicOrigin(ctx);
  const shipping = minorOf(s.shipping, order.currency);
  return {
    orderId: order.id,
    currency: order.currency,
    email: order.buyerEmail,
    lines: o.lines.map((l) => ({ name: l.name, quantity: l.quantity, unitAmount: l.price })),
    shipping: d.shippingInfo?.code || shipping > 0 ? { name: d.shippingInfo?.title ?? "Shipping", amount: shipping } : null,
    tax: d.taxIncludedInPrices ? 0 : minorOf(s.tax, order.currency),
    fees: minorOf(s.additionalFees, order.currency),
    discount: minorOf(s.discount, order.currency),
    total: order.total,
    expiresAt: Math.floor(Date.parse(order.createdDate) / 1000) + SESSION_SECONDS,
    successUrl: `${origin}/orders/${encodeURIComponent(order.id)}/confirmation?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${origin}/checkout?canceled=${encodeURIComponent(order.id)}`,
  };
}

/**
 * The hosted page of an order placed for ONLINE payment: its Checkout Session (the same one again for the same
 * order). A paid or cancelled order has none: its confirmation page tells the buyer where it stands.
 */
export async function startHostedPayment(ctx: Ctx, orderId: string): Promise<{ orderId: string; paymentRedirectUrl?: string }> {
  const stripe = stripeSettings(ctx.env);
  const o = await loadOne(ctx, orderId);
  if (!stripe || !o || o.order.status !== "INITIALIZED" || o.order.paymentStatus !== "NOT_PAID") return { orderId };
  const session = await createCheckoutSession(stripe, sessionInput(ctx, o));
  if (o.order.checkoutSessionId !== session.id) {
    // Kept so the pending-online sweep can ask Stripe about the page before releasing the order.
    await runBatch(ctx.db, [ctx.db.update(orders).set({ checkoutSessionId: session.id }).where(eq(orders.id, orderId))]);
  }
  return { orderId, paymentRedirectUrl: session.url };
}

/**
 * The buyer back from the hosted page without paying (its cancel URL): their order's hosted page again, for them
 * only (404 to anyone else). A paid or cancelled order answers no page.
 */
export async function resumeHostedPayment(ctx: Ctx, orderId: string): Promise<{ orderId: string; paymentRedirectUrl?: string }> {
  const o = await loadOne(ctx, orderId);
  if (!o || !isOwner(ctx, o.order)) throw notFound("ORDER_NOT_FOUND", "Order", orderId);
  return startHostedPayment(ctx, orderId);
}

/** A payment as the provider reports it. */
interface ProviderPayment {
  /** The provider's payment id (pi_…), or the session's when it has none. */
  transactionId: string;
  amount: number | null;
  currency: string | null;
}

type Outcome = "CHANGED" | "UNCHANGED" | "UNKNOWN_ORDER";

/** The processed-event record to write with a change, asked for only by a batch that runs (else the consumer writes it). */
type Done = () => Statement[];
const none: Done = () => [];

/**
 * Runs `attempt` on the order as it stands, again when another path changed it in between (409), so the change is
 * made once, against the latest state.
 */
async function onLatest(ctx: Ctx, orderId: string | null, attempt: (o: LoadedOrder) => Promise<Outcome>): Promise<Outcome> {
  for (let i = 0; ; i++) {
    const o = await loadOne(ctx, orderId);
    if (!o) return "UNKNOWN_ORDER";
    try {
      return await attempt(o);
    } catch (err) {
      const moved = (err instanceof ApiError && err.status === 409) || isAssertionFailure(err);
      if (!moved || i >= 4) throw err;
    }
  }
}

/**
 * Marks an online order paid: APPROVED and PAID, a transaction, an ORDER_PAID activity and the confirmation email
 * (keyed by the order, so sent once), with `done` (the processed-event record) in the same batch. An order already
 * paid or refunded is left alone; a cancelled one, or an amount that is not the order's total, becomes a merchant
 * task instead.
 */
export async function markOrderPaid(ctx: Ctx, orderId: string | null, pay: ProviderPayment, done: Done = none, email = true): Promise<Outcome> {
  return onLatest(ctx, orderId, async (o) => {
    const { order } = o;
    if (PAID_STATUSES.has(order.paymentStatus)) return "UNCHANGED";
    const wrongAmount = pay.amount !== null && (pay.amount !== order.total || (pay.currency !== null && pay.currency !== order.currency));
    if (order.status === "CANCELED" || wrongAmount) {
      const paid = pay.amount !== null && pay.currency ? formatMoney(pay.amount, pay.currency) : "a payment";
      const why =
        order.status === "CANCELED"
          ? "it was cancelled (its items went back on sale)"
          : `the order's total is ${formatMoney(order.total, order.currency)}`;
      await runBatch(ctx.db, [
        taskStatement(ctx.db, {
          kind: "PAYMENT_NEEDS_REVIEW",
          title: `Payment to review on order ${order.number}`,
          description: `Stripe reports ${paid} (${pay.transactionId}) for order ${order.number}, but ${why}. Refund it in Stripe or settle it with the buyer.`,
          entityId: order.id,
          dedupeKey: `payment-review:${order.id}:${pay.transactionId}`,
        }),
        ...done(),
      ]);
      return "UNCHANGED";
    }
    const txId = newId();
    const confirmation = email && order.buyerEmail ? await paidConfirmation(ctx, o) : null;
    const results = await writeChange(ctx, o, {
      set: { paymentStatus: "PAID", status: "APPROVED" },
      activities: [{ type: "ORDER_PAID", details: { transactionId: txId, provider: "stripe", providerTransactionId: pay.transactionId } }],
      after: [
        ctx.db.insert(transactions).values({
          id: txId,
          orderId: order.id,
          amount: order.total,
          currency: order.currency,
          status: "APPROVED",
          provider: "stripe",
          providerTransactionId: pay.transactionId,
          createdDate: new Date().toISOString(),
        }),
        ...(confirmation ? [confirmation.statement as Statement] : []),
        ...done(),
      ],
      events: [paymentEvent(order.paymentStatus, "PAID")],
    });
    confirmation?.deliver(results[1]);
    return "CHANGED";
  });
}

/** The order confirmation email of an order just paid online (its number is known by now). */
async function paidConfirmation(ctx: Ctx, o: LoadedOrder) {
  const { order } = o;
  const d = order.details as Record<string, any>;
  const s = d.priceSummary ?? {};
  const amount = (m: unknown) => (m as { amount?: string } | undefined)?.amount ?? "0";
  try {
    return emailStatement(
      ctx,
      order.buyerEmail!,
      "order-confirmation",
      {
        orderNumber: String(order.number),
        orderId: order.id,
        lines: o.lines.map((l) => ({ name: l.name, quantity: l.quantity, total: toDecimalString(l.price * l.quantity, order.currency) })),
        subtotal: amount(s.subtotal),
        shipping: amount(s.shipping),
        tax: amount(s.tax),
        discount: amount(s.discount),
        total: toDecimalString(order.total, order.currency),
        currency: order.currency,
        paid: true,
        name: d.recipientInfo?.contactDetails?.firstName ?? undefined,
      },
      { shop: await shopSettings(ctx), idempotencyKey: `order-confirmation:${order.id}` },
    );
  } catch (e) {
    console.error("order confirmation email could not be recorded", e);
    return null;
  }
}

/**
 * Cancels an online order whose payment was not completed and releases its stock; a paid or settled order is left
 * alone. `why` goes into the activity: the provider's event, or how long the order waited.
 */
async function releaseUnpaid(ctx: Ctx, orderId: string | null, why: Record<string, unknown>, done: Done): Promise<Outcome> {
  return onLatest(ctx, orderId, async (o) => {
    const { order } = o;
    if (order.status !== "INITIALIZED" || order.paymentStatus !== "NOT_PAID") return "UNCHANGED";
    const lines = o.lines
      .filter((l) => l.catalogItemId && l.variantId)
      .map((l) => ({ productId: l.catalogItemId!, variantId: l.variantId!, quantity: l.quantity, name: l.name }));
    const stock = lines.length ? releaseStockStatements(ctx, lines, order.id, `Order ${order.number}: payment not completed`) : undefined;
    await writeChange(ctx, o, {
      set: { status: "CANCELED" },
      activities: [{ type: "ORDER_CANCELED", details: { reason: PAYMENT_NOT_COMPLETED, ...why, restockAllItems: true } }],
      after: done(),
      stock,
      events: [restockedCancelEvent(PAYMENT_NOT_COMPLETED)],
    });
    return "CHANGED";
  });
}

/** The order a charge belongs to: its metadata's order id, else the order whose Stripe payment it is. */
async function orderOfCharge(ctx: Ctx, data: StripeEventData): Promise<string | null> {
  if (data.orderId) return data.orderId;
  if (!data.paymentIntentId) return null;
  const [t] = await ctx.db
    .select({ orderId: transactions.orderId })
    .from(transactions)
    .where(and(eq(transactions.provider, "stripe"), eq(transactions.providerTransactionId, data.paymentIntentId)))
    .limit(1);
  return t?.orderId ?? null;
}

/**
 * Records a Stripe refund. A refund the shop made itself (named by our refund id in its metadata, or by its Stripe
 * id) completes that refund, once; the part of the charge's running refunded total that no refund of ours accounts
 * for (a refund made in Stripe's dashboard) is recorded as a refund of its own. A refund of an order not yet marked
 * paid (its events crossed) marks it paid first, without the confirmation email.
 */
async function recordRefund(ctx: Ctx, data: StripeEventData, done: Done): Promise<Outcome> {
  const orderId = await orderOfCharge(ctx, data);
  const refunded = data.amountRefunded ?? 0;
  const first = await loadOne(ctx, orderId);
  if (first && first.order.status !== "CANCELED" && !PAID_STATUSES.has(first.order.paymentStatus) && data.paymentIntentId) {
    await markOrderPaid(ctx, orderId, { transactionId: data.paymentIntentId, amount: data.amount, currency: data.currency }, none, false);
  }
  const settled = await settleOwnRefunds(ctx, orderId, data);
  if (data.stripeType !== "charge.refunded") return settled ? "CHANGED" : "UNCHANGED";
  const o = await loadOne(ctx, orderId);
  if (!o) return "UNKNOWN_ORDER";
  if (!PAID_STATUSES.has(o.order.paymentStatus)) return settled ? "CHANGED" : "UNCHANGED";
  const amount = Math.min(refunded, paidAmount(o)) - refundedAmount(o);
  if (amount <= 0) return settled ? "CHANGED" : "UNCHANGED";
  const known = new Set(o.refunds.map((r) => r.providerRefundId).filter(Boolean));
  const unknown = (data.refunds ?? []).filter((r) => !known.has(r.id) && !r.refundId);
  const changed = await completeRefund(
    ctx,
    o.order.id,
    {
      external: {
        amount,
        provider: "stripe",
        providerRefundId: unknown.length === 1 && unknown[0].amount === amount ? unknown[0].id : null,
        chargeId: data.chargeId,
      },
    },
    done,
  );
  return changed || settled ? "CHANGED" : "UNCHANGED";
}

/** Completes (or fails) the shop's own refunds an event reports on; answers whether one changed. */
async function settleOwnRefunds(ctx: Ctx, orderId: string | null, data: StripeEventData): Promise<boolean> {
  const o = await loadOne(ctx, orderId);
  if (!o) return false;
  let changed = false;
  for (const r of data.refunds ?? []) {
    const ours = o.refunds.find((x) => (r.refundId && x.id === r.refundId) || x.providerRefundId === r.id);
    if (!ours || (ours.status !== "STARTED" && ours.status !== "PENDING")) continue;
    if (r.status === "succeeded") changed = (await completeRefund(ctx, o.order.id, { refundId: ours.id, providerRefundId: r.id })) || changed;
    else if ((r.status === "failed" || r.status === "canceled") && ours.status === "PENDING")
      changed = (await failRefund(ctx, o, ours.id, `Stripe reported the refund ${r.status}`)) || changed;
  }
  return changed;
}

/** A dispute opened on a payment: a merchant task (one per dispute), naming the order when it is ours. */
async function raiseDispute(ctx: Ctx, data: StripeEventData, done: Done): Promise<Outcome> {
  const orderId = await orderOfCharge(ctx, data);
  const o = await loadOne(ctx, orderId);
  const amount = data.amount !== null && data.currency ? formatMoney(data.amount, data.currency) : "A payment";
  const of = o ? `order ${o.order.number}` : `charge ${data.chargeId ?? "unknown"}`;
  await runBatch(ctx.db, [
    taskStatement(ctx.db, {
      kind: "PAYMENT_DISPUTED",
      title: `Payment disputed: ${of}`,
      description: `${amount} of ${of} is disputed by the card holder (${data.reason ?? "no reason given"}). Answer it in the Stripe dashboard before its deadline.`,
      entityId: o?.order.id ?? data.chargeId,
      dedupeKey: `dispute:${data.objectId}`,
    }),
    ...done(),
  ]);
  return o ? "CHANGED" : "UNKNOWN_ORDER";
}

/** Applies one recorded Stripe event to its order; `done` is the processed-event record, written with the change. */
export async function applyStripeEvent(ctx: Ctx, data: StripeEventData, done: Done = none): Promise<Outcome> {
  switch (data.stripeType) {
    case "checkout.session.completed":
      if (!data.paid) return "UNCHANGED";
      return markOrderPaid(
        ctx,
        data.orderId,
        { transactionId: data.paymentIntentId ?? data.objectId ?? "", amount: data.amount, currency: data.currency },
        done,
      );
    case "payment_intent.succeeded":
      return markOrderPaid(ctx, data.orderId, { transactionId: data.paymentIntentId ?? "", amount: data.amount, currency: data.currency }, done);
    case "checkout.session.expired":
      return releaseUnpaid(ctx, data.orderId, { providerEvent: data.stripeType }, done);
    case "payment_intent.payment_failed":
      // Stripe's page lets the buyer try another card in the same session, so a declined attempt keeps the order
      // and its stock; the session's expiry releases them if no payment follows.
      return "UNCHANGED";
    case "charge.refunded":
    case "refund.updated":
      return recordRefund(ctx, data, done);
    case "charge.dispute.created":
      return raiseDispute(ctx, data, done);
    default:
      return "UNCHANGED";
  }
}

/** The processor of recorded Stripe events: each event's effect on its order, recorded as processed in the same batch. */
export const hostedPaymentProcessor: Processor = {
  name: "orders:stripe-events",
  types: StripeEventTypes,
  async run(event, data, p) {
    const outcome = await applyStripeEvent(p.ctx, data as unknown as StripeEventData, () => [p.done()]);
    if (outcome === "UNKNOWN_ORDER") console.log(`stripe event ${event.id} (${event.type}) names no order of this shop: skipped`);
  },
};

/**
 * The buyer back from the hosted page before the webhook: asks Stripe for the session and, when it is this order's
 * and paid, marks the order paid exactly as the webhook would. Answers whether the order is paid now.
 */
export async function confirmHostedReturn(ctx: Ctx, orderId: string, sessionId: string): Promise<boolean> {
  const stripe = stripeSettings(ctx.env);
  if (!stripe || !/^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId)) return false;
  const session = await retrieveCheckoutSession(stripe, sessionId);
  if (session.orderId !== orderId || !session.paid) return false;
  const system = systemCtx(ctx.env, ctx.db, "orders:stripe-return", ctx.waitUntil);
  await markOrderPaid(system, orderId, {
    transactionId: session.paymentIntentId ?? session.id,
    amount: session.amountTotal,
    currency: session.currency,
  });
  return true;
}

/** Most pending online orders one sweep releases; the next minute's sweep takes the rest. */
const PER_SWEEP = 50;

/**
 * The online orders placed before `cutoff` (ISO) and still waiting for their payment, oldest first, through
 * orders_pending_online_idx. An order with a transaction (a card charge still pending) is the provider's to settle.
 */
export function pendingOnlineOrdersRead(db: Db, cutoff: string, limit = PER_SWEEP) {
  return db
    .select({ id: orders.id, sessionId: orders.checkoutSessionId })
    .from(orders)
    .where(
      sql`${sql.raw(PENDING_ONLINE_ORDER)} AND ${orders.createdDate} < ${cutoff} AND NOT EXISTS (SELECT 1 FROM ${transactions} t WHERE t.order_id = ${orders.id})`,
    )
    .orderBy(asc(orders.createdDate))
    .limit(limit);
}

/**
 * What Stripe says of a pending order's Checkout Session before the sweep acts: paid (the order is marked paid the
 * webhook's way), or no longer able to take payment (an open session is expired first, so a buyer still on the page
 * cannot pay after the release). Throws PROVIDER_IS_DOWN when Stripe cannot be reached.
 */
async function sessionVerdict(ctx: Ctx, sessionId: string): Promise<{ paid: SessionState } | { release: string } | { wait: string }> {
  const stripe = stripeSettings(ctx.env);
  if (!stripe) return { release: "no provider" };
  let session = await retrieveCheckoutSession(stripe, sessionId);
  if (session.status === "open") session = await expireCheckoutSession(stripe, sessionId);
  if (session.status === "complete" && session.paid) return { paid: session };
  if (session.status === "expired") return { release: "expired" };
  // Complete but not paid yet (a delayed payment method): Stripe's payment events settle it.
  return { wait: session.status ?? "unknown" };
}

/**
 * The sweep of online orders left pending: no Checkout Session was ever made (Stripe down after the order was
 * written, so the buyer never had a page to pay on), or its session ended and its event never came. Past
 * ONLINE_HOLD_MINUTES it asks Stripe first: a paid session marks the order paid (the confirmation email once, as
 * the webhook would), an open one is expired, then the order is cancelled and its stock released, once. When Stripe
 * cannot be reached the order waits for the next sweep. Answers how many orders it released.
 */
export async function releasePendingOnlineOrders(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<number> {
  const cutoff = new Date(now.getTime() - ONLINE_HOLD_MINUTES * 60_000).toISOString();
  const pending = await pendingOnlineOrdersRead(db, cutoff);
  if (!pending.length) return 0;
  const ctx = systemCtx(env, db, "orders:pending-online", waitUntil);
  let released = 0;
  for (const { id, sessionId } of pending) {
    try {
      const verdict = sessionId && stripeSettings(env) ? await sessionVerdict(ctx, sessionId) : { release: "no session" };
      if ("paid" in verdict) {
        const s = verdict.paid;
        await markOrderPaid(ctx, id, { transactionId: s.paymentIntentId ?? s.id, amount: s.amountTotal, currency: s.currency });
      } else if ("release" in verdict && (await releaseUnpaid(ctx, id, { heldMinutes: ONLINE_HOLD_MINUTES }, none)) === "CHANGED") released++;
    } catch (err) {
      if (isProviderDown(err)) console.log(`pending online order ${id}: Stripe could not be asked; the next sweep retries`);
      else console.error(`pending online order ${id} could not be released; the next sweep retries`, err);
    }
  }
  return released;
}
