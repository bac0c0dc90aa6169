import { env } from "cloudflare:test";
import { expect, inject } from "vitest";
import { api } from "../helpers";
import { waitFor } from "../wait";
import { fillCheckout, visitorCheckout } from "../orders/order-fixtures";
import { trackedProduct } from "../orders/inventory-fixtures";
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, signedWebhook } from "./stripe-events";

/**
 * Shared steps of the Stripe suites (workerd): the bindings with Stripe connected to the local fake, an order placed
 * for ONLINE payment, Stripe's events about it, and their delivery as Stripe makes it (signed, repeated, out of order).
 */

export const fakeOrigin = inject("stripeFakeOrigin");
/** The test bindings with Stripe connected (one object: the configuration is parsed once per env). */
export const stripeEnv = {
  ...env,
  STRIPE_SECRET_KEY: FAKE_SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET,
  STRIPE_API_BASE: fakeOrigin,
} as Env;

/** Rows of a D1 query. */
export const q = <T = Record<string, any>>(s: string, ...b: unknown[]) =>
  env.DB.prepare(s)
    .bind(...b)
    .all<T>()
    .then((r) => r.results);

/** The API requests the fake received. */
export async function fakeRequests(): Promise<{ method: string; path: string; idempotencyKey: string | null; body: Record<string, any> }[]> {
  return (await fetch(`${fakeOrigin}/__fake/requests`)).json();
}

/** A visitor's checkout for `quantity` of a tracked product with `stock`, with the buyer's details filled in. */
export async function filledCheckout(stock = 5, quantity = 1, product: Record<string, unknown> = {}) {
  const p = await trackedProduct(stock, product);
  const v = await visitorCheckout(p.id, quantity);
  await fillCheckout(v.token, v.checkoutId);
  return { ...v, productId: p.id as string };
}

/** Places a checkout's order with `paymentOption` under `bindings` (Stripe connected unless told). */
export const createOrder = (v: { token: string; checkoutId: string }, paymentOption: unknown, bindings: Env = stripeEnv) =>
  api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, { key: v.token, body: { paymentOption }, env: bindings });

/** A visitor's order placed for ONLINE payment (2 of a tracked product with 5), and its hosted page. */
export async function onlineOrder() {
  const v = await filledCheckout(5, 2, { priceData: { price: 12.5 } });
  const res = await createOrder(v, "ONLINE");
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const orderId = res.body.orderId as string;
  const sessionId = String(res.body.paymentRedirectUrl).split("/pay/")[1];
  const { total } = await orderRow(orderId);
  return { ...v, orderId, sessionId, total: total as number, url: res.body.paymentRedirectUrl as string };
}

/** Posts a body to the shop's Stripe webhook with this Stripe-Signature (none: unsigned). */
export const postRaw = (body: string, signature?: string) =>
  api("POST", "/webhooks/stripe", { rawBody: body, headers: signature ? { "stripe-signature": signature } : {}, env: stripeEnv });

/** Posts one Stripe event to the shop's webhook, signed (or mis-signed) as told. */
export const post = async (event: object, opts: { secret?: string; timestamp?: number } = {}) => {
  const { payload, signature } = await signedWebhook(event, opts);
  return postRaw(payload, signature);
};

/** Waits until the orders' processor has recorded each of these Stripe events as processed. */
export async function processed(events: { id: string }[], ms?: number) {
  const ids = events.map((e) => `stripe:${e.id}`);
  await waitFor(
    async () => {
      const rows = await q(
        `SELECT count(*) AS n FROM processed_events WHERE processor = 'orders:stripe-events' AND event_id IN (SELECT value FROM json_each(?))`,
        JSON.stringify(ids),
      );
      return Number(rows[0].n) === ids.length;
    },
    `${ids.length} Stripe events processed`,
    ms,
  );
}

/** Each event 3 times, shuffled, posted concurrently; every delivery must be acknowledged with 200. */
export async function deliverThriceShuffled(events: object[]) {
  const copies = [...events, ...events, ...events].map((e) => ({ e, k: Math.random() })).sort((a, b) => a.k - b.k);
  const answers = await Promise.all(copies.map((c) => post(c.e)));
  for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
  return answers;
}

export const orderRow = async (id: string) => (await q("SELECT status, payment_status, total, currency FROM orders WHERE id = ?", id))[0];
export const activities = (id: string, type: string) => q("SELECT details FROM order_activities WHERE order_id = ? AND type = ?", id, type);
export const confirmations = (orderId: string) => q("SELECT id FROM emails WHERE idempotency_key = ?", `order-confirmation:${orderId}`);

/** How many times the order took its stock (ORDER) and gave it back (REVERT_INVENTORY_CHANGE). */
export async function stockMoves(orderId: string): Promise<{ reserved: number; released: number }> {
  const rows = await q<{ cause: string; n: number }>("SELECT cause, count(*) AS n FROM inventory_changes WHERE order_id = ? GROUP BY cause", orderId);
  const n = (cause: string) => Number(rows.find((r) => r.cause === cause)?.n ?? 0);
  return { reserved: n("ORDER"), released: n("REVERT_INVENTORY_CHANGE") };
}
