import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { cartSummaryRead } from "#worker/cart";
import type { ProcessorContext } from "#worker/events";
import { commit, newEvent, outboxInsert, outboxInsertIfChanged, type EventEnvelope, type Statement } from "#worker/events";
import { orderTotalRead } from "#worker/orders";
import { isUniqueViolation } from "#worker/platform/batch";
import { nowIso } from "#worker/platform/context";
import { newId } from "#worker/platform/ids";
import { formatMoney, toMinor } from "#worker/platform/money";
import { AutomationEventType } from "./events";
import { loadAutomationSettings } from "./settings";
import { abandonedCheckoutActivities, abandonedCheckouts, recoveryEmails } from "./tables";
import { taskStatement } from "#worker/tasks";
import { runBatch } from "#worker/platform/unit-of-work";
import { abandonedCheckoutShape, activityRow, activityStatement, type AbandonedCheckoutRow, type ActivityRow } from "./abandoned-activities";
import type { Db } from "#worker/platform/db";
import type { AutomationSettings } from "./settings";

/** Abandoned carts, steps 2 and 4: the processors that make or refresh the abandoned checkout, and mark it recovered. */

// ---------------------------------------------------------------------------------------------------------------
// 2. The cart-abandoned processor

const money = z.coerce.number();

/** CartAbandonedEvent's data: dates become Dates, totals numbers (the incoming-webhook check uses it too). */
export const cartAbandonedSchema = z
  .object({
    cartId: z.string().min(1),
    creationTime: z.coerce.date(),
    abandonTime: z.coerce.date(),
    buyerInfo: z
      .object({
        id: z.string().optional(),
        identityType: z.string().optional(),
        email: z.string().nullish(),
        firstName: z.string().nullish(),
        lastName: z.string().nullish(),
      })
      .loose(),
    itemsCount: z.coerce.number().optional(),
    totals: z.object({ subtotal: money, total: money, formattedTotal: z.string().optional() }).loose(),
    currency: z.string().length(3).optional(),
    checkoutId: z.string().optional(),
    lineItems: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .loose();

export type CartAbandonedData = z.output<typeof cartAbandonedSchema>;

/** CartRecoveredEvent's data. */
export const cartRecoveredSchema = z
  .object({ cartId: z.string().min(1), recoveredTime: z.coerce.date(), creationTime: z.coerce.date(), abandonedTime: z.coerce.date() })
  .loose();

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/**
 * Processes CartAbandonedEvent: a new abandoned checkout with its recovery link, scheduled emails (activities
 * SCHEDULED) and, over the high-value setting, a merchant task (TASK_CREATED); or, for a cart already ABANDONED
 * (a new idle period), the record refreshed and the emails still scheduled moved after the new abandon time.
 * Everything, with the processed-event record, is one batch.
 */
export async function processCartAbandoned(_event: EventEnvelope, data: CartAbandonedData, p: ProcessorContext): Promise<void> {
  const { db } = p;
  const settings = await loadAutomationSettings(db);
  const abandonIso = data.abandonTime.toISOString();
  const [[existing], [cart]] = await runBatch(db, [
    db
      .select()
      .from(abandonedCheckouts)
      .where(and(eq(abandonedCheckouts.cartId, data.cartId), eq(abandonedCheckouts.status, "ABANDONED"))),
    cartSummaryRead(db, data.cartId),
  ]);
  const currency = data.currency ?? cart?.currency ?? p.ctx.currency;
  const subtotal = toMinor(data.totals.subtotal, currency);
  const total = toMinor(data.totals.total, currency);
  const buyerInfo: Record<string, string> = {};
  const ownerKind = cart?.ownerKind ?? (data.buyerInfo.identityType === "MEMBER" ? "member" : "visitor");
  const ownerId = cart?.ownerId ?? data.buyerInfo.id ?? "";
  buyerInfo[ownerKind === "member" ? "memberId" : "visitorId"] = ownerId;
  if (data.buyerInfo.email) buyerInfo.email = data.buyerInfo.email;
  if (data.buyerInfo.firstName) buyerInfo.firstName = data.buyerInfo.firstName;
  if (data.buyerInfo.lastName) buyerInfo.lastName = data.buyerInfo.lastName;
  const now = nowIso();
  if (existing) return refreshRecord(p, existing, data, { abandonIso, subtotal, total, buyerInfo, now });
  const statements: Statement[] = [];

  const id = newId();
  const row = {
    id,
    cartId: data.cartId,
    checkoutId: data.checkoutId ?? null,
    ownerKind,
    ownerId,
    status: "ABANDONED" as const,
    buyerInfo,
    currency,
    subtotal,
    total,
    lineItems: data.lineItems ?? [],
    cartCreatedDate: data.creationTime.toISOString(),
    abandonTime: abandonIso,
    recoveryToken: randomToken(),
    createdDate: now,
    updatedDate: now,
  };
  statements.push(db.insert(abandonedCheckouts).values(row));
  const activities = followUps(db, row, data, settings, now, statements);
  // The record's own domain event (abandonedCheckouts.onAbandonedCheckoutCreated), with the record as it is written.
  const entity = abandonedCheckoutShape(
    { ...row, restoredCartId: null, recoveredDate: null, recoveredOrderId: null, recoveredTotal: null },
    activities,
    p.ctx.origin,
  );
  const created = newEvent(p.ctx, AutomationEventType.abandonedCheckoutCreated, id, {
    entityFqdn: "wix.ecom.v1.abandoned_checkout",
    slug: "created",
    createdEvent: { entity },
  });
  try {
    await commit(p.ctx, [p.done(), ...statements, outboxInsert(db, created)], [created]);
  } catch (err) {
    // The same event delivered twice at once: the other delivery made the record.
    if (isUniqueViolation(err, "abandoned_checkouts.cart_id")) return;
    throw err;
  }
}

/** The fields a new idle period refreshes on the abandoned checkout. */
interface Refresh {
  abandonIso: string;
  subtotal: number;
  total: number;
  buyerInfo: Record<string, string>;
  now: string;
}

/** A new idle period of a cart still ABANDONED: the record refreshed, and what is still scheduled moved after it. */
async function refreshRecord(p: ProcessorContext, existing: AbandonedCheckoutRow, data: CartAbandonedData, fields: Refresh): Promise<void> {
  const { db } = p;
  const { abandonIso, subtotal, total, buyerInfo, now } = fields;
  const statements: Statement[] = [];
  const pending = await db
    .select()
    .from(recoveryEmails)
    .where(and(eq(recoveryEmails.abandonedCheckoutId, existing.id), eq(recoveryEmails.status, "SCHEDULED")));
  statements.push(
    db
      .update(abandonedCheckouts)
      .set({
        abandonTime: abandonIso,
        subtotal,
        total,
        buyerInfo,
        lineItems: data.lineItems ?? existing.lineItems,
        checkoutId: data.checkoutId ?? existing.checkoutId,
        updatedDate: now,
      })
      .where(eq(abandonedCheckouts.id, existing.id)),
  );
  for (const r of pending) {
    const dueDate = new Date(data.abandonTime.getTime() + r.delayMinutes * 60_000).toISOString();
    statements.push(
      db.update(recoveryEmails).set({ dueDate, updatedDate: now }).where(eq(recoveryEmails.id, r.id)),
      activityStatement(db, existing.id, "SCHEDULED", { step: r.step, dueDate, rescheduled: true }),
    );
  }
  await runBatch(db, [p.done(), ...statements]);
}

/**
 * A new record's follow-ups, added to `statements`: its recovery emails scheduled, and a merchant task for a
 * high-value cart. Returns the activities they record.
 */
function followUps(
  db: Db,
  row: { id: string; currency: string; total: number },
  data: CartAbandonedData,
  settings: AutomationSettings,
  now: string,
  statements: Statement[],
): ActivityRow[] {
  const { id, currency, total } = row;
  const activities: ActivityRow[] = [];
  const addActivity = (a: ActivityRow) => {
    activities.push(a);
    statements.push(db.insert(abandonedCheckoutActivities).values(a));
  };
  settings.recoveryEmailDelaysMinutes.forEach((delayMinutes, i) => {
    const dueDate = new Date(data.abandonTime.getTime() + delayMinutes * 60_000).toISOString();
    statements.push(
      db
        .insert(recoveryEmails)
        .values({ id: newId(), abandonedCheckoutId: id, step: i + 1, delayMinutes, dueDate, status: "SCHEDULED", updatedDate: now }),
    );
    addActivity(activityRow(id, "SCHEDULED", { step: i + 1, dueDate }));
  });
  if (settings.highValueCartTotal !== null && data.totals.total >= settings.highValueCartTotal) {
    const dedupeKey = `abandoned-cart:${id}`;
    const formatted = data.totals.formattedTotal ?? formatMoney(total, currency);
    statements.push(
      taskStatement(db, {
        kind: "ABANDONED_CART",
        title: `High-value cart abandoned: ${formatted}`,
        description: `${data.buyerInfo.email ?? "A shopper"} left ${data.itemsCount ?? data.lineItems?.length ?? 0} item(s) worth ${formatted} in their cart. A personal follow-up may win the sale back.`,
        entityId: id,
        dedupeKey,
      }),
    );
    addActivity(activityRow(id, "TASK_CREATED", { dedupeKey, total: data.totals.total }));
  }
  return activities;
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Recovery (processor of the cart deleted event an order emits)

/** The cart_deleted data this part reads: an order completed the cart. */
const cartCompletedSchema = z.object({ completedByOrderId: z.string().min(1) }).loose();

/**
 * Processes cart_deleted with `completedByOrderId`: the abandoned checkout of that cart (or of the cart its recovery
 * link restored) becomes RECOVERED with the order and its total, CartRecoveredEvent is emitted, and the emails still
 * scheduled are cancelled. One batch with the processed-event record.
 */
export async function processCartCompleted(event: EventEnvelope, raw: Record<string, unknown>, p: ProcessorContext): Promise<void> {
  const parsed = cartCompletedSchema.safeParse(raw);
  if (!parsed.success) return;
  const { db } = p;
  const cartId = event.entityId;
  const orderId = parsed.data.completedByOrderId;
  const open = and(
    eq(abandonedCheckouts.status, "ABANDONED"),
    sql`(${abandonedCheckouts.cartId} = ${cartId} OR ${abandonedCheckouts.restoredCartId} = ${cartId})`,
  );
  const [[record], [order], activities] = await runBatch(db, [
    db.select().from(abandonedCheckouts).where(open).orderBy(abandonedCheckouts.createdDate).limit(1),
    orderTotalRead(db, orderId),
    db
      .select()
      .from(abandonedCheckoutActivities)
      .where(
        sql`${abandonedCheckoutActivities.abandonedCheckoutId} = (SELECT id FROM abandoned_checkouts WHERE ${open} ORDER BY created_date LIMIT 1)`,
      )
      .orderBy(abandonedCheckoutActivities.createdDate, sql`rowid`),
  ]);
  if (!record) return;
  const recoveredTime = order?.purchasedDate ?? event.eventTime;
  const recovered = newEvent(p.ctx, AutomationEventType.cartRecovered, record.cartId, {
    cartId: record.cartId,
    recoveredTime,
    creationTime: record.cartCreatedDate,
    abandonedTime: record.abandonTime,
    abandonedCheckoutId: record.id,
    orderId,
    ...(cartId !== record.cartId ? { restoredCartId: cartId } : {}),
  });
  const now = nowIso();
  const change = {
    status: "RECOVERED" as const,
    recoveredDate: recoveredTime,
    recoveredOrderId: orderId,
    recoveredTotal: order?.total ?? null,
    updatedDate: now,
  };
  // And the record's own action event (abandonedCheckouts.onAbandonedCheckoutRecovered).
  const recoveredRecord = newEvent(p.ctx, AutomationEventType.abandonedCheckoutRecovered, record.id, {
    entityFqdn: "wix.ecom.v1.abandoned_checkout",
    slug: "recovered",
    actionEvent: { body: { abandonedCheckout: abandonedCheckoutShape({ ...record, ...change }, activities, p.ctx.origin) } },
  });
  await commit(
    p.ctx,
    [
      db
        .update(abandonedCheckouts)
        .set(change)
        .where(and(eq(abandonedCheckouts.id, record.id), eq(abandonedCheckouts.status, "ABANDONED"))),
      outboxInsertIfChanged(db, recovered),
      // Written when the one before it was (changes() of that insert).
      outboxInsertIfChanged(db, recoveredRecord),
      db
        .update(recoveryEmails)
        .set({ status: "CANCELED", reason: "RECOVERED", updatedDate: now })
        .where(and(eq(recoveryEmails.abandonedCheckoutId, record.id), eq(recoveryEmails.status, "SCHEDULED"))),
      p.done(),
    ],
    (r) => (r[1].meta.changes ? [recovered, recoveredRecord] : []),
  );
}
