import Stripe from "stripe";

/** Stripe test values and events, for the workerd and the Node suites alike (no Node modules here). */

export const FAKE_WEBHOOK_SECRET = "whsec_fakefakefakefakefakefakefakefake";
export const FAKE_SECRET_KEY = "sk_test_fakeStripeKeyForLocalTests";

let counter = 0;
/** An id in Stripe's style (`evt_test_…`). */
export const fakeId = (prefix: string) =>
  `${prefix}_test_${Date.now().toString(36)}${(++counter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** A Stripe event of `type` about `object`, as Stripe posts it. */
export function stripeEvent(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) {
  return {
    id: fakeId("evt"),
    object: "event",
    api_version: "2026-10-28.endive",
    created,
    livemode: false,
    pending_webhooks: 1,
    type,
    data: { object },
  };
}

const subtle = Stripe.createSubtleCryptoProvider();

/** A webhook body and its Stripe-Signature, signed by the package's own test helper (WebCrypto: runs in workerd and Node). */
export async function signedWebhook(event: object, opts: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: opts.secret ?? FAKE_WEBHOOK_SECRET,
    cryptoProvider: subtle,
    ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
  });
  return { payload, signature };
}

/** An order as Stripe knows it: ours, its session and the total it charges. */
export type Placed = { orderId: string; sessionId: string; total: number };

/** The session's checkout.session.completed, paid in full (with its payment intent). */
export const sessionCompleted = (o: Placed, pi: string, extra: Record<string, unknown> = {}) =>
  stripeEvent("checkout.session.completed", {
    id: o.sessionId,
    object: "checkout.session",
    client_reference_id: o.orderId,
    metadata: { orderId: o.orderId },
    payment_status: "paid",
    status: "complete",
    payment_intent: pi,
    amount_total: o.total,
    currency: "usd",
    ...extra,
  });

/** The payment intent's payment_intent.succeeded for the order's total. */
export const intentSucceeded = (o: Placed, pi: string, charge = fakeId("ch")) =>
  stripeEvent("payment_intent.succeeded", {
    id: pi,
    object: "payment_intent",
    metadata: { orderId: o.orderId },
    status: "succeeded",
    amount: o.total,
    amount_received: o.total,
    currency: "usd",
    latest_charge: charge,
  });

/** The session's checkout.session.expired, unpaid. */
export const sessionExpired = (o: Placed) =>
  stripeEvent("checkout.session.expired", {
    id: o.sessionId,
    object: "checkout.session",
    client_reference_id: o.orderId,
    payment_status: "unpaid",
    status: "expired",
  });

/** A declined attempt on the order's payment intent. */
export const paymentFailed = (o: Placed, pi = fakeId("pi")) =>
  stripeEvent("payment_intent.payment_failed", {
    id: pi,
    object: "payment_intent",
    metadata: { orderId: o.orderId },
    status: "requires_payment_method",
    last_payment_error: { code: "card_declined" },
  });
