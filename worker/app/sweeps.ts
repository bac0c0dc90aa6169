import { runAutomationSweeps } from "#worker/automations";
import { mediaSweepDue, sweepUnusedMedia } from "#worker/catalog";
import { retryDueEmails } from "#worker/email";
import { expiredOneTimeTokensDelete } from "#worker/identity";
import { cancelExpiredUnpaidOrders, reconcileStartedRefunds, releasePendingOnlineOrders } from "#worker/orders";
import { openDb } from "#worker/platform/db";
import { syncStoreSettingsCopy } from "#worker/store";
import { sweepStatement as rateLimitSweep } from "#worker/platform/rate-limit";
import { flushPending, retentionDue, runRetention } from "#worker/events";
import { requeueOverdueDeliveries } from "#worker/webhooks";
import { now as clockNow } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

export interface SweepOptions {
  /** The clock the sweeps judge by (tests move it forward; otherwise now). */
  now?: Date;
  /** Keeps background work (e.g. the flush of events a sweep wrote) alive after the sweep returns. */
  waitUntil?: (p: Promise<unknown>) => void;
}

/**
 * The periodic sweeps (run by the sweeper's alarm every minute and by the cron trigger): re-send outbox rows that
 * did not reach the queue after their request, run the automations' sweeps (abandoned carts, due recovery emails),
 * cancel offline orders left unpaid past the store's hold (orders/unpaid.ts, releasing their stock), release online
 * orders whose hosted payment page was never made or expired unnoticed (orders/hosted-payment.ts), re-enqueue overdue webhook deliveries, hand failed or interrupted emails to the transport again, delete expired one-time tokens and stale rate-limit windows, and once an hour
 * delete the event bookkeeping past its retention (retention.ts) and media files nothing uses (catalog/media.ts). Each is idempotent, so running twice is harmless.
 */
export async function runSweeps(
  env: Env,
  opts: SweepOptions = {},
): Promise<{
  reflushed: number;
  expiredTokens: number;
  automations: Record<string, number>;
  unpaidOrdersCanceled: number;
  pendingOnlineReleased: number;
  emailsRetried: number;
  retentionDeleted: number;
  mediaDeleted: number;
}> {
  const db = openDb(env.DB);
  const now = opts.now ?? clockNow();
  const pending: Promise<unknown>[] = [];
  const waitUntil = opts.waitUntil ?? ((p: Promise<unknown>) => void pending.push(p));
  const reflushed = await flushPending(env, db);
  const automations = await runAutomationSweeps(env, db, now, waitUntil);
  automations.webhookDeliveriesRequeued = await requeueOverdueDeliveries(env, db, now);
  const unpaidOrdersCanceled = await cancelExpiredUnpaidOrders(env, db, now, waitUntil);
  const pendingOnlineReleased = await releasePendingOnlineOrders(env, db, now, waitUntil);
  automations.startedRefundsSettled = await reconcileStartedRefunds(env, db, now, waitUntil);
  const emailsRetried = await retryDueEmails(env, db, now);
  const [expired] = await runBatch(db, [expiredOneTimeTokensDelete(db, now), rateLimitSweep(db)]);
  // The shop reads the store's settings from KV: put right a copy a failed write left behind.
  await syncStoreSettingsCopy(env, db).catch((err) => console.error("store settings copy could not be synced", err));
  const retentionDeleted = retentionDue(now) ? await runRetention(db, now) : 0;
  // An R2 hiccup must not fail the other sweeps' report; the next hour's run tries again.
  const mediaDeleted = mediaSweepDue(now) ? await sweepUnusedMedia(env, db, now).catch((err) => (console.error("media sweep failed", err), 0)) : 0;
  await Promise.allSettled(pending);
  return {
    reflushed,
    expiredTokens: expired.meta.changes ?? 0,
    automations,
    unpaidOrdersCanceled,
    pendingOnlineReleased,
    emailsRetried,
    retentionDeleted,
    mediaDeleted,
  };
}
