import {
  createExecutionContext,
  createScheduledController,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../entry/index";
import type { EventEnvelope } from "#worker/events/outbox";
import { EventType } from "#worker/events/types";
import { OWNER_KEY, unique } from "../helpers";

/** The outbox pipeline: a change and its event in one batch, flushed after the response, swept when that fails. */

interface OutboxRow {
  id: string;
  type: string;
  entity_id: string;
  event_time: string;
  actor_type: string;
  actor_id: string | null;
  data: string;
  flushed_at: string | null;
  attempts: number;
}

const row = (id: string) => env.DB.prepare("SELECT * FROM outbox WHERE id = ?").bind(id).first<OutboxRow>();
const rowsFor = async (entityId: string) =>
  (await env.DB.prepare("SELECT * FROM outbox WHERE entity_id = ? ORDER BY event_time, rowid").bind(entityId).all<OutboxRow>()).results;

/** Every message the worker puts on the EVENTS queue during `run`, while still delivering them. */
async function recordingQueue<T>(run: () => Promise<T>): Promise<{ result: T; sent: EventEnvelope[] }> {
  const queue = env.EVENTS as Queue & { sendBatch: Queue["sendBatch"] };
  const original = queue.sendBatch;
  const sent: EventEnvelope[] = [];
  queue.sendBatch = async (messages, options) => {
    const list = [...messages];
    const result = await original.call(queue, list, options);
    sent.push(...list.map((m) => m.body as EventEnvelope));
    return result;
  };
  try {
    return { result: await run(), sent };
  } finally {
    queue.sendBatch = original;
  }
}

/** Runs `run` while the EVENTS queue refuses every batch (a Queues outage). */
async function queueDown<T>(run: () => Promise<T>): Promise<T> {
  const queue = env.EVENTS as Queue;
  const original = queue.sendBatch;
  let calls = 0;
  queue.sendBatch = async () => {
    calls++;
    throw new Error("Queue send failed: service unavailable");
  };
  try {
    return await run();
  } finally {
    queue.sendBatch = original;
    expect(calls).toBeGreaterThan(0);
  }
}

async function createThroughWorker(name: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("https://shop.test/stores/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ product: { name, priceData: { price: 12.5 } } }),
    }),
    env,
    ctx,
  );
  expect(res.status).toBe(200);
  const { product } = (await res.json()) as { product: { id: string } };
  return { product, ctx };
}

/** An unflushed outbox row written `ageMs` ago (as if the flush after its response never happened). */
async function insertStaleRow(ageMs = 2 * 60_000, extra: Record<string, unknown> = {}) {
  const id = crypto.randomUUID();
  const entityId = crypto.randomUUID();
  const eventTime = new Date(Date.now() - ageMs).toISOString();
  await env.DB.prepare(
    "INSERT INTO outbox (id, type, entity_id, event_time, actor_type, actor_id, data, attempts) VALUES (?, ?, ?, ?, 'APP', 'owner', ?, 0)",
  )
    .bind(id, EventType.productChanged, entityId, eventTime, JSON.stringify({ productId: entityId, changedFields: ["name"], ...extra }))
    .run();
  return { id, entityId, eventTime };
}

const sweeper = () => env.SWEEPER.get(env.SWEEPER.idFromName("sweeper"));

function expectEnvelope(e: EventEnvelope) {
  expect(Object.keys(e).sort()).toEqual(["actor", "data", "entityId", "eventTime", "id", "type"]);
  expect(Object.keys(e.actor).sort()).toEqual(["id", "type"]);
  expect(new Date(e.eventTime).toISOString()).toBe(e.eventTime);
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("outbox", () => {
  it("writes the event with the change and flushes it to the queue after the response", async () => {
    const name = `Outbox tee ${unique()}`;
    const { result, sent } = await recordingQueue(async () => {
      const { product, ctx } = await createThroughWorker(name);
      // The row exists as soon as the response does (same D1 batch as the product).
      const [before] = await rowsFor(product.id);
      expect(before).toMatchObject({ type: EventType.productCreated, entity_id: product.id, actor_type: "APP", actor_id: "owner", attempts: 0 });
      await waitOnExecutionContext(ctx);
      return product;
    });
    const [after] = await rowsFor(result.id);
    expect(after.flushed_at).not.toBeNull();
    expect(Date.parse(after.flushed_at!)).toBeGreaterThanOrEqual(Date.parse(after.event_time));
    expect(after.attempts).toBe(0);

    const event = sent.find((e) => e.entityId === result.id)!;
    expectEnvelope(event);
    expect(event).toMatchObject({
      id: after.id,
      type: EventType.productCreated,
      entityId: result.id,
      eventTime: after.event_time,
      actor: { type: "APP", id: "owner" },
      data: { productId: result.id, name, price: { currency: "USD", price: 12.5 } },
    });
  });

  it("re-sends a row left unflushed for over a minute when the cron fires", async () => {
    const stale = await insertStaleRow();
    const fresh = await insertStaleRow(5_000);
    const { sent } = await recordingQueue(async () => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    });
    expect((await row(stale.id))!.flushed_at).not.toBeNull();
    const event = sent.find((e) => e.id === stale.id)!;
    expectEnvelope(event);
    expect(event).toEqual({
      id: stale.id,
      type: EventType.productChanged,
      entityId: stale.entityId,
      eventTime: stale.eventTime,
      actor: { type: "APP", id: "owner" },
      data: { productId: stale.entityId, changedFields: ["name"] },
    });
    // A row younger than a minute belongs to a request whose own flush may still be running.
    expect((await row(fresh.id))!.flushed_at).toBeNull();
    expect(sent.some((e) => e.id === fresh.id)).toBe(false);
    // The cron is also the sweeper's watchdog: it leaves the alarm armed.
    expect(await runInDurableObject(sweeper(), (_i, state) => state.storage.getAlarm())).not.toBeNull();
  });

  it("re-sends stale rows from the sweeper's alarm, which re-arms itself", async () => {
    const stale = await insertStaleRow(3 * 60_000);
    const stub = sweeper();
    await stub.ensureArmed();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await row(stale.id))!.flushed_at).not.toBeNull();
    const next = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(next).not.toBeNull();
    expect(next!).toBeGreaterThan(Date.now());
  });

  it("keeps the row when the queue refuses it, counts the attempt, and the next sweep sends it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { product, ctx } = await queueDown(async () => {
      const created = await createThroughWorker(`Outage tee ${unique()}`);
      await waitOnExecutionContext(created.ctx);
      return created;
    });
    expect(ctx).toBeDefined();
    const [failed] = await rowsFor(product.id);
    expect(failed.flushed_at).toBeNull();
    expect(failed.attempts).toBe(1);

    // A sweep while the queue is still down counts another attempt and keeps the row.
    vi.setSystemTime(Date.now() + 2 * 60_000);
    await queueDown(async () => {
      const sweepCtx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env, sweepCtx);
      await waitOnExecutionContext(sweepCtx);
    });
    expect((await row(failed.id))!).toMatchObject({ flushed_at: null, attempts: 2 });

    // Once the queue is back, the next sweep (over a minute later) sends the very same event.
    const { sent } = await recordingQueue(async () => {
      const sweepCtx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env, sweepCtx);
      await waitOnExecutionContext(sweepCtx);
    });
    vi.useRealTimers();
    const flushed = (await row(failed.id))!;
    expect(flushed.flushed_at).not.toBeNull();
    expect(flushed.attempts).toBe(2);
    const event = sent.find((e) => e.id === failed.id)!;
    expectEnvelope(event);
    expect(event).toMatchObject({
      type: EventType.productCreated,
      entityId: product.id,
      eventTime: failed.event_time,
      actor: { type: "APP", id: "owner" },
    });
  });

  it("flushes more than a hundred events at once (chunks and marks them all)", async () => {
    const stale = await Promise.all(Array.from({ length: 130 }, () => insertStaleRow(90_000)));
    const { sent } = await recordingQueue(async () => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
    });
    const ids = new Set(sent.map((e) => e.id));
    for (const s of stale) expect(ids.has(s.id)).toBe(true);
    const { results } = await env.DB.prepare(`SELECT count(*) AS n FROM outbox WHERE flushed_at IS NULL AND id IN (SELECT value FROM json_each(?))`)
      .bind(JSON.stringify(stale.map((s) => s.id)))
      .all<{ n: number }>();
    expect(results[0].n).toBe(0);
  });

  it("does not let an event too big for the queue hold back the events sent with it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const before = await insertStaleRow(4 * 60_000);
    const huge = await insertStaleRow(4 * 60_000 - 1, { note: "x".repeat(130_000) });
    const after = await insertStaleRow(4 * 60_000 - 2);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((await row(before.id))!.flushed_at).not.toBeNull();
    expect((await row(after.id))!.flushed_at).not.toBeNull();
    expect((await row(huge.id))!).toMatchObject({ flushed_at: null, attempts: 1 });
    // Out of the way for the other tests' sweeps.
    await env.DB.prepare("DELETE FROM outbox WHERE id = ?").bind(huge.id).run();
  });
});
