import { and, count, desc, eq, notInArray, sql } from "drizzle-orm";
import { hasPermission, nowIso, requireMerchant, type Ctx, type Permission, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, notFound } from "#worker/platform/errors";
import { eventFailures, outbox, webhookDeliveries } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The merchant's view of queue messages that failed (worker/events/consumer.ts records them): list them, and replay
 * a dead one or all of them. A replayed event goes back on the EVENTS queue as it was; processors that had already
 * finished it skip it (processed-event records), so only the work that failed runs again.
 */

export type FailureState = "RETRYING" | "DEAD" | "REPLAYED";

/**
 * An event type that acts when replayed as if someone did it by hand (an incoming webhook's stock update): replaying
 * it needs that permission. The composition root hands in the list (the webhooks' incoming event types).
 */
export interface ReplayGuard {
  type: string;
  permission: Permission | null;
}

export function failureShape(r: typeof eventFailures.$inferSelect) {
  return {
    id: r.id,
    type: r.type,
    state: r.state,
    processor: r.processor,
    error: r.error,
    attempts: r.attempts,
    firstFailedDate: r.firstFailedAt,
    lastFailedDate: r.lastFailedAt,
    deadDate: r.deadAt,
    replayedDate: r.replayedAt,
    message: r.body,
  };
}

/** The filter of the list and of replay-all: a state and an exact event type (or job kind). */
function failureFilter(opts: { state?: FailureState; type?: string }) {
  return and(opts.state ? eq(eventFailures.state, opts.state) : undefined, opts.type ? eq(eventFailures.type, opts.type) : undefined);
}

export async function listFailures(ctx: Ctx, opts: { state?: FailureState; type?: string; limit: number; offset: number }) {
  requireMerchant(ctx);
  const where = failureFilter(opts);
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db.select().from(eventFailures).where(where).orderBy(desc(eventFailures.lastFailedAt)).limit(opts.limit).offset(opts.offset),
    ctx.db.select({ total: count() }).from(eventFailures).where(where),
  ]);
  return { failures: rows.map(failureShape), metadata: { count: rows.length, offset: opts.offset, total } };
}

/**
 * A replayed event waits again (not done, its re-sends counted from zero), so losing the replay is noticed too.
 * A failure's id is the event's id, or `event#processor` for one processor's failure.
 */
async function waitAgain(db: Db, failureIds: string[]): Promise<void> {
  const ids = JSON.stringify(failureIds.map((id) => id.split("#")[0]));
  await db.update(outbox).set({ doneAt: null, resends: 0, flushedAt: nowIso() }).where(sql`${outbox.id} IN (SELECT value FROM json_each(${ids}))`);
}

/** Sends one DEAD message back to the queue and marks it REPLAYED. */
export async function replayFailure(ctx: Ctx, guards: readonly ReplayGuard[], id: string) {
  requirePermission(ctx, "automations.manage");
  const [row] = await ctx.db.select().from(eventFailures).where(eq(eventFailures.id, id));
  if (!row) throw notFound("EVENT_FAILURE_NOT_FOUND", "Failed event", id);
  if (row.state !== "DEAD")
    throw new ApiError(409, "EVENT_NOT_DEAD", `Only dead events can be replayed; this one is ${row.state}`, { data: { id, state: row.state } });
  // A replayed event from outside (a stock update) acts again: only someone who may do that by hand replays it.
  const needed = guards.find((g) => g.type === row.type)?.permission;
  if (needed) requirePermission(ctx, needed);
  await ctx.env.EVENTS.send(row.body, { contentType: "json" });
  await waitAgain(ctx.db, [row.id]);
  const [updated] = await ctx.db
    .update(eventFailures)
    .set({ state: "REPLAYED", replayedAt: nowIso() })
    .where(and(eq(eventFailures.id, id), eq(eventFailures.state, "DEAD")))
    .returning();
  return { failure: failureShape(updated ?? row) };
}

/** The event types (and job kinds) that have DEAD messages, with how many: the choices of the dead-events filter. */
export async function deadFailureTypes(ctx: Ctx) {
  requireMerchant(ctx);
  const rows = await ctx.db
    .select({ type: eventFailures.type, count: count() })
    .from(eventFailures)
    .where(eq(eventFailures.state, "DEAD"))
    .groupBy(eventFailures.type)
    .orderBy(eventFailures.type)
    .limit(200);
  return { types: rows };
}

/**
 * Replays every DEAD message, or those of one event type (up to `limit` per call; call again while `remaining`
 * > 0, which counts what the same filter still matches).
 */
export async function replayAllFailures(ctx: Ctx, guards: readonly ReplayGuard[], limit = 100, filter: { type?: string } = {}) {
  requirePermission(ctx, "automations.manage");
  const needed = filter.type ? guards.find((g) => g.type === filter.type)?.permission : undefined;
  if (needed) requirePermission(ctx, needed);
  // Events from outside that the caller may not cause by hand stay dead (replayed by someone who may).
  const withheld = guards.filter((t) => t.permission && !hasPermission(ctx.auth, t.permission)).map((t) => t.type);
  const dead = and(failureFilter({ state: "DEAD", type: filter.type }), withheld.length ? notInArray(eventFailures.type, withheld) : undefined);
  const rows = await ctx.db.select().from(eventFailures).where(dead).orderBy(eventFailures.lastFailedAt).limit(limit);
  if (rows.length === 0) return { replayed: 0, remaining: 0 };
  await ctx.env.EVENTS.sendBatch(rows.map((r) => ({ body: r.body, contentType: "json" as const })));
  await waitAgain(
    ctx.db,
    rows.map((r) => r.id),
  );
  const ids = JSON.stringify(rows.map((r) => r.id));
  const [, [{ remaining }]] = await runBatch(ctx.db, [
    ctx.db
      .update(eventFailures)
      .set({ state: "REPLAYED", replayedAt: nowIso() })
      .where(sql`${eventFailures.state} = 'DEAD' AND ${eventFailures.id} IN (SELECT value FROM json_each(${ids}))`),
    ctx.db.select({ remaining: count() }).from(eventFailures).where(dead),
  ]);
  return { replayed: rows.length, remaining };
}

/**
 * What needs the merchant's attention, for a caller's batch (the dashboard): dead events, failed webhook deliveries,
 * and the events waiting to be processed with the oldest one's time (queueLagOf turns them into the lag).
 */
export function attentionCountsRead(db: Db) {
  return db
    .select({
      deadEvents: sql<number>`(SELECT count(*) FROM ${eventFailures} WHERE ${eventFailures.state} = 'DEAD')`.as("dead_events"),
      failedDeliveries: sql<number>`(SELECT count(*) FROM ${webhookDeliveries} WHERE ${webhookDeliveries.status} = 'FAILED')`.as("failed_deliveries"),
      waiting: sql<number>`(SELECT count(*) FROM ${outbox} WHERE ${outbox.doneAt} IS NULL)`.as("waiting_events"),
      oldest: sql<string | null>`(SELECT min(${outbox.eventTime}) FROM ${outbox} WHERE ${outbox.doneAt} IS NULL)`.as("oldest_waiting"),
    })
    .from(sql`(SELECT 1)`);
}
