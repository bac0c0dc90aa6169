import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { addToCurrentCart, cartOwnerOf, cartSummaryRead, checkoutEmailRead, loadCarts, ownerKey, resolveAll, totalsFor, type CartOwner } from "../cart/cart";
import { cartShape, ecomMoney, type CartRow, type CartShape } from "../cart/shapes";
import { emailOutcomes, sendEmail } from "../email/send";
import type { ProcessorContext } from "../events/consumer";
import { commit, newEvent, outboxInsert, outboxInsertIfChanged, type EventEnvelope, type Statement } from "../events/outbox";
import { memberContactRead } from "../identity/members";
import { orderTotalRead } from "../orders/orders";
import { isUniqueViolation } from "../platform/batch";
import { nowIso, systemCtx, type Ctx } from "../platform/context";
import { rawStatement, type Db } from "../platform/db";
import { ApiError, invalidArgument } from "../platform/errors";
import { newId } from "../platform/ids";
import { formatMoney, toMajor, toMinor } from "../platform/money";
import { publicOrigin } from "../platform/public-origin";
import { AutomationEventType } from "./events";
import { automationSettingsFrom, automationSettingsRead, loadAutomationSettings } from "./settings";
import { abandonedCheckoutActivities, abandonedCheckouts, recoveryEmails, type ACTIVITY_TYPES } from "./tables";
import { taskStatement } from "./tasks";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Abandoned carts (DESIGN.md §7):
 *   1. the sweep finds ACTIVE carts with items and a contact email, idle past the store's threshold, and emits
 *      CartAbandonedEvent through the outbox, once per idle period (cart_abandonment_marks);
 *   2. its processor makes the abandoned checkout (ABANDONED, a recovery link) with its activities, schedules the
 *      recovery emails as rows, and opens a merchant task for a high-value cart;
 *   3. the sweep sends the emails that fall due (or records why not);
 *   4. an order from the cart (or from the cart the recovery link restored) emits CartRecoveredEvent, marks it
 *      RECOVERED and cancels the emails still scheduled.
 */

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** Why a recovery email was not sent (the EMAIL_NOT_SENT activity's reason). */
export type NotSentReason = "NO_EMAIL" | "UNSUBSCRIBED" | "CART_EMPTIED" | "ALREADY_RECOVERED" | "SEND_FAILED" | "SUPERSEDED";

/** Carts one sweep reports at most (the next sweep, a minute later, takes the rest). */
const SWEEP_MAX_CARTS = 500;
const SWEEP_CHUNK = 25;

const JOB = "automations:abandoned-carts";

// ---------------------------------------------------------------------------------------------------------------
// Statements

/** An activity row, to put in the batch of the step it records. */
export function activityStatement(
  db: Db,
  abandonedCheckoutId: string,
  type: ActivityType,
  details: Record<string, unknown> = {},
  extra: { reason?: string | null; actorType?: (typeof abandonedCheckoutActivities.$inferInsert)["actorType"]; actorId?: string | null; at?: string } = {},
): Statement {
  return db.insert(abandonedCheckoutActivities).values(activityRow(abandonedCheckoutId, type, details, extra));
}

/** The row activityStatement writes (for an event that shows it before it is read back). */
function activityRow(abandonedCheckoutId: string, type: ActivityType, details: Record<string, unknown>, extra: Parameters<typeof activityStatement>[4] = {}): ActivityRow {
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
function activityIfChanged(db: Db, abandonedCheckoutId: string, type: ActivityType, details: Record<string, unknown>, reason: string | null = null): Statement {
  return rawStatement(
    db,
    sql`INSERT INTO abandoned_checkout_activities (id, abandoned_checkout_id, type, reason, actor_type, actor_id, details, created_date)
      SELECT ${newId()}, ${abandonedCheckoutId}, ${type}, ${reason}, NULL, NULL, ${JSON.stringify(details)}, ${nowIso()} WHERE changes() > 0`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Detection (sweep)

/** A cart's contact: the buyer email on the cart, else the member's, else the email given at checkout. */
function contactEmail(cart: CartRow, memberEmail: string | null | undefined, checkoutEmail: string | null | undefined): string | null {
  return cart.buyerInfo.email || memberEmail || checkoutEmail || null;
}

/**
 * Idle carts with items and some contact email, not yet reported for this idle period. This one query (and the
 * "cart unchanged" guard of the report's batch below) reads the cart domain's tables directly: it joins them with
 * this domain's marks on an index, which no cart service call could do in one round trip.
 */
/**
 * The carts idle past the cutoff whose idle period the sweep has not decided on yet (through carts_abandon_pending_idx,
 * named because without statistics SQLite would pick the status and activity index, which holds every idle cart:
 * the carts decided before are not even read), oldest first, with what decides them: whether they have items, a way
 * to reach the shopper, and a report already made for this idle period.
 */
const candidateSql = (cutoff: string, skipped: Set<string>) => sql`SELECT c.id AS id, c.owner_kind AS ownerKind, c.owner_id AS ownerId, c.last_activity AS lastActivity,
    c.checkout_id IS NOT NULL AS hasCheckout,
    EXISTS (SELECT 1 FROM cart_line_items l WHERE l.cart_id = c.id) AS hasItems,
    (json_extract(c.buyer_info, '$.email') IS NOT NULL OR c.owner_kind = 'member'
      OR EXISTS (SELECT 1 FROM checkouts k WHERE k.id = c.checkout_id AND json_extract(k.buyer_info, '$.email') IS NOT NULL)) AS reachable,
    EXISTS (SELECT 1 FROM cart_abandonment_marks m WHERE m.cart_id = c.id AND m.idle_since = c.last_activity) AS reported
  FROM carts c INDEXED BY carts_abandon_pending_idx
  WHERE c.status = 'ACTIVE' AND c.abandon_checked IS NOT c.last_activity AND c.last_activity < ${cutoff}
    AND c.id NOT IN (SELECT value FROM json_each(${JSON.stringify([...skipped])}))
  ORDER BY c.last_activity, c.id LIMIT ${SWEEP_CHUNK}`;

interface Candidate {
  id: string;
  ownerKind: "visitor" | "member";
  ownerId: string;
  lastActivity: string;
  hasCheckout: number;
  hasItems: number;
  reachable: number;
  reported: number;
}

/**
 * Records the sweep's decision on each cart's idle period, only while that period lasts (a cart with new activity
 * since it was read keeps its new period undecided).
 */
const decidedSql = (decided: Candidate[]) =>
  sql`UPDATE carts SET abandon_checked = last_activity
    WHERE (id, last_activity) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${JSON.stringify(decided.map((c) => [c.id, c.lastActivity]))}))`;

/**
 * Sweep: reports carts idle past the threshold as abandoned (one CartAbandonedEvent per idle period, through the
 * outbox). `now` is the clock it judges by. Returns how many it reported.
 *
 * Each idle period is decided once: reported, or not a candidate (no items; no email, unless the cart's checkout may
 * still get one without the cart changing), and the cart is then left alone until its next activity. So what a sweep
 * reads grows with the carts that went idle since the last one, not with every idle cart the store has ever had. A
 * cart that fails to be priced stays undecided: the next sweep tries it again.
 */
export async function detectAbandonedCarts(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<number> {
  const settings = await loadAutomationSettings(db);
  if (!settings.abandonedCartEnabled) return 0;
  const cutoff = new Date(now.getTime() - settings.abandonedCartIdleMinutes * 60_000).toISOString();
  const ctx = systemCtx(env, db, JOB, waitUntil);
  let reported = 0;
  const skipped = new Set<string>();
  for (let seen = 0; seen < SWEEP_MAX_CARTS; ) {
    const rows = await db.all<Candidate>(candidateSql(cutoff, skipped));
    if (!rows.length) break;
    seen += rows.length;
    const decided: Candidate[] = [];
    for (const row of rows) {
      skipped.add(row.id);
      if (row.reported || !row.hasItems || (!row.reachable && !row.hasCheckout)) {
        decided.push(row);
      } else if (row.reachable) {
        try {
          if (await reportCart(ctx, row, now)) reported++;
          decided.push(row);
        } catch (err) {
          // One cart that cannot be priced must not hold back the others; the next sweep tries it again.
          console.error("abandoned-cart sweep: could not report cart", row.id, err);
        }
      }
      // Otherwise its checkout may still get an email: looked at again by the next sweep.
    }
    if (decided.length) await db.run(decidedSql(decided));
  }
  return reported;
}

/** Line items as the abandoned checkout keeps them: the cart's wire line items, without the bulky parts. */
function compactLines(cart: CartShape) {
  return cart.lineItems.map((l) => ({
    id: l.id,
    quantity: l.quantity,
    ...(l.catalogReference ? { catalogReference: l.catalogReference } : {}),
    productName: l.productName,
    price: l.price,
    lineItemPrice: l.lineItemPrice,
    ...("url" in l && l.url ? { url: l.url } : {}),
    ...("image" in l && l.image ? { image: l.image } : {}),
    descriptionLines: l.descriptionLines,
    physicalProperties: l.physicalProperties,
    itemType: l.itemType,
  }));
}

async function reportCart(ctx: Ctx, row: { id: string; ownerKind: "visitor" | "member"; ownerId: string; lastActivity: string }, now: Date): Promise<boolean> {
  const owner: CartOwner = { kind: row.ownerKind, id: row.ownerId };
  const member = owner.kind === "member" ? [memberContactRead(ctx.db, owner.id)] : [];
  const loaded = await loadCarts(ctx, [owner], [], [checkoutEmailRead(ctx.db, { cartId: row.id }), ...member]);
  const cart = loaded.states.get(ownerKey(owner))?.cart;
  if (!cart || cart.id !== row.id || cart.lastActivity !== row.lastActivity) return false;
  const [checkoutRows, memberRows] = loaded.extra as [{ email: string | null }[], { email: string; profile: Record<string, unknown> }[] | undefined];
  const email = contactEmail(cart, memberRows?.[0]?.email, checkoutRows[0]?.email);
  if (!email) return false;
  const state = loaded.states.get(ownerKey(owner))!;
  const resolved = resolveAll(ctx, { ...state, cart, products: loaded.products });
  const totals = await totalsFor(ctx, cart, resolved);
  const shape = cartShape(cart, resolved, ctx.origin);
  const summary = totals.result.priceSummary;
  const contact = cart.contactInfo?.contactDetails;
  const profile = (memberRows?.[0]?.profile ?? {}) as { firstName?: string; lastName?: string };
  const firstName = contact?.firstName || profile.firstName;
  const lastName = contact?.lastName || profile.lastName;
  const major = (minor: number) => toMajor(minor, cart.currency);
  // The Wix event's fields (wire doc §5), plus what the abandoned checkout needs (currency, line items, checkout).
  const data = {
    cartId: cart.id,
    creationTime: cart.createdDate,
    abandonTime: now.toISOString(),
    buyerInfo: {
      id: owner.id,
      identityType: owner.kind === "member" ? "MEMBER" : "VISITOR",
      email,
      ...(firstName ? { firstName } : {}),
      ...(lastName ? { lastName } : {}),
      ...(contact?.phone ? { phone: contact.phone } : {}),
    },
    itemsCount: resolved.reduce((n, r) => n + r.row.quantity, 0),
    ...(cart.couponCode ? { couponId: cart.couponCode } : {}),
    totals: { subtotal: major(summary.subtotal), total: major(summary.total), formattedTotal: formatMoney(summary.total, cart.currency) },
    currency: cart.currency,
    ...(cart.checkoutId ? { checkoutId: cart.checkoutId } : {}),
    lastActivity: cart.lastActivity,
    lineItems: compactLines(shape),
  };
  const event = newEvent(ctx, AutomationEventType.cartAbandoned, cart.id, data);
  const ts = nowIso();
  // The mark and the event commit together, and only while the cart is still the one read in this idle period.
  const results = await commit(
    ctx,
    [
      rawStatement(
        ctx.db,
        sql`INSERT INTO cart_abandonment_marks (cart_id, idle_since, event_id, marked_date)
          SELECT ${cart.id}, ${cart.lastActivity}, ${event.id}, ${ts}
          WHERE EXISTS (SELECT 1 FROM carts WHERE id = ${cart.id} AND status = 'ACTIVE' AND last_activity = ${cart.lastActivity})
          ON CONFLICT (cart_id) DO UPDATE SET idle_since = excluded.idle_since, event_id = excluded.event_id, marked_date = excluded.marked_date
          WHERE cart_abandonment_marks.idle_since <> excluded.idle_since`,
      ),
      outboxInsertIfChanged(ctx.db, event),
    ],
    (r) => (r[1].meta.changes ? [event] : []),
  );
  return Boolean(results[1].meta.changes);
}

// ---------------------------------------------------------------------------------------------------------------
// 2. The cart-abandoned processor

const money = z.coerce.number();

/** CartAbandonedEvent's data: dates become Dates, totals numbers (the incoming-webhook check uses it too). */
export const cartAbandonedSchema = z
  .object({
    cartId: z.string().min(1),
    creationTime: z.coerce.date(),
    abandonTime: z.coerce.date(),
    buyerInfo: z.object({ id: z.string().optional(), identityType: z.string().optional(), email: z.string().nullish(), firstName: z.string().nullish(), lastName: z.string().nullish() }).loose(),
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
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Processes CartAbandonedEvent: a new abandoned checkout with its recovery link, scheduled emails (activities
 * SCHEDULED) and, over the high-value setting, a merchant task (TASK_CREATED); or, for a cart already ABANDONED
 * (a new idle period), the record refreshed and the emails still scheduled moved after the new abandon time.
 * Everything, with the processed-event record, is one batch.
 */
export async function processCartAbandoned(event: EventEnvelope, data: CartAbandonedData, p: ProcessorContext): Promise<void> {
  const { db } = p;
  const settings = await loadAutomationSettings(db);
  const abandonIso = data.abandonTime.toISOString();
  const [[existing], [cart]] = await runBatch(db, [
    db.select().from(abandonedCheckouts).where(and(eq(abandonedCheckouts.cartId, data.cartId), eq(abandonedCheckouts.status, "ABANDONED"))),
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
  const statements: Statement[] = [];

  if (existing) {
    // A new idle period of a cart still ABANDONED: refresh it, and move what is still scheduled after it.
    const pending = await db.select().from(recoveryEmails).where(and(eq(recoveryEmails.abandonedCheckoutId, existing.id), eq(recoveryEmails.status, "SCHEDULED")));
    statements.push(
      db
        .update(abandonedCheckouts)
        .set({ abandonTime: abandonIso, subtotal, total, buyerInfo, lineItems: data.lineItems ?? existing.lineItems, checkoutId: data.checkoutId ?? existing.checkoutId, updatedDate: now })
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
    return;
  }

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
  const activities: ActivityRow[] = [];
  const addActivity = (a: ActivityRow) => {
    activities.push(a);
    statements.push(db.insert(abandonedCheckoutActivities).values(a));
  };
  settings.recoveryEmailDelaysMinutes.forEach((delayMinutes, i) => {
    const dueDate = new Date(data.abandonTime.getTime() + delayMinutes * 60_000).toISOString();
    statements.push(db.insert(recoveryEmails).values({ id: newId(), abandonedCheckoutId: id, step: i + 1, delayMinutes, dueDate, status: "SCHEDULED", updatedDate: now }));
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
  // The record's own domain event (abandonedCheckouts.onAbandonedCheckoutCreated), with the record as it is written.
  const entity = abandonedCheckoutShape({ ...row, restoredCartId: null, recoveredDate: null, recoveredOrderId: null, recoveredTotal: null }, activities, p.ctx.origin);
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
  const open = and(eq(abandonedCheckouts.status, "ABANDONED"), sql`(${abandonedCheckouts.cartId} = ${cartId} OR ${abandonedCheckouts.restoredCartId} = ${cartId})`);
  const [[record], [order], activities] = await runBatch(db, [
    db.select().from(abandonedCheckouts).where(open).orderBy(abandonedCheckouts.createdDate).limit(1),
    orderTotalRead(db, orderId),
    db
      .select()
      .from(abandonedCheckoutActivities)
      .where(sql`${abandonedCheckoutActivities.abandonedCheckoutId} = (SELECT id FROM abandoned_checkouts WHERE ${open} ORDER BY created_date LIMIT 1)`)
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
  const change = { status: "RECOVERED" as const, recoveredDate: recoveredTime, recoveredOrderId: orderId, recoveredTotal: order?.total ?? null, updatedDate: now };
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

// ---------------------------------------------------------------------------------------------------------------
// 3. Due recovery emails (sweep)

interface DueRow {
  id: string;
  step: number;
  abandonedCheckoutId: string;
}

/** Sweep: sends the recovery emails due by `now` (or records why not). Returns how many rows it settled. */
export async function sendDueRecoveryEmails(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<number> {
  // Switched off: what is scheduled waits (and goes out when the merchant switches it back on).
  if (!(await loadAutomationSettings(db)).abandonedCartEnabled) return 0;
  const ctx = systemCtx(env, db, JOB, waitUntil);
  let settled = 0;
  const held = new Set<string>();
  for (let round = 0; round < 20; round++) {
    const due = (
      await db
        .select({ id: recoveryEmails.id, step: recoveryEmails.step, abandonedCheckoutId: recoveryEmails.abandonedCheckoutId })
        .from(recoveryEmails)
        .where(and(eq(recoveryEmails.status, "SCHEDULED"), sql`${recoveryEmails.dueDate} <= ${now.toISOString()}`))
        .orderBy(recoveryEmails.dueDate, recoveryEmails.id)
        .limit(SWEEP_CHUNK + held.size)
    ).filter((r) => !held.has(r.id));
    if (!due.length) break;
    for (const row of due) {
      try {
        if (await settleRecoveryEmail(ctx, row, now)) settled++;
        else held.add(row.id);
      } catch (err) {
        console.error("recovery email sweep: could not settle", row.id, err);
        held.add(row.id);
      }
    }
  }
  return settled;
}

/** Sends one due recovery email, or records why it was not sent. False when it stays scheduled (the shopper is back). */
async function settleRecoveryEmail(ctx: Ctx, row: DueRow, now: Date): Promise<boolean> {
  const { db } = ctx;
  const [[record], later] = await runBatch(db, [
    db.select().from(abandonedCheckouts).where(eq(abandonedCheckouts.id, row.abandonedCheckoutId)),
    db
      .select({ id: recoveryEmails.id })
      .from(recoveryEmails)
      .where(
        and(
          eq(recoveryEmails.abandonedCheckoutId, row.abandonedCheckoutId),
          eq(recoveryEmails.status, "SCHEDULED"),
          sql`${recoveryEmails.step} > ${row.step} AND ${recoveryEmails.dueDate} <= ${now.toISOString()}`,
        ),
      )
      .limit(1),
  ]);
  if (!record) return notSent(ctx, row, "CART_EMPTIED");
  if (record.status === "RECOVERED") return notSent(ctx, row, "ALREADY_RECOVERED");
  // The sweeps were stopped past the next reminder's time too: the shopper gets only the latest one, not a burst.
  if (later.length) return notSent(ctx, row, "SUPERSEDED");
  const owner: CartOwner = { kind: record.ownerKind, id: record.ownerId };
  const loaded = await loadCarts(ctx, [owner], [], [
    cartSummaryRead(db, record.cartId),
    memberContactRead(db, owner.kind === "member" ? owner.id : ""),
    checkoutEmailRead(db, { checkoutId: record.checkoutId ?? "" }),
  ]);
  const [[cartRow], memberRows, checkoutRows] = loaded.extra as [{ status: string }[], { email: string; profile: Record<string, unknown> }[], { email: string | null }[]];
  const state = loaded.states.get(ownerKey(owner))!;
  if (cartRow?.status === "COMPLETED") return notSent(ctx, row, "ALREADY_RECOVERED");
  const cart = state.cart?.id === record.cartId ? state.cart : null;
  if (!cart || state.lines.length === 0) return notSent(ctx, row, "CART_EMPTIED");
  const email = contactEmail(cart, memberRows[0]?.email, checkoutRows[0]?.email);
  if (!email) return notSent(ctx, row, "NO_EMAIL");
  // The shopper came back after it was abandoned: hold the email; when the cart goes idle again it is rescheduled.
  if (cart.lastActivity > record.abandonTime) return false;
  const resolved = resolveAll(ctx, { ...state, cart, products: loaded.products });
  const totals = await totalsFor(ctx, cart, resolved);
  const shape = cartShape(cart, resolved, ctx.origin);
  const profile = (memberRows[0]?.profile ?? {}) as { firstName?: string };
  const recoveryUrl = `${publicOrigin(ctx)}/cart/recover/${record.recoveryToken}`;
  const result = await sendEmail(
    ctx,
    email,
    "abandoned-cart",
    {
      name: cart.contactInfo?.contactDetails?.firstName || profile.firstName || undefined,
      step: row.step,
      recoveryUrl,
      total: totals.wire.priceSummary.total.formattedAmount,
      items: shape.lineItems.map((l) => ({
        name: l.productName.original,
        quantity: l.quantity,
        price: l.lineItemPrice.formattedAmount,
        imageUrl: "image" in l && l.image ? l.image.url : null,
        options: (l.descriptionLines as { name?: { original?: string }; plainText?: { original?: string }; colorInfo?: { original?: string } }[])
          .map((d) => `${d.name?.original}: ${d.plainText?.original ?? d.colorInfo?.original}`)
          .join(", "),
      })),
    },
    { idempotencyKey: `recovery-email:${row.id}`, marketing: true, awaitDelivery: true },
  );
  if (result.status === "SUPPRESSED") return notSent(ctx, row, "UNSUBSCRIBED", result.id);
  // The transport failed but the email sweep will try again: SENDING until that settles (settleSendingRecoveryEmails).
  if (result.retrying) {
    await db
      .update(recoveryEmails)
      .set({ status: "SENDING", emailId: result.id, updatedDate: nowIso() })
      .where(and(eq(recoveryEmails.id, row.id), eq(recoveryEmails.status, "SCHEDULED")));
    return true;
  }
  if (result.status === "FAILED") return notSent(ctx, row, "SEND_FAILED", result.id, result.error);
  await runBatch(db, [
    db
      .update(recoveryEmails)
      .set({ status: "SENT", emailId: result.id, updatedDate: nowIso() })
      .where(and(eq(recoveryEmails.id, row.id), eq(recoveryEmails.status, "SCHEDULED"))),
    activityIfChanged(db, record.id, "EMAIL_SENT", { step: row.step, emailId: result.id, to: email }),
  ]);
  return true;
}

/**
 * Sweep: recovery emails whose first hand-over failed (SENDING) become SENT or NOT_SENT (SEND_FAILED) once the email
 * sweep's retries settle them, each with its activity. Returns how many it settled.
 */
export async function settleSendingRecoveryEmails(db: Db): Promise<number> {
  const sending = await db.select().from(recoveryEmails).where(eq(recoveryEmails.status, "SENDING")).orderBy(recoveryEmails.updatedDate).limit(SWEEP_CHUNK);
  if (!sending.length) return 0;
  const outcomes = await emailOutcomes(db, sending.map((r) => r.emailId ?? ""));
  const now = nowIso();
  const statements: Statement[] = [];
  for (const r of sending) {
    const o = outcomes.get(r.emailId ?? "");
    if (o?.retrying) continue;
    const sent = o?.status === "SENT";
    // Unsubscribed while the retries waited: the email sweep suppressed it.
    const reason: NotSentReason = o?.status === "SUPPRESSED" ? "UNSUBSCRIBED" : "SEND_FAILED";
    statements.push(
      db
        .update(recoveryEmails)
        .set({ status: sent ? "SENT" : "NOT_SENT", reason: sent ? null : reason, updatedDate: now })
        .where(and(eq(recoveryEmails.id, r.id), eq(recoveryEmails.status, "SENDING"))),
      sent
        ? activityIfChanged(db, r.abandonedCheckoutId, "EMAIL_SENT", { step: r.step, emailId: r.emailId, to: o.to })
        : activityIfChanged(db, r.abandonedCheckoutId, "EMAIL_NOT_SENT", { step: r.step, emailId: r.emailId, ...(o?.error ? { error: o.error } : {}) }, reason),
    );
  }
  await runBatch(db, statements);
  return statements.length / 2;
}

async function notSent(ctx: Ctx, row: DueRow, reason: NotSentReason, emailId: string | null = null, error?: string | null): Promise<boolean> {
  const now = nowIso();
  await runBatch(ctx.db, [
    ctx.db
      .update(recoveryEmails)
      .set({ status: "NOT_SENT", reason, emailId, updatedDate: now })
      .where(and(eq(recoveryEmails.id, row.id), eq(recoveryEmails.status, "SCHEDULED"))),
    activityIfChanged(ctx.db, row.abandonedCheckoutId, "EMAIL_NOT_SENT", { step: row.step, ...(emailId ? { emailId } : {}), ...(error ? { error } : {}) }, reason),
  ]);
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// 5. The recovery link (/cart/recover/:token)

export type RestoreOutcome =
  | { ok: true; cartId: string; restored: number; skipped: string[] }
  | { ok: false; reason: "NOT_FOUND" | "EXPIRED" | "ALREADY_RECOVERED" | "NOTHING_TO_RESTORE" };

/**
 * Puts an abandoned cart back as the caller's current cart (the recovery link's page): in the shopper's own browser
 * the cart is simply still there; in another browser its items are added to that browser's cart through the cart
 * service (items no longer for sale or out of stock are left out and named), and the record remembers that cart so
 * an order from it counts as a recovery. Opening the link again changes nothing.
 */
export async function restoreAbandonedCart(ctx: Ctx, token: string): Promise<RestoreOutcome> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return { ok: false, reason: "NOT_FOUND" };
  const owner = cartOwnerOf(ctx);
  const [[record], [stored]] = await runBatch(ctx.db, [ctx.db.select().from(abandonedCheckouts).where(eq(abandonedCheckouts.recoveryToken, token)), automationSettingsRead(ctx.db)]);
  if (!record) return { ok: false, reason: "NOT_FOUND" };
  if (record.status === "RECOVERED") return { ok: false, reason: "ALREADY_RECOVERED" };
  const { recoveryLinkDays } = automationSettingsFrom(stored?.value);
  if (Date.now() - Date.parse(record.abandonTime) > recoveryLinkDays * 24 * 3600_000) return { ok: false, reason: "EXPIRED" };
  const source: CartOwner = { kind: record.ownerKind, id: record.ownerId };
  const loaded = await loadCarts(ctx, ownerKey(source) === ownerKey(owner) ? [owner] : [owner, source], []);
  const mine = loaded.states.get(ownerKey(owner))!;
  // The shopper's own browser (or a second click in this one): the cart is already the current one.
  if (mine.cart && (mine.cart.id === record.cartId || mine.cart.id === record.restoredCartId)) return { ok: true, cartId: mine.cart.id, restored: 0, skipped: [] };
  const theirs = loaded.states.get(ownerKey(source))!;
  const live = theirs.cart?.id === record.cartId ? theirs.lines : null;
  const wanted = live
    ? live.filter((l) => !l.custom && l.catalogItemId).map((l) => ({ catalogItemId: l.catalogItemId!, variantId: l.variantId, quantity: l.quantity, name: l.snapshot.productName }))
    : record.lineItems
        .map((l) => l as { quantity?: number; catalogReference?: { catalogItemId?: string; options?: { variantId?: string } }; productName?: { original?: string } })
        .filter((l) => l.catalogReference?.catalogItemId)
        .map((l) => ({ catalogItemId: l.catalogReference!.catalogItemId!, variantId: l.catalogReference!.options?.variantId ?? null, quantity: l.quantity ?? 1, name: l.productName?.original ?? "" }));
  let items = wanted;
  const skipped: string[] = [];
  for (let attempt = 0; attempt < 3 && items.length; attempt++) {
    try {
      const { cart } = await addToCurrentCart(ctx, {
        lineItems: items.map((i) => ({ catalogReference: { catalogItemId: i.catalogItemId, ...(i.variantId ? { options: { variantId: i.variantId } } : {}) }, quantity: i.quantity })),
      });
      await ctx.db.update(abandonedCheckouts).set({ restoredCartId: cart.id, updatedDate: nowIso() }).where(eq(abandonedCheckouts.id, record.id));
      return { ok: true, cartId: cart.id, restored: items.length, skipped };
    } catch (err) {
      // Items that can no longer be bought are left out; the rest are restored.
      if (!(err instanceof ApiError) || !err.fieldViolations) throw err;
      const bad = new Set(err.fieldViolations.map((v) => Number(/^lineItems\[(\d+)\]/.exec(v.field)?.[1] ?? -1)).filter((i) => i >= 0));
      if (!bad.size) throw err;
      skipped.push(...items.filter((_, i) => bad.has(i)).map((i) => i.name));
      items = items.filter((_, i) => !bad.has(i));
    }
  }
  return { ok: false, reason: "NOTHING_TO_RESTORE" };
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
  if (!allowed.includes(t)) throw invalidArgument([{ field: "activityType", description: `must be one of ${allowed.join(", ")}`, violatedRule: "INVALID_ENUM_VALUE", data: {} }]);
  return t;
}
