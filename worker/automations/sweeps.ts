import { systemCtx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { detectAbandonedCarts, sendDueRecoveryEmails, settleSendingRecoveryEmails } from "./abandoned-carts";
import { settleWaitingRequests } from "./back-in-stock";

/**
 * The automations' part of the periodic sweeps (worker/app/sweeps.ts): report carts idle past the threshold as
 * abandoned, send the recovery emails that fell due, and settle the recovery and back-in-stock emails whose first
 * hand-over failed once the email sweep's retries decided them. `now` is the clock they judge by (tests move it).
 */
export async function runAutomationSweeps(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<Record<string, number>> {
  const abandonedCarts = await detectAbandonedCarts(env, db, now, waitUntil);
  const recoveryEmails = await sendDueRecoveryEmails(env, db, now, waitUntil);
  const retriedEmailsSettled =
    (await settleSendingRecoveryEmails(db)) + (await settleWaitingRequests(systemCtx(env, db, "automations:email-outcomes", waitUntil)));
  return { abandonedCarts, recoveryEmails, retriedEmailsSettled };
}
