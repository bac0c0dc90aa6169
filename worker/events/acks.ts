import { sql } from "drizzle-orm";
import { config } from "#worker/platform/config";
import type { Db } from "#worker/platform/db";
import { runBatch } from "#worker/platform/unit-of-work";
import { type EventRegistry, processInline, processorsFor } from "./consumer";
import { envelopeOf, flushEvents } from "./outbox";
import { eventFailures, outbox, processedEvents } from "./tables";

/**
 * The acknowledged outbox: an event is done once every processor of its type has recorded a result (the consumer
 * sets `done_at`). A message lost between the send and the consumer (a restarted local queue, a consumer that acks
 * without processing) leaves its event waiting, so the sweep sends it again with a growing delay and, after
 * MAX_RESENDS, records it DEAD with the processors still missing, where the merchant sees dead events.
 */

/** A flushed event not done after this long is sent again (EVENT_RESEND_AFTER_SECONDS may change it); the wait doubles with each re-send. */
export const RESEND_AFTER_SECONDS = 300;
/** Re-sends before a waiting event is recorded dead. */
export const MAX_RESENDS = 5;
/** Under `npm start`: events waiting this long while the consumer processes nothing are processed by the sweep. */
export const STALLED_CONSUMER_MS = 60_000;
/** Events re-sent per sweep (as many as flushPending sends), and events one sweep processes itself. */
const RESEND_LIMIT = 500;
const INLINE_LIMIT = 100;

type OutboxRow = typeof outbox.$inferSelect;

/** How many events wait (not done) and since when the oldest, for a caller's batch; reads outbox_waiting_idx only. */
export function queueLagRead(db: Db) {
  return db
    .select({ waiting: sql<number>`count(*)`, oldest: sql<string | null>`min(${outbox.eventTime})` })
    .from(outbox)
    .where(sql`${outbox.doneAt} IS NULL`);
}

export interface QueueLag {
  /** Events not done yet. */
  waiting: number;
  /** Age of the oldest of them in whole seconds (0 when none waits). */
  oldestWaitingSeconds: number;
}

/** The lag figures from queueLagRead's row, judged at `now`. */
export function queueLagOf(row: { waiting: number; oldest: string | null } | undefined, now: Date): QueueLag {
  const waiting = Number(row?.waiting ?? 0);
  const oldest = row?.oldest ? Date.parse(row.oldest) : null;
  return { waiting, oldestWaitingSeconds: oldest === null ? 0 : Math.max(0, Math.floor((now.getTime() - oldest) / 1000)) };
}

/** The queue's lag now: how many events wait and the age of the oldest. */
export async function queueLag(db: Db, now: Date): Promise<QueueLag> {
  const [row] = await queueLagRead(db);
  return queueLagOf(row, now);
}

/** Flushed events still waiting whose re-send is due: flushed `after` × 2^resends seconds ago or more. */
function dueRows(db: Db, now: Date, after: number) {
  return db
    .select()
    .from(outbox)
    .where(
      sql`${outbox.doneAt} IS NULL AND ${outbox.flushedAt} IS NOT NULL
        AND julianday(${outbox.flushedAt}) <= julianday(${now.toISOString()}) - (${after} * (1 << ${outbox.resends})) / 86400.0`,
    )
    .orderBy(outbox.eventTime)
    .limit(RESEND_LIMIT);
}

/**
 * Sweep: sends again the flushed events that are still not done (growing delay), and records dead those re-sent
 * MAX_RESENDS times already, naming the processors without a result. The consumer's processed-event records make a
 * second delivery harmless.
 */
export async function resendWaiting(env: Env, db: Db, registry: EventRegistry, now: Date): Promise<{ resent: number; dead: number }> {
  const rows = await dueRows(db, now, config(env).eventResendAfterSeconds ?? RESEND_AFTER_SECONDS);
  if (!rows.length) return { resent: 0, dead: 0 };
  const spent = rows.filter((r) => r.resends >= MAX_RESENDS);
  const again = rows.filter((r) => r.resends < MAX_RESENDS);
  if (spent.length) await recordUnacknowledged(db, registry, spent, now);
  let resent = 0;
  if (again.length) {
    const ids = JSON.stringify(again.map((r) => r.id));
    // Counted before the send: a send that fails is still one step nearer the dead end, never a tight loop.
    await db
      .update(outbox)
      .set({ resends: sql`${outbox.resends} + 1` })
      .where(sql`${outbox.id} IN (SELECT value FROM json_each(${ids}))`);
    resent = await flushEvents(env, db, again.map(envelopeOf));
    console.warn(`events: re-sent ${resent} event(s) flushed but not processed (oldest ${again[0]!.eventTime})`);
  }
  return { resent, dead: spent.length };
}

/** Records waiting events DEAD with the processors that never reported, and stops them waiting. */
async function recordUnacknowledged(db: Db, registry: EventRegistry, rows: OutboxRow[], now: Date): Promise<void> {
  const ids = JSON.stringify(rows.map((r) => r.id));
  const finished = await db
    .select({ eventId: processedEvents.eventId, processor: processedEvents.processor })
    .from(processedEvents)
    .where(sql`${processedEvents.eventId} IN (SELECT value FROM json_each(${ids}))`);
  const at = now.toISOString();
  const statements = rows.flatMap((r) => {
    const done = new Set(finished.filter((f) => f.eventId === r.id).map((f) => f.processor));
    const missing = processorsFor(registry, r.type)
      .map((p) => p.name)
      .filter((n) => !done.has(n));
    const error = `not processed after ${r.resends} re-sends; no result from ${missing.length ? missing.join(", ") : "any processor"}`;
    const body = envelopeOf(r);
    return [
      db
        .insert(eventFailures)
        .values({
          id: r.id,
          type: r.type,
          body,
          state: "DEAD",
          processor: missing[0] ?? null,
          error,
          attempts: r.resends + 1,
          firstFailedAt: at,
          lastFailedAt: at,
          deadAt: at,
        })
        .onConflictDoUpdate({ target: eventFailures.id, set: { state: "DEAD", error, attempts: r.resends + 1, lastFailedAt: at, deadAt: at, body } }),
      db.update(outbox).set({ doneAt: at }).where(sql`${outbox.id} = ${r.id} AND ${outbox.doneAt} IS NULL`),
    ];
  });
  await runBatch(db, statements);
  for (const r of rows) console.error("event dead: never processed", r.type, r.id);
}

/**
 * Whether the queue consumer looks stopped: an event flushed more than STALLED_CONSUMER_MS ago still waits, and no
 * processor has recorded anything for as long.
 */
export async function consumerStalled(db: Db, now: Date): Promise<boolean> {
  const [[waiting], [last]] = await runBatch(db, [
    db
      .select({ oldest: sql<string | null>`min(${outbox.flushedAt})` })
      .from(outbox)
      .where(sql`${outbox.doneAt} IS NULL AND ${outbox.flushedAt} IS NOT NULL`),
    db.select({ at: sql<string | null>`max(${processedEvents.processedAt})` }).from(processedEvents),
  ]);
  const since = now.getTime() - STALLED_CONSUMER_MS;
  const oldest = waiting?.oldest;
  if (!oldest || Date.parse(oldest) > since) return false;
  return !last?.at || Date.parse(last.at) < since;
}

/**
 * Local development's fallback: when the consumer looks stopped, says so and processes the waiting events here with
 * the same processors and records. Returns how many it finished.
 */
export async function processStalled(
  env: Env,
  db: Db,
  registry: EventRegistry,
  now: Date,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<number> {
  if (!(await consumerStalled(db, now))) return 0;
  const rows = await db
    .select()
    .from(outbox)
    .where(sql`${outbox.doneAt} IS NULL AND ${outbox.flushedAt} IS NOT NULL`)
    .orderBy(outbox.eventTime)
    .limit(INLINE_LIMIT);
  console.warn(
    `events: the queue consumer has processed nothing for over ${STALLED_CONSUMER_MS / 1000} s while ${rows.length} event(s) wait; ` +
      "the sweeper is processing them itself",
  );
  return processInline(
    env,
    registry,
    rows.map(envelopeOf),
    rows.map((r) => r.resends + 1),
    waitUntil,
  );
}
