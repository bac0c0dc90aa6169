import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { payloadSchemas, processors, runSweeps } from "#worker/app";
import type { Processor } from "#worker/events/consumer";
import { queueLag } from "#worker/events/acks";
import { advanceClock, now, resetClock } from "#worker/platform/clock";
import { openDb, rawStatement } from "#worker/platform/db";
import { runBatch } from "#worker/platform/unit-of-work";
import { INCOMING_EVENT_TYPES } from "#worker/webhooks/event-types";
import { api, merchant, unique } from "../helpers";
import { stockOf, trackedProduct } from "../orders/inventory-fixtures";
import { fillCheckout, visitorCheckout } from "../orders/order-fixtures";
import { waitFor } from "../wait";

/**
 * Chaos: a storm of signed webhooks and a burst of checkouts while the queue loses messages (every other send
 * vanishes, as a restarted local queue's in-memory messages do), then while the consumer receives nothing at all
 * (as after the local consumer stopped). Every effect must happen exactly once within a bounded time, the lag
 * figure must rise and fall back, and nothing may stay waiting without being listed dead.
 */

const TYPE = `test.chaos.${unique()}`;
const db = openDb(env.DB);
const schema = z.object({ n: z.coerce.number().int() });

/** One effect per webhook, written with its processed record in one batch (the pattern every processor follows). */
const webhookEffect: Processor<z.output<typeof schema>> = {
  name: `chaos-webhook-${TYPE}`,
  types: [TYPE],
  async run(event, data, p) {
    await runBatch(p.db, [
      rawStatement(p.db, sql`INSERT INTO chaos_effects (event_id, kind, n) VALUES (${event.id}, 'webhook', ${data.n})`),
      p.done(),
    ]);
  },
};
/** One effect per event of any type: counts how often each event was processed. */
const everyEvent: Processor = {
  name: `chaos-every-${TYPE}`,
  types: "*",
  async run(event, _data, p) {
    await runBatch(p.db, [rawStatement(p.db, sql`INSERT INTO chaos_effects (event_id, kind, n) VALUES (${event.id}, 'every', 0)`), p.done()]);
  },
};

beforeAll(async () => {
  await env.DB.exec("CREATE TABLE IF NOT EXISTS chaos_effects (event_id TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL)");
  processors.push(webhookEffect, everyEvent);
  payloadSchemas[TYPE] = schema;
  const incoming = { type: TYPE, label: "Chaos", permission: null };
  INCOMING_EVENT_TYPES.push(incoming);
  return () => {
    for (const p of [webhookEffect, everyEvent]) processors.splice(processors.indexOf(p), 1);
    delete payloadSchemas[TYPE];
    INCOMING_EVENT_TYPES.splice(INCOMING_EVENT_TYPES.indexOf(incoming), 1);
    resetClock();
  };
});

/** The bindings with a queue that loses messages: every other send while "flaky", every send while "down". */
let queueState: "up" | "flaky" | "down" = "up";
let sends = 0;
let lost = 0;
const lossyQueue = {
  async send(body: unknown, opts?: QueueSendOptions) {
    if (loses()) return;
    return env.EVENTS.send(body, opts);
  },
  async sendBatch(messages: Iterable<MessageSendRequest>, opts?: QueueSendBatchOptions) {
    if (loses()) return;
    return env.EVENTS.sendBatch(messages, opts);
  },
};
function loses() {
  sends++;
  const drop = queueState === "down" || (queueState === "flaky" && sends % 2 === 0);
  if (drop) lost++;
  return drop;
}
const lossy = { ...env, EVENTS: lossyQueue } as unknown as Env;

let webhookN = 0;
function webhook(source: string, secret: string) {
  const n = ++webhookN;
  const body = JSON.stringify({ type: TYPE, timestamp: new Date().toISOString(), data: { n: String(n) } });
  const id = `msg_${unique()}${n}`;
  const at = new Date();
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
  const send = () => api("POST", `/webhooks/${source}`, { rawBody: body, headers, env: lossy });
  return { n, send };
}

/** Health as a monitor sees it. */
async function health() {
  const res = await api("GET", "/api/health");
  return { status: res.status, ...(res.body.events as { waiting: number; oldestWaitingSeconds: number }) };
}

const count = async (query: string) => (await env.DB.prepare(query).first<{ n: number }>())!.n;

describe("chaos: lost queue messages during a webhook storm and a checkout burst", () => {
  it("applies every effect exactly once, shows the lag rise and fall, and leaves nothing silently undone", async () => {
    const started = Date.now();
    const created = await merchant("POST", "/api/v1/webhook-sources", { name: `chaos-${unique()}`, eventTypes: [TYPE] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { source, secret } = created.body as { source: { name: string }; secret: string };
    const product = await trackedProduct(100);
    const checkouts = async (k: number) => Promise.all(Array.from({ length: k }, () => visitorCheckout(product.id, 2)));
    const place = (c: { token: string; checkoutId: string }) =>
      api("POST", `/ecom/v1/checkouts/${c.checkoutId}/create-order`, { key: c.token, body: { id: c.checkoutId }, env: lossy });
    const storm = async (webhooks: number, burst: { token: string; checkoutId: string }[]) => {
      const calls = Array.from({ length: webhooks }, () => webhook(source.name, secret));
      // A sender retries: every fifth webhook arrives twice, and must count once.
      const results = await Promise.all([
        ...calls.map((w) => w.send()),
        ...calls.filter((w) => w.n % 5 === 0).map((w) => w.send()),
        ...burst.map(place),
      ]);
      for (const r of results) expect([200, 204], JSON.stringify(r.body)).toContain(r.status);
    };

    // Phase 1: the queue loses every other send (a restarted local queue loses what it held).
    const burst1 = await checkouts(5);
    for (const c of burst1) await fillCheckout(c.token, c.checkoutId);
    queueState = "flaky";
    await storm(30, burst1);
    queueState = "up";
    expect(lost).toBeGreaterThan(0);
    const risen = await waitFor(async () => {
      const h = await health();
      return h.waiting > 0 ? h : null;
    }, "lost events to show as waiting");
    expect(risen.status).toBe(200);

    // Fifteen minutes later (the injectable clock) nothing has processed them: health alerts.
    advanceClock(16 * 60_000);
    const alert = await health();
    expect(alert.status).toBe(503);
    expect(alert.oldestWaitingSeconds).toBeGreaterThan(15 * 60);
    // The sweep re-sends them; the consumer's records make the copies already processed harmless.
    const swept = await runSweeps(env);
    expect(swept.eventsResent).toBeGreaterThan(0);
    await waitFor(async () => (await queueLag(db, now())).waiting === 0, "the re-sent events to be processed");
    expect(await health()).toMatchObject({ status: 200, waiting: 0, oldestWaitingSeconds: 0 });

    // Phase 2: the consumer receives nothing at all; under npm start the sweep takes over.
    const burst2 = await checkouts(4);
    for (const c of burst2) await fillCheckout(c.token, c.checkoutId);
    queueState = "down";
    await storm(20, burst2);
    expect((await queueLag(db, now())).waiting).toBeGreaterThan(0);
    for (let i = 0; i < 6 && (await queueLag(db, now())).waiting > 0; i++) {
      advanceClock(2 * 60_000);
      await runSweeps(lossy, { inlineWhenStalled: true });
    }
    expect(await queueLag(db, now())).toEqual({ waiting: 0, oldestWaitingSeconds: 0 });
    queueState = "up";

    // Every event was processed exactly once by each processor; every accepted webhook took effect once.
    const events = await count("SELECT count(*) AS n FROM outbox");
    expect(await count("SELECT count(DISTINCT event_id) AS n FROM chaos_effects WHERE kind = 'every'")).toBe(events);
    expect(await count("SELECT count(*) AS n FROM chaos_effects WHERE kind = 'every'")).toBe(events);
    expect(await count("SELECT count(*) AS n FROM chaos_effects WHERE kind = 'webhook'")).toBe(50);
    expect(await count("SELECT count(DISTINCT n) AS n FROM chaos_effects WHERE kind = 'webhook'")).toBe(50);
    // Every order was placed once and took its stock once.
    expect(await stockOf(product.id)).toMatchObject({ quantity: 100 - 2 * 9 });
    // Nothing waits, and nothing needed to be given up on.
    expect(await count("SELECT count(*) AS n FROM outbox WHERE done_at IS NULL")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM event_failures WHERE state = 'DEAD'")).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
