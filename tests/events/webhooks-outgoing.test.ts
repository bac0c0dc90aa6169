import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../entry/index";
import type { EventEnvelope } from "#worker/events/outbox";
import { runSweeps } from "#worker/app/sweeps";
import { EventType } from "#worker/events/types";
import { checkTargetUrl } from "#worker/webhooks/subscriptions";
import { api, createProduct, merchant, unique } from "../helpers";
import { waitFor } from "../wait";

/**
 * Outgoing webhooks inside workerd: subscriptions and their checks, the processor that turns events into deliveries
 * (once per event, however often the event arrives), failures against a receiver that is not there (every attempt
 * logged, retried on the schedule, FAILED, then the subscription disabled with a task), the sweep that re-enqueues
 * a lost delivery, and manual redelivery. Deliveries to a real receiver that verifies signatures are in
 * tests/node/webhooks-delivery.test.ts. The test bindings shorten the schedule to 1 s + 1 s and disable after 2.
 */

// Nothing listens on port 9 (discard) here: every attempt fails to connect.
const DEAD_URL = "http://127.0.0.1:9/hooks";

const created: string[] = [];
async function subscribe(body: Record<string, unknown>) {
  const res = await merchant("POST", "/api/v1/webhook-subscriptions", { url: DEAD_URL, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  created.push(res.body.subscription.id);
  return res.body as { subscription: { id: string; url: string; eventTypes: string[]; enabled: boolean }; secret?: string };
}
afterEach(async () => {
  // Other suites' events must not reach these subscriptions.
  for (const id of created.splice(0)) await merchant("DELETE", `/api/v1/webhook-subscriptions/${id}`);
});

const envelope = (type: string): EventEnvelope => ({
  id: crypto.randomUUID(),
  type,
  entityId: crypto.randomUUID(),
  eventTime: new Date().toISOString(),
  actor: { type: "MEMBER", id: "m-1" },
  data: { productId: "p-1" },
});

async function queue(bodies: unknown[]) {
  const batch = createMessageBatch(
    "edge-storefront-events",
    bodies.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

const deliveriesOf = async (subscriptionId: string, query = "") =>
  (await merchant("GET", `/api/v1/webhook-subscriptions/${subscriptionId}/deliveries${query}`)).body;

describe("webhook subscriptions (merchant API)", () => {
  it("shows the secret once, lists and updates without it, rotates it, and is merchant only", async () => {
    const type = `test.out.${unique()}`;
    const { subscription, secret } = await subscribe({ eventTypes: [type], description: "ERP" });
    expect(secret).toMatch(/^whsec_/);
    expect(subscription).toMatchObject({ url: DEAD_URL, eventTypes: [type], enabled: true, format: "standard" });
    const got = await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`);
    expect(got.body.subscription).toMatchObject({ id: subscription.id, description: "ERP" });
    expect(JSON.stringify(got.body)).not.toContain(secret!.slice(6));
    expect(JSON.stringify((await merchant("GET", "/api/v1/webhook-subscriptions")).body)).not.toContain(secret!.slice(6));

    const updated = await merchant("PATCH", `/api/v1/webhook-subscriptions/${subscription.id}`, { eventTypes: "*", enabled: false });
    expect(updated.body.subscription).toMatchObject({ eventTypes: ["*"], enabled: false, disabledReason: "Disabled by the merchant" });
    const rotated = await merchant("POST", `/api/v1/webhook-subscriptions/${subscription.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);

    expect((await api("GET", "/api/v1/webhook-subscriptions")).status).toBe(401);
    expect((await api("POST", "/api/v1/webhook-subscriptions", { body: { url: DEAD_URL, eventTypes: "*" } })).status).toBe(401);
    expect((await merchant("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`)).status).toBe(200);
    expect((await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).status).toBe(404);
  });

  it("refuses target URLs with another scheme, credentials, or plain http to a public host; https only in production", async () => {
    const before = (await merchant("GET", "/api/v1/webhook-subscriptions")).body.subscriptions.length;
    for (const url of ["ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x", "http://example.com/hook", "javascript:alert(1)", "not a url"]) {
      const res = await merchant("POST", "/api/v1/webhook-subscriptions", { url, eventTypes: "*" });
      expect(res.status, url).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0].field).toBe("url");
    }
    const noTypes = await merchant("POST", "/api/v1/webhook-subscriptions", { url: DEAD_URL, eventTypes: [] });
    expect(noTypes.status).toBe(400);
    expect((await merchant("GET", "/api/v1/webhook-subscriptions")).body.subscriptions.length).toBe(before);

    const production = { ...env, ENVIRONMENT: "production" } as Env;
    expect(checkTargetUrl(production, "https://hooks.example.com/in")).toBe("https://hooks.example.com/in");
    for (const url of ["http://hooks.example.com/in", "https://127.0.0.1/in", "https://10.0.0.4/in", "https://localhost/in"]) {
      expect(() => checkTargetUrl(production, url), url).toThrow();
    }
    expect(checkTargetUrl(env, "http://localhost:8080/in")).toBe("http://localhost:8080/in");
  });

  it("publishes the shop's RSA public key for wix-format receivers", async () => {
    const res = await api("GET", "/api/v1/webhook-public-key");
    expect(res.status).toBe(200);
    expect(res.body.algorithm).toBe("RS256");
    expect(res.body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    const der = Uint8Array.from(atob(res.body.publicKey.replace(/-----[A-Z ]+-----|\s/g, "")), (c) => c.charCodeAt(0));
    await expect(crypto.subtle.importKey("spki", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["verify"])).resolves.toBeDefined();
  });
});

describe("deliveries", () => {
  it("turns a matching event into one delivery, however often the event is delivered", async () => {
    const type = `test.out.${unique()}`;
    const { subscription } = await subscribe({ eventTypes: [type] });
    const other = await subscribe({ eventTypes: [`test.other.${unique()}`] });
    const event = envelope(type);
    const first = await queue([event]);
    expect(first.explicitAcks).toHaveLength(1);
    await queue([event, event]);
    const { deliveries } = await deliveriesOf(subscription.id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ eventId: event.id, eventType: type, event });
    expect((await deliveriesOf(other.subscription.id)).deliveries).toHaveLength(0);
  });

  it("feeds catalogue events from the outbox to a subscription", async () => {
    const { subscription } = await subscribe({ eventTypes: [EventType.productCreated] });
    const product = await createProduct({ name: `Hooked tee ${unique()}` });
    const delivery = await waitFor(
      async () => (await deliveriesOf(subscription.id)).deliveries.find((d: any) => d.event.entityId === product.id),
      "the delivery",
    );
    expect(delivery.event).toMatchObject({
      type: EventType.productCreated,
      entityId: product.id,
      actor: { type: "APP", id: "owner" },
      data: { productId: product.id },
    });
  });

  it("disables the subscription once when its deliveries fail side by side", { timeout: 60_000 }, async () => {
    const type = `test.out.${unique()}`;
    const { subscription } = await subscribe({ eventTypes: [type] });
    // One batch, two events: their deliveries run (and fail) at the same moments.
    await queue([envelope(type), envelope(type)]);
    await waitFor(async () => (await deliveriesOf(subscription.id, "?status=FAILED")).deliveries.length === 2, "both deliveries to fail", 40_000);
    const sub = (await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription;
    expect(sub).toMatchObject({ enabled: false, consecutiveFailures: 2 });
    expect(sub.disabledReason).toMatch(/^Disabled after 2 deliveries in a row failed every attempt \(last: .+\)$/);
    const tasks = (await merchant("GET", "/api/v1/tasks?status=OPEN&kind=WEBHOOK_DISABLED&limit=100")).body.tasks;
    expect(tasks.filter((t: any) => t.entityId === subscription.id)).toHaveLength(1);
  });

  it("logs every failed attempt, retries on the schedule, fails the delivery, and disables the subscription with a task", {
    timeout: 90_000,
  }, async () => {
    const type = `test.out.${unique()}`;
    const { subscription } = await subscribe({ eventTypes: [type] });
    const [e1, e2] = [envelope(type), envelope(type)];
    await queue([e1]);
    // The real queue runs the job: 3 attempts (now, +1 s, +1 s), each refused, then FAILED.
    const failed = await waitFor(
      async () => (await deliveriesOf(subscription.id, "?status=FAILED")).deliveries[0],
      "the first delivery to fail",
      25_000,
    );
    expect(failed.attemptCount).toBe(3);
    expect(failed.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3]);
    for (const a of failed.attempts) {
      expect(a).toMatchObject({ succeeded: false, responseStatus: null });
      expect(a.error).toBeTruthy();
      expect(a.latencyMs).toBeGreaterThanOrEqual(0);
    }
    const gaps = failed.attempts.slice(1).map((a: any, i: number) => Date.parse(a.startedDate) - Date.parse(failed.attempts[i].startedDate));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(900);
    let sub = (await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription;
    expect(sub).toMatchObject({ enabled: true, consecutiveFailures: 1 });

    // A second delivery failing every attempt disables it (WEBHOOK_DISABLE_AFTER=2) and tells the merchant.
    await queue([e2]);
    await waitFor(
      async () => !(await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription.enabled,
      "the subscription to be disabled",
      25_000,
    );
    sub = (await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription;
    expect(sub.disabledReason).toMatch(/2 deliveries in a row failed/);
    const tasks = (await merchant("GET", "/api/v1/tasks?status=OPEN&kind=WEBHOOK_DISABLED")).body.tasks;
    expect(tasks.filter((t: any) => t.entityId === subscription.id)).toHaveLength(1);

    // A disabled subscription gets no new deliveries, and cannot be redelivered to until enabled.
    await queue([envelope(type)]);
    expect((await deliveriesOf(subscription.id)).deliveries).toHaveLength(2);
    const refused = await merchant("POST", `/api/v1/webhook-deliveries/${failed.id}/redeliver`);
    expect(refused.status).toBe(409);
    expect(refused.body.details.applicationError.code).toBe("WEBHOOK_SUBSCRIPTION_DISABLED");

    // Enabled again: a manual redelivery starts a fresh schedule, and the attempt log goes on.
    const enabled = await merchant("PATCH", `/api/v1/webhook-subscriptions/${subscription.id}`, { enabled: true });
    expect(enabled.body.subscription).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
    const redelivered = await merchant("POST", `/api/v1/webhook-deliveries/${failed.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    expect(redelivered.body.delivery.status).toBe("PENDING");
    const again = await waitFor(
      async () => {
        const d = (await merchant("GET", `/api/v1/webhook-deliveries/${failed.id}`)).body.delivery;
        return d.status === "FAILED" && d.attemptCount === 6 ? d : null;
      },
      "the redelivery to run its schedule",
      25_000,
    );
    expect(again.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("re-enqueues a delivery whose job message was lost when the sweep runs", async () => {
    const type = `test.out.${unique()}`;
    const { subscription } = await subscribe({ eventTypes: [type] });
    // The queue is down when the processor enqueues the job: the delivery row exists, its message does not.
    const queueBinding = env.EVENTS as Queue;
    const original = queueBinding.sendBatch;
    queueBinding.sendBatch = async () => {
      throw new Error("Queue send failed: service unavailable");
    };
    const error = console.error;
    console.error = () => {};
    try {
      await queue([envelope(type)]);
    } finally {
      queueBinding.sendBatch = original;
      console.error = error;
    }
    const [pending] = (await deliveriesOf(subscription.id)).deliveries;
    expect(pending).toMatchObject({ status: "PENDING", attemptCount: 0 });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await merchant("GET", `/api/v1/webhook-deliveries/${pending.id}`)).body.delivery.attemptCount).toBe(0);

    // Three minutes later the sweep finds it overdue and enqueues it again.
    const swept = await runSweeps(env, { now: new Date(Date.now() + 3 * 60_000) });
    expect(swept.automations.webhookDeliveriesRequeued).toBeGreaterThanOrEqual(1);
    // The count goes up when an attempt starts, its log entry when it ends: wait for the entry.
    const tried = await waitFor(async () => {
      const d = (await merchant("GET", `/api/v1/webhook-deliveries/${pending.id}`)).body.delivery;
      return d.attempts.length >= 1 ? d : null;
    }, "the swept delivery's attempt");
    expect(tried.attempts[0]).toMatchObject({ attempt: 1, succeeded: false });
  });

  it("costs the consumer three D1 round trips for an event nobody subscribed to, four for one with a delivery, two per attempt", async () => {
    // Counts every call that reaches D1 (a statement's all/first/run/raw, or one batch), as the Server-Timing header does.
    let trips = 0;
    const counting = (stmt: D1PreparedStatement): D1PreparedStatement =>
      new Proxy(stmt, {
        get(target, prop) {
          if (prop === "bind") return (...v: unknown[]) => counting(target.bind(...v));
          const value = Reflect.get(target, prop, target);
          if (["all", "first", "run", "raw"].includes(prop as string)) trips++;
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const db = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare") return (q: string) => counting(target.prepare(q));
        if (prop === "batch") return (s: D1PreparedStatement[]) => (trips++, target.batch(s));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const counted = async (body: unknown) => {
      trips = 0;
      const batch = createMessageBatch("edge-storefront-events", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body }]);
      const ctx = createExecutionContext();
      await worker.queue(batch, { ...env, DB: db } as Env, ctx);
      expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
      return trips;
    };
    const type = `test.out.${unique()}`;
    const unwanted = await counted(envelope(`test.nobody.${unique()}`));
    const { subscription } = await subscribe({ eventTypes: [type] });
    const wanted = await counted(envelope(type));
    const [delivery] = (await deliveriesOf(subscription.id)).deliveries;
    // Let the real queue's copy of the job make its attempt, then count one (redelivered by hand) attempt.
    await waitFor(
      async () => (await merchant("GET", `/api/v1/webhook-deliveries/${delivery.id}`)).body.delivery.attemptCount >= 1,
      "the first attempt",
    );
    await env.DB.prepare("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?").bind(new Date().toISOString(), delivery.id).run();
    const perAttempt = await counted({ kind: "webhook-delivery", id: delivery.id });
    console.log(
      `D1 round trips in the consumer: event without subscribers ${unwanted}, event with one delivery ${wanted}, one delivery attempt ${perAttempt}`,
    );
    // Each includes the event's done mark, written once its last processor has recorded its result.
    expect(unwanted).toBe(3);
    expect(wanted).toBe(4);
    expect(perAttempt).toBe(2);
  });
});

describe("target addresses at delivery time", () => {
  /** A delivery row for the subscription, made directly so no queue message runs it behind the test's back. */
  async function pendingDelivery(subscriptionId: string) {
    const id = crypto.randomUUID();
    const now = new Date(Date.now() - 1000).toISOString();
    const event = envelope(`test.out.${unique()}`);
    await env.DB.prepare(
      "INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, event, status, attempts, schedule_attempts, next_attempt_at, created_date, updated_date) VALUES (?, ?, ?, ?, ?, 'PENDING', 0, 0, ?, ?, ?)",
    )
      .bind(id, subscriptionId, event.id, event.type, JSON.stringify(event), now, now, now)
      .run();
    return id;
  }
  const runJob = async (id: string, jobEnv: Env) => {
    const batch = createMessageBatch("edge-storefront-events", [
      { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { kind: "webhook-delivery", id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, jobEnv, ctx);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
  };

  it("never sends to a URL saved before it was refused: the delivery fails unsent and the subscription is disabled", async () => {
    const production = { ...env, ENVIRONMENT: "production" } as Env;
    const cases: [string, Env, string][] = [
      [
        "https://[::ffff:127.0.0.1]/in",
        production,
        "Not sent: the URL must be a public address: [::ffff:7f00:1] is the IPv4-mapped form of a loopback address (127.0.0.0/8)",
      ],
      [
        "https://metadata.google.internal/computeMetadata/v1/",
        production,
        "Not sent: the URL must be a public address: metadata.google.internal is under .internal, which is not public DNS",
      ],
      ["http://10.0.0.1:9/hooks", env, "Not sent: the URL must use https (plain http is allowed only to localhost, 127.0.0.1 or [::1])"],
    ];
    const fetched: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return realFetch(input, init);
    }) as typeof fetch;
    try {
      for (const [url, jobEnv, error] of cases) {
        const { subscription } = await subscribe({ eventTypes: [`test.out.${unique()}`] });
        // As if saved under older rules.
        await env.DB.prepare("UPDATE webhook_subscriptions SET url = ? WHERE id = ?").bind(url, subscription.id).run();
        const id = await pendingDelivery(subscription.id);
        await runJob(id, jobEnv);
        const { delivery } = (await merchant("GET", `/api/v1/webhook-deliveries/${id}`)).body;
        expect(delivery).toMatchObject({
          status: "FAILED",
          lastError: error,
          attempts: [{ attempt: 1, succeeded: false, responseStatus: null, error }],
        });
        const sub = (await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription;
        expect(sub.enabled, url).toBe(false);
        expect(sub.disabledReason).toBe(
          `Disabled: its URL ${error.slice("Not sent: the URL ".length)}. Change it to an allowed URL, then enable it.`,
        );
      }
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetched).toEqual([]);
  });

  it("will not enable a subscription again while its saved URL is refused", async () => {
    const { subscription } = await subscribe({ eventTypes: [`test.out.${unique()}`], enabled: false });
    await env.DB.prepare("UPDATE webhook_subscriptions SET url = ? WHERE id = ?").bind("http://192.168.1.10/hooks", subscription.id).run();
    const refused = await merchant("PATCH", `/api/v1/webhook-subscriptions/${subscription.id}`, { enabled: true });
    expect(refused.status).toBe(400);
    expect(refused.body.details.validationError.fieldViolations[0]).toMatchObject({
      field: "url",
      description: "must use https (plain http is allowed only to localhost, 127.0.0.1 or [::1])",
    });
    expect((await merchant("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription.enabled).toBe(false);
    const fixed = await merchant("PATCH", `/api/v1/webhook-subscriptions/${subscription.id}`, { enabled: true, url: DEAD_URL });
    expect(fixed.body.subscription).toMatchObject({ enabled: true, url: DEAD_URL });
  });
});
