import { sql } from "drizzle-orm";
import { ecomMoney } from "#worker/cart";
import type { Statement } from "#worker/events";
import { nowIso } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { invalidArgument } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { abandonedCheckoutActivities, type abandonedCheckouts, type ACTIVITY_TYPES } from "./tables";

/** Abandoned checkouts' shared parts: activity types and statements, the sweeps' limits, and the wire shape. */

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Why a recovery email was not sent (the EMAIL_NOT_SENT activity's reason). */
export type NotSentReason = "NO_EMAIL" | "UNSUBSCRIBED" | "CART_EMPTIED" | "ALREADY_RECOVERED" | "SEND_FAILED" | "SUPERSEDED";

/** Carts one sweep reports at most (the next sweep, a minute later, takes the rest). */
export const SWEEP_MAX_CARTS = 500;
export const SWEEP_CHUNK = 25;

export const JOB = "automations:abandoned-carts";

// ---------------------------------------------------------------------------------------------------------------
// Statements

/** An activity row, to put in the batch of the step it records. */
export function activityStatement(
  db: Db,
  abandonedCheckoutId: string,
  type: ActivityType,
  details: Record<string, unknown> = {},
  extra: {
    reason?: string | null;
    actorType?: (typeof abandonedCheckoutActivities.$inferInsert)["actorType"];
    actorId?: string | null;
    at?: string;
  } = {},
): Statement {
  return db.insert(abandonedCheckoutActivities).values(activityRow(abandonedCheckoutId, type, details, extra));
}

/** The row activityStatement writes (for an event that shows it before it is read back). */
export function activityRow(
  abandonedCheckoutId: string,
  type: ActivityType,
  details: Record<string, unknown>,
  extra: Parameters<typeof activityStatement>[4] = {},
): ActivityRow {
  return {
    id: newId(),
    abandonedCheckoutId,
    type,
    reason: extra.reason ?? null,
    actorType: extra.actorType ?? null,
    actorId: extra.actorId ?? null,
    details,
    createdDate: extra.at ?? nowIso(),
  };
}

/** The same activity, written only if the statement just before it in the batch changed a row. */
export function activityIfChanged(
  db: Db,
  abandonedCheckoutId: string,
  type: ActivityType,
  details: Record<string, unknown>,
  reason: string | null = null,
): Statement {
  return rawStatement(
    db,
    sql`INSERT INTO abandoned_checkout_activities (id, abandoned_checkout_id, type, reason, actor_type, actor_id, details, created_date)
      SELECT ${newId()}, ${abandonedCheckoutId}, ${type}, ${reason}, NULL, NULL, ${JSON.stringify(details)}, ${nowIso()} WHERE changes() > 0`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes

export type AbandonedCheckoutRow = typeof abandonedCheckouts.$inferSelect;
export type ActivityRow = typeof abandonedCheckoutActivities.$inferSelect;

/** The Wix AbandonedCheckout shape, with activities oldest first. */
export function abandonedCheckoutShape(r: AbandonedCheckoutRow, activities: ActivityRow[], origin: string) {
  const { email, firstName, lastName, ...ids } = r.buyerInfo;
  return {
    id: r.id,
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
    ...(r.checkoutId ? { checkoutId: r.checkoutId } : {}),
    cartId: r.cartId,
    status: r.status,
    buyerLanguage: "en",
    buyerInfo: { ...ids, ...(email ? { email } : {}) },
    ...(firstName || lastName ? { contactDetails: { ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) } } : {}),
    currency: r.currency,
    conversionCurrency: r.currency,
    totalPrice: ecomMoney(r.total, r.currency),
    subtotalPrice: ecomMoney(r.subtotal, r.currency),
    activities: activities.map((a) => ({
      createdDate: a.createdDate,
      type: a.type,
      ...(a.reason ? { reason: a.reason } : {}),
      ...(a.actorType ? { actor: { type: a.actorType, ...(a.actorId ? { id: a.actorId } : {}) } } : {}),
      ...(Object.keys(a.details).length ? { details: a.details } : {}),
    })),
    abandonTime: r.abandonTime,
    ...(r.recoveredDate ? { checkoutRecoveredDate: r.recoveredDate } : {}),
    ...(r.recoveredOrderId ? { recoveredOrderId: r.recoveredOrderId } : {}),
    ...(r.recoveredTotal !== null ? { recoveredRevenue: ecomMoney(r.recoveredTotal, r.currency) } : {}),
    checkoutUrl: `${origin}/cart/recover/${r.recoveryToken}`,
    lineItems: r.lineItems,
    appliedDiscounts: [],
  };
}

/** A custom activity from the API is refused unless it names a type this server records. */
export function customActivityType(type: string | undefined): ActivityType {
  const t = (type ?? "CUSTOM_ACTIVITY") as ActivityType;
  const allowed: ActivityType[] = ["CUSTOM_ACTIVITY", "NOTIFICATION_SENT", "EMAIL_SENT", "EMAIL_NOT_SENT", "TASK_CREATED", "SCHEDULED"];
  if (!allowed.includes(t))
    throw invalidArgument([
      { field: "activityType", description: `must be one of ${allowed.join(", ")}`, violatedRule: "INVALID_ENUM_VALUE", data: {} },
    ]);
  return t;
}
