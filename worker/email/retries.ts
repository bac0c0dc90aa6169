import { and, eq, sql } from "drizzle-orm";
import type { Statement } from "#worker/events";
import { requirePermission, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, notFound } from "#worker/platform/errors";
import { loadStoreSettings, shopSettings } from "#worker/store";
import { deliver, EMAIL_LEASE_MS, outcomeColumns, transportOf, type EmailStatus } from "./send";
import { emails, emailSubscriptions } from "./tables";
import { now as clockNow } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The email retry sweep: a message whose hand-over to the transport failed (FAILED) or never reported back (QUEUED
 * past its lease: the Worker stopped after recording it) is handed over again, up to MAX_EMAIL_ATTEMPTS times in
 * all on a growing schedule (send.ts), so a recovery email or an order confirmation is not lost to a passing
 * transport error. Each message is claimed with one UPDATE … RETURNING that moves its lease forward, so two sweeps
 * running at once never send the same message twice. A marketing email (it carries List-Unsubscribe) to an address
 * that unsubscribed since its first try is not sent again: it becomes SUPPRESSED. Without a transport (locally)
 * nothing is due: such rows carry no next attempt.
 */

/** Messages handed over per sweep (the sweep runs every minute). */
const PER_SWEEP = 25;

export async function retryDueEmails(env: Env, db: Db, now: Date): Promise<number> {
  if (!transportOf(env)) return 0;
  const at = now.toISOString();
  const lease = new Date(now.getTime() + EMAIL_LEASE_MS).toISOString();
  const isDue = sql`${emails.nextAttemptAt} <= ${at} AND ${emails.status} IN ('QUEUED', 'FAILED')`;
  const [, due] = await runBatch(db, [
    db
      .update(emails)
      .set({ status: "SUPPRESSED", nextAttemptAt: null })
      .where(
        sql`${isDue} AND ${emails.headers} IS NOT NULL AND lower(${emails.to}) IN (SELECT ${emailSubscriptions.email} FROM ${emailSubscriptions} WHERE ${emailSubscriptions.unsubscribedDate} IS NOT NULL)`,
      ),
    db
      .update(emails)
      .set({ attempts: sql`${emails.attempts} + 1`, nextAttemptAt: lease })
      .where(sql`${emails.id} IN (SELECT id FROM emails WHERE ${isDue} ORDER BY next_attempt_at LIMIT ${PER_SWEEP})`)
      .returning(),
  ]);
  if (!due.length) return 0;
  // Sent as the store's sender now (its settings may have changed since the first try).
  const configured = transportOf(env, await loadStoreSettings(env))!;
  const from = configured.from;
  const outcomes = await Promise.all(
    due.map((m) =>
      deliver(configured.transport, from, m.to, m, m.headers ?? null).then(
        () => null,
        (err: unknown) => err ?? new Error("send failed"),
      ),
    ),
  );
  const recorded: Statement[] = due.map((m, i) =>
    db
      .update(emails)
      .set(outcomeColumns(m.attempts, outcomes[i], now))
      .where(eq(emails.id, m.id)),
  );
  await runBatch(db, recorded);
  return due.length;
}

/**
 * The merchant retries one FAILED email now (console; automations.manage), e.g. after fixing the sender's domain or
 * the recipient's address verification: the same claim as the sweep (attempts + 1 and a lease, guarded on the row
 * still being FAILED, so a second click or a sweep running at that moment does not send it twice), the same
 * hand-over, and the same outcome columns, so a retry that fails again stays on the sweep's schedule while attempts
 * remain. A marketing email to an address that unsubscribed since becomes SUPPRESSED instead of being sent. Without
 * a transport (locally) the message goes back to QUEUED: recorded, as every local email is.
 * 404 EMAIL_NOT_FOUND; 409 EMAIL_NOT_FAILED for any other status (a SENT email is never sent twice from here).
 */
export async function retryEmail(
  ctx: Ctx,
  id: string,
): Promise<{ email: { id: string; to: string; status: EmailStatus; error: string | null; attempts: number } }> {
  requirePermission(ctx, "automations.manage");
  const { db } = ctx;
  // Sent as the store's sender now (the KV copy of its settings: no D1 round trip).
  const configured = transportOf(ctx.env, await shopSettings(ctx));
  const now = clockNow();
  const failed = and(eq(emails.id, id), eq(emails.status, "FAILED"));
  const [suppressed, claimed, [current]] = await runBatch(db, [
    db
      .update(emails)
      .set({ status: "SUPPRESSED", nextAttemptAt: null })
      .where(
        and(
          failed,
          sql`${emails.headers} IS NOT NULL AND lower(${emails.to}) IN (SELECT ${emailSubscriptions.email} FROM ${emailSubscriptions} WHERE ${emailSubscriptions.unsubscribedDate} IS NOT NULL)`,
        ),
      )
      .returning({ id: emails.id }),
    db
      .update(emails)
      .set(
        configured
          ? { attempts: sql`${emails.attempts} + 1`, nextAttemptAt: new Date(now.getTime() + EMAIL_LEASE_MS).toISOString() }
          : { status: "QUEUED", error: null, nextAttemptAt: null },
      )
      .where(failed)
      .returning(),
    db.select({ status: emails.status, to: emails.to, attempts: emails.attempts, error: emails.error }).from(emails).where(eq(emails.id, id)),
  ]);
  if (!current) throw notFound("EMAIL_NOT_FOUND", "Email", id);
  const m = claimed[0];
  if (!m) {
    if (suppressed.length) return { email: { id, ...current } };
    throw new ApiError(409, "EMAIL_NOT_FAILED", `Only a failed email can be retried; this one is ${current.status.toLowerCase()}`, {
      data: { id, status: current.status },
      message: "Email not failed",
    });
  }
  if (!configured) return { email: { id, to: m.to, status: "QUEUED", error: null, attempts: m.attempts } };
  let failure: unknown = null;
  try {
    await deliver(configured.transport, configured.from, m.to, m, m.headers ?? null);
  } catch (err) {
    failure = err ?? new Error("send failed");
  }
  const outcome = outcomeColumns(m.attempts, failure, now);
  await db.update(emails).set(outcome).where(eq(emails.id, id));
  return { email: { id, to: m.to, status: outcome.status, error: outcome.error, attempts: m.attempts } };
}
