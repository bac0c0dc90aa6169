import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { emails } from "#worker/email";
import { z } from "zod";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { notFound } from "#worker/platform/errors";
import { formatMoney, toDecimalString } from "#worker/platform/money";
import { compileQuery, type FieldMap, type QueryInput } from "#worker/platform/query";
import { abandonedCheckoutShape, activityStatement, customActivityType, type ActivityRow } from "./abandoned-carts";
import { abandonedCheckoutActivities, abandonedCheckouts, ACTIVITY_ACTORS, recoveryEmails } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/** The merchant's abandoned-checkout calls: query (with the recovered revenue), get, add an activity, a summary. */

const fields: FieldMap = {
  id: { sql: abandonedCheckouts.id, type: "string", sortable: true },
  cartId: { sql: abandonedCheckouts.cartId, type: "string", sortable: true },
  checkoutId: { sql: abandonedCheckouts.checkoutId, type: "string", sortable: true },
  status: { sql: abandonedCheckouts.status, type: "string", sortable: true },
  "buyerInfo.email": { sql: sql`json_extract(${abandonedCheckouts.buyerInfo}, '$.email')`, type: "string", sortable: true },
  "buyerInfo.visitorId": { sql: sql`json_extract(${abandonedCheckouts.buyerInfo}, '$.visitorId')`, type: "string" },
  "buyerInfo.memberId": { sql: sql`json_extract(${abandonedCheckouts.buyerInfo}, '$.memberId')`, type: "string" },
  createdDate: { sql: abandonedCheckouts.createdDate, type: "date", sortable: true },
  updatedDate: { sql: abandonedCheckouts.updatedDate, type: "date", sortable: true },
  abandonTime: { sql: abandonedCheckouts.abandonTime, type: "date", sortable: true },
  checkoutRecoveredDate: { sql: abandonedCheckouts.recoveredDate, type: "date", sortable: true },
  "totalPrice.amount": { sql: abandonedCheckouts.total, type: "money", sortable: true },
};

/** The activities of the abandoned checkouts `which` picks, oldest first, for a batch. */
const activitiesRead = (ctx: Ctx, which: SQL | undefined) =>
  ctx.db.select().from(abandonedCheckoutActivities).where(which).orderBy(asc(abandonedCheckoutActivities.createdDate), sql`rowid`);

function byCheckout(rows: ActivityRow[]): Map<string, ActivityRow[]> {
  const by = new Map<string, ActivityRow[]>();
  for (const r of rows) by.set(r.abandonedCheckoutId, [...(by.get(r.abandonedCheckoutId) ?? []), r]);
  return by;
}

/**
 * POST /ecom/v1/abandoned-checkout/query: filter, sort and offset paging (cursorPaging.limit taken as the page
 * size), newest first. `metadata` adds the recovered revenue and counts of the whole filtered set.
 */
export async function queryAbandonedCheckouts(ctx: Ctx, query: (QueryInput & { cursorPaging?: { limit?: number } }) | undefined) {
  requireMerchant(ctx);
  const q: QueryInput = { filter: query?.filter, sort: query?.sort, paging: query?.paging };
  if (query?.cursorPaging && q.paging === undefined) q.paging = { limit: query.cursorPaging.limit };
  const compiled = compileQuery(q, fields, {
    currency: ctx.currency,
    tieBreaker: abandonedCheckouts.id,
    defaultSort: [sql`${abandonedCheckouts.createdDate} DESC`],
  });
  const page = () =>
    ctx.db
      .select()
      .from(abandonedCheckouts)
      .where(compiled.where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset);
  // The page's activities come in the same batch, selected by the same page as a subquery: one round trip.
  const pageIds = ctx.db
    .select({ id: abandonedCheckouts.id })
    .from(abandonedCheckouts)
    .where(compiled.where)
    .orderBy(...compiled.orderBy)
    .limit(compiled.limit)
    .offset(compiled.offset);
  const [rows, [totals], activityRows] = await runBatch(ctx.db, [
    page(),
    ctx.db
      .select({
        total: sql<number>`count(*)`,
        recovered: sql<number>`coalesce(sum(${abandonedCheckouts.status} = 'RECOVERED'), 0)`,
        revenue: sql<number>`coalesce(sum(CASE WHEN ${abandonedCheckouts.status} = 'RECOVERED' THEN coalesce(${abandonedCheckouts.recoveredTotal}, ${abandonedCheckouts.total}) END), 0)`,
      })
      .from(abandonedCheckouts)
      .where(compiled.where),
    activitiesRead(ctx, inArray(abandonedCheckoutActivities.abandonedCheckoutId, pageIds)),
  ]);
  const activities = byCheckout(activityRows);
  return {
    abandonedCheckouts: rows.map((r) => abandonedCheckoutShape(r, activities.get(r.id) ?? [], ctx.origin)),
    metadata: {
      count: rows.length,
      offset: compiled.offset,
      total: totals.total,
      recoveredCount: totals.recovered,
      recoveredRevenue: money(totals.revenue, ctx.currency),
    },
  };
}

const money = (minor: number, currency: string) => ({
  amount: toDecimalString(minor, currency),
  formattedAmount: formatMoney(minor, currency),
  currency,
});

export async function getAbandonedCheckout(ctx: Ctx, id: string) {
  requireMerchant(ctx);
  const [[row], activities] = await runBatch(ctx.db, [
    ctx.db.select().from(abandonedCheckouts).where(eq(abandonedCheckouts.id, id)),
    activitiesRead(ctx, eq(abandonedCheckoutActivities.abandonedCheckoutId, id)),
  ]);
  if (!row) throw notFound("ABANDONED_CHECKOUT_NOT_FOUND", "Abandoned checkout", id, "abandonedCheckoutId");
  return { abandonedCheckout: abandonedCheckoutShape(row, activities, ctx.origin) };
}

/** A recovery email of an abandoned checkout: its step of the schedule, where it stands, and the email sent. */
export interface RecoveryEmailView {
  step: number;
  status: "SCHEDULED" | "SENDING" | "SENT" | "NOT_SENT" | "CANCELED";
  dueDate: string;
  reason: string | null;
  emailId: string | null;
  subject: string | null;
  to: string | null;
}

/**
 * One abandoned checkout with its recovery emails and, for those handed to the outbox, the email's subject and
 * recipient (the console's cart page). One round trip. The join reads the email domain's outbox table directly: the
 * recovery email row holds the email's id, and one batch cannot call the email service.
 */
export async function getAbandonedCheckoutWithEmails(ctx: Ctx, id: string) {
  requireMerchant(ctx);
  const [[row], activities, sent] = await runBatch(ctx.db, [
    ctx.db.select().from(abandonedCheckouts).where(eq(abandonedCheckouts.id, id)),
    activitiesRead(ctx, eq(abandonedCheckoutActivities.abandonedCheckoutId, id)),
    ctx.db
      .select({
        step: recoveryEmails.step,
        status: recoveryEmails.status,
        dueDate: recoveryEmails.dueDate,
        reason: recoveryEmails.reason,
        emailId: recoveryEmails.emailId,
        // Aliased: D1 answers a batch in arrays, and two columns both named "status" would collide.
        subject: sql<string | null>`${emails.subject}`.as("email_subject"),
        to: sql<string | null>`${emails.to}`.as("email_to"),
      })
      .from(recoveryEmails)
      .leftJoin(emails, eq(emails.id, recoveryEmails.emailId))
      .where(eq(recoveryEmails.abandonedCheckoutId, id))
      .orderBy(recoveryEmails.step),
  ]);
  if (!row) throw notFound("ABANDONED_CHECKOUT_NOT_FOUND", "Abandoned checkout", id, "abandonedCheckoutId");
  return { abandonedCheckout: abandonedCheckoutShape(row, activities, ctx.origin), recoveryEmails: sent as RecoveryEmailView[] };
}

export const addActivityRequest = z
  .object({
    // The SDK repeats the path id in the body.
    abandonedCheckoutId: z.string().max(100).nullish(),
    activityType: z.string().max(50).optional(),
    /** What happened, in the merchant's words (a custom activity). */
    customActivity: z.object({ title: z.string().trim().min(1).max(200), description: z.string().trim().max(2000).optional() }).optional(),
    actor: z.object({ type: z.enum(ACTIVITY_ACTORS), id: z.string().trim().min(1).max(100).optional() }).optional(),
  })
  .strict();

/** POST /ecom/v1/abandoned-checkouts/{id}/add-activity: records an activity (default CUSTOM_ACTIVITY by ADMIN). */
export async function addAbandonedCheckoutActivity(ctx: Ctx, id: string, req: z.output<typeof addActivityRequest>) {
  requirePermission(ctx, "automations.manage");
  const type = customActivityType(req.activityType);
  const [row] = await ctx.db.select({ id: abandonedCheckouts.id }).from(abandonedCheckouts).where(eq(abandonedCheckouts.id, id));
  if (!row) throw notFound("ABANDONED_CHECKOUT_NOT_FOUND", "Abandoned checkout", id, "abandonedCheckoutId");
  const actorType = req.actor?.type ?? "ADMIN";
  const actorId = req.actor?.id ?? (ctx.auth.kind === "member" ? ctx.auth.identityId : ctx.auth.kind === "apiKey" ? ctx.auth.keyId : null);
  const now = nowIso();
  await runBatch(ctx.db, [
    activityStatement(ctx.db, id, type, req.customActivity ? { ...req.customActivity } : {}, { actorType, actorId, at: now }),
    ctx.db.update(abandonedCheckouts).set({ updatedDate: now }).where(eq(abandonedCheckouts.id, id)),
  ]);
  return getAbandonedCheckout(ctx, id);
}

/** GET /api/v1/abandoned-checkouts/summary: how many were abandoned and recovered, the recovered revenue and the rate. */
export async function abandonedCheckoutSummary(ctx: Ctx) {
  requireMerchant(ctx);
  const [s] = await ctx.db
    .select({
      total: sql<number>`count(*)`,
      recovered: sql<number>`coalesce(sum(${abandonedCheckouts.status} = 'RECOVERED'), 0)`,
      abandonedValue: sql<number>`coalesce(sum(CASE WHEN ${abandonedCheckouts.status} = 'ABANDONED' THEN ${abandonedCheckouts.total} END), 0)`,
      revenue: sql<number>`coalesce(sum(CASE WHEN ${abandonedCheckouts.status} = 'RECOVERED' THEN coalesce(${abandonedCheckouts.recoveredTotal}, ${abandonedCheckouts.total}) END), 0)`,
    })
    .from(abandonedCheckouts)
    .where(and(sql`1 = 1`));
  return {
    summary: {
      abandonedCount: s.total,
      recoveredCount: s.recovered,
      recoverableValue: money(s.abandonedValue, ctx.currency),
      recoveredRevenue: money(s.revenue, ctx.currency),
      recoveryRate: s.total ? Math.round((s.recovered / s.total) * 10_000) / 100 : 0,
    },
  };
}

/**
 * Carts abandoned per UTC hour since `since` (by abandon time): how many, how many of them were recovered and their
 * recovered revenue (minor units), for the dashboard's batch, which folds the hours into the store's days and weeks.
 */
export function abandonedByHourRead(db: Db, since: string) {
  const hour = sql<string>`substr(${abandonedCheckouts.abandonTime}, 1, 13)`;
  return db
    .select({
      hour: hour.as("abandoned_hour"),
      abandoned: sql<number>`count(*)`.as("abandoned_count"),
      recovered: sql<number>`coalesce(sum(${abandonedCheckouts.status} = 'RECOVERED'), 0)`.as("abandoned_recovered"),
      revenue:
        sql<number>`coalesce(sum(CASE WHEN ${abandonedCheckouts.status} = 'RECOVERED' THEN coalesce(${abandonedCheckouts.recoveredTotal}, ${abandonedCheckouts.total}) END), 0)`.as(
          "abandoned_revenue",
        ),
    })
    .from(abandonedCheckouts)
    .where(sql`${abandonedCheckouts.abandonTime} >= ${since}`)
    .groupBy(hour);
}
