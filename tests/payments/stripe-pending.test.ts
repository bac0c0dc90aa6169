import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSweeps } from "#worker/app/sweeps";
import { pendingOnlineOrdersRead } from "#worker/orders/hosted-payment";
import { openDb } from "#worker/platform/db";
import { queryPlan } from "../helpers";
import { stockOf } from "../orders/inventory-fixtures";
import { fakeId, intentSucceeded, sessionCompleted, sessionExpired } from "./stripe-events";
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
  processed,
  q,
  stockMoves,
  stripeEnv,
} from "./stripe-fixtures";

/**
 * Online orders left pending: the hosted page was never made (Stripe down after the order was written) or its
 * session expired and Stripe's expired event never came. The sweep, judged by an injected clock, releases them once
 * the session can take no payment, and only then.
 */

const MINUTE = 60_000;
/** The sweeps as they run `minutes` from now. */
const sweepAt = (minutes: number) => runSweeps(env, { now: new Date(Date.now() + minutes * MINUTE) });
/** The same with Stripe connected to the fake. */
const stripeSweepAt = (minutes: number) => runSweeps(stripeEnv, { now: new Date(Date.now() + minutes * MINUTE) });
/** Tells the fake to complete a session, or to drop (down) or answer (up) calls about it. */
const fakeSession = (id: string, what: "complete" | "down" | "up") => fetch(`${fakeOrigin}/__fake/sessions/${id}/${what}`, { method: "POST" });

describe("online orders left pending", () => {
  it("ask Stripe for a hosted page that expires 31 minutes after the order", async () => {
    const o = await onlineOrder();
    const [{ created_date }] = await q<{ created_date: string }>("SELECT created_date FROM orders WHERE id = ?", o.orderId);
    const [call] = (await fakeRequests()).filter((r) => r.body.client_reference_id === o.orderId);
    expect(Number(call.body.expires_at)).toBe(Math.floor(Date.parse(created_date) / 1000) + 31 * 60);
  });

  it("are released after 45 minutes when Stripe never made the session, once", async () => {
    const v = await filledCheckout(5, 2);
    const down = { ...stripeEnv, STRIPE_API_BASE: "http://127.0.0.1:9" } as Env;
    const res = await createOrder(v, "ONLINE", down);
    expect(res.status).toBe(502);
    expect(res.body.details.applicationError.code).toBe("PROVIDER_IS_DOWN");
    const [{ id }] = await q<{ id: string }>("SELECT id FROM orders WHERE checkout_id = ?", v.checkoutId);
    expect(await orderRow(id)).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect((await stockOf(v.productId))!.quantity).toBe(3);

    await sweepAt(44);
    expect(await orderRow(id)).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect((await stockOf(v.productId))!.quantity).toBe(3);

    expect((await sweepAt(46)).pendingOnlineReleased).toBeGreaterThanOrEqual(1);
    expect(await orderRow(id)).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
    expect((await stockOf(v.productId))!.quantity).toBe(5);
    const canceled = await activities(id, "ORDER_CANCELED");
    expect(canceled.map((a) => JSON.parse(a.details))).toEqual([{ reason: "PAYMENT_NOT_COMPLETED", heldMinutes: 45, restockAllItems: true }]);

    // Again, and the buyer's retry once Stripe is back: nothing more is released, and no page is made for it.
    await sweepAt(90);
    const retry = await createOrder(v, "ONLINE");
    expect(retry.body).toEqual({ orderId: id });
    expect(await stockMoves(id)).toEqual({ reserved: 1, released: 1 });
    expect((await stockOf(v.productId))!.quantity).toBe(5);
    expect(await activities(id, "ORDER_CANCELED")).toHaveLength(1);
  });

  it("are released when the session expired without its event; the late event changes nothing, a late payment is a task", async () => {
    const o = await onlineOrder();
    const paid = await onlineOrder();
    const pi = fakeId("pi");
    const paidEvents = [sessionCompleted(paid, pi), intentSucceeded(paid, pi)];
    await deliverThriceShuffled(paidEvents);
    await processed(paidEvents);

    await sweepAt(46);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
    expect((await stockOf(o.productId))!.quantity).toBe(5);
    expect(await orderRow(paid.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    expect(await stockMoves(paid.orderId)).toEqual({ reserved: 1, released: 0 });

    const late = [sessionExpired(o), sessionCompleted(o, fakeId("pi"))];
    await deliverThriceShuffled(late);
    await processed(late);
    expect(await orderRow(o.orderId)).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
    expect(await stockMoves(o.orderId)).toEqual({ reserved: 1, released: 1 });
    expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(1);
    expect(await q("SELECT kind FROM tasks WHERE entity_id = ?", o.orderId)).toEqual([{ kind: "PAYMENT_NEEDS_REVIEW" }]);
  });

  it("ask Stripe first: a paid session marks the order paid once, an open one is expired then released, Stripe down waits", async () => {
    const open = await onlineOrder();
    const paid = await onlineOrder();
    const down = await onlineOrder();
    expect(await q("SELECT checkout_session_id AS s FROM orders WHERE id = ?", open.orderId)).toEqual([{ s: open.sessionId }]);
    await fakeSession(paid.sessionId, "complete");
    await fakeSession(down.sessionId, "down");
    const expireCalls = async (o: { sessionId: string }) =>
      (await fakeRequests()).filter((r) => r.method === "POST" && r.path === `/v1/checkout/sessions/${o.sessionId}/expire`);

    await stripeSweepAt(44);
    for (const o of [open, paid, down]) expect(await orderRow(o.orderId)).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect(await expireCalls(open)).toHaveLength(0);

    await stripeSweepAt(46);
    expect(await orderRow(open.orderId)).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
    expect((await stockOf(open.productId))!.quantity).toBe(5);
    const [expire] = await expireCalls(open);
    expect(expire.idempotencyKey).toBe(`expire-session:${open.sessionId}`);
    expect(await orderRow(paid.orderId)).toMatchObject({ status: "APPROVED", payment_status: "PAID" });
    expect(await confirmations(paid.orderId)).toHaveLength(1);
    expect(await stockMoves(paid.orderId)).toEqual({ reserved: 1, released: 0 });
    expect(await orderRow(down.orderId)).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
    expect((await stockOf(down.productId))!.quantity).toBe(3);

    // Stripe answers again: the next sweep expires and releases the order it could not ask about; later sweeps and
    // the paid session's late webhook change nothing more.
    await fakeSession(down.sessionId, "up");
    await stripeSweepAt(47);
    expect(await orderRow(down.orderId)).toMatchObject({ status: "CANCELED", payment_status: "NOT_PAID" });
    expect((await stockOf(down.productId))!.quantity).toBe(5);
    await stripeSweepAt(90);
    const late = [sessionCompleted(paid, fakeId("pi"))];
    await deliverThriceShuffled(late);
    await processed(late);
    expect(await confirmations(paid.orderId)).toHaveLength(1);
    expect(await q("SELECT id FROM transactions WHERE order_id = ?", paid.orderId)).toHaveLength(1);
    for (const o of [open, down]) {
      expect(await stockMoves(o.orderId)).toEqual({ reserved: 1, released: 1 });
      expect(await activities(o.orderId, "ORDER_CANCELED")).toHaveLength(1);
    }
  });

  it("are read through their partial index", async () => {
    const plan = await queryPlan(pendingOnlineOrdersRead(openDb(env.DB), new Date().toISOString()));
    expect(plan).toMatch(/USING INDEX orders_pending_online_idx/);
    expect(plan).not.toMatch(/SCAN orders\b(?! USING)/);
  });
});
