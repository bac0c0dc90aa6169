import type { Db } from "../platform/db";
import { detectAbandonedCarts, sendDueRecoveryEmails } from "./abandoned-carts";

/**
 * The automations' part of the periodic sweeps (worker/events/sweeps.ts): report carts idle past the threshold as
 * abandoned, then send the recovery emails that fell due. `now` is the clock both judge by (tests move it).
 */
export async function runAutomationSweeps(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<Record<string, number>> {
  const abandonedCarts = await detectAbandonedCarts(env, db, now, waitUntil);
  const recoveryEmails = await sendDueRecoveryEmails(env, db, now, waitUntil);
  return { abandonedCarts, recoveryEmails };
}
