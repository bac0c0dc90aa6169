import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { confirmHostedReturn } from "#worker/orders";
import { api, serviceCtx } from "../helpers";
import { waitFor } from "../wait";
import { fillCheckout, visitorCheckout } from "../orders/order-fixtures";
import { stockOf, trackedProduct } from "../orders/inventory-fixtures";
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, fakeId, signedWebhook, stripeEvent } from "./stripe-events";

/**
 * Stripe Checkout and Stripe webhooks, with the official client talking to the local fake (global-setup.ts) and
 * webhooks signed by the package's own test helper. The queue consumer applies the recorded events as in production.
 */

const fakeOrigin = inject("stripeFakeOrigin");
/** The test bindings with Stripe connected (one object: the configuration is parsed once per env). */
const stripeEnv = { ...env, STRIPE_SECRET_KEY: FAKE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET, STRIPE_API_BASE: fakeOrigin } as Env;

const q = <T = Record<string, any>>(s: string, ...b: unknown[]) =>
  env.DB.prepare(s)
    .bind(...b)
    .all<T>()
    .then((r) => r.results);

async function fakeRequests(): Promise<{ method: string; path: string; idempotencyKey: string | null; body: Record<string, any> }[]> {
  return (await fetch(`${fakeOrigin}/__fake/requests`)).json();
}

/** A visitor's order placed for ONLINE payment (2 of a tracked product with 5), and its hosted page. */
async function onlineOrder() {
  const product = await trackedProduct(5, { priceData: { price: 12.5 } });
  const v = await visitorCheckout(product.id, 2);
  await fillCheckout(v.token, v.checkoutId);
  const res = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, {
    key: v.token,
    body: { paymentOption: "ONLINE" },
    env: stripeEnv,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const orderId = res.body.orderId as string;
  const sessionId = String(res.body.paymentRedirectUrl).split("/pay/")[1];
  return { ...v, productId: product.id as string, orderId, sessionId, url: res.body.paymentRedirectUrl as string };
}

const post = async (event: object, opts: { secret?: string; timestamp?: number } = {}) => {
  const { payload, signature } = await signedWebhook(event, opts);
  return api("POST", "/webhooks/stripe", { rawBody: payload, headers: { "stripe-signature": signature }, env: stripeEnv });
};

/** Waits until the orders' processor has recorded each of these Stripe events as processed. */
async function processed(events: { id: string }[]) {
  const ids = events.map((e) => `stripe:${e.id}`);
  await waitFor(async () => {
    const rows = await q(
      `SELECT count(*) AS n FROM processed_events WHERE processor = 'orders:stripe-events' AND event_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(ids),
    );
    return Number(rows[0].n) === ids.length;
  }, `${ids.length} Stripe events processed`);
}

/** Each event 3 times, shuffled, posted concurrently. */
async function deliverThriceShuffled(events: object[]) {
  const copies = [...events, ...events, ...events].map((e) => ({ e, k: Math.random() })).sort((a, b) => a.k - b.k);
  const answers = await Promise.all(copies.map((c) => post(c.e)));
  for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
  return answers;
}

const orderRow = async (id: string) => (await q("SELECT status, payment_status, total, currency FROM orders WHERE id = ?", id))[0];
const activities = (id: string, type: string) => q("SELECT details FROM order_activities WHERE order_id = ? AND type = ?", id, type);

describe("checkout with Stripe connected", () => {
  it("writes the order pending with stock reserved, then a session of exactly its amounts, keyed by the order", async () => {
    const o = await onlineOrder();
    expect(o.url.startsWith(`${fakeOrigin}/pay/cs_test_`)).toBe(true);
    const order = await orderRow(o.orderId);
    expect(order).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect((await stockOf(o.productId))!.quantity).toBe(3);
    const calls = (await fakeRequests()).filter((r) => r.body.client_reference_id === o.orderId);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call).toMatchObject({ method: "POST", path: "/v1/checkout/sessions", idempotencyKey: `checkout-session:${o.orderId}` });
    expect(call.body.metadata).toEqual({ orderId: o.orderId });
    expect(call.body.payment_intent_data.metadata).toEqual({ orderId: o.orderId });
    expect(call.body.success_url).toBe(`https://shop.test/orders/${o.orderId}/confirmation?session_id={CHECKOUT_SESSION_ID}`);
    expect(call.body.cancel_url).toBe(`https://shop.test/checkout?canceled=${o.orderId}`);
    const lines = call.body.line_items as { quantity: string; price_data: { unit_amount: string; currency: string } }[];
    expect(lines[0]).toMatchObject({ quantity: "2", price_data: { unit_amount: "1250", currency: "usd" } });
    const shipping = Number(call.body.shipping_options?.[0]?.shipping_rate_data?.fixed_amount?.amount ?? 0);
    expect(lines.reduce((n, l) => n + Number(l.price_data.unit_amount) * Number(l.quantity), 0) + shipping).toBe(order.total);
    // Not paid, so no confirmation yet.
    expect(await q("SELECT id FROM emails WHERE idempotency_key = ?", `order-confirmation:${o.orderId}`)).toHaveLength(0);

    // The same checkout again (the buyer's retry): the same order, the same session through the same key.
    const again = await api("POST", `/ecom/v1/checkouts/${o.checkoutId}/create-order`, {
      key: o.token,
      body: { paymentOption: "ONLINE" },
      env: stripeEnv,
    });
    expect(again.body).toEqual({ orderId: o.orderId, paymentRedirectUrl: o.url });
    const keys = (await fakeRequests()).filter((r) => r.body.client_reference_id === o.orderId).map((r) => r.idempotencyKey);
    expect(keys).toEqual([`checkout-session:${o.orderId}`, `checkout-session:${o.orderId}`]);
  });

  it("never takes a card number, and refuses ONLINE without Stripe", async () => {
    const product = await trackedProduct(5);
    const v = await visitorCheckout(product.id, 1);
    await fillCheckout(v.token, v.checkoutId);
    const card = { card: { number: "4242424242424242", expiry: "12/40", cvc: "123" } };
    const refused = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, {
      key: v.token,
      body: { paymentOption: card },
      env: stripeEnv,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details.applicationError.code).toBe("CARD_NOT_ACCEPTED");
    const noStripe = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, { key: v.token, body: { paymentOption: "ONLINE" } });
    expect(noStripe.status).toBe(400);
    expect(noStripe.body.details.applicationError.code).toBe("PAYMENT_PROVIDER_NOT_CONFIGURED");
    expect(await q("SELECT id FROM orders WHERE checkout_id = ?", v.checkoutId)).toHaveLength(0);
  });

  it("refuses the test card provider in production, before reading the card", async () => {
    const product = await trackedProduct(5);
    const v = await visitorCheckout(product.id, 1);
    await fillCheckout(v.token, v.checkoutId);
    const production = { ...env, ENVIRONMENT: "production", PUBLIC_URL: "https://shop.test" } as Env;
    const card = { card: { number: "4242424242424242", expiry: "12/40", cvc: "123" } };
    const res = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, {
      key: v.token,
      body: { paymentOption: card },
      env: production,
    });
    expect(res.status).toBe(503);
    expect(res.body.details.applicationError.code).toBe("PAYMENT_PROVIDER_NOT_CONFIGURED");
    expect(await q("SELECT id FROM orders WHERE checkout_id = ?", v.checkoutId)).toHaveLength(0);
  });
});

describe("POST /webhooks/stripe", () => {
  it("refuses forged, stale and unsigned webhooks with nothing stored, and stores a replay once", async () => {
    const o = await onlineOrder();
    const event = stripeEvent("checkout.session.completed", {
      id: o.sessionId,
      object: "checkout.session",
      client_reference_id: o.orderId,
      payment_status: "paid",
    });
    const stored = () => q("SELECT id FROM payment_events WHERE id = ?", event.id);
    const outbox = () => q("SELECT id FROM outbox WHERE id = ?", `stripe:${event.id}`);

    const forged = await post(event, { secret: "whsec_notTheShopsSecretAtAll" });
    const stale = await post(event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const unsigned = await api("POST", "/webhooks/stripe", { rawBody: JSON.stringify(event), env: stripeEnv });
    const { payload, signature } = await signedWebhook(event);
    const tampered = await api("POST", "/webhooks/stripe", {
      rawBody: payload.replace(o.orderId, "another-order"),
      headers: { "stripe-signature": signature },
      env: stripeEnv,
    });
    for (const r of [forged, stale, unsigned, tampered]) {
      expect(r.status).toBe(400);
      expect(r.body.details.applicationError.code).toBe("WEBHOOK_SIGNATURE_INVALID");
    }
    expect(await stored()).toHaveLength(0);
    expect(await outbox()).toHaveLength(0);
    expect((await orderRow(o.orderId)).payment_status).toBe("NOT_PAID");

    const first = await post(event);
    const replay = await post(event);
    expect(first.body).toEqual({ id: event.id, status: "RECORDED" });
    expect(replay.body).toEqual({ id: event.id, status: "DUPLICATE" });
    expect(await stored()).toHaveLength(1);
    expect(await outbox()).toHaveLength(1);
    await processed([event]);
    expect((await orderRow(o.orderId)).payment_status).toBe("PAID");
  });

  it("answers 404 while Stripe is not connected", async () => {
    const { payload, signature } = await signedWebhook(stripeEvent("checkout.session.completed", { id: "cs_x" }));
    const res = await api("POST", "/webhooks/stripe", { rawBody: payload, headers: { "stripe-signature": signature } });
    expect(res.status).toBe(404);
  });

  it("applies each event once, whatever the order and however often it comes", async () => {
    const o = await onlineOrder();
    const { total } = await orderRow(o.orderId);
    const pi = fakeId("pi");
    const ch = fakeId("ch");
    const paid = [
      stripeEvent("checkout.session.completed", {
        id: o.sessionId,
        object: "checkout.session",
        client_reference_id: o.orderId,
        metadata: { orderId: o.orderId },
        payment_status: "paid",
        status: "complete",
        payment_intent: pi,
        amount_total: total,
        currency: "usd",
      }),
      stripeEvent("payment_intent.succeeded", {
        id: pi,
        object: "payment_intent",
        metadata: { orderId: o.orderId },
        status: "succeeded",
        amount: total,
        amount_received: total,
        currency: "usd",
        latest_charge: ch,
      }),
      // Stripe would not send these after the payment; if it does, they change nothing.
      stripeEvent("checkout.session.expired", {
        id: o.sessionId,
        object: "checkout.session",
        client_reference_id: o.orderId,
        payment_status: "unpaid",
      }),
      stripeEvent("payment_intent.payment_failed", {
        id: pi,
        object: "payment_intent",
        metadata: { orderId: o.orderId },
        status: "requires_payment_method",
      }),
    ];
    const answers = await deliverThriceShuffled(paid);
    expect(answers.filter((a) => a.body.status === "RECORDED")).toHaveLength(paid.length);
    expect(answers.filter((a) => a.body.status === "DUPLICATE")).toHaveLength(paid.length * 2);
    await processed(paid);

    // Either order of completed/expired may run first; the paid one wins only if it ran first.
    const order = await orderRow(o.orderId);
    if (order.status === "CANCELED") {
      expect((await stockOf(o.productId))!.quantity).toBe(5);
      expect(await q("SELECT id FROM tasks WHERE kind = 'PAYMENT_NEEDS_REVIEW' AND entity_id = ?", o.orderId)).toHaveLength(1);
    } else {
      expect(order).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
      expect((await stockOf(o.productId))!.quantity).toBe(3);
      expect(await activities(o.orderId, "ORDER_PAID")).toHaveLength(1);
      expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(0);
      expect(await q("SELECT id FROM transactions WHERE order_id = ? AND provider = 'stripe' AND status = 'APPROVED'", o.orderId)).toHaveLength(1);
      expect(await q("SELECT id FROM emails WHERE idempotency_key = ?", `order-confirmation:${o.orderId}`)).toHaveLength(1);
    }
    expect(
      await q(
        "SELECT id FROM event_failures WHERE id LIKE 'stripe:%' AND id IN (SELECT 'stripe:' || value FROM json_each(?))",
        JSON.stringify(paid.map((e) => e.id)),
      ),
    ).toHaveLength(0);
  });

  it("marks paid once when completed and succeeded cross, then records refunds and a dispute once", async () => {
    const o = await onlineOrder();
    const { total } = await orderRow(o.orderId);
    const pi = fakeId("pi");
    const ch = fakeId("ch");
    const session = {
      id: o.sessionId,
      object: "checkout.session",
      client_reference_id: o.orderId,
      payment_status: "paid",
      payment_intent: pi,
      amount_total: total,
      currency: "usd",
    };
    const intent = {
      id: pi,
      object: "payment_intent",
      metadata: { orderId: o.orderId },
      status: "succeeded",
      amount: total,
      amount_received: total,
      currency: "usd",
    };
    const paid = [stripeEvent("checkout.session.completed", session), stripeEvent("payment_intent.succeeded", intent)];
    await deliverThriceShuffled(paid);
    await processed(paid);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    expect(await activities(o.orderId, "ORDER_PAID")).toHaveLength(1);
    expect(await q("SELECT id FROM emails WHERE idempotency_key = ?", `order-confirmation:${o.orderId}`)).toHaveLength(1);

    // Two partial refunds: Stripe's charge.refunded carries the running total, so the order records what is new.
    const charge = (refunded: number) => ({
      id: ch,
      object: "charge",
      payment_intent: pi,
      paid: true,
      amount: total,
      amount_refunded: refunded,
      currency: "usd",
    });
    const partial = stripeEvent("charge.refunded", charge(500));
    await deliverThriceShuffled([partial]);
    await processed([partial]);
    expect((await orderRow(o.orderId)).payment_status).toBe("PARTIALLY_REFUNDED");
    const rest = stripeEvent("charge.refunded", charge(total));
    const dispute = stripeEvent("charge.dispute.created", {
      id: fakeId("dp"),
      object: "dispute",
      charge: ch,
      payment_intent: pi,
      amount: total,
      currency: "usd",
      reason: "fraudulent",
    });
    await deliverThriceShuffled([rest, dispute]);
    await processed([rest, dispute]);
    expect((await orderRow(o.orderId)).payment_status).toBe("FULLY_REFUNDED");
    const refunds = await q<{ amount: number }>(
      "SELECT amount FROM transactions WHERE order_id = ? AND status = 'REFUNDED' ORDER BY amount",
      o.orderId,
    );
    expect(refunds.map((r) => r.amount)).toEqual([500, total - 500].sort((a, b) => a - b));
    expect(await activities(o.orderId, "ORDER_PARTIALLY_REFUNDED")).toHaveLength(1);
    expect(await activities(o.orderId, "ORDER_REFUNDED")).toHaveLength(1);
    const tasks = await q("SELECT kind, entity_id FROM tasks WHERE dedupe_key = ?", `dispute:${dispute.data.object.id}`);
    expect(tasks).toEqual([{ kind: "PAYMENT_DISPUTED", entity_id: o.orderId }]);
  });

  it("keeps the order and its stock after a declined card, so a second card on Stripe's page can pay it", async () => {
    const o = await onlineOrder();
    const declined = stripeEvent("payment_intent.payment_failed", {
      id: fakeId("pi"),
      object: "payment_intent",
      metadata: { orderId: o.orderId },
      status: "requires_payment_method",
      last_payment_error: { code: "card_declined" },
    });
    await deliverThriceShuffled([declined]);
    await processed([declined]);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect((await stockOf(o.productId))!.quantity).toBe(3);
    const paid = stripeEvent("checkout.session.completed", {
      id: o.sessionId,
      object: "checkout.session",
      client_reference_id: o.orderId,
      payment_status: "paid",
    });
    await deliverThriceShuffled([paid]);
    await processed([paid]);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(0);
  });

  it("releases the reservation once when the session expires", async () => {
    const o = await onlineOrder();
    expect((await stockOf(o.productId))!.quantity).toBe(3);
    const gone = [
      stripeEvent("checkout.session.expired", {
        id: o.sessionId,
        object: "checkout.session",
        client_reference_id: o.orderId,
        payment_status: "unpaid",
        status: "expired",
      }),
      stripeEvent("payment_intent.payment_failed", {
        id: fakeId("pi"),
        object: "payment_intent",
        metadata: { orderId: o.orderId },
        status: "requires_payment_method",
        last_payment_error: { code: "card_declined" },
      }),
    ];
    await deliverThriceShuffled(gone);
    await processed(gone);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
    expect((await stockOf(o.productId))!.quantity).toBe(5);
    expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(1);
  });

  it("stores an event for an order it does not know, answers 200 and changes nothing", async () => {
    const before = await q("SELECT count(*) AS n FROM orders");
    const event = stripeEvent("checkout.session.completed", {
      id: fakeId("cs"),
      object: "checkout.session",
      client_reference_id: "not-an-order-of-ours",
      payment_status: "paid",
      amount_total: 100,
      currency: "usd",
    });
    const res = await post(event);
    expect(res.status).toBe(200);
    await processed([event]);
    expect(await q("SELECT count(*) AS n FROM orders")).toEqual(before);
    expect(await q("SELECT id FROM event_failures WHERE id = ?", `stripe:${event.id}`)).toHaveLength(0);
    // A type the shop does not act on: recorded as IGNORED, not queued.
    const other = stripeEvent("customer.created", { id: fakeId("cus"), object: "customer" });
    expect((await post(other)).body).toEqual({ id: other.id, status: "IGNORED" });
    expect(await q("SELECT id FROM outbox WHERE id = ?", `stripe:${other.id}`)).toHaveLength(0);
  });
});

describe("the buyer back before the webhook", () => {
  it("asks Stripe and marks the order paid the webhook's way; the late webhook then changes nothing", async () => {
    const o = await onlineOrder();
    const { ctx, settled } = serviceCtx({ kind: "anonymous" } as never, stripeEnv as unknown as Record<string, unknown>);
    ctx.env = stripeEnv;
    expect(await confirmHostedReturn(ctx, o.orderId, o.sessionId)).toBe(false);
    const session = await (await fetch(`${fakeOrigin}/__fake/sessions/${o.sessionId}/complete`, { method: "POST" })).json<Record<string, any>>();
    expect(await confirmHostedReturn(ctx, o.orderId, o.sessionId)).toBe(true);
    // Another order's session never pays this one.
    expect(await confirmHostedReturn(ctx, "another-order", o.sessionId)).toBe(false);
    await settled();
    expect(await orderRow(o.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    const late = stripeEvent("checkout.session.completed", session);
    await post(late);
    await processed([late]);
    expect(await activities(o.orderId, "ORDER_PAID")).toHaveLength(1);
    expect(await q("SELECT id FROM emails WHERE idempotency_key = ?", `order-confirmation:${o.orderId}`)).toHaveLength(1);
  });
});
