import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolvePageSession, SESSION_COOKIE } from "#web/session.server";
import { setCaptchaVerifier } from "#worker/identity/captcha";
import { consoleSessionAuth, endConsoleSessionsEverywhere, startConsoleSession } from "#worker/identity/console-sessions";
import { hashPassword } from "#worker/identity/passwords";
import { accessKey, refreshKey, type TokenRecord } from "#worker/identity/tokens";
import { openDb } from "#worker/platform/db";
import { sha256Hex } from "#worker/platform/ids";
import { emailKey } from "#worker/platform/rate-limit";
import { api, OWNER_KEY, serviceCtx, unique } from "../helpers";
import {
  activeMember,
  expectIdentityError,
  identityRow,
  identitySnapshot,
  lastLink,
  oneTimeRows,
  loginCall,
  PASSWORD,
  resetIdentitySettings,
  setIdentitySettings,
} from "./member-fixtures";
import { authBody, CLIENT_ID, memberTokens, pkce, readCatalogue, sessionTokenFor, tokenCall, visit } from "./oauth-helpers";

/**
 * Sessions end when they should: a password change or reset and "sign out everywhere" end every other session of
 * the person (refresh and access tokens, the storefront's cookie, console sessions), and changing the password needs
 * proof it is them. Logins: a stranger guessing from many addresses never locks the owner out of their account.
 */

beforeEach(async () => {
  await resetIdentitySettings();
  setCaptchaVerifier(null);
});
afterEach(() => setCaptchaVerifier(null));

const refreshWith = (refreshToken: string) => tokenCall({ clientId: CLIENT_ID, grantType: "refresh_token", refreshToken });
const changePasswordCall = (accessToken: string, body: Record<string, unknown>) => api("POST", "/v2/change-password", { key: accessToken, body });
const signOutEverywhereCall = (key?: string) => api("POST", "/api/v1/members/me/sign-out-everywhere", { key });

/** Expects a session to be over: its refresh token renews nothing and its access token is refused. */
async function expectEnded(tokens: { access_token: string; refresh_token: string }) {
  expectIdentityError(await refreshWith(tokens.refresh_token), 400, "INVALID_GRANT");
  expectIdentityError(await readCatalogue(tokens.access_token), 401, "UNAUTHENTICATED");
}

/** Expects a session to go on: its access token works and its refresh token mints a working one. */
async function expectLive(tokens: { access_token: string; refresh_token: string }) {
  expect((await readCatalogue(tokens.access_token)).status).toBe(200);
  const renewed = await refreshWith(tokens.refresh_token);
  expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
  expect((await readCatalogue(renewed.body.access_token)).status).toBe(200);
}

/** Makes a session's login look `minutes` old (its refresh and access records). */
async function ageLogin(tokens: { access_token: string; refresh_token: string }, minutes: number) {
  for (const key of [accessKey(await sha256Hex(tokens.access_token)), refreshKey(await sha256Hex(tokens.refresh_token))]) {
    const record = await env.SESSIONS.get<TokenRecord>(key, "json");
    await env.SESSIONS.put(key, JSON.stringify({ ...record, authTime: Date.now() - minutes * 60_000 }));
  }
}

/** A storefront page request carrying a session cookie with these tokens. */
function pageRequest(tokens: { access_token: string; refresh_token: string }, expiresAt = Date.now() + 3_600_000) {
  return new Request("https://shop.test/account", {
    headers: { cookie: `${SESSION_COOKIE}=v1.${tokens.access_token}.${expiresAt}.${tokens.refresh_token}` },
  });
}

/** An active staff member with a password, who can sign in to the console. */
async function staffWithPassword() {
  const id = crypto.randomUUID();
  const email = `staff-${unique()}${unique()}@example.test`;
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO identities (id, email, password_hash, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, ?, 'ACTIVE', 'STAFF', '[]', 1, ?, ?)",
  )
    .bind(id, email, await hashPassword(PASSWORD), now, now)
    .run();
  return { id, email };
}

const loginRequest = (email: string, password = PASSWORD) => ({ loginId: { email }, password });

describe("a password change ends every other session", () => {
  it("refresh and access tokens of other sessions are refused; the session that changed it goes on", async () => {
    const m = await activeMember();
    const mine = await memberTokens(m.id);
    const other = await memberTokens(m.id);
    const res = await changePasswordCall(mine.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({});
    await expectEnded(other);
    await expectLive(mine);
    expect((await loginCall(m.email, "a brand new password")).body.state).toBe("SUCCESS");
  });

  it("the storefront's session cookie of another browser is logged out", async () => {
    const m = await activeMember();
    const browser = await memberTokens(m.id);
    const db = openDb(env.DB);
    expect((await resolvePageSession(env, db, pageRequest(browser))).auth).toMatchObject({ kind: "member", identityId: m.id });
    const mine = await memberTokens(m.id);
    expect((await changePasswordCall(mine.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" })).status).toBe(200);
    // Neither its access token nor a renewal with its refresh token stands for the member any more.
    expect((await resolvePageSession(env, db, pageRequest(browser), { mint: false })).auth).toEqual({ kind: "anonymous" });
    expect((await resolvePageSession(env, db, pageRequest(browser, 0), { mint: false })).auth).toEqual({ kind: "anonymous" });
  });

  it("ends the person's console sessions", async () => {
    const staff = await staffWithPassword();
    const { ctx } = serviceCtx();
    const console1 = await startConsoleSession(ctx, loginRequest(staff.email));
    expect(await consoleSessionAuth(env, ctx.db, console1.token)).not.toBeNull();
    const mine = await memberTokens(staff.id);
    expect((await changePasswordCall(mine.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" })).status).toBe(200);
    expect(await consoleSessionAuth(env, ctx.db, console1.token)).toBeNull();
    const again = await startConsoleSession(ctx, loginRequest(staff.email, "a brand new password"));
    expect(await consoleSessionAuth(env, ctx.db, again.token)).toMatchObject({ auth: { kind: "member", identityId: staff.id, role: "STAFF" } });
  });
});

describe("logins under way when the sessions end", () => {
  it("a password change and sign out everywhere revoke pending session tokens and authorization codes", async () => {
    const m = await activeMember();
    const mine = await memberTokens(m.id);
    for (const end of [
      () => changePasswordCall(mine.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" }),
      () => signOutEverywhereCall(mine.access_token),
    ]) {
      const pending = await sessionTokenFor(m.id);
      expect((await oneTimeRows(m.id, "session")).length).toBeGreaterThan(0);
      expect((await end()).status).toBe(200);
      expect(await oneTimeRows(m.id, "session")).toEqual([]);
      const p = await pkce();
      const rs = await api("POST", "/_api/redirects-api/v1/redirect-session", { body: authBody(p, { sessionToken: pending }) });
      expect(new URL((await visit(rs.body.redirectSession.fullUrl)).headers.get("location")!).searchParams.get("error")).toBe("login_required");
    }
  });
});

describe("change-password needs proof it is the member", () => {
  it("tokens the store's API key minted for a member (no login) are no fresh login", async () => {
    const m = await activeMember();
    const minted = await tokenCall(
      { grantType: "authorized_client", clientId: CLIENT_ID, memberId: m.id, scope: "offline_access" },
      { authorization: OWNER_KEY },
    );
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    expectIdentityError(
      await changePasswordCall(minted.body.access_token, { newPassword: "a brand new password" }),
      403,
      "REAUTHENTICATION_REQUIRED",
    );
    expect((await changePasswordCall(minted.body.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" })).status).toBe(200);
  });

  it("refuses a wrong current password, and a missing one long after the login; changes nothing", async () => {
    const m = await activeMember();
    const tokens = await memberTokens(m.id);
    await ageLogin(tokens, 10);
    const before = await identitySnapshot();
    expectIdentityError(await changePasswordCall(tokens.access_token, { newPassword: "a brand new password" }), 403, "REAUTHENTICATION_REQUIRED");
    expectIdentityError(
      await changePasswordCall(tokens.access_token, { currentPassword: "not my password", newPassword: "a brand new password" }),
      403,
      "CURRENT_PASSWORD_INCORRECT",
    );
    expectIdentityError(
      await changePasswordCall(tokens.access_token, { currentPassword: "", newPassword: "a brand new password" }),
      403,
      "CURRENT_PASSWORD_INCORRECT",
    );
    const badType = await changePasswordCall(tokens.access_token, { currentPassword: 12345678, newPassword: "a brand new password" });
    expectIdentityError(badType, 400, "INVALID_ARGUMENT");
    expect(await identitySnapshot()).toEqual(before);
    expect((await loginCall(m.email)).body.state).toBe("SUCCESS");
    // The right current password works whenever the login was.
    expect((await changePasswordCall(tokens.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" })).status).toBe(200);
  });

  it("a login in the last few minutes stands in for the current password (the Wix SDK sends none)", async () => {
    const m = await activeMember();
    const tokens = await memberTokens(m.id);
    const res = await changePasswordCall(tokens.access_token, { newPassword: "a brand new password" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // An access token renewed from that login keeps its login time; one renewed long after the login does not pass.
    const renewed = await refreshWith(tokens.refresh_token);
    expect((await changePasswordCall(renewed.body.access_token, { newPassword: "another new password" })).status).toBe(200);
    await ageLogin(tokens, 6);
    const late = await refreshWith(tokens.refresh_token);
    expectIdentityError(await changePasswordCall(late.body.access_token, { newPassword: "yet another password" }), 403, "REAUTHENTICATION_REQUIRED");
  });

  it("limits current-password guesses", async () => {
    const m = await activeMember();
    const tokens = await memberTokens(m.id);
    for (let i = 0; i < 10; i++) {
      expectIdentityError(
        await changePasswordCall(tokens.access_token, { currentPassword: `guess ${i}`, newPassword: "a brand new password" }),
        403,
        "CURRENT_PASSWORD_INCORRECT",
      );
    }
    expectIdentityError(
      await changePasswordCall(tokens.access_token, { currentPassword: PASSWORD, newPassword: "a brand new password" }),
      429,
      "TOO_MANY_REQUESTS",
    );
  });
});

describe("a password reset ends every session", () => {
  it("refresh and access tokens from before the reset are refused; the reset's own login works", async () => {
    const m = await activeMember();
    const before = await memberTokens(m.id);
    const staff = await staffWithPassword();
    const { ctx } = serviceCtx();
    const consoleSession = await startConsoleSession(ctx, loginRequest(staff.email));
    const staffTokens = await memberTokens(staff.id);

    for (const person of [m.email, staff.email]) {
      expect((await api("POST", "/v1/send-email", { body: { email: person } })).status).toBe(200);
      const res = await api("POST", "/v1/recover", {
        body: { recoveryToken: (await lastLink(person, "recovery-link")).token, password: "a reset password" },
      });
      expect(res.body.state, JSON.stringify(res.body)).toBe("SUCCESS");
    }
    await expectEnded(before);
    await expectEnded(staffTokens);
    expect(await consoleSessionAuth(env, ctx.db, consoleSession.token)).toBeNull();
    await expectLive(await memberTokens(m.id));
  });
});

describe("sign out everywhere", () => {
  it("POST /api/v1/members/me/sign-out-everywhere ends the member's other sessions and keeps the caller's", async () => {
    const m = await activeMember();
    const mine = await memberTokens(m.id);
    const other = await memberTokens(m.id);
    const browser = await memberTokens(m.id);
    const res = await signOutEverywhereCall(mine.access_token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({});
    await expectEnded(other);
    expect((await resolvePageSession(env, openDb(env.DB), pageRequest(browser), { mint: false })).auth).toEqual({ kind: "anonymous" });
    await expectLive(mine);
    // The password still works: a new login is a new session.
    await expectLive(await memberTokens(m.id));
  });

  it("is for a signed-in member only", async () => {
    expectIdentityError(await signOutEverywhereCall(), 401, "UNAUTHENTICATED");
    expectIdentityError(await signOutEverywhereCall(OWNER_KEY), 403, "PERMISSION_DENIED");
    const visitor = await tokenCall({ clientId: CLIENT_ID, grantType: "anonymous" });
    expectIdentityError(await signOutEverywhereCall(visitor.body.access_token), 403, "PERMISSION_DENIED");
  });

  it("the console's 'sign out everywhere' ends the person's console sessions and tokens", async () => {
    const staff = await staffWithPassword();
    const { ctx } = serviceCtx();
    const here = await startConsoleSession(ctx, loginRequest(staff.email));
    const elsewhere = await startConsoleSession(ctx, loginRequest(staff.email));
    const tokens = await memberTokens(staff.id);
    await endConsoleSessionsEverywhere(ctx, here.token);
    expect(await consoleSessionAuth(env, ctx.db, here.token)).toBeNull();
    expect(await consoleSessionAuth(env, ctx.db, elsewhere.token)).toBeNull();
    await expectEnded(tokens);
    const next = await startConsoleSession(ctx, loginRequest(staff.email));
    expect(await consoleSessionAuth(env, ctx.db, next.token)).not.toBeNull();
  });
});

describe("logins: no lockout of the account's owner", () => {
  const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
  const from = (ip: string) => ({ "cf-connecting-ip": ip });
  const wideKey = (email: string) => emailKey("login:account-wide", email);

  it("the right password from an address the account signed in from works after 11+ wrong ones from elsewhere", async () => {
    const m = await activeMember();
    const home = "198.51.100.10";
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
    for (let i = 0; i < 12; i++) expectIdentityError(await loginCall(m.email, `wrong password ${i}`, {}, from(`192.0.2.${i + 1}`)), 401, "-19976");
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
    // The console's sign-in is the same login.
    const staff = await staffWithPassword();
    const { ctx } = serviceCtx();
    await startConsoleSession(ctx, loginRequest(staff.email), { ip: home });
    for (let i = 0; i < 12; i++)
      await expect(startConsoleSession(ctx, loginRequest(staff.email, `wrong ${i}`), { ip: `192.0.2.${i + 1}` })).rejects.toMatchObject({
        status: 401,
      });
    const session = await startConsoleSession(ctx, loginRequest(staff.email), { ip: home });
    expect(await consoleSessionAuth(env, ctx.db, session.token)).not.toBeNull();
  });

  it("the hard limit per account and address still stops guessing from one address", async () => {
    const m = await activeMember();
    const home = address();
    const guesser = "192.0.2.200";
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
    for (let i = 0; i < 10; i++) expectIdentityError(await loginCall(m.email, `wrong password ${i}`, {}, from(guesser)), 401, "-19976");
    const limited = await loginCall(m.email, PASSWORD, {}, from(guesser));
    expectIdentityError(limited, 429, "TOO_MANY_REQUESTS");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
  });

  it("over the account-wide limit, new addresses wait a growing delay; known ones go on", async () => {
    const m = await activeMember();
    const home = "198.51.100.20";
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
    // 30 attempts from many addresses this hour (set directly, to keep the test fast).
    await env.DB.prepare("UPDATE rate_limits SET count = 30 WHERE key = ?")
      .bind(await wideKey(m.email))
      .run();
    expectIdentityError(await loginCall(m.email, "wrong password", {}, from("192.0.2.31")), 401, "-19976");
    const waiting = await loginCall(m.email, PASSWORD, {}, from("192.0.2.32"));
    expectIdentityError(waiting, 429, "TOO_MANY_REQUESTS");
    const first = Number(waiting.headers.get("retry-after"));
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(300);
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
    // The wait grows with every attempt over the limit.
    await env.DB.prepare("UPDATE rate_limits SET count = 40 WHERE key = ?")
      .bind(await wideKey(m.email))
      .run();
    const later = await loginCall(m.email, PASSWORD, {}, from("192.0.2.33"));
    expectIdentityError(later, 429, "TOO_MANY_REQUESTS");
    expect(Number(later.headers.get("retry-after"))).toBeGreaterThan(first);
    // When the turn comes, the right password from a new address works.
    await env.DB.prepare("UPDATE rate_limits SET window_start = window_start - 600 WHERE key = ?")
      .bind(await emailKey("login:account-turn", m.email))
      .run();
    expect((await loginCall(m.email, PASSWORD, {}, from("192.0.2.34"))).body.state).toBe("SUCCESS");
  });

  it("with a captcha configured, new addresses over the account-wide limit solve it instead of waiting", async () => {
    setCaptchaVerifier(async ({ token }) => token === "solved");
    await setIdentitySettings({ captcha: false });
    const m = await activeMember();
    const home = "198.51.100.30";
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
    await env.DB.prepare("UPDATE rate_limits SET count = 30 WHERE key = ?")
      .bind(await wideKey(m.email))
      .run();
    expectIdentityError(await loginCall(m.email, PASSWORD, {}, from("192.0.2.41")), 400, "-19971");
    expectIdentityError(await loginCall(m.email, PASSWORD, { captchaTokens: [{ Turnstile: "forged" }] }, from("192.0.2.41")), 400, "-19970");
    expect((await loginCall(m.email, PASSWORD, { captchaTokens: [{ Turnstile: "solved" }] }, from("192.0.2.41"))).body.state).toBe("SUCCESS");
    expect((await loginCall(m.email, PASSWORD, {}, from(home))).body.state).toBe("SUCCESS");
  });

  it("a reset clears the account's counters from every address", async () => {
    const m = await activeMember();
    const guesser = "192.0.2.210";
    for (let i = 0; i < 11; i++) await loginCall(m.email, `wrong password ${i}`, {}, from(guesser));
    expectIdentityError(await loginCall(m.email, PASSWORD, {}, from(guesser)), 429, "TOO_MANY_REQUESTS");
    await api("POST", "/v1/send-email", { body: { email: m.email } });
    await api("POST", "/v1/recover", { body: { recoveryToken: (await lastLink(m.email, "recovery-link")).token, password: "a reset password" } });
    expect((await loginCall(m.email, "a reset password", {}, from(guesser))).body.state).toBe("SUCCESS");
    expect((await identityRow(m.email))!.session_generation).toBe(1);
  });
});
