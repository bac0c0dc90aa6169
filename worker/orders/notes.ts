import { sql } from "drizzle-orm";
import { z } from "zod";
import { actorOf, requirePermission, type Ctx } from "#worker/platform/context";
import { rawStatement } from "#worker/platform/db";
import { notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { now } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";
import { parseWith } from "#worker/platform/validation";

/** The longest staff note on an order. */
const NOTE_MAX = 2000;

/** POST /orders/{id}/activities: a staff note, in the shape of the Wix order activity MERCHANT_COMMENT. */
export const addActivityRequest = z.object({
  activity: z.object({
    merchantComment: z.object({ message: z.string().trim().min(1, "is required").max(NOTE_MAX, `must be at most ${NOTE_MAX} characters`) }),
  }),
});

/**
 * Adds a staff note to an order's history (orders.write): a MERCHANT_COMMENT activity with the message and its author
 * (a staff member's email, or "API key"), dated now. One statement, written only when the order exists. The body is
 * checked after the permission, so a caller without it learns nothing about the shape.
 */
export async function addOrderNote(ctx: Ctx, orderId: string, body: unknown): Promise<{ activityId: string }> {
  requirePermission(ctx, "orders.write");
  const input = parseWith(addActivityRequest, body);
  const actor = actorOf(ctx.auth);
  const id = newId();
  const author = ctx.auth.kind === "member" ? sql`(SELECT email FROM identities WHERE id = ${ctx.auth.identityId})` : sql`'API key'`;
  const [result] = await runBatch(ctx.db, [
    rawStatement(
      ctx.db,
      sql`INSERT INTO order_activities (id, order_id, type, details, actor_type, actor_id, created_date)
        SELECT ${id}, o.id, 'MERCHANT_COMMENT', json_object('merchantComment', json_object('message', ${input.activity.merchantComment.message}), 'author', ${author}),
          ${actor.type}, ${actor.id}, ${now().toISOString()}
        FROM orders o WHERE o.id = ${orderId}`,
    ),
  ]);
  if (!(result as { meta?: { changes?: number } }).meta?.changes) throw notFound("ORDER_NOT_FOUND", "Order", orderId);
  return { activityId: id };
}
