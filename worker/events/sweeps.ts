import { lt } from "drizzle-orm";
import { oneTimeTokens } from "../identity/tables";
import { openDb } from "../platform/db";
import { sweepStatement as rateLimitSweep } from "../platform/rate-limit";
import { flushPending } from "./outbox";

/**
 * The periodic sweeps (run by the sweeper's alarm every minute and by the cron trigger): re-send outbox rows that
 * did not reach the queue after their request, and delete expired one-time tokens and stale rate-limit windows.
 * Each is idempotent, so running twice is harmless.
 */
export async function runSweeps(env: Env): Promise<{ reflushed: number; expiredTokens: number }> {
  const db = openDb(env.DB);
  const reflushed = await flushPending(env, db);
  const [expired] = (await db.batch([
    db.delete(oneTimeTokens).where(lt(oneTimeTokens.expiresAt, new Date().toISOString())),
    rateLimitSweep(db),
  ])) as unknown as D1Result[];
  return { reflushed, expiredTokens: expired.meta.changes ?? 0 };
}
