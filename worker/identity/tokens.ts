import { sha256Hex } from "#worker/platform/ids";
import { nowMs } from "#worker/platform/clock";

/**
 * OAuth tokens in KV (the SESSIONS namespace), stored under the SHA-256 of the token, never the token itself.
 * Access tokens are short-lived; refresh tokens last until logout or expiry and are not rewritten when used (the
 * SDK never rotates them, and KV allows one write per second per key). Prefixes tell the kinds apart at a glance:
 * `at_` access, `rt_` refresh; API keys start `sk_`.
 */

export const ACCESS_TOKEN_TTL_SECONDS = 4 * 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 90 * 24 * 60 * 60;

export type TokenRole = "none" | "visitor" | "member";

/** What a token stands for. */
export interface TokenRecord {
  role: TokenRole;
  clientId: string;
  /** The visitor this browser/session is (kept across login so the cart can follow the shopper). */
  visitorId: string;
  /** Set for member tokens. */
  identityId?: string;
  /** For access tokens: the refresh token's hash they were minted from (logout revokes both). */
  refreshHash?: string;
  /** Epoch ms. */
  expiresAt: number;
  /** A refresh token a login replaced: it lapses within a minute and is never written back into a cookie. */
  superseded?: boolean;
  /**
   * For member tokens: the identity's session generation when the session began (absent: 0). Raising it (password
   * change or reset, sign out everywhere) ends every session issued under the old value.
   */
  generation?: number;
  /** Epoch ms of the login that began this session (kept by the access tokens minted from it). */
  authTime?: number;
}

function randomToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return prefix + btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** KV keys of token records (exported for tests that age or inspect a record). */
export const accessKey = (hash: string) => `token:access:${hash}`;
export const refreshKey = (hash: string) => `token:refresh:${hash}`;

/** The /oauth2/token answer. */
export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "Bearer";
}

/** Mints a refresh token and an access token for the subject (two KV writes to new keys). */
export async function issueTokens(env: Env, subject: Omit<TokenRecord, "expiresAt" | "refreshHash">): Promise<TokenResponse> {
  const refreshToken = randomToken("rt_");
  const refreshHash = await sha256Hex(refreshToken);
  const now = nowMs();
  const session = { authTime: now, ...subject };
  await env.SESSIONS.put(refreshKey(refreshHash), JSON.stringify({ ...session, expiresAt: now + REFRESH_TOKEN_TTL_SECONDS * 1000 }), {
    expirationTtl: REFRESH_TOKEN_TTL_SECONDS,
  });
  const access = await issueAccessToken(env, { ...session, refreshHash });
  return { access_token: access.token, refresh_token: refreshToken, expires_in: access.expiresIn, token_type: "Bearer" };
}

/** Mints an access token only (the refresh_token grant). */
export async function issueAccessToken(env: Env, subject: Omit<TokenRecord, "expiresAt">): Promise<{ token: string; expiresIn: number }> {
  const token = randomToken("at_");
  const record: TokenRecord = { ...subject, expiresAt: nowMs() + ACCESS_TOKEN_TTL_SECONDS * 1000 };
  await env.SESSIONS.put(accessKey(await sha256Hex(token)), JSON.stringify(record), { expirationTtl: ACCESS_TOKEN_TTL_SECONDS });
  return { token, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
}

async function read(env: Env, key: string): Promise<TokenRecord | null> {
  const record = await env.SESSIONS.get<TokenRecord>(key, "json");
  if (!record || record.expiresAt <= nowMs()) return null;
  return record;
}

/** The record of a live access token, or null (unknown, expired or revoked). */
export async function readAccessToken(env: Env, token: string): Promise<TokenRecord | null> {
  if (!token.startsWith("at_")) return null;
  const record = await read(env, accessKey(await sha256Hex(token)));
  // An access token dies with its refresh token (logout), even before its own TTL.
  if (record?.refreshHash && !(await read(env, refreshKey(record.refreshHash)))) return null;
  return record;
}

/** The record of a live refresh token, or null. */
export async function readRefreshToken(env: Env, token: string): Promise<(TokenRecord & { hash: string }) | null> {
  if (!token.startsWith("rt_")) return null;
  const hash = await sha256Hex(token);
  const record = await read(env, refreshKey(hash));
  return record ? { ...record, hash } : null;
}

/**
 * How long a session replaced at login keeps answering. The browser may already have requests on their way with the
 * old cookie (a prefetch, React Router's route discovery); if the old session were dead on arrival, those would be
 * answered with a brand-new visitor cookie and, landing after the login's, log the shopper straight out again.
 * 60 s is also KV's shortest expiry.
 */
export const SUPERSEDED_SESSION_GRACE_SECONDS = 60;

/** Lets a refresh token (and its access tokens) lapse after the grace period instead of at once. */
export async function expireRefreshHashSoon(env: Env, refreshHash: string): Promise<void> {
  const key = refreshKey(refreshHash);
  const record = await env.SESSIONS.get<TokenRecord>(key, "json");
  if (!record) return;
  const expiresAt = Math.min(record.expiresAt, nowMs() + SUPERSEDED_SESSION_GRACE_SECONDS * 1000);
  await env.SESSIONS.put(key, JSON.stringify({ ...record, expiresAt, superseded: true }), { expirationTtl: SUPERSEDED_SESSION_GRACE_SECONDS });
}

/** Revokes a refresh token (and so every access token minted from it). */
export async function revokeRefreshHash(env: Env, refreshHash: string): Promise<void> {
  await env.SESSIONS.delete(refreshKey(refreshHash));
}

/**
 * Ends the session an access token belongs to: its refresh token (so every access token minted from it dies too) and
 * the access token's own record. Returns whether the token was live.
 */
export async function revokeSessionOf(env: Env, accessToken: string): Promise<boolean> {
  const record = await readAccessToken(env, accessToken);
  if (!record) return false;
  await Promise.all([
    record.refreshHash ? revokeRefreshHash(env, record.refreshHash) : Promise.resolve(),
    env.SESSIONS.delete(accessKey(await sha256Hex(accessToken))),
  ]);
  return true;
}

/** The tokens of the caller's own session, as far as the request shows them (Authorization header, page cookie). */
export interface CallerTokens {
  accessToken?: string | null;
  refreshToken?: string | null;
}

/** The record of the caller's session: its refresh token's, else its access token's (null when neither is live). */
export async function readCallerSession(env: Env, tokens: CallerTokens): Promise<TokenRecord | null> {
  if (tokens.refreshToken) {
    const record = await readRefreshToken(env, tokens.refreshToken);
    if (record) return record;
  }
  return tokens.accessToken ? readAccessToken(env, tokens.accessToken) : null;
}

/**
 * Moves the caller's own session (its refresh token and the access token it presented) to a new session
 * generation, so the session that raised the generation keeps working while every other one ends. Records of
 * another identity, or already expired, are left alone.
 */
export async function carrySessionOver(env: Env, identityId: string, tokens: CallerTokens, generation: number): Promise<void> {
  const accessHash = tokens.accessToken?.startsWith("at_") ? await sha256Hex(tokens.accessToken) : null;
  const access = accessHash ? await env.SESSIONS.get<TokenRecord>(accessKey(accessHash), "json") : null;
  const refreshHash = tokens.refreshToken?.startsWith("rt_") ? await sha256Hex(tokens.refreshToken) : (access?.refreshHash ?? null);
  const refresh = refreshHash ? await env.SESSIONS.get<TokenRecord>(refreshKey(refreshHash), "json") : null;
  const now = nowMs();
  const rewrite = (key: string, record: TokenRecord | null) => {
    if (!record || record.identityId !== identityId || record.expiresAt <= now) return Promise.resolve();
    // KV's shortest expiry is 60 s; the record's own expiresAt still decides when it stops answering.
    const ttl = Math.max(60, Math.ceil((record.expiresAt - now) / 1000));
    return env.SESSIONS.put(key, JSON.stringify({ ...record, generation }), { expirationTtl: ttl });
  };
  await Promise.all([
    accessHash ? rewrite(accessKey(accessHash), access) : Promise.resolve(),
    refreshHash ? rewrite(refreshKey(refreshHash), refresh) : Promise.resolve(),
  ]);
}
