import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../entry/index";
import { eventRegistry, processors, runSweeps } from "#worker/app";
import type { Processor } from "#worker/events/consumer";
import { consumerStalled, MAX_RESENDS, processStalled, queueLag, RESEND_AFTER_SECONDS, resendWaiting } from "#worker/events/acks";
import { PermanentFailure } from "#worker/events/consumer";
import { openDb } from "#worker/platform/db";
import { dashboardReport } from "#worker/reports";
import { api, merchant, serviceCtx } from "../helpers";
import { waitFor } from "../wait";

/**
 * The acknowledged outbox: an event is done once each of its processors has a result; the sweep re-sends what a lost
 * message left waiting (harmless, the processed-event records hold), records it dead after MAX_RESENDS, and the
 * lag shows in /api/health and as a merchant task.
 */

const db = openDb(env.DB);
const registered: Processor<any>[] = [];
function register(p: Processor<any>) {
  processors.push(p);
  registered.push(p);
}
afterEach(async () => {
  for (const p of registered.splice(0)) processors.splice(processors.indexOf(p), 1);
  // Each test leaves nothing waiting for the next.
  await env.DB.prepare("UPDATE outbox SET done_at = event_time WHERE done_at IS NULL").run();
});

/** An outbox row as if its request had flushed it at `flushedAt` and the message had then been lost. */
async function lostEvent(type: string, opts: { flushedAt: Date | null; eventTime?: Date; resends?: number }) {
  const id = crypto.randomUUID();
  await env.DB.prepare(
    "INSERT INTO outbox (id, type, entity_id, event_time, actor_type, actor_id, data, flushed_at, attempts, resends) VALUES (?, ?, 'e-1', ?, 'APP', NULL, '{}', ?, 0, ?)",
  )
    .bind(id, type, (opts.eventTime ?? opts.flushedAt ?? new Date()).toISOString(), opts.flushedAt?.toISOString() ?? null, opts.resends ?? 0)
    .run();
  return id;
}
const outboxRow = (id: string) => env.DB.prepare("SELECT * FROM outbox WHERE id = ?").bind(id).first<Record<string, any>>();
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

async function deliver(body: unknown) {
  const batch = createMessageBatch("edge-storefront-events", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("acknowledged outbox", () => {
  it("marks an event done once every processor has a result, a permanent failure included, and not while one retries", async () => {
    const type = `test.Ack.${crypto.randomUUID()}`;
    let failNext = true;
    register({ name: `ack-ok-${type}`, types: [type], async run() {} });
    register({
      name: `ack-dead-${type}`,
      types: [type],
      async run() {
        throw new PermanentFailure("no such thing");
      },
    });
    register({
      name: `ack-flaky-${type}`,
      types: [type],
      async run() {
        if (failNext) throw new Error("busy");
      },
    });
    const id = await lostEvent(type, { flushedAt: new Date() });
    const row = (await outboxRow(id))!;
    const body = { id, type, entityId: "e-1", eventTime: row.event_time, actor: { type: "APP", id: null }, data: {} };
    await deliver(body);
    expect((await outboxRow(id))!.done_at).toBeNull();
    failNext = false;
    await deliver(body);
    expect((await outboxRow(id))!.done_at).not.toBeNull();
  });

  it("marks an event no processor handles done at once", async () => {
    const id = await lostEvent(`test.Nobody.${crypto.randomUUID()}`, { flushedAt: new Date() });
    const row = (await outboxRow(id))!;
    await deliver({ id, type: row.type, entityId: "e-1", eventTime: row.event_time, actor: { type: "APP", id: null }, data: {} });
    expect((await outboxRow(id))!.done_at).not.toBeNull();
  });

  it("re-sends a flushed event that was never processed, with a growing delay, and a second delivery changes nothing", async () => {
    const type = `test.Lost.${crypto.randomUUID()}`;
    const runs: string[] = [];
    register({
      name: `lost-${type}`,
      types: [type],
      async run(event) {
        runs.push(event.id);
      },
    });
    const notYet = await lostEvent(type, { flushedAt: new Date(Date.now() - (RESEND_AFTER_SECONDS - 30) * 1000) });
    const id = await lostEvent(type, { flushedAt: new Date(Date.now() - (RESEND_AFTER_SECONDS + 1) * 1000) });
    expect(await resendWaiting(env, db, eventRegistry, new Date())).toEqual({ resent: 1, dead: 0 });
    await waitFor(async () => (await outboxRow(id))!.done_at, "the re-sent event to be processed");
    expect(runs).toEqual([id]);
    expect((await outboxRow(notYet))!.resends).toBe(0);

    // Lost again: the next re-send waits twice as long, and the processor does not run a second time.
    await env.DB.prepare("UPDATE outbox SET done_at = NULL WHERE id = ?").bind(id).run();
    const flushed = Date.parse((await outboxRow(id))!.flushed_at);
    expect((await resendWaiting(env, db, eventRegistry, new Date(flushed + (RESEND_AFTER_SECONDS + 1) * 1000))).resent).toBe(1); // notYet only
    expect((await outboxRow(id))!.resends).toBe(1);
    const { resent } = await resendWaiting(env, db, eventRegistry, new Date(flushed + (2 * RESEND_AFTER_SECONDS + 1) * 1000));
    expect(resent).toBe(1);
    await waitFor(async () => (await outboxRow(id))!.done_at, "the second re-send to be acknowledged");
    expect(runs.filter((r) => r === id)).toEqual([id]);
    expect((await outboxRow(id))!.resends).toBe(2);
  });

  it("records an event dead, naming the processor without a result, after the last re-send, and lists it", async () => {
    const type = `test.Never.${crypto.randomUUID()}`;
    register({ name: `never-${type}`, types: [type], async run() {} });
    const id = await lostEvent(type, { flushedAt: new Date(Date.now() - 24 * 3600_000), resends: MAX_RESENDS });
    expect(await resendWaiting(env, db, eventRegistry, new Date())).toEqual({ resent: 0, dead: 1 });
    expect((await outboxRow(id))!.done_at).not.toBeNull();
    const listed = await merchant("GET", "/api/v1/events/failures?state=DEAD");
    const dead = listed.body.failures.find((f: { id: string }) => f.id === id);
    expect(dead).toMatchObject({ type, state: "DEAD", message: { id, type } });
    // Every processor of the type is named (the shop's own "*" processors among them).
    expect(dead.error).toMatch(
      new RegExp(`^not processed after ${MAX_RESENDS} re-sends; no result from .*\\bnever-${type.replaceAll(".", "\\.")}\\b`),
    );

    // A replay makes it wait again, so a lost replay is noticed too.
    expect((await merchant("POST", `/api/v1/events/failures/${id}/replay`)).status).toBe(200);
    await waitFor(async () => (await outboxRow(id))!.done_at, "the replayed event to be done");
    expect((await outboxRow(id))!.resends).toBe(0);
  });

  it("reads the oldest waiting event through the partial index", async () => {
    const plan = await env.DB.prepare("EXPLAIN QUERY PLAN SELECT count(*), min(event_time) FROM outbox WHERE done_at IS NULL").all<{
      detail: string;
    }>();
    expect(plan.results.map((r) => r.detail).join("\n")).toContain("outbox_waiting_idx");
  });
});

describe("queue lag", () => {
  it("shows in /api/health, which answers 503 past the threshold", async () => {
    const fine = await api("GET", "/api/health");
    expect(fine.status).toBe(200);
    expect(fine.body).toEqual({ ok: true, events: { waiting: 0, oldestWaitingSeconds: 0, alertAfterSeconds: 900 } });
    await lostEvent("test.Lag", { flushedAt: new Date(), eventTime: minutesAgo(20) });
    const late = await api("GET", "/api/health");
    expect(late.status).toBe(503);
    expect(late.body.ok).toBe(false);
    expect(late.body.events.waiting).toBe(1);
    expect(late.body.events.oldestWaitingSeconds).toBeGreaterThanOrEqual(20 * 60);
  });

  it("opens one merchant task while the lag stays high and closes it when the queue catches up", async () => {
    const id = await lostEvent("test.LagTask", { flushedAt: new Date(), eventTime: minutesAgo(30) });
    await runSweeps(env);
    await runSweeps(env);
    const open = async () =>
      (await env.DB.prepare("SELECT * FROM tasks WHERE kind = 'EVENT_LAG' AND status = 'OPEN'").all<Record<string, any>>()).results;
    const tasks = await open();
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.title).toMatch(/^Events are not being processed: 1 waiting, the oldest for 30 minutes$/);
    const report = await dashboardReport(serviceCtx().ctx);
    expect(report.eventLag).toMatchObject({ waiting: 1, alertAfterSeconds: 900 });
    expect(report.eventLag.oldestWaitingSeconds).toBeGreaterThanOrEqual(30 * 60);

    await env.DB.prepare("UPDATE outbox SET done_at = ? WHERE id = ?").bind(new Date().toISOString(), id).run();
    await runSweeps(env);
    expect(await open()).toEqual([]);
    const closed = await env.DB.prepare("SELECT status FROM tasks WHERE id = ?").bind(tasks[0]!.id).first<{ status: string }>();
    expect(closed!.status).toBe("DONE");
  });
});

describe("a stopped consumer under npm start", () => {
  it("is noticed by the sweep, which processes the waiting events itself, once each", async () => {
    const type = `test.Stalled.${crypto.randomUUID()}`;
    const runs: string[] = [];
    register({
      name: `stalled-${type}`,
      types: [type],
      async run(event) {
        runs.push(event.id);
      },
    });
    // Flushed after anything was processed, and a while ago as the sweep sees it.
    const flushedAt = new Date(Date.now() + 3600_000);
    const ids = [await lostEvent(type, { flushedAt }), await lostEvent(type, { flushedAt })];
    const at = new Date(flushedAt.getTime() + 90_000);
    expect(await consumerStalled(db, new Date(flushedAt.getTime() + 30_000))).toBe(false);
    expect(await consumerStalled(db, at)).toBe(true);
    const logged: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void logged.push(args.join(" "));
    try {
      expect(await processStalled(env, db, eventRegistry, at, () => {})).toBe(2);
    } finally {
      console.warn = warn;
    }
    expect(logged.join("\n")).toContain("the queue consumer has processed nothing for over 60 s while 2 event(s) wait");
    expect(runs.sort()).toEqual([...ids].sort());
    expect((await queueLag(db, at)).waiting).toBe(0);
    // Processed records hold: a late delivery from the queue runs nothing again.
    const row = (await outboxRow(ids[0]!))!;
    await deliver({ id: row.id, type, entityId: "e-1", eventTime: row.event_time, actor: { type: "APP", id: null }, data: {} });
    expect(runs).toHaveLength(2);
    expect(await consumerStalled(db, at)).toBe(false);
  });
});
