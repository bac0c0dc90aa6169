import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import worker from "../../entry/index";
import type { Processor } from "#worker/events/consumer";
import type { EventEnvelope } from "#worker/events/outbox";
import { payloadSchemas, processors } from "#worker/app/registry";
import { OWNER_KEY, staffWith } from "../helpers";

/**
 * The queue consumer: processors run at most once in effect per event (processed-event records), failures retry
 * alone with growing delays and are recorded, the dead-letter queue records dead events, and the merchant can list
 * and replay them.
 */

const MAIN = "edge-storefront-events";
const DLQ = "edge-storefront-events-dlq";

const envelope = (type: string, overrides: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: crypto.randomUUID(),
  type,
  entityId: crypto.randomUUID(),
  eventTime: new Date().toISOString(),
  actor: { type: "APP", id: "owner" },
  data: { productId: "p-1" },
  ...overrides,
});
const message = (body: unknown, attempts = 1) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts, body });

async function deliver(queue: string, messages: ReturnType<typeof message>[]) {
  const batch = createMessageBatch(queue, messages);
  const retries = batch.messages.map((m) => vi.spyOn(m, "retry"));
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  return { result, retries };
}

/** Registers a processor (and optionally a payload schema) for the test, removed afterwards. */
const registered: Processor<any>[] = [];
function register(p: Processor<any>, schema?: z.ZodType) {
  processors.push(p);
  registered.push(p);
  if (schema) for (const t of p.types as string[]) payloadSchemas[t] = schema;
}
afterEach(() => {
  for (const p of registered.splice(0)) {
    processors.splice(processors.indexOf(p), 1);
    if (p.types !== "*") for (const t of p.types) delete payloadSchemas[t];
  }
  vi.restoreAllMocks();
});

const failure = (id: string) => env.DB.prepare("SELECT * FROM event_failures WHERE id = ?").bind(id).first<Record<string, unknown>>();
const api = (path: string, init: RequestInit = {}) =>
  worker.fetch(
    new Request(`http://shop.test${path}`, { ...init, headers: { authorization: OWNER_KEY, "content-type": "application/json", ...init.headers } }),
    env,
    createExecutionContext(),
  );

describe("event consumer", () => {
  it("runs each processor once per event, however often the event is delivered", async () => {
    const calls: string[] = [];
    const type = `test.Once.${crypto.randomUUID()}`;
    register({
      name: `once-${type}`,
      types: [type],
      async run(event, _data, p) {
        calls.push(event.id);
        // The effect and its processed record commit together (here the record alone).
        await p.db.batch([p.done()]);
      },
    });
    const e = envelope(type);
    const first = await deliver(MAIN, [message(e)]);
    expect(first.result.explicitAcks).toHaveLength(1);
    const again = await deliver(MAIN, [message(e), message(e, 2)]);
    expect(again.result.explicitAcks).toHaveLength(2);
    expect(calls).toEqual([e.id]);
    // (The outgoing-webhook processor, types "*", records every event too.)
    const done = await env.DB.prepare("SELECT processor FROM processed_events WHERE event_id = ? AND processor != 'webhooks:outgoing'")
      .bind(e.id)
      .all();
    expect(done.results).toEqual([{ processor: `once-${type}` }]);
  });

  it("records the event for a processor that never asked for its done statement", async () => {
    const calls: string[] = [];
    const type = `test.Plain.${crypto.randomUUID()}`;
    register({ name: "plain", types: [type], run: async (e) => void calls.push(e.id) });
    const e = envelope(type);
    await deliver(MAIN, [message(e)]);
    await deliver(MAIN, [message(e, 2)]);
    expect(calls).toEqual([e.id]);
  });

  it("parses the payload with the type's schema: dates become Dates and numbers numbers", async () => {
    const type = `test.Typed.${crypto.randomUUID()}`;
    let seen: { at: Date; total: number } | undefined;
    register(
      { name: "typed", types: [type], run: async (_e, data: { at: Date; total: number }) => void (seen = data) },
      z.object({ at: z.coerce.date(), total: z.coerce.number() }),
    );
    await deliver(MAIN, [message(envelope(type, { data: { at: "2026-11-20T10:00:00.000Z", total: "12.50" } }))]);
    expect(seen!.at).toBeInstanceOf(Date);
    expect(seen!.at.toISOString()).toBe("2026-11-20T10:00:00.000Z");
    expect(seen!.total).toBe(12.5);
  });

  it("records a payload that fails its schema as dead at once, without running processors", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const type = `test.Bad.${crypto.randomUUID()}`;
    const calls: string[] = [];
    register({ name: "bad", types: [type], run: async (e) => void calls.push(e.id) }, z.object({ total: z.number() }));
    const e = envelope(type, { data: { total: "many" } });
    const { result } = await deliver(MAIN, [message(e)]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(calls).toEqual([]);
    expect(await failure(e.id)).toMatchObject({ state: "DEAD", type });
    expect(String((await failure(e.id))!.error)).toContain("total");
  });

  it("records malformed messages as dead instead of redelivering them forever", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const bad = [message({ hello: "world" }), message("not an object"), message({ ...envelope("test.X"), eventTime: null })];
    const { result } = await deliver(MAIN, bad);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks.sort()).toEqual(bad.map((m) => m.id).sort());
    for (const m of bad) expect(await failure(`message:${m.id}`)).toMatchObject({ state: "DEAD", type: "malformed" });
  });

  it("retries a failing message alone with a growing delay, then succeeds and clears the failure", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const type = `test.Flaky.${crypto.randomUUID()}`;
    let failuresLeft = 2;
    const effects: string[] = [];
    register({
      name: "flaky",
      types: [type],
      async run(e) {
        if (failuresLeft-- > 0) throw new Error("downstream unavailable");
        effects.push(e.id);
      },
    });
    const otherType = `test.Fine.${crypto.randomUUID()}`;
    register({ name: "fine", types: [otherType], run: async () => {} });
    const e = envelope(type);
    const fine = message(envelope(otherType));
    const one = await deliver(MAIN, [message(e, 1), fine]);
    expect(one.result.explicitAcks).toEqual([fine.id]);
    expect(one.result.retryMessages).toHaveLength(1);
    const delay1 = (one.retries[0].mock.calls[0][0] as QueueRetryOptions).delaySeconds!;
    expect(await failure(e.id)).toMatchObject({ state: "RETRYING", processor: "flaky", attempts: 1 });
    expect(String((await failure(e.id))!.error)).toContain("downstream unavailable");

    const two = await deliver(MAIN, [message(e, 2)]);
    const delay2 = (two.retries[0].mock.calls[0][0] as QueueRetryOptions).delaySeconds!;
    expect(delay2).toBeGreaterThan(delay1);
    expect(delay2).toBeLessThanOrEqual(43_200);

    const three = await deliver(MAIN, [message(e, 3)]);
    expect(three.result.explicitAcks).toHaveLength(1);
    expect(effects).toEqual([e.id]);
    expect(await failure(e.id)).toBeNull();
  });

  it("on redelivery after a partial failure, runs only the processors that had not finished", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const type = `test.Two.${crypto.randomUUID()}`;
    const calls: string[] = [];
    let bFails = true;
    register({ name: "two-a", types: [type], run: async () => void calls.push("a") });
    register({
      name: "two-b",
      types: [type],
      async run() {
        calls.push("b");
        if (bFails) throw new Error("b failed");
      },
    });
    const e = envelope(type);
    await deliver(MAIN, [message(e)]);
    bFails = false;
    await deliver(MAIN, [message(e, 2)]);
    expect(calls).toEqual(["a", "b", "b"]);
  });

  it("records a poison message dead from the dead-letter queue, lists it, and replays it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const type = `test.Poison.${crypto.randomUUID()}`;
    let healthy = false;
    const effects: string[] = [];
    register({
      name: "poison",
      types: [type],
      async run(e) {
        if (!healthy) throw new Error("cannot process yet");
        effects.push(e.id);
      },
    });
    const e = envelope(type);
    for (let attempt = 1; attempt <= 6; attempt++) await deliver(MAIN, [message(e, attempt)]);
    expect(await failure(e.id)).toMatchObject({ state: "RETRYING", attempts: 6 });
    // The queue gives up and hands it to the dead-letter queue.
    const dead = await deliver(DLQ, [message(e)]);
    expect(dead.result.explicitAcks).toHaveLength(1);
    expect(await failure(e.id)).toMatchObject({ state: "DEAD", attempts: 6 });
    expect(String((await failure(e.id))!.error)).toContain("cannot process yet");

    const list = (await (await api("/api/v1/events/failures?state=DEAD&limit=100")).json()) as {
      failures: { id: string; state: string; message: EventEnvelope }[];
    };
    const listed = list.failures.find((f) => f.id === e.id);
    expect(listed).toMatchObject({ state: "DEAD", type, processor: "poison" });
    expect(listed!.message.id).toBe(e.id);

    // Anonymous callers cannot see or replay failures.
    const anon = await worker.fetch(new Request("http://shop.test/api/v1/events/failures"), env, createExecutionContext());
    expect(anon.status).toBe(401);
    expect(
      (await worker.fetch(new Request(`http://shop.test/api/v1/events/failures/${e.id}/replay`, { method: "POST" }), env, createExecutionContext()))
        .status,
    ).toBe(401);

    // Replay: the event goes back on the queue as it was.
    const queue = env.EVENTS as Queue;
    const sent: unknown[] = [];
    vi.spyOn(queue, "send").mockImplementation(async (body) => {
      sent.push(body);
      return undefined as never;
    });
    const replay = await api(`/api/v1/events/failures/${e.id}/replay`, { method: "POST" });
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { failure: { state: string } }).failure.state).toBe("REPLAYED");
    expect(sent).toEqual([e]);
    // Only a dead event can be replayed.
    expect((await api(`/api/v1/events/failures/${e.id}/replay`, { method: "POST" })).status).toBe(409);
    expect((await api(`/api/v1/events/failures/nope-${crypto.randomUUID()}/replay`, { method: "POST" })).status).toBe(404);

    healthy = true;
    await deliver(MAIN, [message(sent[0], 1)]);
    expect(effects).toEqual([e.id]);
  });

  it("replays every dead event at once", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const a = envelope(`test.DeadA.${crypto.randomUUID()}`);
    const b = envelope(`test.DeadB.${crypto.randomUUID()}`);
    await deliver(DLQ, [message(a), message(b)]);
    const queue = env.EVENTS as Queue;
    const sent: unknown[] = [];
    vi.spyOn(queue, "sendBatch").mockImplementation(async (msgs) => {
      sent.push(...[...msgs].map((m) => m.body));
      return undefined as never;
    });
    const res = await api("/api/v1/events/failures/replay-all", { method: "POST" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { replayed: number; remaining: number };
    expect(body.remaining).toBe(0);
    expect(sent).toEqual(expect.arrayContaining([a, b]));
    expect(await failure(a.id)).toMatchObject({ state: "REPLAYED" });
    expect(await failure(b.id)).toMatchObject({ state: "REPLAYED" });
  });

  it("replays a dead stock update only for someone who may change stock", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const stock = envelope("inventory.updated", { data: { items: [{ sku: "X", setQuantity: 777 }] } });
    const other = envelope(`test.DeadC.${crypto.randomUUID()}`);
    await deliver(DLQ, [message(stock), message(other)]);
    const queue = env.EVENTS as Queue;
    const sent: { id: string }[] = [];
    vi.spyOn(queue, "send").mockImplementation(async (body) => void sent.push(body as { id: string }) as never);
    vi.spyOn(queue, "sendBatch").mockImplementation(async (msgs) => void sent.push(...[...msgs].map((m) => m.body as { id: string })) as never);
    const { token: staff } = await staffWith(["automations.manage"]);
    const asStaff = (path: string) => api(path, { method: "POST", headers: { authorization: `Bearer ${staff}` } });

    expect((await asStaff(`/api/v1/events/failures/${stock.id}/replay`)).status).toBe(403);
    expect((await asStaff("/api/v1/events/failures/replay-all?type=inventory.updated")).status).toBe(403);
    expect((await asStaff("/api/v1/events/failures/replay-all")).status).toBe(200);
    expect(sent.map((m) => m.id)).toContain(other.id);
    expect(sent.map((m) => m.id)).not.toContain(stock.id);
    expect(await failure(stock.id)).toMatchObject({ state: "DEAD" });

    // The owner may change stock, so may replay it.
    expect((await api(`/api/v1/events/failures/${stock.id}/replay`, { method: "POST" })).status).toBe(200);
    expect(await failure(stock.id)).toMatchObject({ state: "REPLAYED" });
  });

  it("runs job messages through their handler and retries them on failure", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { jobs } = await import("#worker/app/registry");
    const kind = `test-job-${crypto.randomUUID()}`;
    let fail = true;
    const handled: string[] = [];
    jobs[kind] = async (job) => {
      if (fail) throw new Error("receiver down");
      handled.push(job.id);
    };
    try {
      const job = { kind, id: crypto.randomUUID() };
      const first = await deliver(MAIN, [message(job)]);
      expect(first.result.retryMessages).toHaveLength(1);
      expect(await failure(job.id)).toMatchObject({ state: "RETRYING", type: kind });
      fail = false;
      const second = await deliver(MAIN, [message(job, 2)]);
      expect(second.result.explicitAcks).toHaveLength(1);
      expect(handled).toEqual([job.id]);
    } finally {
      delete jobs[kind];
    }
  });
});

describe("permanent failures", () => {
  it("records a processor's permanent failure dead at once, still runs the others, and replays only that one", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { PermanentFailure } = await import("#worker/events/consumer");
    const type = `test.Permanent.${crypto.randomUUID()}`;
    const calls: string[] = [];
    let fixed = false;
    register({
      name: "strict",
      types: [type],
      async run() {
        calls.push("strict");
        if (!fixed) throw new PermanentFailure("names a product that does not exist");
      },
    });
    register({ name: "lenient", types: [type], run: async () => void calls.push("lenient") });
    const e = envelope(type);
    const { result } = await deliver(MAIN, [message(e)]);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(calls).toEqual(["strict", "lenient"]);
    const dead = await failure(`${e.id}#strict`);
    expect(dead).toMatchObject({ state: "DEAD", processor: "strict", type });
    expect(String(dead!.error)).toContain("does not exist");

    // After the merchant fixes the cause, a replay runs only the processor that failed.
    fixed = true;
    const queue = env.EVENTS as Queue;
    const sent: unknown[] = [];
    vi.spyOn(queue, "send").mockImplementation(async (body) => {
      sent.push(body);
      return undefined as never;
    });
    expect((await api(`/api/v1/events/failures/${encodeURIComponent(`${e.id}#strict`)}/replay`, { method: "POST" })).status).toBe(200);
    await deliver(MAIN, [message(sent[0])]);
    expect(calls).toEqual(["strict", "lenient", "strict"]);
  });
});
