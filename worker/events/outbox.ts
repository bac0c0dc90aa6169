import { rawStatement } from "#worker/platform/db";
import { and, asc, isNull, lt, sql } from "drizzle-orm";
import type { BatchResponse } from "drizzle-orm/batch";
import { actorOf, nowIso, type Actor, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { newId } from "#worker/platform/ids";
import { runBatch, type Statement, type Statements } from "#worker/platform/unit-of-work";
import { outbox } from "./tables";
import { nowMs } from "#worker/platform/clock";

/** The envelope of every event: what the outbox stores and the queue carries. */
export interface EventEnvelope {
  id: string;
  type: string;
  entityId: string;
  eventTime: string;
  actor: Actor;
  data: Record<string, unknown>;
}

export type { Statement };

/** A new event caused by the caller of `ctx`. */
export function newEvent(ctx: Ctx, type: string, entityId: string, data: Record<string, unknown>): EventEnvelope {
  return { id: newId(), type, entityId, eventTime: nowIso(), actor: actorOf(ctx.auth), data };
}

/** The outbox row of an event, to put in the same batch as its change. */
export function outboxInsert(db: Db, e: EventEnvelope): Statement {
  return db.insert(outbox).values({
    id: e.id,
    type: e.type,
    entityId: e.entityId,
    eventTime: e.eventTime,
    actorType: e.actor.type,
    actorId: e.actor.id,
    data: e.data,
  });
}

/**
 * The outbox row of an event that only happened if the statement just before it in the batch changed a row
 * (SQLite's changes()): a guarded update or delete and its event stay all-or-nothing in one round trip.
 */
export function outboxInsertIfChanged(db: Db, e: EventEnvelope): Statement {
  return rawStatement(
    db,
    sql`INSERT INTO outbox (id, type, entity_id, event_time, actor_type, actor_id, data, attempts)
    SELECT ${e.id}, ${e.type}, ${e.entityId}, ${e.eventTime}, ${e.actor.type}, ${e.actor.id}, ${JSON.stringify(e.data)}, 0
    WHERE changes() > 0`,
  );
}

/** Where a change runs: its database, the bindings to flush events with, and (in a request) where to defer work. */
export interface CommitScope {
  db: Db;
  env: Env;
  /** Given: the events are flushed after the response. Absent (queue consumers, sweeps): flushed before returning. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/** The events a change recorded, or a function of its results for events that only happened if a guarded statement changed a row. */
export type CommitEvents<R> = EventEnvelope[] | ((results: R) => EventEnvelope[]);

/**
 * The unit of work: runs a change's statements (its outbox rows among them) as one D1 batch, then flushes the
 * events it recorded to the queue. Returns each statement's result, typed per position for a tuple of statements.
 */
export async function commit<T extends Statements>(
  scope: CommitScope,
  statements: T,
  events: CommitEvents<BatchResponse<T>>,
): Promise<BatchResponse<T>>;
export async function commit(scope: CommitScope, statements: readonly Statement[], events: CommitEvents<unknown[]>): Promise<unknown[]>;
export async function commit(scope: CommitScope, statements: readonly Statement[], events: CommitEvents<unknown[]>): Promise<unknown[]> {
  if (statements.length === 0) return [];
  const results = await runBatch(scope.db, statements);
  const happened = typeof events === "function" ? events(results) : events;
  if (happened.length) {
    const flushed = flushEvents(scope.env, scope.db, happened);
    if (scope.waitUntil) scope.waitUntil(flushed);
    else await flushed;
  }
  return results;
}

/**
 * Flushes those of these events whose outbox rows exist and are still unflushed: for a change made of several
 * batches whose guarded statements may have written only some of the events it prepared.
 */
export async function flushRecorded(scope: CommitScope, events: EventEnvelope[]): Promise<void> {
  if (!events.length) return;
  const flushed = (async () => {
    const ids = events.map((e) => e.id);
    const existing = new Set((await scope.db.select({ id: outbox.id }).from(outbox).where(unflushedRowsOf(ids))).map((r) => r.id));
    const toSend = events.filter((e) => existing.has(e.id));
    if (toSend.length) await flushEvents(scope.env, scope.db, toSend);
  })();
  if (scope.waitUntil) scope.waitUntil(flushed);
  else await flushed;
}

/** Queue messages are at most 128 KB; a batch at most 100 messages and 256 KB. */
const MAX_MESSAGE_BYTES = 128_000;
const MAX_BATCH_MESSAGES = 100;
const MAX_BATCH_BYTES = 200_000;
const encoder = new TextEncoder();

/** The outbox rows of these events, as one JSON parameter: a 100-event chunk stays within D1's 100 bound parameters. */
function rowsOf(ids: string[]) {
  return sql`${outbox.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/**
 * The outbox rows of these events that are still unflushed, found by id. Written `+flushed_at` so SQLite cannot use
 * outbox_unflushed_idx here: that index would read the whole unflushed backlog to keep the few rows asked for.
 */
export function unflushedRowsOf(ids: string[]) {
  return sql`${rowsOf(ids)} AND +${outbox.flushedAt} IS NULL`;
}

/**
 * Sends events to the EVENTS queue and marks their outbox rows flushed. A chunk whose send fails stays unflushed
 * (its attempts counted) and the cron sweep sends it again; consumers dedupe on the event id, so a double send is
 * harmless. Returns how many events reached the queue.
 */
export async function flushEvents(env: Env, db: Db, events: EventEnvelope[]): Promise<number> {
  let sent = 0;
  const send = async (chunk: EventEnvelope[]) => {
    const ids = chunk.map((e) => e.id);
    try {
      await env.EVENTS.sendBatch(chunk.map((e) => ({ body: e, contentType: "json" as const })));
    } catch (err) {
      console.error("outbox flush failed; the sweep will retry", err);
      await db
        .update(outbox)
        .set({ attempts: sql`${outbox.attempts} + 1` })
        .where(rowsOf(ids))
        .catch((e) => console.error("outbox: could not count the failed attempt", e));
      return;
    }
    sent += chunk.length;
    // The events are on the queue now. If marking them fails they are sent again later, which consumers tolerate.
    await db
      .update(outbox)
      .set({ flushedAt: nowIso() })
      .where(rowsOf(ids))
      .catch((e) => console.error("outbox: sent but could not mark flushed; the sweep will send again", e));
  };
  let chunk: EventEnvelope[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = encoder.encode(JSON.stringify(e)).length;
    if (size > MAX_MESSAGE_BYTES) {
      // The queue will refuse it: send it on its own so it cannot hold back the events batched with it.
      await send([e]);
      continue;
    }
    if (chunk.length && (chunk.length >= MAX_BATCH_MESSAGES || bytes + size > MAX_BATCH_BYTES)) {
      await send(chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(e);
    bytes += size;
  }
  if (chunk.length) await send(chunk);
  return sent;
}

/** Cron sweep: re-sends outbox rows still unflushed a minute after they were written. Returns how many it sent. */
export async function flushPending(env: Env, db: Db, olderThanMs = 60_000, limit = 500): Promise<number> {
  const cutoff = new Date(nowMs() - olderThanMs).toISOString();
  const rows = await db
    .select()
    .from(outbox)
    .where(and(isNull(outbox.flushedAt), lt(outbox.eventTime, cutoff)))
    .orderBy(asc(outbox.eventTime))
    .limit(limit);
  return flushEvents(env, db, rows.map(envelopeOf));
}

/** The envelope an outbox row stores. */
export function envelopeOf(r: typeof outbox.$inferSelect): EventEnvelope {
  return {
    id: r.id,
    type: r.type,
    entityId: r.entityId,
    eventTime: r.eventTime,
    actor: { type: r.actorType as Actor["type"], id: r.actorId },
    data: r.data,
  };
}

/** Flushes the events whose outbox rows have these ids and are still unflushed, in the order they were written. */
export async function flushStoredEvents(env: Env, db: Db, ids: string[]): Promise<number> {
  const rows = await db.select().from(outbox).where(unflushedRowsOf(ids)).orderBy(sql`rowid`);
  if (!rows.length) return 0;
  return flushEvents(env, db, rows.map(envelopeOf));
}
