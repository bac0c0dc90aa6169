import { and, eq, lt, sql } from "drizzle-orm";
import { taskStatement } from "#worker/tasks";
import { nowIso } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { newId } from "#worker/platform/ids";
import {
  type JobHandler,
  type Processor,
  type EventEnvelope,
  type Statement,
  webhookAttempts,
  webhookDeliveries,
  webhookEvents,
  webhookSubscriptions,
} from "#worker/events";
import { targetUrlProblem } from "./addresses";
import { shopKey, signJwt, standardSignature } from "./signing";
import { wixClaims } from "./wix-format";
import { config } from "#worker/platform/config";
import { nowMs } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Outgoing webhooks. The processor turns each event that an enabled subscription wants into a delivery row (with
 * its processed-event record, in one batch) and a job message; the job makes one attempt, logs it, and on failure
 * schedules the next one through the queue's delay. The delivery row is the truth: a job message that was never
 * sent or got lost leaves it PENDING and overdue, and the sweep enqueues it again.
 */

export const DELIVERY_JOB = "webhook-delivery";

/** How long a claimed attempt holds the delivery before another message may try it. */
const LEASE_MS = 60_000;
/** A due message may arrive a little before the row's clock says so. */
const EARLY_MS = 5_000;
/** A PENDING delivery this far past due has lost its job message: the sweep enqueues it again. */
const OVERDUE_MS = 2 * 60_000;
const EXCERPT_BYTES = 1024;

/** The retry delays in seconds (WEBHOOK_RETRY_SCHEDULE: comma-separated seconds; tests shorten it). */
export function retrySchedule(env: Env): number[] {
  return config(env).webhookRetrySchedule;
}

/** Puts delivery jobs on the queue (after `delaySeconds`). A failed send is logged: the sweep finds the rows overdue. */
export async function enqueueDeliveries(env: Env, ids: string[], delaySeconds = 0): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    try {
      await env.EVENTS.sendBatch(chunk.map((id) => ({ body: { kind: DELIVERY_JOB, id }, contentType: "json" as const, delaySeconds })));
    } catch (err) {
      console.error("webhooks: could not enqueue deliveries; the sweep will", err);
    }
  }
}

const PROCESSOR = "webhooks:outgoing";

const outgoingProcessor: Processor = {
  name: PROCESSOR,
  types: "*",
  async run(event, _data, p) {
    const wants = sql`${webhookSubscriptions.enabled} = 1 AND EXISTS (SELECT 1 FROM json_each(${webhookSubscriptions.eventTypes}) WHERE value IN ('*', ${event.type}))`;
    // An event that came in through a webhook is not echoed out (a sender subscribed to "*" would loop).
    const echo = sql`EXISTS (SELECT 1 FROM ${webhookEvents} WHERE ${webhookEvents.id} = ${event.id})`;
    const recordDone = p.done();
    const [subscriptions, , incoming] = await runBatch(p.db, [
      p.db.select({ id: webhookSubscriptions.id }).from(webhookSubscriptions).where(wants),
      // Most events match no subscription: then this is the whole job, recorded in the same round trip.
      rawStatement(
        p.db,
        sql`INSERT INTO processed_events (event_id, processor, processed_at) SELECT ${event.id}, ${PROCESSOR}, ${nowIso()}
          WHERE ${echo} OR NOT EXISTS (SELECT 1 FROM ${webhookSubscriptions} WHERE ${wants}) ON CONFLICT DO NOTHING`,
      ),
      p.db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, event.id)).limit(1),
    ]);
    if (incoming.length > 0 || subscriptions.length === 0) return;
    const now = nowIso();
    const rows = subscriptions.map((s) => ({
      id: newId(),
      subscriptionId: s.id,
      eventId: event.id,
      eventType: event.type,
      event: event as unknown as Record<string, unknown>,
      status: "PENDING" as const,
      nextAttemptAt: now,
      createdDate: now,
      updatedDate: now,
    }));
    const inserts: Statement[] = rows.map((r) => p.db.insert(webhookDeliveries).values(r).onConflictDoNothing());
    await runBatch(p.db, [recordDone, ...inserts]);
    await enqueueDeliveries(
      p.env,
      rows.map((r) => r.id),
    );
  },
};

/** The request of one attempt, signed for the subscription's format. */
async function buildRequest(env: Env, subscription: typeof webhookSubscriptions.$inferSelect, event: EventEnvelope, nowSeconds: number) {
  const headers: Record<string, string> = {
    "user-agent": "EdgeStorefront-Webhooks/1",
    "webhook-id": event.id,
    "webhook-timestamp": String(nowSeconds),
  };
  if (subscription.format === "wix") {
    const configured = config(env).webhookSigningKey;
    if (!configured) throw new Error("WEBHOOK_SIGNING_KEY is not configured: wix-format deliveries cannot be signed");
    const { privateKey } = await shopKey(configured);
    return { body: await signJwt(privateKey, wixClaims(event, subscription.id, nowSeconds)), headers: { ...headers, "content-type": "text/plain" } };
  }
  const body = JSON.stringify({ type: event.type, timestamp: event.eventTime, data: event });
  const secrets = [subscription.secret];
  if (subscription.previousSecret && subscription.previousSecretExpiresAt && Date.parse(subscription.previousSecretExpiresAt) > nowSeconds * 1000) {
    secrets.push(subscription.previousSecret);
  }
  const signatures = await Promise.all(secrets.map((s) => standardSignature(s, event.id, nowSeconds, body)));
  return { body, headers: { ...headers, "content-type": "application/json", "webhook-signature": signatures.join(" ") } };
}

/** At most EXCERPT_BYTES of a response body, as text; the rest is not read. */
async function excerpt(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < EXCERPT_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => {});
  const bytes = new Uint8Array(Math.min(size, EXCERPT_BYTES));
  let at = 0;
  for (const p of parts) {
    const take = p.subarray(0, bytes.length - at);
    bytes.set(take, at);
    at += take.length;
    if (at >= bytes.length) break;
  }
  return new TextDecoder().decode(bytes);
}

interface AttemptResult {
  succeeded: boolean;
  responseStatus: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** One POST to the receiver: 2xx is success; anything else, a redirect, a timeout or no connection is a failure. */
async function attempt(env: Env, subscription: typeof webhookSubscriptions.$inferSelect, event: EventEnvelope): Promise<AttemptResult> {
  // At most 30 s, well inside the minute-long lease on the delivery.
  const timeoutSeconds = config(env).webhookTimeoutSeconds;
  const started = Date.now();
  try {
    const { body, headers } = await buildRequest(env, subscription, event, Math.floor(started / 1000));
    const res = await fetch(subscription.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    const text = await excerpt(res).catch(() => "");
    const latencyMs = Date.now() - started;
    const succeeded = res.status >= 200 && res.status < 300;
    return { succeeded, responseStatus: res.status, latencyMs, responseExcerpt: text, error: succeeded ? null : `HTTP ${res.status}` };
  } catch (err) {
    const latencyMs = Date.now() - started;
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    const error = timedOut ? `no response within ${timeoutSeconds} s` : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { succeeded: false, responseStatus: null, latencyMs, responseExcerpt: null, error: error.slice(0, 1000) };
  }
}

/** The job: claims the delivery if it is due, makes one attempt, logs it and decides what comes next. */
const deliver: JobHandler = async (job, p) => {
  const db = p.db;
  const now = nowMs();
  const { delivery, subscription } = await claimDelivery(db, job.id, now);
  // Not due (a duplicate message, or one overtaken by a redelivery), finished, or deleted with its subscription.
  if (!delivery) return;
  if (!subscription?.enabled) return failForDisabled(db, delivery);

  // A URL saved before the target rules tightened (or under another ENVIRONMENT) is never sent to: the delivery
  // fails at once, with nothing sent, and the subscription is disabled until the merchant gives an allowed URL.
  const refused = targetUrlProblem(p.env, subscription.url);
  if (refused) return refuseTarget(db, delivery, subscription, refused, now);

  const result = await attempt(p.env, subscription, delivery.event as unknown as EventEnvelope);
  const at = nowIso();
  const log = db
    .insert(webhookAttempts)
    .values({ id: newId(), deliveryId: delivery.id, attempt: delivery.attempts, startedDate: new Date(now).toISOString(), ...result });

  if (result.succeeded) return recordSuccess(db, log, delivery, subscription, at);
  const schedule = retrySchedule(p.env);
  if (delivery.scheduleAttempts <= schedule.length)
    return scheduleRetry(p.env, db, log, delivery, schedule[delivery.scheduleAttempts - 1], result, at);
  return failDelivery(p.env, db, log, delivery, subscription, result, at);
};

type Delivery = typeof webhookDeliveries.$inferSelect;
type Subscription = typeof webhookSubscriptions.$inferSelect;

/** Claims the delivery for one attempt (if it is PENDING and due) and reads its subscription, in one batch. */
async function claimDelivery(db: Db, id: string, now: number): Promise<{ delivery: Delivery | undefined; subscription: Subscription | undefined }> {
  const [claimed, [subscription]] = await runBatch(db, [
    db
      .update(webhookDeliveries)
      .set({
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        scheduleAttempts: sql`${webhookDeliveries.scheduleAttempts} + 1`,
        nextAttemptAt: new Date(now + LEASE_MS).toISOString(),
        updatedDate: new Date(now).toISOString(),
      })
      .where(
        and(
          eq(webhookDeliveries.id, id),
          eq(webhookDeliveries.status, "PENDING"),
          lt(webhookDeliveries.nextAttemptAt, new Date(now + EARLY_MS).toISOString()),
        ),
      )
      .returning(),
    db.select().from(webhookSubscriptions).where(sql`${webhookSubscriptions.id} = (SELECT subscription_id FROM webhook_deliveries WHERE id = ${id})`),
  ]);
  return { delivery: claimed[0], subscription };
}

/** The subscription was disabled after the delivery was made: it fails without an attempt (the claim is undone). */
async function failForDisabled(db: Db, delivery: Delivery): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({
      status: "FAILED",
      nextAttemptAt: null,
      lastError: "the subscription is disabled",
      attempts: delivery.attempts - 1,
      scheduleAttempts: delivery.scheduleAttempts - 1,
      updatedDate: nowIso(),
    })
    .where(eq(webhookDeliveries.id, delivery.id));
}

/** A URL the target rules refuse: the attempt is logged as not sent, the delivery fails, the subscription is disabled. */
async function refuseTarget(db: Db, delivery: Delivery, subscription: Subscription, refused: string, now: number): Promise<void> {
  const error = `Not sent: the URL ${refused}`.slice(0, 1000);
  const at = nowIso();
  await runBatch(db, [
    db.insert(webhookAttempts).values({
      id: newId(),
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      startedDate: new Date(now).toISOString(),
      succeeded: false,
      responseStatus: null,
      latencyMs: 0,
      responseExcerpt: null,
      error,
    }),
    db
      .update(webhookDeliveries)
      .set({ status: "FAILED", nextAttemptAt: null, lastError: error, updatedDate: at })
      .where(eq(webhookDeliveries.id, delivery.id)),
    db
      .update(webhookSubscriptions)
      .set({
        enabled: false,
        disabledReason: `Disabled: its URL ${refused}. Change it to an allowed URL, then enable it.`.slice(0, 1000),
        updatedDate: at,
      })
      .where(and(eq(webhookSubscriptions.id, subscription.id), eq(webhookSubscriptions.enabled, true))),
  ]);
}

/** A 2xx: the delivery succeeded and the subscription's run of failures ends. */
async function recordSuccess(db: Db, log: Statement, delivery: Delivery, subscription: Subscription, at: string): Promise<void> {
  await runBatch(db, [
    log,
    db
      .update(webhookDeliveries)
      .set({ status: "SUCCEEDED", nextAttemptAt: null, lastError: null, updatedDate: at })
      .where(eq(webhookDeliveries.id, delivery.id)),
    db
      .update(webhookSubscriptions)
      .set({ consecutiveFailures: 0 })
      .where(and(eq(webhookSubscriptions.id, subscription.id), sql`${webhookSubscriptions.consecutiveFailures} > 0`)),
  ]);
}

/** A failed attempt with the schedule not yet run out: the next one comes after `delay` seconds. */
async function scheduleRetry(env: Env, db: Db, log: Statement, delivery: Delivery, delay: number, result: AttemptResult, at: string): Promise<void> {
  await runBatch(db, [
    log,
    db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: new Date(nowMs() + delay * 1000).toISOString(), lastError: result.error, updatedDate: at })
      .where(eq(webhookDeliveries.id, delivery.id)),
  ]);
  await enqueueDeliveries(env, [delivery.id], delay);
}

/**
 * The schedule ran out: the delivery failed. Enough failed deliveries in a row disable the subscription. The count
 * is judged in SQL after this batch's own increment, so deliveries to one subscription failing at the same moment
 * (the consumer runs deliveries side by side) still disable it exactly when the count is reached.
 */
async function failDelivery(
  env: Env,
  db: Db,
  log: Statement,
  delivery: Delivery,
  subscription: Subscription,
  result: AttemptResult,
  at: string,
): Promise<void> {
  const disableAfter = config(env).webhookDisableAfter;
  const reached = sql`(SELECT consecutive_failures FROM webhook_subscriptions WHERE id = ${subscription.id}) >= ${disableAfter}`;
  const statements: Statement[] = [
    log,
    db
      .update(webhookDeliveries)
      .set({ status: "FAILED", nextAttemptAt: null, lastError: result.error, updatedDate: at })
      .where(eq(webhookDeliveries.id, delivery.id)),
    db
      .update(webhookSubscriptions)
      .set({ consecutiveFailures: sql`${webhookSubscriptions.consecutiveFailures} + 1` })
      .where(eq(webhookSubscriptions.id, subscription.id)),
    db
      .update(webhookSubscriptions)
      .set({
        enabled: false,
        disabledReason: sql`'Disabled after ' || ${webhookSubscriptions.consecutiveFailures} || ' deliveries in a row failed every attempt (last: ' || ${result.error ?? "unknown error"} || ')'`,
        updatedDate: at,
      })
      .where(
        and(
          eq(webhookSubscriptions.id, subscription.id),
          eq(webhookSubscriptions.enabled, true),
          sql`${webhookSubscriptions.consecutiveFailures} >= ${disableAfter}`,
        ),
      ),
    taskStatement(
      db,
      {
        kind: "WEBHOOK_DISABLED",
        title: `Webhook to ${subscription.url} was disabled`,
        description: `Its deliveries failed every attempt ${disableAfter} or more times in a row (last: ${result.error}). Fix the receiver, enable the subscription again, then redeliver the failed deliveries.`,
        entityId: subscription.id,
        dedupeKey: `webhook-disabled:${subscription.id}`,
      },
      sql`${reached} AND (SELECT enabled FROM webhook_subscriptions WHERE id = ${subscription.id}) = 0`,
    ),
  ];
  await runBatch(db, statements);
}

/** Sweep: enqueues PENDING deliveries whose job message is overdue (never sent, or lost). Returns how many. */
export async function requeueOverdueDeliveries(env: Env, db: Db, now: Date): Promise<number> {
  const rows = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "PENDING"), lt(webhookDeliveries.nextAttemptAt, new Date(now.getTime() - OVERDUE_MS).toISOString())))
    .limit(500);
  await enqueueDeliveries(
    env,
    rows.map((r) => r.id),
  );
  return rows.length;
}

export const webhookProcessors: Processor<any>[] = [outgoingProcessor];
export const webhookJobs: Record<string, JobHandler> = { [DELIVERY_JOB]: deliver };
