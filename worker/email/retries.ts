import { eq, sql } from "drizzle-orm";
import type { Statement } from "../events/outbox";
import type { Db } from "../platform/db";
import { deliver, EMAIL_LEASE_MS, outcomeColumns, transportOf } from "./send";
import { emails, emailSubscriptions } from "./tables";

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
  const configured = transportOf(env);
  if (!configured) return 0;
  const at = now.toISOString();
  const lease = new Date(now.getTime() + EMAIL_LEASE_MS).toISOString();
  const isDue = sql`${emails.nextAttemptAt} <= ${at} AND ${emails.status} IN ('QUEUED', 'FAILED')`;
  const [, due] = await db.batch([
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
  const from = { email: configured.from, name: env.STORE_NAME || "Edge Storefront" };
  const outcomes = await Promise.all(
    due.map((m) =>
      deliver(configured.transport, from, m.to, m, m.headers ?? null).then(
        () => null,
        (err: unknown) => err ?? new Error("send failed"),
      ),
    ),
  );
  const recorded: Statement[] = due.map((m, i) => db.update(emails).set(outcomeColumns(m.attempts, outcomes[i], now)).where(eq(emails.id, m.id)));
  await db.batch(recorded as [Statement, ...Statement[]]);
  return due.length;
}
