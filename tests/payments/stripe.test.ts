import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { confirmHostedReturn } from "#worker/orders";
import { api, serviceCtx } from "../helpers";
import { stockOf } from "../orders/inventory-fixtures";
import { fakeId, intentSucceeded, paymentFailed, sessionCompleted, sessionExpired, signedWebhook, stripeEvent } from "./stripe-events";
import {
  activities,
  confirmations,
  createOrder,
  deliverThriceShuffled,
  fakeOrigin,
  fakeRequests,
  filledCheckout,
  onlineOrder,
  orderRow,
  post,
  postRaw,
  processed,
  q,
  stripeEnv,
} from "./stripe-fixtures";

const CARD = { number: "4242424242424242", expiry: "12/40", cvc: "123" };

/**
 * Stripe Checkout and Stripe webhooks, with the official client talking to the local fake (global-setup.ts) and
 * webhooks signed by the package's own test helper. The queue consumer applies the recorded events as in production.
 */

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
    expect(await confirmations(o.orderId)).toHaveLength(0);

    // The same checkout again (the buyer's retry): the same order, the same session through the same key.
    const again = await createOrder(o, "ONLINE");
    expect(again.body).toEqual({ orderId: o.orderId, paymentRedirectUrl: o.url });
    const keys = (await fakeRequests()).filter((r) => r.body.client_reference_id === o.orderId).map((r) => r.idempotencyKey);
    expect(keys).toEqual([`checkout-session:${o.orderId}`, `checkout-session:${o.orderId}`]);
  });

  it("never takes a card number: refused, nothing written, nothing logged; and ONLINE needs Stripe", async () => {
    const v = await filledCheckout();
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void logged.push(args.map((a) => JSON.stringify(a) ?? String(a)).join(" "))),
    );
    try {
      const refused = await createOrder(v, { card: CARD });
      expect(refused.status).toBe(400);
      expect(refused.body.details.applicationError.code).toBe("CARD_NOT_ACCEPTED");
      expect(JSON.stringify(refused.body)).not.toContain(CARD.number);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(logged.filter((l) => l.includes(CARD.number) || l.includes("4242 4242"))).toEqual([]);
    const noStripe = await createOrder(v, "ONLINE", env);
    expect(noStripe.status).toBe(400);
    expect(noStripe.body.details.applicationError.code).toBe("PAYMENT_PROVIDER_NOT_CONFIGURED");
    expect(await q("SELECT id FROM orders WHERE checkout_id = ?", v.checkoutId)).toHaveLength(0);
  });

  it("refuses the test card provider in production, before reading the card", async () => {
    const v = await filledCheckout();
    const production = { ...env, ENVIRONMENT: "production", PUBLIC_URL: "https://shop.test" } as Env;
    const res = await createOrder(v, { card: CARD }, production);
    expect(res.status).toBe(503);
    expect(res.body.details.applicationError.code).toBe("PAYMENT_PROVIDER_NOT_CONFIGURED");
    expect(await q("SELECT id FROM orders WHERE checkout_id = ?", v.checkoutId)).toHaveLength(0);
  });
});

describe("POST /webhooks/stripe", () => {
  it("refuses forged, stale and unsigned webhooks with nothing stored, and stores a replay once", async () => {
    const o = await onlineOrder();
    const event = sessionCompleted(o, fakeId("pi"));
    const stored = () => q("SELECT id FROM payment_events WHERE id = ?", event.id);
    const outbox = () => q("SELECT id FROM outbox WHERE id = ?", `stripe:${event.id}`);

    const forged = await post(event, { secret: "whsec_notTheShopsSecretAtAll" });
    const stale = await post(event, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    const unsigned = await postRaw(JSON.stringify(event));
    const { payload, signature } = await signedWebhook(event);
    const tampered = await postRaw(payload.replace(o.orderId, "another-order"), signature);
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
    const pi = fakeId("pi");
    // Stripe would not send the last two after the payment; if it does, they change nothing.
    const paid = [sessionCompleted(o, pi), intentSucceeded(o, pi), sessionExpired(o), paymentFailed(o, pi)];
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
      expect(await confirmations(o.orderId)).toHaveLength(1);
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
    const { total } = o;
    const pi = fakeId("pi");
    const ch = fakeId("ch");
    const paid = [sessionCompleted(o, pi), intentSucceeded(o, pi, ch)];
    await deliverThriceShuffled(paid);
    await processed(paid);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    expect(await activities(o.orderId, "ORDER_PAID")).toHaveLength(1);
    expect(await confirmations(o.orderId)).toHaveLength(1);

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
    const pi = fakeId("pi");
    const declined = paymentFailed(o, pi);
    await deliverThriceShuffled([declined]);
    await processed([declined]);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect((await stockOf(o.productId))!.quantity).toBe(3);
    const paid = sessionCompleted(o, pi);
    await deliverThriceShuffled([paid]);
    await processed([paid]);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(0);
  });

  it("releases the reservation once when the session expires", async () => {
    const o = await onlineOrder();
    expect((await stockOf(o.productId))!.quantity).toBe(3);
    const gone = [sessionExpired(o), paymentFailed(o)];
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
    expect(await confirmations(o.orderId)).toHaveLength(1);
  });
});
