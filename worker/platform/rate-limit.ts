import { and, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { rateLimits } from "./tables";
import { assertInBatch } from "./batch";
import type { Db } from "./db";
import { ApiError } from "./errors";
import { sha256Hex } from "./ids";
import { nowMs } from "./clock";
import { runBatch } from "./unit-of-work";

/**
 * Fixed-window rate limits, counted in the D1 `rate_limits` table (never in isolate memory: a Worker runs in many
 * isolates at once). One statement per limit both starts an expired window and counts the hit, atomically:
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING count`. A window ends `windowSeconds` after its first hit, so a
 * stranger can hold an account back for one window at a time at most, never for good.
 */

export interface Limit {
  key: string;
  max: number;
  windowSeconds: number;
  /** What is limited, for the error text ("login attempts for this account"). */
  what: string;
}

const nowSeconds = () => Math.floor(nowMs() / 1000);

/** The upsert that counts one hit against a limit (batchable); it returns the window's count and start. */
export function hitStatement(db: Db, limit: Limit, now = nowSeconds()) {
  const expired = sql`${rateLimits.windowStart} <= ${now - limit.windowSeconds}`;
  return db
    .insert(rateLimits)
    .values({ key: limit.key, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`CASE WHEN ${expired} THEN 1 ELSE ${rateLimits.count} + 1 END`,
        windowStart: sql`CASE WHEN ${expired} THEN ${now} ELSE ${rateLimits.windowStart} END`,
      },
    })
    .returning({ count: rateLimits.count, windowStart: rateLimits.windowStart });
}

/** The 429 a caller gets once over a limit. */
export function tooManyRequests(limit: Limit, retryAfterSeconds: number): ApiError {
  const wait = Math.max(1, retryAfterSeconds);
  return new ApiError(429, "TOO_MANY_REQUESTS", `Too many ${limit.what}; try again in ${formatWait(wait)}`, {
    data: { retryAfterSeconds: wait },
    headers: { "retry-after": String(wait) },
    message: "Too many requests",
  });
}

function formatWait(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** Checks the results of hit statements (same order as `limits`): throws 429 for the first limit exceeded. */
export function checkHits(limits: Limit[], results: { count: number; windowStart: number }[][], now = nowSeconds()): void {
  limits.forEach((limit, i) => {
    const row = results[i]?.[0];
    if (row && row.count > limit.max) throw tooManyRequests(limit, row.windowStart + limit.windowSeconds - now);
  });
}

/** Counts one hit against each limit in one round trip and throws 429 when any is exceeded. */
export async function hitLimits(db: Db, limits: Limit[]): Promise<void> {
  if (limits.length === 0) return;
  const now = nowSeconds();
  const statements = limits.map((l) => hitStatement(db, l, now));
  const results = (await runBatch(db, statements)) as { count: number; windowStart: number }[][];
  checkHits(limits, results, now);
}

/** Forgets a counter (e.g. an account's failed logins after a successful one); batchable. */
export function resetStatement(db: Db, key: string) {
  return db.delete(rateLimits).where(eq(rateLimits.key, key));
}

/** Forgets a counter and every counter under it (`<key>:…`), e.g. an account's failed logins from all addresses; batchable. */
export function resetPrefixStatement(db: Db, key: string) {
  // ";" follows ":" in byte order, so this is a range over the primary key, not a scan.
  return db.delete(rateLimits).where(or(eq(rateLimits.key, key), and(gte(rateLimits.key, `${key}:`), lt(rateLimits.key, `${key};`))));
}

/**
 * Claims a turn that comes at most once per `delaySeconds` (batchable): the row's window_start is the last turn
 * taken. Returns the row when this request got the turn, no row when the last turn was too recent.
 */
export function turnStatement(db: Db, key: string, delaySeconds: number, now = nowSeconds()) {
  return db
    .insert(rateLimits)
    .values({ key, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { windowStart: now, count: sql`${rateLimits.count} + 1` },
      setWhere: sql`${rateLimits.windowStart} <= ${now - delaySeconds}`,
    })
    .returning({ count: rateLimits.count, windowStart: rateLimits.windowStart });
}

/** When a turn (turnStatement) was last taken (batchable). */
export function lastTurnStatement(db: Db, key: string) {
  return db.select({ windowStart: rateLimits.windowStart }).from(rateLimits).where(eq(rateLimits.key, key));
}

/** Takes a turn (turnStatement), or throws 429 with the wait until the next one; one round trip. */
export async function takeTurn(db: Db, key: string, delaySeconds: number, limit: Limit): Promise<void> {
  const now = nowSeconds();
  const [taken, last] = await runBatch(db, [turnStatement(db, key, delaySeconds, now), lastTurnStatement(db, key)]);
  if (taken.length) return;
  throw tooManyRequests(limit, (last[0]?.windowStart ?? now) + delaySeconds - now);
}

/** A delay that doubles with each attempt over a limit (2 s, 4 s, 8 s, …), up to `capSeconds`. */
export function growingDelaySeconds(attemptsOver: number, capSeconds = 300): number {
  return Math.min(capSeconds, 2 ** Math.min(Math.max(attemptsOver, 1), 20));
}

/** Removes counters whose window ended long ago (keeps the table small; run from a sweep or now and then). */
export function sweepStatement(db: Db, olderThanSeconds = 24 * 60 * 60) {
  return db.delete(rateLimits).where(lt(rateLimits.windowStart, nowSeconds() - olderThanSeconds));
}

/** A key that names an email address without storing it: `<scope>:<sha-256 of the lower-cased address>`. */
export async function emailKey(scope: string, email: string): Promise<string> {
  return `${scope}:${await sha256Hex(email.trim().toLowerCase())}`;
}

/** The client address Cloudflare reports (absent in local tools and tests, which then have no per-address limit). */
export function clientAddress(headers: Headers): string | undefined {
  return headers.get("cf-connecting-ip")?.trim() || undefined;
}

/** Visitor tokens one client address may mint per window and client, unless the client has a budget of its own. */
export const DEFAULT_VISITOR_TOKEN_BUDGET = 300;

/** The visitor-token window (seconds). */
export const VISITOR_TOKEN_WINDOW_SECONDS = 10 * 60;

/** The limits the identity calls use. */
export const LIMITS = {
  /**
   * Login attempts on one account from one client address (the hard limit; a successful login from that address
   * resets it). Keyed on the account alone when the address is unknown (local tools). A stranger who guesses from
   * elsewhere never locks the account's owner out this way.
   */
  loginAccount: async (email: string, ip?: string): Promise<Limit> => ({
    key: `${await emailKey("login:account", email)}${ip ? `:${ip}` : ""}`,
    max: 10,
    windowSeconds: 15 * 60,
    what: ip ? "login attempts for this account from this address" : "login attempts for this account",
  }),
  /**
   * Login attempts on one account from every address. Over it, an address the account never signed in from must
   * solve a captcha (when one is configured) or wait a delay that grows with each attempt; an address it signed in
   * from before goes on as usual. Not reset by a success: a stranger's guessing must not restart with every login.
   */
  loginAccountWide: async (email: string): Promise<Limit> => ({
    key: await emailKey("login:account-wide", email),
    max: 30,
    windowSeconds: 60 * 60,
    what: "login attempts for this account from new addresses",
  }),
  /** Current-password checks when a member changes their password. */
  passwordCheck: (identityId: string): Limit => ({
    key: `password-check:${identityId}`,
    max: 10,
    windowSeconds: 15 * 60,
    what: "current password checks for this account",
  }),
  /** Login attempts per client address. */
  loginAddress: (ip: string): Limit => ({ key: `login:ip:${ip}`, max: 50, windowSeconds: 15 * 60, what: "login attempts from this address" }),
  /** Registrations per client address. */
  registerAddress: (ip: string): Limit => ({ key: `register:ip:${ip}`, max: 20, windowSeconds: 60 * 60, what: "registrations from this address" }),
  /** Verification codes emailed to one identity (register, login, start, resend). */
  codeEmails: (identityId: string): Limit => ({
    key: `verify:send:${identityId}`,
    max: 5,
    windowSeconds: 15 * 60,
    what: "verification emails for this account",
  }),
  /** Code checks per client address (on top of the 5 attempts each state token allows). */
  verifyAddress: (ip: string): Limit => ({
    key: `verify:ip:${ip}`,
    max: 50,
    windowSeconds: 15 * 60,
    what: "verification attempts from this address",
  }),
  /** Recovery emails per address asked for (over it, the request still answers 200 but sends nothing). */
  recoveryEmail: async (email: string): Promise<Limit> => ({
    key: await emailKey("recovery:email", email),
    max: 5,
    windowSeconds: 60 * 60,
    what: "recovery emails for this address",
  }),
  /**
   * Anonymous visitor tokens minted per OAuth client and client address. A browser keeps its tokens, so a real
   * shopper needs one; the default leaves room for many shoppers behind one address while stopping a script from
   * filling KV. A headless site's server mints them for all its shoppers from one address: the merchant gives its
   * client a budget of its own, which counts apart from every other client and address.
   */
  anonymousTokens: (clientId: string, ip: string, budget: number | null): Limit => ({
    key: `anon-token:${clientId}:ip:${ip}`,
    max: budget ?? DEFAULT_VISITOR_TOKEN_BUDGET,
    windowSeconds: VISITOR_TOKEN_WINDOW_SECONDS,
    what: "visitor token requests from this address",
  }),
  /** Recovery requests per client address. */
  recoveryAddress: (ip: string): Limit => ({
    key: `recovery:ip:${ip}`,
    max: 20,
    windowSeconds: 60 * 60,
    what: "recovery requests from this address",
  }),
};

/**
 * A limit counted inside the batch of the write it limits: per limit, the hit and an assertion that aborts the whole
 * batch when the window is over its maximum. Only writes that go through count, and a refused one writes nothing
 * (its own hit is rolled back with it). After a failed batch, limitRefusal tells whether a limit was the cause.
 */
export function inBatchLimitStatements(db: Db, limits: Limit[], now = nowSeconds()): BatchItem<"sqlite">[] {
  return limits.flatMap((l) => [
    hitStatement(db, l, now),
    assertInBatch(db, sql`(SELECT ${rateLimits.count} FROM ${rateLimits} WHERE ${rateLimits.key} = ${l.key}) <= ${l.max}`),
  ]);
}

/** The 429 for the first limit whose current window is already full (one more hit would exceed it), or null. */
export async function limitRefusal(db: Db, limits: Limit[], now = nowSeconds()): Promise<ApiError | null> {
  if (!limits.length) return null;
  const rows = await db
    .select()
    .from(rateLimits)
    .where(
      inArray(
        rateLimits.key,
        limits.map((l) => l.key),
      ),
    );
  for (const limit of limits) {
    const row = rows.find((r) => r.key === limit.key);
    if (row && row.windowStart > now - limit.windowSeconds && row.count >= limit.max)
      return tooManyRequests(limit, row.windowStart + limit.windowSeconds - now);
  }
  return null;
}
