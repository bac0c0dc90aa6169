import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { retentionDue, runRetention } from "#worker/events/retention";
import { runSweeps } from "#worker/app/sweeps";
import { expiredUnpaidOrdersRead } from "#worker/orders/unpaid";
import { openDb } from "#worker/platform/db";
import { api, merchant, queryPlan } from "../helpers";
import { stockOf, trackedProduct } from "../orders/inventory-fixtures";
import { placedOrder } from "../orders/order-fixtures";

describe("sweeps", () => {
  it("delete expired one-time tokens and stale rate-limit windows, and keep live ones", async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 600_000).toISOString();
    const now = new Date().toISOString();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO one_time_tokens (token_hash, kind, identity_id, data, expires_at, created_date) VALUES (?, 'session', NULL, '{}', ?, ?)",
      ).bind("sweep-expired", past, now),
      env.DB.prepare(
        "INSERT INTO one_time_tokens (token_hash, kind, identity_id, data, expires_at, created_date) VALUES (?, 'session', NULL, '{}', ?, ?)",
      ).bind("sweep-live", future, now),
      env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES ('sweep:old', ?, 3), ('sweep:new', ?, 3)").bind(
        Math.floor(Date.now() / 1000) - 2 * 24 * 3600,
        Math.floor(Date.now() / 1000),
      ),
    ]);
    const result = await runSweeps(env);
    expect(result.expiredTokens).toBeGreaterThanOrEqual(1);
    const tokens = await env.DB.prepare("SELECT token_hash FROM one_time_tokens WHERE token_hash LIKE 'sweep-%'").all<{ token_hash: string }>();
    expect(tokens.results.map((r) => r.token_hash)).toEqual(["sweep-live"]);
    const limits = await env.DB.prepare("SELECT key FROM rate_limits WHERE key LIKE 'sweep:%'").all<{ key: string }>();
    expect(limits.results.map((r) => r.key)).toEqual(["sweep:new"]);
  });
});

describe("retention", () => {
  it("runs in the first sweep of each hour only", () => {
    expect(retentionDue(new Date("2026-11-23T10:00:30Z"))).toBe(true);
    expect(retentionDue(new Date("2026-11-23T10:01:00Z"))).toBe(false);
  });

  it("deletes finished bookkeeping older than 30 days and keeps the rest", async () => {
    const old = new Date(Date.now() - 31 * 24 * 3600_000).toISOString();
    const recent = new Date().toISOString();
    const id = (s: string) => `retention-${s}-${crypto.randomUUID()}`;
    const ids = { oldFlushed: id("of"), oldUnflushed: id("ou"), newFlushed: id("nf"), oldDone: id("od"), newDone: id("nd"), failed: id("fd") };
    const outbox = (rowId: string, time: string, flushed: string | null) =>
      env.DB.prepare(
        "INSERT INTO outbox (id, type, entity_id, event_time, actor_type, actor_id, data, flushed_at, done_at, attempts) VALUES (?, 'test.Retention', 'e', ?, 'APP', NULL, '{}', ?, ?, 0)",
      ).bind(rowId, time, flushed, flushed);
    const processed = (eventId: string, time: string) =>
      env.DB.prepare("INSERT INTO processed_events (event_id, processor, processed_at) VALUES (?, 'p', ?)").bind(eventId, time);
    await env.DB.batch([
      outbox(ids.oldFlushed, old, old),
      outbox(ids.oldUnflushed, old, null),
      outbox(ids.newFlushed, recent, recent),
      processed(ids.oldDone, old),
      processed(ids.newDone, recent),
      processed(ids.failed, old),
      // A dead event keeps the records of the processors that succeeded, so a replay runs only the failed one.
      env.DB.prepare(
        "INSERT INTO event_failures (id, type, body, state, processor, error, attempts, first_failed_at, last_failed_at) VALUES (?, 't', '{}', 'DEAD', 'q', 'boom', 1, ?, ?)",
      ).bind(`${ids.failed}#q`, old, old),
    ]);
    const deleted = await runRetention(openDb(env.DB), new Date());
    expect(deleted).toBeGreaterThanOrEqual(2);
    const outboxLeft = (await env.DB.prepare("SELECT id FROM outbox WHERE id LIKE 'retention-%'").all<{ id: string }>()).results
      .map((r) => r.id)
      .sort();
    expect(outboxLeft).toEqual([ids.oldUnflushed, ids.newFlushed].sort());
    const processedLeft = (
      await env.DB.prepare("SELECT event_id FROM processed_events WHERE event_id LIKE 'retention-%'").all<{ event_id: string }>()
    ).results
      .map((r) => r.event_id)
      .sort();
    expect(processedLeft).toEqual([ids.newDone, ids.failed].sort());
  });
});

describe("unpaid offline orders", () => {
  const HOUR = 3_600_000;
  const setHold = async (hours: number) => {
    const res = await merchant("PATCH", "/api/v1/store-settings", { settings: { unpaidOrderHoldHours: hours } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  /** Moves an order's placing back in time: the sweep judges by created_date. */
  const age = (orderId: string, hours: number) =>
    env.DB.prepare("UPDATE orders SET created_date = ? WHERE id = ?")
      .bind(new Date(Date.now() - hours * HOUR).toISOString(), orderId)
      .run();
  const orderRow = (id: string) =>
    env.DB.prepare("SELECT status, payment_status AS paymentStatus FROM orders WHERE id = ?")
      .bind(id)
      .first<{ status: string; paymentStatus: string }>();
  const activities = async (id: string) =>
    (
      await env.DB.prepare("SELECT type, details FROM order_activities WHERE order_id = ? ORDER BY rowid")
        .bind(id)
        .all<{ type: string; details: string | null }>()
    ).results;
  const tasksFor = async (id: string) =>
    (
      await env.DB.prepare("SELECT kind, title, status FROM tasks WHERE entity_id = ?")
        .bind(id)
        .all<{ kind: string; title: string; status: string }>()
    ).results;
  const emailCount = async (to: string) =>
    (await env.DB.prepare('SELECT count(*) AS n FROM emails WHERE "to" = ?').bind(to).first<{ n: number }>())!.n;

  it("cancel those unpaid past the store's hold (48 h by default), release their stock, record why and raise one task; a second sweep does nothing", async () => {
    const p = await trackedProduct(100, { priceData: { price: 8 } });
    const buyer = `late-${crypto.randomUUID()}@example.com`;
    const expired = await placedOrder(p.id, 5, buyer);
    const paid = await placedOrder(p.id, 5);
    const recent = await placedOrder(p.id, 5);
    expect((await merchant("POST", `/ecom/v1/orders/${paid.orderId}/mark-as-paid`, {})).status).toBe(200);
    await age(expired.orderId, 49);
    await age(paid.orderId, 49);
    await age(recent.orderId, 47);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 85 });
    const emailsBefore = await emailCount(buyer);

    const first = await runSweeps(env);
    expect(first.unpaidOrdersCanceled).toBe(1);
    expect(await orderRow(expired.orderId)).toEqual({ status: "CANCELED", paymentStatus: "NOT_PAID" });
    expect(await orderRow(paid.orderId)).toEqual({ status: "APPROVED", paymentStatus: "PAID" });
    expect(await orderRow(recent.orderId)).toEqual({ status: "APPROVED", paymentStatus: "NOT_PAID" });
    expect(await stockOf(p.id)).toMatchObject({ quantity: 90 });
    const log = await env.DB.prepare("SELECT delta, cause FROM inventory_changes WHERE order_id = ? ORDER BY rowid")
      .bind(expired.orderId)
      .all<{ delta: number; cause: string }>();
    expect(log.results).toEqual([
      { delta: -5, cause: "ORDER" },
      { delta: 5, cause: "REVERT_INVENTORY_CHANGE" },
    ]);
    const acts = await activities(expired.orderId);
    expect(acts.map((a) => a.type)).toEqual(["ORDER_PLACED", "ORDER_CANCELED"]);
    expect(JSON.parse(acts[1].details!)).toMatchObject({ reason: "NOT_PAID_IN_TIME", holdHours: 48, restockAllItems: true });
    expect(await tasksFor(expired.orderId)).toEqual([
      { kind: "UNPAID_ORDER_CANCELED", title: expect.stringMatching(/^Order #\d+ canceled: not paid within 48 hours$/), status: "OPEN" },
    ]);
    // The buyer is not emailed about it (the address is the buyer's own choice), and sees the order cancelled.
    expect(await emailCount(buyer)).toBe(emailsBefore);
    const seen = await api("GET", `/ecom/v1/orders/${expired.orderId}`, { key: expired.token });
    expect(seen.body.order.status).toBe("CANCELED");
    expect(seen.body.order.activities.at(-1)).toMatchObject({ type: "ORDER_CANCELED", reason: "NOT_PAID_IN_TIME" });

    // Idempotent: nothing more is released, recorded or raised.
    const second = await runSweeps(env);
    expect(second.unpaidOrdersCanceled).toBe(0);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 90 });
    expect(await activities(expired.orderId)).toHaveLength(2);
    expect(await tasksFor(expired.orderId)).toHaveLength(1);

    // A payment that comes late cannot revive it: the merchant is told why and what to do.
    const late = await merchant("POST", `/ecom/v1/orders/${expired.orderId}/mark-as-paid`, {});
    expect(late.status).toBe(400);
    expect(late.body.details.applicationError.description).toMatch(/not paid within 48 hours.*refund them or ask them to place a new order/);
  });

  it("follow the merchant's hold; 0 turns the sweep off", async () => {
    const p = await trackedProduct(20);
    const o = await placedOrder(p.id, 2);
    await age(o.orderId, 30);
    try {
      await setHold(0);
      await age(o.orderId, 24 * 365);
      expect((await runSweeps(env)).unpaidOrdersCanceled).toBe(0);
      expect((await orderRow(o.orderId))!.status).toBe("APPROVED");

      await setHold(72);
      await age(o.orderId, 30);
      await runSweeps(env);
      expect((await orderRow(o.orderId))!.status).toBe("APPROVED");
      await setHold(24);
      expect((await runSweeps(env)).unpaidOrdersCanceled).toBeGreaterThanOrEqual(1);
      expect((await orderRow(o.orderId))!.status).toBe("CANCELED");
      expect(await stockOf(p.id)).toMatchObject({ quantity: 20 });
      expect((await tasksFor(o.orderId))[0].title).toMatch(/not paid within 24 hours/);
    } finally {
      await setHold(48);
    }
  });

  it("leave free, fulfilled and merchant-cancelled orders alone", async () => {
    const p = await trackedProduct(20);
    const shipped = await placedOrder(p.id, 1);
    expect((await merchant("POST", `/ecom/v1/orders/${shipped.orderId}/fulfillments`, {})).status).toBe(200);
    const canceled = await placedOrder(p.id, 1);
    expect((await merchant("POST", `/ecom/v1/orders/${canceled.orderId}/cancel`, { restockAllItems: false })).status).toBe(200);
    const free = await placedOrder(p.id, 1);
    await env.DB.prepare("UPDATE orders SET total = 0 WHERE id = ?").bind(free.orderId).run();
    for (const o of [shipped, canceled, free]) await age(o.orderId, 24 * 30);
    expect((await runSweeps(env)).unpaidOrdersCanceled).toBe(0);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 17 });
  });

  it("read only candidate orders, through the partial index", async () => {
    const plan = await queryPlan(expiredUnpaidOrdersRead(openDb(env.DB), new Date().toISOString()));
    expect(plan).toMatch(/USING INDEX orders_unpaid_offline_idx/);
    expect(plan).not.toMatch(/SCAN orders\b(?! USING)/);
  });
});
