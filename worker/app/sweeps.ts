import { runAutomationSweeps } from "#worker/automations";
import { mediaSweepDue, resumeStalledImports, sweepUnusedMedia } from "#worker/catalog";
import { retryDueEmails } from "#worker/email";
import { expiredOneTimeTokensDelete } from "#worker/identity";
import { cancelExpiredUnpaidOrders, reconcileStartedRefunds, releasePendingOnlineOrders } from "#worker/orders";
import { openDb } from "#worker/platform/db";
import { syncStoreSettingsCopy } from "#worker/store";
import { sweepStatement as rateLimitSweep } from "#worker/platform/rate-limit";
import { flushPending, processStalled, queueLag, resendWaiting, retentionDue, runRetention } from "#worker/events";
import { config } from "#worker/platform/config";
import { resolveTaskStatement, taskStatement } from "#worker/tasks";
import type { Db } from "#worker/platform/db";
import { eventRegistry } from "./registry";
import { requeueOverdueDeliveries } from "#worker/webhooks";
import { now as clockNow } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

export interface SweepOptions {
  /** The clock the sweeps judge by (tests move it forward; otherwise now). */
  now?: Date;
  /** Keeps background work (e.g. the flush of events a sweep wrote) alive after the sweep returns. */
  waitUntil?: (p: Promise<unknown>) => void;
  /** Process waiting events in the sweep when the queue consumer looks stopped (default: under `npm start` only). */
  inlineWhenStalled?: boolean;
}

const EVENT_LAG_TASK = "event-lag";

/**
 * The acknowledged outbox's sweep: re-send flushed events not yet done (or record them dead), under `npm start`
 * process them here if the local consumer stopped, and open a merchant task while the lag is past its threshold
 * (closed again once it recovers).
 */
async function sweepEvents(env: Env, db: Db, now: Date, opts: SweepOptions, waitUntil: (p: Promise<unknown>) => void) {
  const inline = opts.inlineWhenStalled ?? config(env).environment === "development";
  const processedInline = inline ? await processStalled(env, db, eventRegistry, now, waitUntil) : 0;
  const { resent, dead } = await resendWaiting(env, db, eventRegistry, now);
  const lag = await queueLag(db, now);
  const limit = config(env).eventLagAlertSeconds;
  const minutes = Math.round(lag.oldestWaitingSeconds / 60);
  await runBatch(db, [
    lag.oldestWaitingSeconds > limit
      ? taskStatement(db, {
          kind: "EVENT_LAG",
          title: `Events are not being processed: ${lag.waiting} waiting, the oldest for ${minutes} minutes`,
          description:
            `${lag.waiting} events (stock updates, emails, webhooks) have waited longer than ${Math.round(limit / 60)} minutes to be processed. ` +
            "The shop sends them again and lists those it gives up on as dead events. Check the queue consumer's logs; this task closes " +
            "itself once the queue catches up.",
          dedupeKey: EVENT_LAG_TASK,
        })
      : resolveTaskStatement(db, EVENT_LAG_TASK),
  ]);
  return { eventsResent: resent, eventsDead: dead, eventsProcessedInline: processedInline, eventsWaiting: lag.waiting };
}

/**
 * The periodic sweeps (run by the sweeper's alarm every minute and by the cron trigger): re-send outbox rows that
 * did not reach the queue after their request or reached it but were never processed (sweepEvents), run the automations' sweeps (abandoned carts, due recovery emails),
 * cancel offline orders left unpaid past the store's hold (orders/unpaid.ts, releasing their stock), release online
 * orders whose hosted payment page was never made or expired unnoticed (orders/hosted-payment.ts), re-enqueue overdue webhook deliveries, hand failed or interrupted emails to the transport again, delete expired one-time tokens and stale rate-limit windows, and once an hour
 * delete the event bookkeeping past its retention (retention.ts) and media files nothing uses (catalog/media.ts). Each is idempotent, so running twice is harmless.
 */
export async function runSweeps(
  env: Env,
  opts: SweepOptions = {},
): Promise<{
  reflushed: number;
  eventsResent: number;
  eventsDead: number;
  eventsProcessedInline: number;
  eventsWaiting: number;
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
  const events = await sweepEvents(env, db, now, opts, waitUntil);
  const automations = await runAutomationSweeps(env, db, now, waitUntil);
  automations.webhookDeliveriesRequeued = await requeueOverdueDeliveries(env, db, now);
  const unpaidOrdersCanceled = await cancelExpiredUnpaidOrders(env, db, now, waitUntil);
  const pendingOnlineReleased = await releasePendingOnlineOrders(env, db, now, waitUntil);
  automations.startedRefundsSettled = await reconcileStartedRefunds(env, db, now, waitUntil);
  automations.stalledImportsResumed = await resumeStalledImports(env, db, now);
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
    ...events,
    expiredTokens: expired.meta.changes ?? 0,
    automations,
    unpaidOrdersCanceled,
    pendingOnlineReleased,
    emailsRetried,
    retentionDeleted,
    mediaDeleted,
  };
}
