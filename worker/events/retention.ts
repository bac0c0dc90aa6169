import { sql } from "drizzle-orm";
import { rawStatement, type Db } from "#worker/platform/db";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Retention: the event pipeline's bookkeeping grows with every event, so once an hour the sweep deletes what is
 * older than 30 days and finished — done outbox rows, processed-event records, finished webhook deliveries (their
 * attempts go with them) and replayed failures. Incoming webhook records are kept: they are the proof that a
 * webhook id was seen (a Wix-format token without an expiry could otherwise be replayed). Each delete is bounded so
 * one sweep stays short; the next hour takes the rest.
 */

export const RETENTION_DAYS = 30;
const BATCH_LIMIT = 5000;

/** Whether this sweep should also run retention (the first sweep of each hour). */
export function retentionDue(now: Date): boolean {
  return now.getUTCMinutes() === 0;
}

export async function runRetention(db: Db, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * 24 * 3600_000).toISOString();
  const results = await runBatch(db, [
    rawStatement(
      db,
      sql`DELETE FROM outbox WHERE rowid IN (SELECT rowid FROM outbox WHERE done_at IS NOT NULL AND event_time < ${cutoff} LIMIT ${BATCH_LIMIT})`,
    ),
    // An event with a failure on record keeps its processed records: replaying it must not re-run what succeeded.
    rawStatement(
      db,
      sql`DELETE FROM processed_events WHERE rowid IN (SELECT p.rowid FROM processed_events p WHERE p.processed_at < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM event_failures f WHERE f.id = p.event_id OR substr(f.id, 1, length(p.event_id) + 1) = p.event_id || '#')
        LIMIT ${BATCH_LIMIT})`,
    ),
    rawStatement(
      db,
      sql`DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid FROM webhook_deliveries WHERE status <> 'PENDING' AND updated_date < ${cutoff} LIMIT ${BATCH_LIMIT})`,
    ),
    rawStatement(
      db,
      sql`DELETE FROM event_failures WHERE rowid IN (SELECT rowid FROM event_failures WHERE state = 'REPLAYED' AND replayed_at < ${cutoff} LIMIT ${BATCH_LIMIT})`,
    ),
  ]);
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}
