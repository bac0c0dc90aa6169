import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api } from "../helpers";
import { roundTrips } from "../cart/cart-fixtures";
import { trackedProduct } from "./inventory-fixtures";
import { fillCheckout, placeOrder, visitorCheckout } from "./order-fixtures";

/**
 * D1 round trips of the checkout calls (Server-Timing), which on Cloudflare cost 5–50 ms each: a checkout read is
 * one batch (row, catalogue, pricing rules, order), an update one more, and placing the order one more (the order's
 * batch, with the stock reservation and the confirmation email). The access token costs none (KV).
 */
describe("checkout round trips", () => {
  it("create-order: one read and one batch; the confirmation email carries the number the batch assigned", async () => {
    const p = await trackedProduct(5, { priceData: { price: 20 } });
    const v = await visitorCheckout(p.id, 2);
    await fillCheckout(v.token, v.checkoutId, "trips@example.com");

    const read = await api("GET", `/ecom/v1/checkouts/${v.checkoutId}`, { key: v.token });
    expect(read.status).toBe(200);
    expect(roundTrips(read.headers)).toBe(1);

    const patched = await api("PATCH", `/ecom/v1/checkouts/${v.checkoutId}`, {
      key: v.token,
      body: { checkout: { buyerNote: "Leave at the door" } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(roundTrips(patched.headers)).toBe(2);

    const placed = await placeOrder(v.token, v.checkoutId);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    // Was 5. Now the read and the order's batch (with the email row), plus the stock events' outbox read, which the
    // flush makes in the background (waitUntil): the response does not wait for it.
    // (The flush's mark-as-sent may start before the header is set too.)
    expect(roundTrips(placed.headers)).toBeGreaterThanOrEqual(3);
    expect(roundTrips(placed.headers)).toBeLessThanOrEqual(4);

    const order = await env.DB.prepare("SELECT number FROM orders WHERE id = ?").bind(placed.body.orderId).first<{ number: number }>();
    const mails = await env.DB.prepare(
      "SELECT subject, text, html, idempotency_key AS key FROM emails WHERE \"to\" = 'trips@example.com' AND template = 'order-confirmation'",
    ).all<any>();
    expect(mails.results).toHaveLength(1);
    expect(mails.results[0].subject).toContain(`#${order!.number}`);
    expect(mails.results[0].text).toContain(`order #${order!.number}.`);
    expect(mails.results[0].html).toContain(`#${order!.number}`);
    expect(mails.results[0].text).not.toMatch(/ORDERNUMBER/);
    expect(mails.results[0].key).toBe(`order-confirmation:${placed.body.orderId}`);

    // A repeat answers the same order from the read alone.
    const again = await placeOrder(v.token, v.checkoutId);
    expect(again.body.orderId).toBe(placed.body.orderId);
    expect(roundTrips(again.headers)).toBe(1);
  });
});
