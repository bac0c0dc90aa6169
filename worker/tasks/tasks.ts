import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Statement } from "#worker/events";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { ApiError, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { tasks } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/** Merchant tasks: created by automations in the same batch as the change that calls for them. */

export interface NewTask {
  kind: string;
  title: string;
  description: string;
  entityId?: string | null;
  /** One open task per key: a second insert while the first is open does nothing. */
  dedupeKey: string;
}

/**
 * The insert of a task, to put in the batch of the change that calls for it. With `when`, only if that SQL condition
 * holds when the statement runs (e.g. after an earlier statement of the same batch made the change).
 */
export function taskStatement(db: Db, t: NewTask, when?: SQL): Statement {
  const row = {
    id: newId(),
    kind: t.kind,
    title: t.title,
    description: t.description,
    entityId: t.entityId ?? null,
    dedupeKey: t.dedupeKey,
    status: "OPEN" as const,
    createdDate: nowIso(),
  };
  if (!when) return db.insert(tasks).values(row).onConflictDoNothing();
  return rawStatement(
    db,
    sql`INSERT INTO tasks (id, kind, title, description, entity_id, dedupe_key, status, created_date)
      SELECT ${row.id}, ${row.kind}, ${row.title}, ${row.description}, ${row.entityId}, ${row.dedupeKey}, ${row.status}, ${row.createdDate}
      WHERE ${when} ON CONFLICT DO NOTHING`,
  );
}

export function taskShape(r: typeof tasks.$inferSelect) {
  return {
    id: r.id,
    kind: r.kind,
    title: r.title,
    description: r.description,
    entityId: r.entityId,
    status: r.status,
    createdDate: r.createdDate,
    completedDate: r.completedDate,
  };
}

export async function listTasks(ctx: Ctx, opts: { status?: "OPEN" | "DONE"; kind?: string; limit: number; offset: number }) {
  requireMerchant(ctx);
  const where = and(opts.status ? eq(tasks.status, opts.status) : undefined, opts.kind ? eq(tasks.kind, opts.kind) : undefined);
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db.select().from(tasks).where(where).orderBy(desc(tasks.createdDate)).limit(opts.limit).offset(opts.offset),
    ctx.db.select({ total: count() }).from(tasks).where(where),
  ]);
  return { tasks: rows.map(taskShape), metadata: { count: rows.length, offset: opts.offset, total } };
}

export async function completeTask(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  const [row] = await ctx.db.update(tasks).set({ status: "DONE", completedDate: nowIso() }).where(eq(tasks.id, id)).returning();
  if (!row) throw notFound("TASK_NOT_FOUND", "Task", id);
  return { task: taskShape(row) };
}

/** Marks DONE the open task with this dedupe key, if any: for a cause that went away on its own. */
export function resolveTaskStatement(db: Db, dedupeKey: string): Statement {
  return db
    .update(tasks)
    .set({ status: "DONE", completedDate: nowIso() })
    .where(and(eq(tasks.dedupeKey, dedupeKey), eq(tasks.status, "OPEN")));
}

/** How many tasks are open, for a caller's batch (the dashboard). */
export function openTasksCountRead(db: Db) {
  return db.select({ open: count() }).from(tasks).where(eq(tasks.status, "OPEN"));
}

/**
 * Opens a DONE task again (the merchant marked it done too soon). Reopening an open task changes nothing. Refused
 * with 409 TASK_ALREADY_OPEN while a newer task about the same thing is open (one open task per cause).
 */
export async function reopenTask(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  // The guard keeps the one-open-task-per-cause index from failing the statement: it reopens nothing instead.
  const [row] = await ctx.db
    .update(tasks)
    .set({ status: "OPEN", completedDate: null })
    .where(
      and(
        eq(tasks.id, id),
        eq(tasks.status, "DONE"),
        sql`NOT EXISTS (SELECT 1 FROM tasks t2 WHERE t2.dedupe_key = tasks.dedupe_key AND t2.status = 'OPEN')`,
      ),
    )
    .returning();
  if (row) return { task: taskShape(row) };
  const [current] = await ctx.db.select().from(tasks).where(eq(tasks.id, id));
  if (!current) throw notFound("TASK_NOT_FOUND", "Task", id);
  if (current.status === "OPEN") return { task: taskShape(current) };
  throw new ApiError(409, "TASK_ALREADY_OPEN", "A newer open task about the same thing exists; finish that one instead", {
    data: { id },
    message: "Task already open",
  });
}

/**
 * The task the unpaid-order sweep (orders/unpaid.ts) opens for each offline order it cancelled: one per order (its
 * dedupe key), in the batch that cancels it.
 */
export function unpaidOrderCanceledTask(
  db: Db,
  o: { orderId: string; number: number; buyerEmail: string | null; total: string; units: number; holdHours: number },
): Statement {
  const buyer = o.buyerEmail ? ` by ${o.buyerEmail}` : "";
  return taskStatement(db, {
    kind: "UNPAID_ORDER_CANCELED",
    title: `Order #${o.number} canceled: not paid within ${o.holdHours} hours`,
    description:
      `Order #${o.number}${buyer} (${o.total}, ${o.units} ${o.units === 1 ? "item" : "items"}) was to be paid offline but was not marked as paid within ` +
      `${o.holdHours} hours, so it was canceled and its items went back into stock. The buyer was not charged. If they paid after all, refund them ` +
      `or ask them to order again: a canceled order cannot be marked as paid. The hold is set in Store settings.`,
    entityId: o.orderId,
    dedupeKey: `unpaid-order:${o.orderId}`,
  });
}
