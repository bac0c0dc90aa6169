import { accessTokenAuth, tokenAuth } from "#worker/identity";
import { defaultClientId } from "#worker/identity";
import { issueAccessToken, issueTokens, readRefreshToken } from "#worker/identity";
import {
  clearSession,
  commitMemberSession,
  readSessionCookie,
  SESSION_COOKIE,
  sessionCookie,
  sessionTokensOf,
  type SessionTokens,
} from "#worker/identity";
import type { Auth } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { newId } from "#worker/platform/ids";

// The cookie itself belongs to identity (the logout endpoint ends it too); the pages import it from here.
export { clearSession, commitMemberSession, readSessionCookie, SESSION_COOKIE, sessionCookie, sessionTokensOf, type SessionTokens };

/**
 * The storefront's session: the shopper's OAuth tokens in one HttpOnly, Secure, SameSite=Lax cookie (tokens only,
 * never identity data), kept the way the Wix SDK keeps them: a visitor gets anonymous
 * tokens; the access token is renewed with the refresh token when empty or expired; if renewal fails, new anonymous
 * tokens. The page host resolves it once per page request and hands loaders the caller as
 * `context.services.auth`. API requests never read this cookie: they use the Authorization header.
 */

/** Renew an access token this long before it expires, so it never lapses in the middle of a request. */
const RENEW_MARGIN_MS = 60_000;

/** The session of one page request: the caller, and the cookie to set when the tokens changed. */
export interface PageSession {
  auth: Auth;
  tokens: SessionTokens | null;
  /** A Set-Cookie value when the tokens changed in this request; null when the browser's cookie is still right. */
  setCookie: string | null;
}

/** The OAuth client the storefront's own sessions belong to: the store's default client (OAUTH_CLIENT_ID). */
export function storefrontClientId(env: Env): string {
  return defaultClientId(env);
}

/** New anonymous visitor tokens for the storefront client (the `anonymous` grant, in-process). */
async function mintVisitor(env: Env): Promise<PageSession> {
  const clientId = storefrontClientId(env);
  const visitorId = newId();
  const tokens = sessionTokensOf(await issueTokens(env, { role: "visitor", clientId, visitorId }));
  return { auth: { kind: "visitor", visitorId, clientId }, tokens, setCookie: sessionCookie(tokens) };
}

/** Renews the access token with the refresh token (the `refresh_token` grant, in-process), or null if it cannot. */
async function renew(env: Env, db: Db, refreshToken: string): Promise<PageSession | null> {
  const record = await readRefreshToken(env, refreshToken);
  if (!record) return null;
  // A blocked or deleted member's refresh token no longer renews (the same rule the API applies to their access tokens).
  const auth = await tokenAuth(db, record);
  if (!auth) return null;
  // A session a login replaced answers stragglers as itself, but never goes back into the browser's cookie.
  if (record.superseded) return { auth, tokens: null, setCookie: null };
  // The session's generation and login time go with it, as in the refresh_token grant.
  const { role, clientId, visitorId, identityId, generation, authTime, hash } = record;
  const access = await issueAccessToken(env, {
    role,
    clientId,
    visitorId,
    ...(identityId ? { identityId } : {}),
    ...(generation !== undefined ? { generation } : {}),
    ...(authTime !== undefined ? { authTime } : {}),
    refreshHash: hash,
  });
  const tokens = { accessToken: access.token, expiresAt: Date.now() + access.expiresIn * 1000, refreshToken };
  return { auth, tokens, setCookie: sessionCookie(tokens) };
}

/**
 * Resolves a page request's session: the cookie's access token while it is live; otherwise renewed with the refresh
 * token; otherwise (no cookie, or renewal failed) new anonymous tokens — unless `mint` is false (browsing:
 * see startsSession), which leaves the caller anonymous without writing anything (a dead cookie is cleared).
 */
export async function resolvePageSession(env: Env, db: Db, request: Request, opts: { mint?: boolean } = {}): Promise<PageSession> {
  const mint = opts.mint ?? true;
  const current = readSessionCookie(request);
  if (current) {
    if (current.accessToken && current.expiresAt - RENEW_MARGIN_MS > Date.now()) {
      const auth = await accessTokenAuth(env, db, current.accessToken);
      if (auth) return { auth, tokens: current, setCookie: null };
    }
    const renewed = await renew(env, db, current.refreshToken);
    if (renewed) return renewed;
  }
  if (!mint) return { auth: { kind: "anonymous" }, tokens: null, setCookie: current ? clearSession() : null };
  return mintVisitor(env);
}

/** Puts the session cookie on a page response, unless the page set or cleared it itself (login, logout). */
export function withSessionCookie(response: Response, session: PageSession): Response {
  if (!session.setCookie) return response;
  const own = response.headers.getSetCookie().some((c) => c.trimStart().startsWith(`${SESSION_COOKIE}=`));
  if (own) return response;
  let res = response;
  try {
    res.headers.append("set-cookie", session.setCookie);
  } catch {
    res = new Response(response.body, response);
    res.headers.append("set-cookie", session.setCookie);
  }
  return res;
}
