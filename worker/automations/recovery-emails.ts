import { and, eq, sql } from "drizzle-orm";
import { cartSummaryRead, checkoutEmailRead, loadCarts, ownerKey, resolveAll, totalsFor, type CartOwner } from "#worker/cart";
import { cartShape } from "#worker/cart";
import { emailOutcomes, sendEmail } from "#worker/email";
import type { Statement } from "#worker/events";
import { memberContactRead } from "#worker/identity";
import { nowIso, systemCtx, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { publicOrigin } from "#worker/platform/public-origin";
import { loadAutomationSettings } from "./settings";
import { abandonedCheckouts, recoveryEmails } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import { activityIfChanged, JOB, type NotSentReason, SWEEP_CHUNK } from "./abandoned-activities";
import { contactEmail } from "./abandoned-detection";

/** Abandoned carts, step 3: the sweep that sends the recovery emails that fall due, or records why not. */

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
  const loaded = await loadCarts(
    ctx,
    [owner],
    [],
    [
      cartSummaryRead(db, record.cartId),
      memberContactRead(db, owner.kind === "member" ? owner.id : ""),
      checkoutEmailRead(db, { checkoutId: record.checkoutId ?? "" }),
    ],
  );
  const [[cartRow], memberRows, checkoutRows] = loaded.extra as [
    { status: string }[],
    { email: string; profile: Record<string, unknown> }[],
    { email: string | null }[],
  ];
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
  const sending = await db
    .select()
    .from(recoveryEmails)
    .where(eq(recoveryEmails.status, "SENDING"))
    .orderBy(recoveryEmails.updatedDate)
    .limit(SWEEP_CHUNK);
  if (!sending.length) return 0;
  const outcomes = await emailOutcomes(
    db,
    sending.map((r) => r.emailId ?? ""),
  );
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
        : activityIfChanged(
            db,
            r.abandonedCheckoutId,
            "EMAIL_NOT_SENT",
            { step: r.step, emailId: r.emailId, ...(o?.error ? { error: o.error } : {}) },
            reason,
          ),
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
    activityIfChanged(
      ctx.db,
      row.abandonedCheckoutId,
      "EMAIL_NOT_SENT",
      { step: row.step, ...(emailId ? { emailId } : {}), ...(error ? { error } : {}) },
      reason,
    ),
  ]);
  return true;
}
