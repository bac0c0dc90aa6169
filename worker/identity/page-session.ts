import { REFRESH_TOKEN_TTL_SECONDS, type TokenResponse } from "./tokens";

/**
 * The storefront's session cookie: the shopper's OAuth tokens in one HttpOnly, Secure, SameSite=Lax cookie (tokens
 * only, never identity data). The page host resolves and renews it (web/session.server.ts); the logout endpoint
 * (routes/session-end.ts) ends it.
 */

/**
 * `__Host-` pins the cookie to this origin, path / and Secure. Browsers accept Secure cookies from
 * http://localhost and http://127.0.0.1 (secure contexts), so the same name works in local development.
 */
export const SESSION_COOKIE = "__Host-session";

/** What the cookie holds. */
export interface SessionTokens {
  /** Empty after a failed or skipped access-token mint: the next request renews it. */
  accessToken: string;
  /** When the access token expires (epoch ms). */
  expiresAt: number;
  refreshToken: string;
}

const TOKEN_CHARS = /^[A-Za-z0-9_-]*$/;

/** The cookie's value: `v1.<access token>.<expiresAt>.<refresh token>` (tokens are base64url, so no dots). */
function encode(tokens: SessionTokens): string {
  return ["v1", tokens.accessToken, String(tokens.expiresAt), tokens.refreshToken].join(".");
}

function decode(value: string): SessionTokens | null {
  const parts = value.split(".");
  if (parts.length !== 4 || parts[0] !== "v1") return null;
  const [, accessToken, expires, refreshToken] = parts;
  if (!TOKEN_CHARS.test(accessToken) || !TOKEN_CHARS.test(refreshToken) || !refreshToken || !/^\d{1,15}$/.test(expires)) return null;
  return { accessToken, expiresAt: Number(expires), refreshToken };
}

/** The session tokens in a request's cookie, or null (none, or not ours). */
export function readSessionCookie(request: Request): SessionTokens | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const pair of header.split(";")) {
    const eqAt = pair.indexOf("=");
    if (eqAt < 0 || pair.slice(0, eqAt).trim() !== SESSION_COOKIE) continue;
    const tokens = decode(pair.slice(eqAt + 1).trim());
    if (tokens) return tokens;
  }
  return null;
}

/** The Set-Cookie value that stores these tokens (for as long as a refresh token lives). */
export function sessionCookie(tokens: SessionTokens): string {
  return `${SESSION_COOKIE}=${encode(tokens)}; Path=/; Max-Age=${REFRESH_TOKEN_TTL_SECONDS}; HttpOnly; Secure; SameSite=Lax`;
}

/** Session tokens from an /oauth2/token-style answer (issueTokens). */
export function sessionTokensOf(tokens: Pick<TokenResponse, "access_token" | "refresh_token" | "expires_in">, now = Date.now()): SessionTokens {
  return { accessToken: tokens.access_token, expiresAt: now + tokens.expires_in * 1000, refreshToken: tokens.refresh_token };
}

/**
 * The Set-Cookie value that logs the browser in with a member's tokens (the storefront login puts it on its
 * response; the Worker then leaves the cookie alone for that response).
 */
export function commitMemberSession(tokens: Pick<TokenResponse, "access_token" | "refresh_token" | "expires_in">): string {
  return sessionCookie(sessionTokensOf(tokens));
}

/**
 * The Set-Cookie value that forgets the session (logout; revoke the refresh token first, e.g. with
 * revokeRefreshHash). The next page request starts a new visitor.
 */
export function clearSession(): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}
