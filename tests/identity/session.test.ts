import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  clearSession,
  commitMemberSession,
  readSessionCookie,
  resolvePageSession,
  SESSION_COOKIE,
  sessionCookie,
  withSessionCookie,
  type SessionTokens,
} from "#web/session.server";
import { issueTokens, readAccessToken, readRefreshToken, revokeRefreshHash } from "#worker/identity/tokens";
import { openDb } from "#worker/platform/db";
import { sha256Hex } from "#worker/platform/ids";
import { api, unique } from "../helpers";

/**
 * The storefront's cookie session (web/session.server.ts), resolved in-process the way the Worker does for every page
 * request: a new visitor without a cookie, the same session with a live one, a renewed access token when it expired,
 * and new anonymous tokens when the refresh token is gone.
 */

const CLIENT_ID = "storefront-client-test";
const testEnv = { ...env, OAUTH_CLIENT_ID: CLIENT_ID } as Env;
const db = openDb(env.DB);

const page = (cookie?: string) => new Request("https://shop.test/", { headers: cookie ? { cookie } : {} });
/** The `name=value` part of a Set-Cookie header, as the browser sends it back. */
const sent = (setCookie: string) => setCookie.split(";")[0];

async function tokenKeyCount() {
  return (await env.SESSIONS.list({ prefix: "token:" })).keys.length;
}

function attributes(setCookie: string) {
  return setCookie
    .split(";")
    .slice(1)
    .map((a) => a.trim());
}

async function identity(status: "ACTIVE" | "BLOCKED" = "ACTIVE", role = "MEMBER") {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  // Staff here hold catalog.write, so their token's API writes pass the permission check.
  const permissions = role === "STAFF" ? '["catalog.write"]' : "[]";
  await env.DB.prepare(
    "INSERT INTO identities (id, email, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
  )
    .bind(id, `m-${unique()}@example.com`, status, role, permissions, now, now)
    .run();
  return id;
}

describe("a page request without a session cookie", () => {
  it("gets new anonymous visitor tokens in an HttpOnly, Secure, SameSite=Lax cookie for the whole site", async () => {
    const before = await tokenKeyCount();
    const session = await resolvePageSession(testEnv, db, page());
    expect(session.auth).toEqual({ kind: "visitor", visitorId: expect.stringMatching(/^[0-9a-f-]{36}$/), clientId: CLIENT_ID });
    expect(session.setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=v1\\.at_[A-Za-z0-9_-]{43}\\.\\d+\\.rt_[A-Za-z0-9_-]{43};`));
    expect(attributes(session.setCookie!)).toEqual(
      expect.arrayContaining(["Path=/", "HttpOnly", "Secure", "SameSite=Lax", expect.stringMatching(/^Max-Age=\d{7}$/)]),
    );
    expect(session.setCookie).not.toMatch(/Domain=/i);
    expect(await tokenKeyCount()).toBe(before + 2);

    // The cookie holds tokens only: they resolve to the same visitor, stored in KV under their hashes.
    const tokens = readSessionCookie(page(sent(session.setCookie!)))!;
    const access = await readAccessToken(env, tokens.accessToken);
    const refresh = await readRefreshToken(env, tokens.refreshToken);
    expect(access).toMatchObject({ role: "visitor", clientId: CLIENT_ID, visitorId: (session.auth as { visitorId: string }).visitorId });
    expect(refresh).toMatchObject({ role: "visitor", clientId: CLIENT_ID });
    expect(access!.refreshHash).toBe(await sha256Hex(tokens.refreshToken));
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 3_600_000);
  });

  it("a bot gets no session and nothing is stored", async () => {
    const before = await tokenKeyCount();
    const session = await resolvePageSession(testEnv, db, page(), { mint: false });
    expect(session).toEqual({ auth: { kind: "anonymous" }, tokens: null, setCookie: null });
    expect(await tokenKeyCount()).toBe(before);
  });

  it("a cookie that is not ours (or malformed) counts as none", async () => {
    for (const cookie of [
      `${SESSION_COOKIE}=garbage`,
      `${SESSION_COOKIE}=v1.at_x.notanumber.rt_y`,
      `${SESSION_COOKIE}=v1.at_x.1.`,
      `other=v1.at_x.1.rt_y`,
    ]) {
      expect(readSessionCookie(page(cookie)), cookie).toBeNull();
      const session = await resolvePageSession(testEnv, db, page(cookie));
      expect(session.auth.kind).toBe("visitor");
      expect(session.setCookie).toBeTruthy();
    }
  });
});

describe("a page request with a session cookie", () => {
  it("keeps a live session as it is: the same visitor, no new tokens, no Set-Cookie", async () => {
    const first = await resolvePageSession(testEnv, db, page());
    const before = await tokenKeyCount();
    const again = await resolvePageSession(testEnv, db, page(`theme=dark; ${sent(first.setCookie!)}`));
    expect(again.auth).toEqual(first.auth);
    expect(again.setCookie).toBeNull();
    expect(again.tokens).toEqual(first.tokens);
    expect(await tokenKeyCount()).toBe(before);
  });

  it("renews an expired access token with the refresh token: same refresh token and visitor, new access token", async () => {
    const first = await resolvePageSession(testEnv, db, page());
    const expired: SessionTokens = { ...first.tokens!, expiresAt: Date.now() - 1000 };
    const renewed = await resolvePageSession(testEnv, db, page(sent(sessionCookie(expired))));
    expect(renewed.auth).toEqual(first.auth);
    expect(renewed.tokens!.refreshToken).toBe(first.tokens!.refreshToken);
    expect(renewed.tokens!.accessToken).not.toBe(first.tokens!.accessToken);
    expect(renewed.tokens!.expiresAt).toBeGreaterThan(Date.now() + 3_600_000);
    expect(renewed.setCookie).toBe(sessionCookie(renewed.tokens!));
    const access = await readAccessToken(env, renewed.tokens!.accessToken);
    expect(access).toMatchObject({
      role: "visitor",
      visitorId: (first.auth as { visitorId: string }).visitorId,
      refreshHash: await sha256Hex(first.tokens!.refreshToken),
    });
  });

  it("renews an empty access token, and one that the server no longer knows", async () => {
    const first = await resolvePageSession(testEnv, db, page());
    for (const accessToken of ["", `at_${"A".repeat(43)}`]) {
      const renewed = await resolvePageSession(testEnv, db, page(sent(sessionCookie({ ...first.tokens!, accessToken }))));
      expect(renewed.auth).toEqual(first.auth);
      expect(renewed.tokens!.refreshToken).toBe(first.tokens!.refreshToken);
      expect(renewed.tokens!.accessToken).toMatch(/^at_/);
      expect(renewed.setCookie).toBeTruthy();
    }
  });

  it("falls back to new anonymous tokens when the refresh token is revoked or unknown", async () => {
    const first = await resolvePageSession(testEnv, db, page());
    await revokeRefreshHash(env, await sha256Hex(first.tokens!.refreshToken));
    // The access token died with its refresh token, so even a "live" cookie starts over.
    const fallback = await resolvePageSession(testEnv, db, page(sent(first.setCookie!)));
    expect(fallback.auth.kind).toBe("visitor");
    expect((fallback.auth as { visitorId: string }).visitorId).not.toBe((first.auth as { visitorId: string }).visitorId);
    expect(fallback.tokens!.refreshToken).not.toBe(first.tokens!.refreshToken);
    expect(fallback.setCookie).toBeTruthy();

    const unknown = await resolvePageSession(
      testEnv,
      db,
      page(sent(sessionCookie({ accessToken: "", expiresAt: 0, refreshToken: `rt_${"B".repeat(43)}` }))),
    );
    expect(unknown.auth.kind).toBe("visitor");
    expect(unknown.tokens!.refreshToken).not.toBe(`rt_${"B".repeat(43)}`);
  });
});

describe("member sessions", () => {
  async function memberCookie(identityId: string, expired = false) {
    const tokens = await issueTokens(env, { role: "member", clientId: CLIENT_ID, visitorId: crypto.randomUUID(), identityId });
    const setCookie = commitMemberSession(tokens);
    if (!expired) return { tokens, cookie: sent(setCookie) };
    const parsed = readSessionCookie(page(sent(setCookie)))!;
    return { tokens, cookie: sent(sessionCookie({ ...parsed, expiresAt: Date.now() - 1 })) };
  }

  it("commitMemberSession stores the member's tokens; the next page request sees the member", async () => {
    const id = await identity();
    const { tokens, cookie } = await memberCookie(id);
    expect(cookie).toContain(tokens.access_token);
    expect(cookie).toContain(tokens.refresh_token);
    const session = await resolvePageSession(testEnv, db, page(cookie));
    expect(session.auth).toMatchObject({ kind: "member", identityId: id, role: "MEMBER" });
    expect(session.setCookie).toBeNull();
  });

  it("renewal keeps the member logged in", async () => {
    const id = await identity();
    const { tokens, cookie } = await memberCookie(id, true);
    const session = await resolvePageSession(testEnv, db, page(cookie));
    expect(session.auth).toMatchObject({ kind: "member", identityId: id });
    expect(session.tokens!.refreshToken).toBe(tokens.refresh_token);
    expect(session.tokens!.accessToken).not.toBe(tokens.access_token);
    expect(await readAccessToken(env, session.tokens!.accessToken)).toMatchObject({ role: "member", identityId: id });
  });

  it("a blocked member's session falls back to a new visitor", async () => {
    const id = await identity();
    const live = await memberCookie(id);
    const expired = await memberCookie(id, true);
    await env.DB.prepare("UPDATE identities SET status = 'BLOCKED' WHERE id = ?").bind(id).run();
    for (const { cookie } of [live, expired]) {
      const session = await resolvePageSession(testEnv, db, page(cookie));
      expect(session.auth.kind).toBe("visitor");
      expect(session.setCookie).toBeTruthy();
    }
  });

  it("clearSession expires the cookie with the same attributes", () => {
    const cleared = clearSession();
    expect(cleared.startsWith(`${SESSION_COOKIE}=;`)).toBe(true);
    expect(attributes(cleared)).toEqual(expect.arrayContaining(["Path=/", "Max-Age=0", "HttpOnly", "Secure", "SameSite=Lax"]));
  });
});

describe("the cookie on the response", () => {
  it("is added when the session changed, and left alone when the page set or cleared it itself", async () => {
    const session = await resolvePageSession(testEnv, db, page());
    const plain = withSessionCookie(new Response("ok"), session);
    expect(plain.headers.getSetCookie()).toEqual([session.setCookie]);

    const loggedOut = new Response("bye", { headers: { "set-cookie": clearSession() } });
    expect(withSessionCookie(loggedOut, session).headers.getSetCookie()).toEqual([clearSession()]);

    const unchanged = withSessionCookie(new Response("ok"), { ...session, setCookie: null });
    expect(unchanged.headers.getSetCookie()).toEqual([]);
  });
});

// Page requests through the Worker need the real React Router build: tests/node/session.test.ts.
describe("through the Worker", () => {
  it("API requests ignore the cookie: a staff member's session cookie does not authorize an API write", async () => {
    const staffId = await identity("ACTIVE", "STAFF");
    const tokens = await issueTokens(env, { role: "member", clientId: CLIENT_ID, visitorId: crypto.randomUUID(), identityId: staffId });
    const cookie = sent(commitMemberSession(tokens));
    const body = { product: { name: `Cookie-made ${unique()}`, priceData: { price: 5 } } };
    const withCookie = await api("POST", "/v1/products", { body, headers: { cookie } });
    expect(withCookie.status).toBe(401);
    expect(withCookie.headers.getSetCookie()).toEqual([]);
    // The same token in the Authorization header works.
    expect((await api("POST", "/v1/products", { body, key: tokens.access_token })).status).toBe(200);
  });
});
