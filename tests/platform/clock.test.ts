import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { advanceClock, now, nowMs, resetClock } from "#worker/platform/clock";
import { nowIso } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { hitLimits, type Limit } from "#worker/platform/rate-limit";
import { consumeOneTime, createOneTime, peekOneTime } from "#worker/identity/one-time";
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken, readAccessToken } from "#worker/identity/tokens";

// The platform clock: tests move time forward instead of waiting, and windows and expiry follow it.
afterEach(() => resetClock());

const db = () => openDb(env.DB);

describe("the clock", () => {
  it("is the wall clock until a test moves it, and keeps running after", () => {
    const wall = Date.now();
    expect(Math.abs(nowMs() - wall)).toBeLessThan(1000);
    advanceClock(3_600_000);
    expect(nowMs() - Date.now()).toBeGreaterThanOrEqual(3_600_000 - 5);
    expect(Date.parse(nowIso())).toBeGreaterThanOrEqual(wall + 3_600_000);
    expect(now().getTime()).toBeGreaterThanOrEqual(wall + 3_600_000);
    resetClock();
    expect(Math.abs(nowMs() - Date.now())).toBeLessThan(1000);
  });

  it("ends a rate-limit window when it moves past it", async () => {
    const limit: Limit = { key: `clock:${crypto.randomUUID()}`, max: 2, windowSeconds: 600, what: "clock test hits" };
    await hitLimits(db(), [limit]);
    await hitLimits(db(), [limit]);
    const refused = await hitLimits(db(), [limit]).catch((err) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(429);
    advanceClock(600_000);
    await expect(hitLimits(db(), [limit])).resolves.toBeUndefined();
  });

  it("expires one-time tokens and access tokens when it moves past their lifetime", async () => {
    const token = await createOneTime(db(), "recovery", 60, null);
    const kept = await createOneTime(db(), "recovery", 60, null);
    expect(await peekOneTime(db(), "recovery", token)).not.toBeNull();
    advanceClock(61_000);
    expect(await peekOneTime(db(), "recovery", token)).toBeNull();
    expect(await consumeOneTime(db(), "recovery", kept)).toBeNull();
    resetClock();

    const access = await issueAccessToken(env, { role: "visitor", clientId: "storefront", visitorId: crypto.randomUUID() });
    expect(await readAccessToken(env, access.token)).not.toBeNull();
    advanceClock(ACCESS_TOKEN_TTL_SECONDS * 1000);
    expect(await readAccessToken(env, access.token)).toBeNull();
  });
});
