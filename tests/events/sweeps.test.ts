import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runSweeps } from "../../worker/events/sweeps";

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
