import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../entry/index";
import { createOneTime } from "#worker/identity/one-time";
import { challengeOf } from "#worker/identity/oauth";
import { accessKey, refreshKey, type TokenRecord } from "#worker/identity/tokens";
import { openDb } from "#worker/platform/db";
import { sha256Hex } from "#worker/platform/ids";
import { api, unique } from "../helpers";

/** The store's default OAuth client in the test bindings (vitest.config.ts). */
export const CLIENT_ID = "test-client-id";
export const REDIRECT_URI = "https://app.example/callback";

/** Every raw token a test saw, to check afterwards that none is stored in plain. */
export const seenTokens = new Set<string>();
export const remember = <T extends string | null | undefined>(token: T): T => {
  if (token) seenTokens.add(token);
  return token;
};

/** POST /oauth2/token with a JSON body. */
export async function tokenCall(body: unknown, headers: Record<string, string> = {}) {
  const res = await api("POST", "/oauth2/token", { body, headers });
  if (res.status === 200) {
    remember(res.body.access_token);
    remember(res.body.refresh_token);
  }
  return res;
}

/** New visitor tokens for the default client. */
export async function visitorTokens() {
  const res = await tokenCall({ clientId: CLIENT_ID, grantType: "anonymous" });
  if (res.status !== 200) throw new Error(`anonymous grant failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; refresh_token: string; expires_in: number };
}

/** An identity row written straight to D1 (members' own register/login are tested elsewhere). */
export async function createIdentity(opts: { status?: string; role?: string; email?: string } = {}) {
  const id = crypto.randomUUID();
  const email = opts.email ?? `member-${unique()}@example.com`;
  const now = new Date().toISOString();
  await env.DB.prepare("INSERT INTO identities (id, email, status, role, created_date, updated_date) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(id, email, opts.status ?? "ACTIVE", opts.role ?? "MEMBER", now, now)
    .run();
  return { id, email };
}

/** A session token as a successful login gives one (the members engineer's contract). */
export async function sessionTokenFor(identityId: string) {
  return remember(await createOneTime(openDb(env.DB), "session", 600, identityId, {}));
}

const VERIFIER_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";

/** A PKCE pair (verifier of the given length, S256 challenge) and a random state, as the SDK makes them. */
export async function pkce(length = 43) {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  const verifier = [...bytes].map((b) => VERIFIER_ALPHABET[b % VERIFIER_ALPHABET.length]).join("");
  const state = await challengeOf(crypto.randomUUID());
  return { verifier, challenge: await challengeOf(verifier), state };
}

/** The `auth` redirect-session body the SDK's getAuthUrl sends. */
export function authBody(
  p: { challenge: string; state: string },
  opts: { responseMode?: string; prompt?: string; redirectUri?: string | null; sessionToken?: string; clientId?: string } = {},
) {
  const redirectUri = opts.redirectUri === undefined ? REDIRECT_URI : opts.redirectUri;
  return {
    auth: {
      authRequest: {
        ...(redirectUri && { redirectUri }),
        clientId: opts.clientId ?? CLIENT_ID,
        codeChallenge: p.challenge,
        codeChallengeMethod: "S256",
        responseMode: opts.responseMode ?? "query",
        responseType: "code",
        scope: "offline_access",
        state: p.state,
        ...(opts.sessionToken && { sessionToken: opts.sessionToken }),
      },
      prompt: opts.prompt ?? "none",
    },
  };
}

/** Follows a URL on the Worker without following its redirect. */
export const visit = (url: string, headers: Record<string, string> = {}) =>
  SELF.fetch(new URL(url, "https://shop.test").toString(), { redirect: "manual", headers });

/** The code and state a query-mode redirect carries. */
export function codeFrom(res: Response) {
  const location = new URL(res.headers.get("location")!);
  return { code: remember(location.searchParams.get("code")), state: location.searchParams.get("state"), location };
}

/**
 * The whole member login round trip (headless): auth redirect session with the session token and
 * prompt none → authorize → code → authorization_code grant. `visitorToken` is the caller of the redirect session.
 */
export async function memberTokens(identityId: string, visitorToken?: string) {
  const p = await pkce();
  const sessionToken = await sessionTokenFor(identityId);
  const rs = await api("POST", "/_api/redirects-api/v1/redirect-session", { body: authBody(p, { sessionToken }), key: visitorToken });
  if (rs.status !== 200) throw new Error(`redirect session failed: ${rs.status} ${JSON.stringify(rs.body)}`);
  const { code } = codeFrom(await visit(rs.body.redirectSession.fullUrl));
  const res = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code, codeVerifier: p.verifier });
  if (res.status !== 200) throw new Error(`authorization_code grant failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { access_token: string; refresh_token: string; expires_in: number };
}

/** The KV record behind an access or refresh token. */
export async function tokenRecord(token: string): Promise<TokenRecord | null> {
  const key = token.startsWith("at_") ? accessKey(await sha256Hex(token)) : refreshKey(await sha256Hex(token));
  return env.SESSIONS.get<TokenRecord>(key, "json");
}

/** Rewrites a token's KV record as if its time had passed (KV's own TTL would remove it later). */
export async function expireToken(token: string) {
  const key = token.startsWith("at_") ? accessKey(await sha256Hex(token)) : refreshKey(await sha256Hex(token));
  const record = await env.SESSIONS.get<TokenRecord>(key, "json");
  await env.SESSIONS.put(key, JSON.stringify({ ...record, expiresAt: Date.now() - 1000 }));
}

/** A catalogue read with a token: the simplest call every visitor and member may make. */
export const readCatalogue = (token: string) =>
  api("POST", "/stores-reader/v1/products/query", { body: { query: { paging: { limit: 1 } } }, key: token });

/** An extra OAuth client with listed redirect URIs only (as the owner would create one). */
export async function createRestrictedClient(redirectUris: string[]) {
  const id = crypto.randomUUID();
  await env.DB.prepare("INSERT INTO oauth_clients (id, name, redirect_uris, allow_any_redirect, created_date) VALUES (?, ?, ?, 0, ?)")
    .bind(id, `Headless ${unique()}`, JSON.stringify(redirectUris), new Date().toISOString())
    .run();
  return id;
}

/**
 * Calls the Worker at an absolute URL (its host is what a forged Host header gives a deployed Worker) with some
 * bindings replaced, e.g. PUBLIC_URL or ENVIRONMENT. JSON in, JSON out, as `api`.
 */
export async function apiWithEnv(
  bindings: Record<string, string>,
  method: string,
  url: string,
  opts: { body?: unknown; key?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const exec = createExecutionContext();
  const res = await worker.fetch(
    new Request(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), redirect: "manual" }),
    { ...env, ...bindings } as Env,
    exec,
  );
  await waitOnExecutionContext(exec);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body, headers: res.headers };
}
