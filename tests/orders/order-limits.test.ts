import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SHOPPER_LIMITS } from "#worker/cart/limits";
import { api, merchant } from "../helpers";
import { cartCalls, item, newVisitor } from "../cart/cart-fixtures";
import { stockOf, trackedProduct } from "./inventory-fixtures";
import { fillCheckout, orderSnapshot, placeOrder, visitorCheckout } from "./order-fixtures";

/**
 * A shopper's checkouts and orders are rate-limited per buyer and per client address (orders/limits.ts): one visitor
 * token can no longer take a store's stock with unpaid offline orders, each emailing an address it chose. Merchants
 * are not limited. A refused call answers 429 in the error shape and writes nothing.
 */

const IP = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
const withIp = (ip: string) => ({ headers: { "cf-connecting-ip": ip } });

/** Fills a limit's window to its maximum, as that many earlier calls in this window would have. */
async function saturate(key: string, max: number) {
  await env.DB.prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, ?)")
    .bind(key, Math.floor(Date.now() / 1000), max)
    .run();
}

const emailsTo = async (to: string) => (await env.DB.prepare('SELECT count(*) AS n FROM emails WHERE "to" = ?').bind(to).first<{ n: number }>())!.n;

function expect429(res: { status: number; body: any; headers: Headers }) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body.details.applicationError.code).toBe("TOO_MANY_REQUESTS");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("shopper order limits", () => {
  it("one visitor token places at most 10 orders an hour; the 11th is 429, reserves nothing and emails nobody", async () => {
    const p = await trackedProduct(100, { priceData: { price: 5 } });
    const v = await newVisitor();
    const cart = cartCalls(v.token);
    const to = `hoarder-${crypto.randomUUID()}@example.com`;
    for (let i = 0; i < SHOPPER_LIMITS.orders.perBuyer; i++) {
      expect((await cart.add({ lineItems: [item(p.id, 5)] })).status).toBe(200);
      const co = await cart.checkout();
      expect(co.status, JSON.stringify(co.body)).toBe(200);
      await fillCheckout(v.token, co.body.checkoutId, to);
      const placed = await placeOrder(v.token, co.body.checkoutId);
      expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    }
    expect(await stockOf(p.id)).toMatchObject({ quantity: 50 });
    expect(await emailsTo(to)).toBe(10);

    const added = await cart.add({ lineItems: [item(p.id, 5)] });
    const co = await cart.checkout();
    await fillCheckout(v.token, co.body.checkoutId, to);
    const before = await orderSnapshot(co.body.checkoutId, added.body.cart.id, p.id);
    const refused = await placeOrder(v.token, co.body.checkoutId);
    expect429(refused);
    expect(refused.body.details.applicationError.description).toMatch(/orders from this shopper/);
    expect(await orderSnapshot(co.body.checkoutId, added.body.cart.id, p.id)).toEqual(before);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 50 });
    expect(await emailsTo(to)).toBe(10);

    // The store's owner is not limited: the same checkout placed with the owner's key goes through.
    const byOwner = await merchant("POST", `/ecom/v1/checkouts/${co.body.checkoutId}/create-order`, {});
    expect(byOwner.status, JSON.stringify(byOwner.body)).toBe(200);
  });

  it("limits orders per client address across visitor tokens", async () => {
    const ip = IP();
    await saturate(`orders:ip:${ip}`, SHOPPER_LIMITS.orders.perAddress);
    const p = await trackedProduct(10);
    const v = await visitorCheckout(p.id, 2);
    await fillCheckout(v.token, v.checkoutId);
    const before = await orderSnapshot(v.checkoutId, v.cartId, p.id);
    const refused = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, { key: v.token, body: {}, ...withIp(ip) });
    expect429(refused);
    expect(refused.body.details.applicationError.description).toMatch(/from this address/);
    expect(await orderSnapshot(v.checkoutId, v.cartId, p.id)).toEqual(before);
    // Another address is not affected.
    const ok = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, { key: v.token, body: {}, ...withIp(IP()) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  it("never charges a card for an order over the limit", async () => {
    const p = await trackedProduct(10, { priceData: { price: 30 } });
    const v = await visitorCheckout(p.id, 1);
    await fillCheckout(v.token, v.checkoutId);
    await saturate(`orders:visitor:${v.visitorId}`, SHOPPER_LIMITS.orders.perBuyer);
    const before = await orderSnapshot(v.checkoutId, v.cartId, p.id);
    const refused = await placeOrder(v.token, v.checkoutId, {
      paymentOption: { card: { number: "4242 4242 4242 4242", expiry: "12/39", cvc: "123" } },
    });
    expect429(refused);
    expect(await orderSnapshot(v.checkoutId, v.cartId, p.id)).toEqual(before);
  });

  it("a window that ended counts afresh", async () => {
    const p = await trackedProduct(10);
    const v = await visitorCheckout(p.id, 1);
    await fillCheckout(v.token, v.checkoutId);
    const hourAgo = Math.floor(Date.now() / 1000) - SHOPPER_LIMITS.orders.windowSeconds - 1;
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, ?)")
      .bind(`orders:visitor:${v.visitorId}`, hourAgo, 99)
      .run();
    const placed = await placeOrder(v.token, v.checkoutId);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const counter = await env.DB.prepare("SELECT count FROM rate_limits WHERE key = ?")
      .bind(`orders:visitor:${v.visitorId}`)
      .first<{ count: number }>();
    expect(counter!.count).toBe(1);
  });

  it("limits create-checkout per visitor and per address (429, nothing written); merchants' carts are not limited", async () => {
    const p = await trackedProduct(10);
    const v = await newVisitor();
    const cart = cartCalls(v.token);
    const added = await cart.add({ lineItems: [item(p.id, 1)] });
    expect(added.status).toBe(200);
    await saturate(`checkouts:visitor:${v.visitorId}`, SHOPPER_LIMITS.checkouts.perBuyer);
    const refused = await cart.checkout();
    expect429(refused);
    const row = await env.DB.prepare("SELECT checkout_id AS checkoutId FROM carts WHERE id = ?")
      .bind(added.body.cart.id)
      .first<{ checkoutId: string | null }>();
    expect(row!.checkoutId).toBeNull();
    expect((await env.DB.prepare("SELECT count(*) AS n FROM checkouts WHERE cart_id = ?").bind(added.body.cart.id).first<{ n: number }>())!.n).toBe(
      0,
    );

    const ip = IP();
    const w = await newVisitor();
    expect((await cartCalls(w.token).add({ lineItems: [item(p.id, 1)] })).status).toBe(200);
    await saturate(`checkouts:ip:${ip}`, SHOPPER_LIMITS.checkouts.perAddress);
    expect429(await api("POST", "/v1/carts/current/create-checkout", { key: w.token, body: {}, ...withIp(ip) }));
    expect((await api("POST", "/v1/carts/current/create-checkout", { key: w.token, body: {}, ...withIp(IP()) })).status).toBe(200);
  });
});
