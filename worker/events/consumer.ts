import { sql } from "drizzle-orm";
import { z } from "zod";
import { isUniqueViolation } from "#worker/platform/batch";
import { nowIso, systemCtx, type Ctx } from "#worker/platform/context";
import { openDb, type Db } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import type { EventEnvelope, Statement } from "./outbox";
import { eventFailures, outbox, processedEvents } from "./tables";
import { config } from "#worker/platform/config";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The EVENTS queue consumer. A message is either an event envelope (from the outbox or an incoming webhook) or a
 * job (`{ kind, id, … }`, e.g. one outgoing webhook delivery). Delivery is at least once, so:
 * - every processor of an event runs at most once in effect: it writes `p.done()` (its processed-event row) in the
 *   same D1 batch as its effect, and a redelivered event skips the processors already recorded;
 * - a failure retries that message alone with a growing delay, recorded as RETRYING with the error; after the
 *   queue's max_retries the message reaches the dead-letter queue and is recorded DEAD, where the merchant can see
 *   and replay it (worker/events/failures.ts). Nothing is dropped silently: even a malformed message is recorded.
 */

export const envelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  entityId: z.string(),
  // An ISO-8601 string (as the outbox writes it); null or a number must not turn into 1970.
  eventTime: z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO-8601 date")
    .transform((s) => new Date(s)),
  actor: z.object({ type: z.string(), id: z.string().nullable() }),
  data: z.record(z.string(), z.unknown()),
});

const jobSchema = z.object({ kind: z.string().min(1), id: z.string().min(1) }).loose();

/** What a processor gets besides the event. */
export interface ProcessorContext {
  env: Env;
  db: Db;
  /** The shop acting on its own (an APP actor named after the processor), for calling services. */
  ctx: Ctx;
  /** How many times this message has been delivered (1 on the first try). */
  attempts: number;
  /**
   * The statement that records this event as processed by this processor. Put it in the batch that makes the
   * processor's effect, so effect and record commit together. If the processor never asks for it, the consumer
   * records the event after the processor returns.
   */
  done(): Statement;
  /**
   * For a processor whose effect takes several batches: the statement that claims one named step of this event.
   * Unlike done() it is a plain insert, so the second batch claiming the same step fails (isStepClaimed) and the
   * step's effect commits at most once, even when two copies of the event run at the same instant.
   */
  claimStep(step: string): Statement;
  /** The steps of this processor already claimed for this event (a redelivery skips them). */
  claimedSteps: ReadonlySet<string>;
}

/** Whether a batch failed because its claimStep statement found the step already claimed. */
export function isStepClaimed(err: unknown): boolean {
  return isUniqueViolation(err, "processed_events.");
}

export interface Processor<T = Record<string, unknown>> {
  /** Stable and unique: it keys the processed-event records. */
  name: string;
  /** The event types it handles, or "*" for every event. */
  types: readonly string[] | "*";
  /** `data` is the event's data parsed by the type's payload schema (EventRegistry), when it has one. */
  run(event: EventEnvelope, data: T, p: ProcessorContext): Promise<void>;
}

/** A job message's handler. Throwing retries the message with the consumer's backoff. */
export type JobHandler = (
  job: { kind: string; id: string } & Record<string, unknown>,
  p: Omit<ProcessorContext, "done" | "claimStep" | "claimedSteps">,
) => Promise<void>;

/** Who handles what on the EVENTS queue: built by the composition root, handed to the consumer. */
export interface EventRegistry {
  /** Processors by registration order; each names the event types it handles. */
  processors: Processor<any>[];
  /** Payload schemas by event type: `data` is parsed with them before any processor runs. */
  payloadSchemas: Record<string, z.ZodType>;
  /** Handlers of job messages (`{ kind, id, … }`) by kind. */
  jobs: Record<string, JobHandler>;
}

/**
 * A failure no retry can fix (the event names a product that does not exist, the data breaks a rule): thrown by a
 * processor or job, it records the message DEAD at once instead of retrying it five times first. Service errors
 * for bad input (ApiError 400, 403, 404, 422) count as permanent too; conflicts and rate limits are retried.
 */
export class PermanentFailure extends Error {
  override name = "PermanentFailure";
}

function isPermanent(err: unknown): boolean {
  return err instanceof PermanentFailure || (err instanceof ApiError && [400, 403, 404, 422].includes(err.status));
}

/** Growing delay between attempts: base × 2^(attempt − 1), at most an hour. The base is 30 s unless configured. */
export function retryDelaySeconds(env: Env, attempts: number): number {
  const base = config(env).eventRetryBaseSeconds;
  return Math.min(base * 2 ** Math.max(0, attempts - 1), 3600);
}

/** The processors of the registry that handle this event type, in registration order. */
export function processorsFor(registry: EventRegistry, type: string): Processor[] {
  return registry.processors.filter((p) => p.types === "*" || p.types.includes(type));
}

/** Handles one queue batch (events, jobs, or the dead-letter queue's messages) with the registry's processors and jobs. */
export async function handleEventBatch(batch: MessageBatch<unknown>, env: Env, exec: ExecutionContext, registry: EventRegistry): Promise<void> {
  const db = openDb(env.DB);
  const deadLetters = batch.queue.endsWith("-dlq");
  const handle = async (message: Message<unknown>) => {
    try {
      if (deadLetters) await recordDead(db, message);
      else await handleMessage(db, env, exec, registry, message);
      message.ack();
    } catch (err) {
      if (err instanceof RetryScheduled) return;
      // Recording the failure itself failed (D1 unavailable): let the queue redeliver.
      console.error("event consumer: could not handle or record message", message.id, err);
      message.retry({ delaySeconds: retryDelaySeconds(env, message.attempts) });
    }
  };
  // Events run one after another in the order they came (one cart's abandoned and recovered events stay in
  // sequence). Jobs (outgoing deliveries) are independent of each other and of the events, so they run side by side:
  // a receiver that takes its whole timeout does not hold up the rest of the batch.
  const jobsHere = deadLetters ? [] : batch.messages.filter((m) => isJobMessage(m.body));
  const inOrder = batch.messages.filter((m) => !jobsHere.includes(m));
  await Promise.all([
    (async () => {
      for (const message of inOrder) await handle(message);
    })(),
    ...jobsHere.map(handle),
  ]);
}

function isJobMessage(body: unknown): boolean {
  return !envelopeSchema.safeParse(body).success && jobSchema.safeParse(body).success;
}

async function handleMessage(db: Db, env: Env, exec: ExecutionContext, registry: EventRegistry, message: Message<unknown>): Promise<void> {
  const envelope = envelopeSchema.safeParse(message.body);
  if (envelope.success)
    return handleEvent(db, env, exec, registry, message, { ...envelope.data, eventTime: envelope.data.eventTime.toISOString() } as EventEnvelope);
  const job = jobSchema.safeParse(message.body);
  const handler = job.success ? registry.jobs[job.data.kind] : undefined;
  if (job.success && handler) return handleJob(db, env, exec, message, job.data, handler);
  // No retry can fix a message we cannot read: record it dead at once, visible to the merchant.
  await recordFailure(db, message, { id: `message:${message.id}`, type: "malformed" }, null, `malformed message: ${envelope.error.message}`, true);
}

async function handleEvent(
  db: Db,
  env: Env,
  exec: ExecutionContext,
  registry: EventRegistry,
  message: Message<unknown>,
  event: EventEnvelope,
): Promise<void> {
  const todo = processorsFor(registry, event.type);
  if (todo.length === 0) return markDone(db, event.id);
  const schema = registry.payloadSchemas[event.type];
  let data: Record<string, unknown> = event.data;
  if (schema) {
    const parsed = schema.safeParse(event.data);
    if (!parsed.success) {
      await recordFailure(db, message, event, null, `invalid ${event.type} payload: ${parsed.error.message}`, true);
      return markDone(db, event.id);
    }
    data = parsed.data as Record<string, unknown>;
  }
  const finished = new Set(
    (await db.select({ processor: processedEvents.processor }).from(processedEvents).where(sql`${processedEvents.eventId} = ${event.id}`)).map(
      (r) => r.processor,
    ),
  );
  let marked = false;
  for (const processor of todo) {
    if (finished.has(processor.name)) continue;
    let asked = false;
    const done = () => {
      asked = true;
      return doneStatement(db, event.id, processor.name);
    };
    const stepPrefix = `${processor.name}/`;
    const p: ProcessorContext = {
      env,
      db,
      ctx: systemCtx(env, db, `events:${processor.name}`, (x) => exec.waitUntil(x)),
      attempts: message.attempts,
      done,
      claimStep: (step) => db.insert(processedEvents).values({ eventId: event.id, processor: stepPrefix + step, processedAt: nowIso() }),
      claimedSteps: new Set([...finished].filter((n) => n.startsWith(stepPrefix)).map((n) => n.slice(stepPrefix.length))),
    };
    try {
      await processor.run(event, data, p);
    } catch (err) {
      if (isPermanent(err)) {
        // Dead at once, recorded per processor (a later retry of another processor must not overwrite it); the
        // processors after it still run, as they are independent of it. A replay re-runs only this one.
        await recordFailure(db, message, { id: `${event.id}#${processor.name}`, type: event.type }, processor.name, errorText(err), true);
        continue;
      }
      await recordFailure(db, message, event, processor.name, errorText(err), false);
      message.retry({ delaySeconds: retryDelaySeconds(env, message.attempts) });
      throw new RetryScheduled();
    }
    if (asked) continue;
    // The last processor's record and the event's done mark share one round trip.
    if (processor === todo.at(-1)) {
      await runBatch(db, [doneStatement(db, event.id, processor.name), markDoneStatement(db, event.id)]);
      marked = true;
    } else await doneStatement(db, event.id, processor.name);
  }
  if (message.attempts > 1) await db.delete(eventFailures).where(sql`${eventFailures.id} = ${event.id} AND ${eventFailures.state} = 'RETRYING'`);
  if (!marked) await markDone(db, event.id);
}

/** Every processor of the event has a result (processed, skipped or dead): its outbox row stops waiting. */
async function markDone(db: Db, eventId: string): Promise<void> {
  await markDoneStatement(db, eventId);
}

function markDoneStatement(db: Db, eventId: string): Statement {
  return db.update(outbox).set({ doneAt: nowIso() }).where(sql`${outbox.id} = ${eventId} AND ${outbox.doneAt} IS NULL`);
}

/**
 * Runs events through the registry's processors here and now, as the queue consumer would (same processed-event
 * records, so nothing runs twice): for the sweep when the local queue consumer has stopped. A failure is recorded
 * as RETRYING and left for a later sweep. Returns how many events are done afterwards.
 */
export async function processInline(
  env: Env,
  registry: EventRegistry,
  events: EventEnvelope[],
  attempts: number[],
  waitUntil: (p: Promise<unknown>) => void,
) {
  const messages = events.map((e, n) => ({
    id: `inline:${e.id}`,
    timestamp: new Date(),
    body: e,
    attempts: attempts[n] ?? 1,
    ack() {},
    retry() {},
  }));
  const batch = { queue: "inline", messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch<unknown>;
  const exec = { waitUntil, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  await handleEventBatch(batch, env, exec, registry);
  const db = openDb(env.DB);
  const ids = JSON.stringify(events.map((e) => e.id));
  const [{ done }] = await db
    .select({ done: sql<number>`count(*)` })
    .from(outbox)
    .where(sql`${outbox.id} IN (SELECT value FROM json_each(${ids})) AND ${outbox.doneAt} IS NOT NULL`);
  return Number(done);
}

async function handleJob(
  db: Db,
  env: Env,
  exec: ExecutionContext,
  message: Message<unknown>,
  job: { kind: string; id: string } & Record<string, unknown>,
  handler: JobHandler,
) {
  const p = { env, db, ctx: systemCtx(env, db, `jobs:${job.kind}`, (x) => exec.waitUntil(x)), attempts: message.attempts };
  try {
    await handler(job, p);
  } catch (err) {
    if (isPermanent(err)) return recordFailure(db, message, { id: job.id, type: job.kind }, job.kind, errorText(err), true);
    await recordFailure(db, message, { id: job.id, type: job.kind }, job.kind, errorText(err), false);
    message.retry({ delaySeconds: retryDelaySeconds(env, message.attempts) });
    throw new RetryScheduled();
  }
  if (message.attempts > 1) await db.delete(eventFailures).where(sql`${eventFailures.id} = ${job.id} AND ${eventFailures.state} = 'RETRYING'`);
}

/** Thrown after a message was already marked for retry, so the batch loop neither acks nor retries it again. */
class RetryScheduled extends Error {}

function doneStatement(db: Db, eventId: string, processor: string): Statement {
  return db.insert(processedEvents).values({ eventId, processor, processedAt: nowIso() }).onConflictDoNothing();
}

/** Upserts the failure record of a message (RETRYING, or DEAD when no retry can help). */
async function recordFailure(
  db: Db,
  message: Message<unknown>,
  key: { id: string; type: string },
  processor: string | null,
  error: string,
  dead: boolean,
) {
  const now = nowIso();
  const state = dead ? "DEAD" : "RETRYING";
  await db
    .insert(eventFailures)
    .values({
      id: key.id,
      type: key.type,
      body: message.body,
      state,
      processor,
      error,
      attempts: message.attempts,
      firstFailedAt: now,
      lastFailedAt: now,
      deadAt: dead ? now : null,
    })
    .onConflictDoUpdate({
      target: eventFailures.id,
      set: { state, processor, error, attempts: message.attempts, lastFailedAt: now, deadAt: dead ? now : null, body: message.body },
    });
  if (dead) console.error("event dead:", key.type, key.id, error);
}

/** A message the queue gave up on: mark its record DEAD (keeping the last error), or create one if it had none. */
async function recordDead(db: Db, message: Message<unknown>): Promise<void> {
  const body = message.body as { id?: unknown; type?: unknown; kind?: unknown };
  const id = typeof body?.id === "string" && body.id ? body.id : `message:${message.id}`;
  const type = typeof body?.type === "string" ? body.type : typeof body?.kind === "string" ? body.kind : "malformed";
  const now = nowIso();
  await db
    .insert(eventFailures)
    .values({
      id,
      type,
      body: message.body,
      state: "DEAD",
      processor: null,
      error: "reached the dead-letter queue",
      attempts: message.attempts,
      firstFailedAt: now,
      lastFailedAt: now,
      deadAt: now,
    })
    .onConflictDoUpdate({ target: eventFailures.id, set: { state: "DEAD", deadAt: now, body: message.body } });
  // A dead event is a result: it no longer waits (it is listed with the dead events instead).
  if (typeof body?.type === "string") await markDone(db, id);
  console.error("event dead after retries", type, id);
}

function errorText(err: unknown): string {
  // A service's refusal says what was wrong in its description (its message is the generic HTTP one).
  if (err instanceof ApiError) return `${err.code}: ${err.description}`.slice(0, 1000);
  return (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 1000);
}
