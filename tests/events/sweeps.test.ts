import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { retentionDue, runRetention } from "../../worker/events/retention";
import { runSweeps } from "../../worker/events/sweeps";
import { openDb } from "../../worker/platform/db";

describe("sweeps", () => {
  it("delete expired one-time tokens and stale rate-limit windows, and keep live ones", async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const future = new Date(Date.now() + 600_000).toISOString();
    const now = new Date().toISOString();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO one_time_tokens (token_hash, kind, identity_id, data, expires_at, created_date) VALUES (?, 'session', NULL, '{}', ?, ?)").bind("sweep-expired", past, now),
      env.DB.prepare("INSERT INTO one_time_tokens (token_hash, kind, identity_id, data, expires_at, created_date) VALUES (?, 'session', NULL, '{}', ?, ?)").bind("sweep-live", future, now),
      env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES ('sweep:old', ?, 3), ('sweep:new', ?, 3)").bind(
        Math.floor(Date.now() / 1000) - 2 * 24 * 3600,
        Math.floor(Date.now() / 1000),
      ),
    ]);
    const result = await runSweeps(env);
    expect(result.expiredTokens).toBeGreaterThanOrEqual(1);
    const tokens = await env.DB.prepare("SELECT token_hash FROM one_time_tokens WHERE token_hash LIKE 'sweep-%'").all<{ token_hash: string }>();
    expect(tokens.results.map((r) => r.token_hash)).toEqual(["sweep-live"]);
    const limits = await env.DB.prepare("SELECT key FROM rate_limits WHERE key LIKE 'sweep:%'").all<{ key: string }>();
    expect(limits.results.map((r) => r.key)).toEqual(["sweep:new"]);
  });
});

describe("retention", () => {
  it("runs in the first sweep of each hour only", () => {
    expect(retentionDue(new Date("2026-11-23T10:00:30Z"))).toBe(true);
    expect(retentionDue(new Date("2026-11-23T10:01:00Z"))).toBe(false);
  });

  it("deletes finished bookkeeping older than 30 days and keeps the rest", async () => {
    const old = new Date(Date.now() - 31 * 24 * 3600_000).toISOString();
    const recent = new Date().toISOString();
    const id = (s: string) => `retention-${s}-${crypto.randomUUID()}`;
    const ids = { oldFlushed: id("of"), oldUnflushed: id("ou"), newFlushed: id("nf"), oldDone: id("od"), newDone: id("nd"), failed: id("fd") };
    const outbox = (rowId: string, time: string, flushed: string | null) =>
      env.DB.prepare("INSERT INTO outbox (id, type, entity_id, event_time, actor_type, actor_id, data, flushed_at, attempts) VALUES (?, 'test.Retention', 'e', ?, 'APP', NULL, '{}', ?, 0)").bind(rowId, time, flushed);
    const processed = (eventId: string, time: string) => env.DB.prepare("INSERT INTO processed_events (event_id, processor, processed_at) VALUES (?, 'p', ?)").bind(eventId, time);
    await env.DB.batch([
      outbox(ids.oldFlushed, old, old),
      outbox(ids.oldUnflushed, old, null),
      outbox(ids.newFlushed, recent, recent),
      processed(ids.oldDone, old),
      processed(ids.newDone, recent),
      processed(ids.failed, old),
      // A dead event keeps the records of the processors that succeeded, so a replay runs only the failed one.
      env.DB.prepare("INSERT INTO event_failures (id, type, body, state, processor, error, attempts, first_failed_at, last_failed_at) VALUES (?, 't', '{}', 'DEAD', 'q', 'boom', 1, ?, ?)").bind(`${ids.failed}#q`, old, old),
    ]);
    const deleted = await runRetention(openDb(env.DB), new Date());
    expect(deleted).toBeGreaterThanOrEqual(2);
    const outboxLeft = (await env.DB.prepare("SELECT id FROM outbox WHERE id LIKE 'retention-%'").all<{ id: string }>()).results.map((r) => r.id).sort();
    expect(outboxLeft).toEqual([ids.oldUnflushed, ids.newFlushed].sort());
    const processedLeft = (await env.DB.prepare("SELECT event_id FROM processed_events WHERE event_id LIKE 'retention-%'").all<{ event_id: string }>()).results.map((r) => r.event_id).sort();
    expect(processedLeft).toEqual([ids.newDone, ids.failed].sort());
  });
});
