import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dashboardReport } from "#worker/reports";
import { merchant, serviceCtx } from "../helpers";
import { trackedProduct } from "./inventory-fixtures";
import { placedOrder } from "./order-fixtures";

/** The dashboard's gross, refunds and net: money given back is not counted as a sale. */

const report = () => dashboardReport(serviceCtx().ctx);

async function paidOrder(price: number) {
  const p = await trackedProduct(5, { priceData: { price } });
  const { orderId } = await placedOrder(p.id);
  const paid = await merchant("POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {});
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return { orderId, total: paid.body.order.transactions[0].amount as number };
}

describe("dashboard sales after refunds", () => {
  it("shows gross, refunds and net for today, the 30 days and each day; a full and a partial refund are taken off", async () => {
    const before = await report();
    const kept = await paidOrder(30);
    const refunded = await paidOrder(50);
    const part = await paidOrder(8.9);

    // A full refund recorded by hand counts the order's whole total.
    const full = await merchant("POST", `/ecom/v1/orders/${refunded.orderId}/refund-status`, { status: "FULLY_REFUNDED" });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    // A card refund records its amount on the order's activity (as a Stripe refund does).
    await env.DB.prepare(
      "INSERT INTO order_activities (id, order_id, type, details, actor_type, created_date) VALUES (?, ?, 'ORDER_PARTIALLY_REFUNDED', json(?), 'APP', ?)",
    )
      .bind(crypto.randomUUID(), part.orderId, JSON.stringify({ amount: 395, totalRefunded: 395, provider: "stripe" }), new Date().toISOString())
      .run();

    const after = await report();
    const gross = kept.total + refunded.total + part.total;
    const refunds = refunded.total + 395;
    const delta = (a: { minor: number }, b: { minor: number }) => a.minor - b.minor;
    expect(delta(after.today.gross, before.today.gross)).toBe(gross);
    expect(delta(after.today.refunds, before.today.refunds)).toBe(refunds);
    expect(delta(after.today.sales, before.today.sales)).toBe(gross - refunds);
    expect(after.today.orders - before.today.orders).toBe(3);
    expect(delta(after.last30Days.sales, before.last30Days.sales)).toBe(gross - refunds);
    expect(delta(after.last30Days.refunds, before.last30Days.refunds)).toBe(refunds);
    const day = after.salesByDay.at(-1)!;
    expect(day).toMatchObject({
      date: after.today.date,
      gross: after.today.gross.minor,
      refunds: after.today.refunds.minor,
      sales: after.today.sales.minor,
    });
    expect(day.formatted).toBe(after.today.sales.formatted);
    expect(after.today.refunds.formatted).toMatch(/^\$/);

    // Marking the refunded order fully refunded again is refused and counts nothing twice.
    expect((await merchant("POST", `/ecom/v1/orders/${refunded.orderId}/refund-status`, { status: "FULLY_REFUNDED" })).status).toBe(400);
    expect((await report()).today.refunds.minor).toBe(after.today.refunds.minor);
  });

  it("counts a full refund after a partial one as what was left of the order", async () => {
    const before = await report();
    const o = await paidOrder(20);
    await env.DB.prepare(
      "INSERT INTO order_activities (id, order_id, type, details, actor_type, created_date) VALUES (?, ?, 'ORDER_PARTIALLY_REFUNDED', json(?), 'APP', ?)",
    )
      .bind(crypto.randomUUID(), o.orderId, JSON.stringify({ amount: 500, totalRefunded: 500, provider: "stripe" }), new Date().toISOString())
      .run();
    await env.DB.prepare("UPDATE orders SET payment_status = 'PARTIALLY_REFUNDED' WHERE id = ?").bind(o.orderId).run();
    expect((await merchant("POST", `/ecom/v1/orders/${o.orderId}/refund-status`, { status: "FULLY_REFUNDED" })).status).toBe(200);
    const after = await report();
    expect(after.today.refunds.minor - before.today.refunds.minor).toBe(o.total);
    expect(after.today.sales.minor - before.today.sales.minor).toBe(0);
  });
});
