import { describe, expect, it } from "vitest";
import { stockOf } from "../orders/inventory-fixtures";
import { fakeId, intentSucceeded, sessionCompleted, sessionExpired } from "./stripe-events";
import { activities, confirmations, deliverThriceShuffled, onlineOrder, orderRow, processed, q, stockMoves } from "./stripe-fixtures";

/**
 * A storm of Stripe webhooks: many orders' events, each delivered three times, shuffled and posted at once, as Stripe
 * does when it retries. Every paid order ends paid once (one transaction, one activity, one confirmation email) with
 * its stock taken once; every abandoned one ends cancelled once with its stock given back once.
 */

const PAID = 12;
const EXPIRED = 10;

describe("a storm of Stripe webhooks", () => {
  it("leaves every order with one payment, one confirmation, and its stock moved once", async () => {
    const paid = await Promise.all(Array.from({ length: PAID }, () => onlineOrder()));
    const abandoned = await Promise.all(Array.from({ length: EXPIRED }, () => onlineOrder()));
    const events = [
      ...paid.flatMap((o) => {
        const pi = fakeId("pi");
        return [sessionCompleted(o, pi), intentSucceeded(o, pi)];
      }),
      ...abandoned.map((o) => sessionExpired(o)),
    ];
    const answers = await deliverThriceShuffled(events);
    expect(answers.length).toBeGreaterThanOrEqual(100);
    expect(answers.filter((a) => a.body.status === "RECORDED")).toHaveLength(events.length);
    expect(answers.filter((a) => a.body.status === "DUPLICATE")).toHaveLength(events.length * 2);
    await processed(events, 60_000);

    for (const o of paid) {
      expect(await orderRow(o.orderId), o.orderId).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
      expect(await q("SELECT amount FROM transactions WHERE order_id = ? AND provider = 'stripe' AND status = 'APPROVED'", o.orderId)).toEqual([
        { amount: o.total },
      ]);
      expect(await activities(o.orderId, "ORDER_PAID")).toHaveLength(1);
      expect(await confirmations(o.orderId)).toHaveLength(1);
      expect(await stockMoves(o.orderId)).toEqual({ reserved: 1, released: 0 });
      expect((await stockOf(o.productId))!.quantity).toBe(3);
    }
    for (const o of abandoned) {
      expect(await orderRow(o.orderId), o.orderId).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
      expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(1);
      expect(await confirmations(o.orderId)).toHaveLength(0);
      expect(await stockMoves(o.orderId)).toEqual({ reserved: 1, released: 1 });
      expect((await stockOf(o.productId))!.quantity).toBe(5);
    }
    expect(
      await q("SELECT count(*) AS n FROM payment_events WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(events.map((e) => e.id))),
    ).toEqual([{ n: events.length }]);
    const failures = await q(
      "SELECT id, error FROM event_failures WHERE id IN (SELECT 'stripe:' || value FROM json_each(?))",
      JSON.stringify(events.map((e) => e.id)),
    );
    expect(failures).toEqual([]);
  });
});
