import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { api, merchant, OWNER_KEY, queryPlan, staffWith } from "../helpers";
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, fakeId, signedWebhook, stripeEvent } from "../payments/stripe-events";
import { waitFor } from "../wait";
import { runSweeps } from "#worker/app/sweeps";
import { releaseStock } from "#worker/catalog/stock-changes";
import { unsettledRefundsRead } from "#worker/orders/refunds";
import { openDb } from "#worker/platform/db";
import { DEFAULT_VARIANT_ID, merchantCtx, stockOf, trackedProduct } from "./inventory-fixtures";
import { fillCheckout, placedOrder, placeOrder, visitorCheckout } from "./order-fixtures";

/**
 * Refunds through the API: by line, by amount or everything, with restock, for test-card payments (recorded as
 * made) and Stripe payments (the official client against the local fake, keyed by our refund id). Each blocking
 * reason refuses with the spec's code and changes nothing; two refunds at once never give back more than was paid.
 */

const fakeOrigin = inject("stripeFakeOrigin");
const stripeEnv = { ...env, STRIPE_SECRET_KEY: FAKE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET, STRIPE_API_BASE: fakeOrigin } as Env;

const code = (res: { body: any }) => res.body.details?.applicationError?.code;
const q = <T = Record<string, any>>(s: string, ...b: unknown[]) =>
  env.DB.prepare(s)
    .bind(...b)
    .all<T>()
    .then((r) => r.results);

const refund = (orderId: string, body: Record<string, unknown>, opts: { env?: Env; key?: string } = {}) =>
  api("POST", `/ecom/v1/orders/${orderId}/refunds`, { body, key: opts.key ?? OWNER_KEY, env: opts.env });

/** What a refund can change, to show a refused one changed nothing. */
async function footprint(orderId: string, productId: string) {
  return {
    order: await q("SELECT payment_status, fulfillment_status, updated_date FROM orders WHERE id = ?", orderId),
    lines: await q("SELECT refunded_quantity, restocked_quantity FROM order_line_items WHERE order_id = ? ORDER BY position", orderId),
    refunds: await q("SELECT status FROM order_refunds WHERE order_id = ?", orderId),
    transactions: await q("SELECT status, amount FROM transactions WHERE order_id = ? ORDER BY created_date", orderId),
    activities: await q("SELECT type FROM order_activities WHERE order_id = ?", orderId),
    emails: await q("SELECT id FROM emails WHERE template = 'order-refund' AND text LIKE ?", `%${orderId}%`),
    stock: (await stockOf(productId))!.quantity,
  };
}

const refundEmails = (orderId: string) =>
  q<{ subject: string; text: string }>(
    "SELECT subject, text FROM emails WHERE template = 'order-refund' AND text LIKE ? ORDER BY created_date",
    `%${orderId}%`,
  );

/** An order of `quantity` units at 10.00 paid with the local test card. */
async function cardOrder(stock: number, quantity: number) {
  const product = await trackedProduct(stock, { priceData: { price: 10 } });
  const v = await visitorCheckout(product.id, quantity);
  await fillCheckout(v.token, v.checkoutId);
  const res = await placeOrder(v.token, v.checkoutId, { paymentOption: { card: { number: "4242424242424242", expiry: "12/40", cvc: "123" } } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const order = (await merchant("GET", `/ecom/v1/orders/${res.body.orderId}`)).body.order;
  expect(order.paymentStatus).toBe("PAID");
  return { productId: product.id as string, orderId: order.id as string, order, lineId: order.lineItems[0].id as string };
}

/** An order of 2 × 12.50 paid through Stripe Checkout (the webhook marks it paid), and its payment intent. */
async function stripeOrder() {
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
  const [{ total }] = await q<{ total: number }>("SELECT total FROM orders WHERE id = ?", orderId);
  const pi = fakeId("pi");
  const session = {
    id: String(res.body.paymentRedirectUrl).split("/pay/")[1],
    object: "checkout.session",
    client_reference_id: orderId,
    payment_status: "paid",
    payment_intent: pi,
    amount_total: total,
    currency: "usd",
  };
  await postWebhook(stripeEvent("checkout.session.completed", session));
  await waitFor(async () => (await q("SELECT payment_status FROM orders WHERE id = ?", orderId))[0].payment_status === "PAID", "order paid");
  const order = (await merchant("GET", `/ecom/v1/orders/${orderId}`)).body.order;
  return { productId: product.id as string, orderId, total, pi, lineId: order.lineItems[0].id as string };
}

async function postWebhook(event: object) {
  const { payload, signature } = await signedWebhook(event);
  const res = await api("POST", "/webhooks/stripe", { rawBody: payload, headers: { "stripe-signature": signature }, env: stripeEnv });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function processed(event: { id: string }) {
  await waitFor(
    async () =>
      (await q("SELECT 1 FROM processed_events WHERE processor = 'orders:stripe-events' AND event_id = ?", `stripe:${event.id}`)).length === 1,
    `Stripe event ${event.id} processed`,
  );
}

const refundMode = (payment: string, mode: string, amount?: number) =>
  fetch(`${fakeOrigin}/__fake/refund-mode`, { method: "POST", body: JSON.stringify({ payment, mode, amount }) });

async function stripeRefundCalls(orderId: string) {
  const all = (await (await fetch(`${fakeOrigin}/__fake/requests`)).json()) as { path: string; idempotencyKey: string; body: any }[];
  return all.filter((r) => r.path === "/v1/refunds" && r.body.metadata?.orderId === orderId);
}

describe("refunds of a test-card payment", () => {
  it("refunds a line with restock, then an amount, then the rest; statuses, activities, stock and one email each", async () => {
    const o = await cardOrder(10, 3);
    expect((await stockOf(o.productId))!.quantity).toBe(7);
    const total = Number(o.order.priceSummary.total.amount);

    const first = await refund(o.orderId, { lineItems: [{ lineItemId: o.lineId, quantity: 1 }], restock: true });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.refund).toMatchObject({
      status: "SUCCEEDED",
      amount: { amount: "10.00" },
      lineItems: [{ lineItemId: o.lineId, quantity: 1 }],
      restockedLineItems: [{ lineItemId: o.lineId, quantity: 1 }],
      provider: "test",
    });
    expect(first.body.order.paymentStatus).toBe("PARTIALLY_REFUNDED");
    expect((await stockOf(o.productId))!.quantity).toBe(8);
    const activity = first.body.order.activities.find((a: any) => a.type === "ORDER_PARTIALLY_REFUNDED");
    expect(activity).toMatchObject({ amount: 1000, lineItems: [{ lineItemId: o.lineId, quantity: 1 }], by: { type: "APP" } });

    const second = await refund(o.orderId, { amount: "2.50" });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.refund).toMatchObject({ amount: { amount: "2.50" }, lineItems: [] });
    expect((await stockOf(o.productId))!.quantity).toBe(8);

    // More than is left, and a line that is not the order's: refused at their fields, nothing written.
    const before = await footprint(o.orderId, o.productId);
    const tooMuch = await refund(o.orderId, { amount: String(total) });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "amount" });
    expect(tooMuch.body.details.validationError.fieldViolations[0].description).toMatch(/left to refund/);
    const notALine = await refund(o.orderId, { lineItems: [{ lineItemId: "not-a-line", quantity: 1 }] });
    expect(notALine.body.details.validationError.fieldViolations[0].field).toBe("lineItems[0].lineItemId");
    const overLine = await refund(o.orderId, { lineItems: [{ lineItemId: o.lineId, quantity: 3 }] });
    expect(overLine.body.details.validationError.fieldViolations[0].description).toMatch(/more than the 2 .* not refunded yet/);
    expect(await footprint(o.orderId, o.productId)).toEqual(before);

    // Everything left: the order is fully refunded and its units not shipped no longer held.
    const rest = await refund(o.orderId, {});
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.order.paymentStatus).toBe("FULLY_REFUNDED");
    const amounts = (await q<{ amount: number }>("SELECT amount FROM order_refunds WHERE order_id = ? AND status = 'SUCCEEDED'", o.orderId)).map(
      (r) => r.amount,
    );
    expect(amounts.reduce((n, a) => n + a, 0)).toBe(Math.round(total * 100));
    const list = await merchant("GET", `/ecom/v1/orders/${o.orderId}/refunds`);
    expect(list.body.refunds).toHaveLength(3);
    expect(list.body.summary).toMatchObject({ refundable: "0.00", paid: total.toFixed(2) });

    const emails = await refundEmails(o.orderId);
    expect(emails).toHaveLength(3);
    expect(emails[0].text).toContain("We refunded 10.00 USD");
    expect(emails[0].text).toContain("1 × ");
    expect(emails[2].subject).toMatch(/was refunded/);

    // A fully refunded order offers nothing more: no refund, no shipping, no marking paid.
    const again = await refund(o.orderId, {});
    expect(code(again)).toBe("ALREADY_REFUNDED");
    const ship = await merchant("POST", `/ecom/v1/orders/${o.orderId}/fulfillments`, {});
    expect(ship.status).toBe(400);
    expect(code(ship)).toBe("PARTIALLY_OR_FULLY_REFUNDED");
    expect(code(await merchant("POST", `/ecom/v1/orders/${o.orderId}/mark-as-paid`, {}))).toBe("PARTIALLY_OR_FULLY_REFUNDED");
  });

  it("restocks each restocking refund's own quantity, once per refund; a refund without restock moves no stock", async () => {
    const o = await cardOrder(10, 4);
    expect((await stockOf(o.productId))!.quantity).toBe(6);
    const one = { lineItems: [{ lineItemId: o.lineId, quantity: 1 }], restock: true };
    const first = await refund(o.orderId, one);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await stockOf(o.productId))!.quantity).toBe(7);
    const second = await refund(o.orderId, one);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.refund.restockedLineItems).toEqual([{ lineItemId: o.lineId, quantity: 1 }]);
    expect((await stockOf(o.productId))!.quantity).toBe(8);

    // The inventory service asked again for the same refund's release (a replay) returns nothing more.
    const line = { productId: o.productId, variantId: DEFAULT_VARIANT_ID, quantity: 1, name: "replay" };
    await releaseStock(merchantCtx(), [line], o.orderId, "replay", `refund:${second.body.refund.id}`);
    expect((await stockOf(o.productId))!.quantity).toBe(8);

    const noRestock = await refund(o.orderId, { lineItems: [{ lineItemId: o.lineId, quantity: 1 }] });
    expect(noRestock.status, JSON.stringify(noRestock.body)).toBe(200);
    expect(noRestock.body.order.paymentStatus).toBe("PARTIALLY_REFUNDED");
    expect((await stockOf(o.productId))!.quantity).toBe(8);
    expect(await q("SELECT restocked_quantity FROM order_line_items WHERE id = ?", o.lineId)).toEqual([{ restocked_quantity: 2 }]);
  });

  it("a full refund of an order not shipped releases its stock once, without the restock tick", async () => {
    const o = await cardOrder(6, 2);
    expect((await stockOf(o.productId))!.quantity).toBe(4);
    const res = await refund(o.orderId, { restock: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.order.paymentStatus).toBe("FULLY_REFUNDED");
    expect((await stockOf(o.productId))!.quantity).toBe(6);
    // Cancelling it afterwards with restock does not put the units back a second time.
    const cancel = await merchant("POST", `/ecom/v1/orders/${o.orderId}/cancel`, { restockAllItems: true });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect((await stockOf(o.productId))!.quantity).toBe(6);
  });

  it("an order recorded as fully refunded outside the store no longer ships, and its stock is released", async () => {
    const p = await trackedProduct(5);
    const { orderId } = await placedOrder(p.id, 2);
    expect((await merchant("POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {})).status).toBe(200);
    expect((await stockOf(p.id))!.quantity).toBe(3);
    const full = await merchant("POST", `/ecom/v1/orders/${orderId}/refund-status`, { status: "FULLY_REFUNDED" });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect((await stockOf(p.id))!.quantity).toBe(5);
    const ship = await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {});
    expect(code(ship)).toBe("PARTIALLY_OR_FULLY_REFUNDED");
  });

  it("a refunded line no longer ships", async () => {
    const o = await cardOrder(6, 2);
    await refund(o.orderId, { lineItems: [{ lineItemId: o.lineId, quantity: 1 }] });
    const tooMany = await merchant("POST", `/ecom/v1/orders/${o.orderId}/fulfillments`, { lineItems: [{ id: o.lineId, quantity: 2 }] });
    expect(tooMany.status).toBe(400);
    const ship = await merchant("POST", `/ecom/v1/orders/${o.orderId}/fulfillments`, {});
    expect(ship.status, JSON.stringify(ship.body)).toBe(200);
    expect(ship.body.order.fulfillmentStatus).toBe("FULFILLED");
    expect(ship.body.order.fulfillments[0].lineItems).toEqual([{ id: o.lineId, quantity: 1 }]);
  });

  it("refuses with the blocking reasons: NOT_PAID, FORBIDDEN; bad input is INVALID_ARGUMENT", async () => {
    const p = await trackedProduct(5);
    const { orderId } = await placedOrder(p.id, 1);
    const before = await footprint(orderId, p.id);
    const unpaid = await refund(orderId, {});
    expect(unpaid.status).toBe(400);
    expect(code(unpaid)).toBe("NOT_PAID");
    expect(unpaid.body.details.applicationError.data.reason).toBe("NOT_PAID");

    const o = await cardOrder(5, 1);
    const viewer = await staffWith([]);
    const forbidden = await refund(o.orderId, {}, { key: viewer.token });
    expect(forbidden.status).toBe(403);
    expect(code(forbidden)).toBe("FORBIDDEN");
    const badAmount = await refund(o.orderId, { amount: "-3" });
    expect(badAmount.status).toBe(400);
    expect(badAmount.body.details.validationError.fieldViolations[0].field).toBe("amount");
    const restockAmount = await refund(o.orderId, { amount: "1.00", restock: true });
    expect(restockAmount.body.details.validationError.fieldViolations[0].field).toBe("restock");
    expect(await footprint(orderId, p.id)).toEqual(before);
    expect((await q("SELECT id FROM order_refunds WHERE order_id = ?", o.orderId)).length).toBe(0);
  });

  it("two refunds at once that together exceed what was paid: exactly one is made", async () => {
    const o = await cardOrder(10, 2);
    const paid = Number(o.order.priceSummary.total.amount);
    const part = (Math.ceil(paid * 60) / 100).toFixed(2);
    const answers = await Promise.all([refund(o.orderId, { amount: part }), refund(o.orderId, { amount: part })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const made = await q<{ amount: number }>("SELECT amount FROM order_refunds WHERE order_id = ? AND status = 'SUCCEEDED'", o.orderId);
    expect(made).toHaveLength(1);
    expect(await q("SELECT id FROM transactions WHERE order_id = ? AND status = 'REFUNDED'", o.orderId)).toHaveLength(1);
    expect(await refundEmails(o.orderId)).toHaveLength(1);
  });
});

describe("refunds of a Stripe payment", () => {
  it("asks Stripe with our refund id as the key; Stripe's charge.refunded for it is not counted twice", async () => {
    const o = await stripeOrder();
    const res = await refund(o.orderId, { lineItems: [{ lineItemId: o.lineId, quantity: 1 }], restock: true }, { env: stripeEnv });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.refund).toMatchObject({ status: "SUCCEEDED", amount: { amount: "12.50" }, provider: "stripe" });
    expect(res.body.refund.providerRefundId).toMatch(/^re_test_/);
    const calls = await stripeRefundCalls(o.orderId);
    expect(calls).toHaveLength(1);
    expect(calls[0].idempotencyKey).toBe(`refund:${res.body.refund.id}`);
    expect(calls[0].body).toMatchObject({ payment_intent: o.pi, amount: "1250", metadata: { refundId: res.body.refund.id } });
    expect((await stockOf(o.productId))!.quantity).toBe(4);

    // Stripe then posts charge.refunded for that very refund: nothing new is recorded.
    const charge = {
      id: fakeId("ch"),
      object: "charge",
      payment_intent: o.pi,
      paid: true,
      amount: o.total,
      amount_refunded: 1250,
      currency: "usd",
      refunds: {
        object: "list",
        data: [
          { id: res.body.refund.providerRefundId, object: "refund", amount: 1250, status: "succeeded", metadata: { refundId: res.body.refund.id } },
        ],
      },
    };
    const event = stripeEvent("charge.refunded", charge);
    await postWebhook(event);
    await processed(event);
    expect(await q("SELECT amount FROM transactions WHERE order_id = ? AND status = 'REFUNDED'", o.orderId)).toEqual([{ amount: 1250 }]);
    expect(await q("SELECT id FROM order_activities WHERE order_id = ? AND type LIKE '%REFUNDED'", o.orderId)).toHaveLength(1);
    expect(await refundEmails(o.orderId)).toHaveLength(1);
    expect((await stockOf(o.productId))!.quantity).toBe(4);

    // A refund made in Stripe's dashboard afterwards (the running total grows) is recorded once.
    const dashboard = stripeEvent("charge.refunded", { ...charge, amount_refunded: 1250 + 300, refunds: undefined });
    await postWebhook(dashboard);
    await postWebhook(dashboard);
    await processed(dashboard);
    expect(
      (await q("SELECT amount FROM transactions WHERE order_id = ? AND status = 'REFUNDED' ORDER BY amount", o.orderId)).map((r) => r.amount),
    ).toEqual([300, 1250]);
  });

  it("Stripe down: PROVIDER_IS_DOWN, nothing recorded or restocked; Stripe refusing: the refund is FAILED", async () => {
    const o = await stripeOrder();
    await refundMode(o.pi, "down");
    const before = await footprint(o.orderId, o.productId);
    const down = await refund(o.orderId, { lineItems: [{ lineItemId: o.lineId, quantity: 2 }], restock: true }, { env: stripeEnv });
    expect(down.status).toBe(502);
    expect(code(down)).toBe("PROVIDER_IS_DOWN");
    expect(await footprint(o.orderId, o.productId)).toEqual(before);

    await refundMode(o.pi, "decline");
    const declined = await refund(o.orderId, { amount: "5.00" }, { env: stripeEnv });
    expect(declined.status).toBe(402);
    expect(code(declined)).toBe("REFUND_DECLINED");
    expect(await q("SELECT status FROM order_refunds WHERE order_id = ?", o.orderId)).toEqual([{ status: "FAILED" }]);
    expect((await q("SELECT payment_status FROM orders WHERE id = ?", o.orderId))[0].payment_status).toBe("PAID");

    // Back up: the refund goes through, and the failed one does not count against what is left.
    await refundMode(o.pi, "succeed");
    const ok = await refund(o.orderId, {}, { env: stripeEnv });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.order.paymentStatus).toBe("FULLY_REFUNDED");
    expect(ok.body.refund.amount.amount).toBe((o.total / 100).toFixed(2));
  });

  it("a refund pending at Stripe blocks the next one (PENDING_REFUND) until Stripe settles it", async () => {
    const o = await stripeOrder();
    await refundMode(o.pi, "pending");
    const pending = await refund(o.orderId, { amount: "3.00" }, { env: stripeEnv });
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body.refund.status).toBe("PENDING");
    expect(pending.body.order.paymentStatus).toBe("PAID");
    const blocked = await refund(o.orderId, { amount: "1.00" }, { env: stripeEnv });
    expect(blocked.status).toBe(400);
    expect(code(blocked)).toBe("PENDING_REFUND");

    const settled = stripeEvent("refund.updated", {
      id: pending.body.refund.providerRefundId,
      object: "refund",
      amount: 300,
      currency: "usd",
      payment_intent: o.pi,
      status: "succeeded",
      metadata: { orderId: o.orderId, refundId: pending.body.refund.id },
    });
    await postWebhook(settled);
    await processed(settled);
    const list = await merchant("GET", `/ecom/v1/orders/${o.orderId}/refunds`);
    expect(list.body.refunds.map((r: any) => r.status)).toEqual(["SUCCEEDED"]);
    expect((await q("SELECT payment_status FROM orders WHERE id = ?", o.orderId))[0].payment_status).toBe("PARTIALLY_REFUNDED");
    expect(await refundEmails(o.orderId)).toHaveLength(1);
  });

  it("two Stripe refunds at once that together exceed the payment: one goes to Stripe, the other is refused", async () => {
    const o = await stripeOrder();
    const part = ((Math.ceil(o.total * 0.6) + 1) / 100).toFixed(2);
    const answers = await Promise.all([
      refund(o.orderId, { amount: part }, { env: stripeEnv }),
      refund(o.orderId, { amount: part }, { env: stripeEnv }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(await stripeRefundCalls(o.orderId)).toHaveLength(1);
    expect(await q("SELECT status FROM order_refunds WHERE order_id = ?", o.orderId)).toEqual([{ status: "SUCCEEDED" }]);
  });
});

describe("refunds left STARTED (the Worker stopped before Stripe's answer was recorded)", () => {
  const HOUR = 3_600_000;
  const sweep = async () => (await runSweeps(stripeEnv)).automations.startedRefundsSettled;

  /** A refund of 1 unit (restocked) reserved `ageMs` ago and never finished, as a crash leaves it. */
  async function stuckRefund(o: { orderId: string; lineId: string }, ageMs: number) {
    const id = crypto.randomUUID();
    const at = new Date(Date.now() - ageMs).toISOString();
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO order_refunds (id, order_id, amount, currency, status, line_items, restock, provider, actor_type, actor_id, created_date, updated_date)
         SELECT ?, id, 1250, currency, 'STARTED', ?, 1, 'stripe', 'APP', NULL, ?, ? FROM orders WHERE id = ?`,
      ).bind(id, JSON.stringify([{ lineItemId: o.lineId, quantity: 1 }]), at, at, o.orderId),
      env.DB.prepare("UPDATE order_line_items SET refunded_quantity = refunded_quantity + 1 WHERE id = ?").bind(o.lineId),
    ]);
    return id;
  }

  /** Stripe making our refund itself (the call that reached Stripe before the Worker stopped). */
  async function madeAtStripe(o: { orderId: string; pi: string }, refundId: string): Promise<string> {
    const body = new URLSearchParams({ payment_intent: o.pi, amount: "1250", "metadata[orderId]": o.orderId, "metadata[refundId]": refundId });
    const res = await fetch(`${fakeOrigin}/v1/refunds`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${FAKE_SECRET_KEY}`,
        "idempotency-key": `refund:${refundId}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });
    return ((await res.json()) as { id: string }).id;
  }

  const refundRow = async (id: string) =>
    (await q("SELECT status, provider_refund_id, failure_reason FROM order_refunds WHERE id = ?", id))[0] as Record<string, any>;
  const refundedUnits = async (lineId: string) =>
    (await q("SELECT refunded_quantity FROM order_line_items WHERE id = ?", lineId))[0].refunded_quantity;

  it("are made at Stripe under their own key once Stripe answers; Stripe down leaves them for the next sweep", async () => {
    const o = await stripeOrder();
    const id = await stuckRefund(o, 10 * 60_000);
    const young = await stuckRefund(await stripeOrder(), 60_000);
    await refundMode(o.pi, "down");
    await sweep();
    expect(await refundRow(id)).toMatchObject({ status: "STARTED" });
    expect((await stockOf(o.productId))!.quantity).toBe(3);

    await refundMode(o.pi, "succeed");
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await refundRow(id)).toMatchObject({ status: "SUCCEEDED", provider_refund_id: expect.stringMatching(/^re_/) });
    expect((await q("SELECT payment_status FROM orders WHERE id = ?", o.orderId))[0].payment_status).toBe("PARTIALLY_REFUNDED");
    expect((await stockOf(o.productId))!.quantity).toBe(4);
    expect(await refundEmails(o.orderId)).toHaveLength(1);
    const calls = (await stripeRefundCalls(o.orderId)).filter((c) => c.idempotencyKey === `refund:${id}`);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(await refundRow(young)).toMatchObject({ status: "STARTED" });

    // Again: nothing more is recorded, restocked or sent.
    await sweep();
    expect((await stockOf(o.productId))!.quantity).toBe(4);
    expect(await q("SELECT id FROM transactions WHERE order_id = ? AND status = 'REFUNDED'", o.orderId)).toHaveLength(1);
    expect(await refundEmails(o.orderId)).toHaveLength(1);
  });

  it("are read through their partial index", async () => {
    const db = openDb(env.DB);
    expect(await queryPlan(unsettledRefundsRead(db, "STARTED", new Date().toISOString()))).toMatch(/USING INDEX order_refunds_started_idx/);
    expect(await queryPlan(unsettledRefundsRead(db, "PENDING", new Date().toISOString()))).toMatch(/USING INDEX order_refunds_pending_idx/);
  });

  it("left PENDING for an hour (the webhook lost): Stripe's current status is applied, once", async () => {
    const o = await stripeOrder();
    await refundMode(o.pi, "pending");
    const pending = await refund(o.orderId, { amount: "3.00" }, { env: stripeEnv });
    expect(pending.body.refund.status).toBe("PENDING");
    await sweep();
    expect(await refundRow(pending.body.refund.id)).toMatchObject({ status: "PENDING" });
    await env.DB.prepare("UPDATE order_refunds SET updated_date = ? WHERE id = ?")
      .bind(new Date(Date.now() - 2 * HOUR).toISOString(), pending.body.refund.id)
      .run();
    await sweep();
    expect(await refundRow(pending.body.refund.id)).toMatchObject({ status: "PENDING" });
    await fetch(`${fakeOrigin}/__fake/refunds/${pending.body.refund.providerRefundId}/status`, { method: "POST", body: "succeeded" });
    await sweep();
    await sweep();
    expect(await refundRow(pending.body.refund.id)).toMatchObject({ status: "SUCCEEDED" });
    expect((await q("SELECT payment_status FROM orders WHERE id = ?", o.orderId))[0].payment_status).toBe("PARTIALLY_REFUNDED");
    expect(await refundEmails(o.orderId)).toHaveLength(1);
  });

  it("made at Stripe before the stop: the key's replay records Stripe's refund, not a second one", async () => {
    const o = await stripeOrder();
    const id = await stuckRefund(o, 10 * 60_000);
    const made = await madeAtStripe(o, id);
    await sweep();
    expect(await refundRow(id)).toMatchObject({ status: "SUCCEEDED", provider_refund_id: made });
    const listed = (await (
      await fetch(`${fakeOrigin}/v1/refunds?payment_intent=${o.pi}`, { headers: { authorization: `Bearer ${FAKE_SECRET_KEY}` } })
    ).json()) as { data: unknown[] };
    expect(listed.data).toHaveLength(1);
  });

  it("past Stripe's key window: looked up by our id in the payment's refunds; not there, or refused, it is released", async () => {
    const o = await stripeOrder();
    const made = await stuckRefund(o, 25 * HOUR);
    const madeId = await madeAtStripe(o, made);
    const other = await stripeOrder();
    const never = await stuckRefund(other, 25 * HOUR);
    const declinedOrder = await stripeOrder();
    const declined = await stuckRefund(declinedOrder, 10 * 60_000);
    await refundMode(declinedOrder.pi, "decline");
    await sweep();

    expect(await refundRow(made)).toMatchObject({ status: "SUCCEEDED", provider_refund_id: madeId });
    expect((await stripeRefundCalls(o.orderId)).filter((c) => c.idempotencyKey === `refund:${made}`)).toHaveLength(1);
    expect(await refundRow(never)).toMatchObject({ status: "FAILED", failure_reason: "Stripe never received the refund" });
    expect(await stripeRefundCalls(other.orderId)).toHaveLength(0);
    expect(await refundedUnits(other.lineId)).toBe(0);
    expect((await q("SELECT payment_status FROM orders WHERE id = ?", other.orderId))[0].payment_status).toBe("PAID");
    expect(await refundRow(declined)).toMatchObject({ status: "FAILED" });
    expect(await refundedUnits(declinedOrder.lineId)).toBe(0);
    expect((await stockOf(declinedOrder.productId))!.quantity).toBe(3);
  });
});
