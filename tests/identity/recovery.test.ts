import { env } from "cloudflare:test";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "#worker/platform/ids";
import { api, merchant, OWNER_KEY } from "../helpers";
import {
  activeMember,
  emailsTo,
  expectIdentityError,
  identityRow,
  identitySnapshot,
  lastEmail,
  lastLink,
  loginCall,
  memberToken,
  newEmail,
  oneTimeRows,
  PASSWORD,
  registerCall,
  resetIdentitySettings,
  setIdentitySettings,
} from "./member-fixtures";
import { apiWithEnv } from "./oauth-helpers";

/** Password recovery and activation: /v1/send-email, /v1/recover, /v1/activation-email. */

beforeEach(async () => {
  await resetIdentitySettings();
});
afterAll(async () => {
  await resetIdentitySettings();
});

const sendRecovery = (email: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  api("POST", "/_api/iam/recovery/v1/send-email", { body: { email, ...extra }, headers });
const recoverCall = (recoveryToken: string, password: string) => api("POST", "/_api/iam/recovery/v1/recover", { body: { recoveryToken, password } });

describe("send-email", () => {
  it("emails a one-time link to /reset-password for a known email, stored only by hash", async () => {
    const m = await activeMember();
    const res = await sendRecovery(m.email.toUpperCase(), { redirect: { url: "https://elsewhere.example/after", clientId: "unknown-client" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const { url, token } = await lastLink(m.email, "recovery-link");
    expect(url.origin).toBe("https://shop.test");
    expect(url.pathname).toBe("/reset-password");
    expect(token.length).toBeGreaterThanOrEqual(40);
    const rows = await oneTimeRows(m.id, "recovery");
    expect(rows.length).toBe(1);
    expect(rows[0].token_hash).toBe(await sha256Hex(`recovery:${token}`));
    // A foreign redirect for an unknown client is not kept (no open redirect through our emails).
    expect(rows[0].data).toEqual({});
    const expires = new Date(rows[0].expires_at).getTime() - Date.now();
    expect(expires).toBeGreaterThan(59 * 60 * 1000);
    expect(expires).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  it("answers the same {} for an unknown email, and sends nothing", async () => {
    const email = newEmail("nobody");
    const before = await identitySnapshot();
    const res = await sendRecovery(email);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(await emailsTo(email)).toEqual([]);
    expect(await identitySnapshot()).toEqual(before);
  });

  it("a newer link revokes the older one", async () => {
    const m = await activeMember();
    await sendRecovery(m.email);
    const first = await lastLink(m.email, "recovery-link");
    await sendRecovery(m.email);
    const second = await lastLink(m.email, "recovery-link");
    expect(second.token).not.toBe(first.token);
    expectIdentityError(await recoverCall(first.token, "a new password 1"), 400, "INVALID_RECOVERY_TOKEN");
    expect((await recoverCall(second.token, "a new password 1")).body.state).toBe("SUCCESS");
  });

  it("keeps a redirect on this store's origin", async () => {
    const m = await activeMember();
    await sendRecovery(m.email, { redirect: { url: "https://shop.test/account" } });
    expect((await oneTimeRows(m.id, "recovery"))[0].data).toEqual({ redirectUrl: "https://shop.test/account" });
  });

  it("sends at most 5 emails per address per hour, still answering {}", async () => {
    const m = await activeMember();
    for (let i = 0; i < 7; i++) {
      const res = await sendRecovery(m.email);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
    }
    expect((await emailsTo(m.email)).filter((e) => e.template === "recovery-link").length).toBe(5);
  });

  it("limits requests per client address with a 429", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, 20)")
      .bind(`recovery:ip:${ip}`, Math.floor(Date.now() / 1000))
      .run();
    expectIdentityError(await sendRecovery(newEmail(), {}, { "cf-connecting-ip": ip }), 429, "TOO_MANY_REQUESTS");
  });

  it("validates the email", async () => {
    const res = await sendRecovery("nope");
    expectIdentityError(res, 400, "INVALID_ARGUMENT");
    expect(res.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "email", data: { type: "EMAIL" } });
  });
});

describe("recover", () => {
  it("sets the new password and answers SUCCESS with a session token; the old password stops working", async () => {
    const m = await activeMember();
    await sendRecovery(m.email);
    const { token } = await lastLink(m.email, "recovery-link");
    const res = await recoverCall(token, "my new password");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ state: "SUCCESS", sessionToken: expect.any(String), identity: { id: m.id, status: { name: "ACTIVE" } } });
    expect(res.body.redirectUrl).toBeUndefined();
    expectIdentityError(await loginCall(m.email, PASSWORD), 401, "-19976");
    expect((await loginCall(m.email, "my new password")).body.state).toBe("SUCCESS");
    expect(JSON.stringify(await identityRow(m.email))).not.toContain("my new password");
  });

  it("a used link is refused", async () => {
    const m = await activeMember();
    await sendRecovery(m.email);
    const { token } = await lastLink(m.email, "recovery-link");
    expect((await recoverCall(token, "first new password")).status).toBe(200);
    const before = await identitySnapshot();
    expectIdentityError(await recoverCall(token, "second new password"), 400, "INVALID_RECOVERY_TOKEN");
    expect(await identitySnapshot()).toEqual(before);
    expect((await loginCall(m.email, "first new password")).body.state).toBe("SUCCESS");
  });

  it("an expired or forged link is refused and changes nothing", async () => {
    const m = await activeMember();
    await sendRecovery(m.email);
    const { token } = await lastLink(m.email, "recovery-link");
    await env.DB.prepare("UPDATE one_time_tokens SET expires_at = ? WHERE identity_id = ? AND kind = 'recovery'")
      .bind(new Date(Date.now() - 1).toISOString(), m.id)
      .run();
    const before = await identitySnapshot();
    expectIdentityError(await recoverCall(token, "a new password"), 400, "INVALID_RECOVERY_TOKEN");
    expectIdentityError(await recoverCall("forged-token-that-was-never-issued", "a new password"), 400, "INVALID_RECOVERY_TOKEN");
    expect(await identitySnapshot()).toEqual(before);
    // A session token or verification state token is not a recovery token.
    const sessionToken = (await loginCall(m.email)).body.sessionToken;
    const afterLogin = await identitySnapshot();
    expectIdentityError(await recoverCall(sessionToken, "a new password"), 400, "INVALID_RECOVERY_TOKEN");
    expect(await identitySnapshot()).toEqual(afterLogin);
    expect((await loginCall(m.email, PASSWORD)).body.state).toBe("SUCCESS");
  });

  it("a password that breaks the rules is refused and the link still works", async () => {
    const m = await activeMember();
    await sendRecovery(m.email);
    const { token } = await lastLink(m.email, "recovery-link");
    const res = await recoverCall(token, "short");
    expectIdentityError(res, 400, "INVALID_ARGUMENT");
    expect(res.body.details.validationError.fieldViolations).toEqual([
      { field: "password", description: "must be at least 8 characters", violatedRule: "MIN_LENGTH", data: {} },
    ]);
    expect((await recoverCall(token, "long enough now")).body.state).toBe("SUCCESS");
  });

  it("clears a required reset, verifies a pending email, and resets the account's login limit", async () => {
    const email = newEmail();
    const reg = await registerCall(email);
    await env.DB.prepare("UPDATE identities SET password_reset_required = 1 WHERE id = ?").bind(reg.body.identity.id).run();
    for (let i = 0; i < 11; i++) await loginCall(email, "wrong guesses here");
    expectIdentityError(await loginCall(email), 429, "TOO_MANY_REQUESTS");
    await sendRecovery(email);
    const res = await recoverCall((await lastLink(email, "recovery-link")).token, "fresh password!");
    expect(res.body).toMatchObject({ state: "SUCCESS", identity: { status: { name: "ACTIVE", reasons: [] }, email: { isVerified: true } } });
    expect(await identityRow(email)).toMatchObject({ status: "ACTIVE", email_verified: 1, password_reset_required: 0 });
    expect((await loginCall(email, "fresh password!")).body.state).toBe("SUCCESS");
  });

  it("answers REQUIRE_OWNER_APPROVAL (no session) for a member the owner has not approved", async () => {
    await setIdentitySettings({ requireEmailVerification: false, requireOwnerApproval: true });
    const email = newEmail();
    await registerCall(email);
    await sendRecovery(email);
    const res = await recoverCall((await lastLink(email, "recovery-link")).token, "fresh password!");
    expect(res.body).toMatchObject({ state: "REQUIRE_OWNER_APPROVAL" });
    expect(res.body.sessionToken).toBeUndefined();
  });

  it("blocked members get no recovery email", async () => {
    const m = await activeMember();
    await merchant("POST", `/api/v1/members/${m.id}/block`);
    expect((await sendRecovery(m.email)).body).toEqual({});
    expect((await emailsTo(m.email)).filter((e) => e.template === "recovery-link")).toEqual([]);
  });

  it("changing the password revokes open recovery links", async () => {
    const m = await activeMember();
    await sendRecovery(m.email);
    const { token } = await lastLink(m.email, "recovery-link");
    expect((await api("POST", "/v2/change-password", { key: await memberToken(m.id), body: { newPassword: "changed meanwhile" } })).status).toBe(200);
    expectIdentityError(await recoverCall(token, "a new password"), 400, "INVALID_RECOVERY_TOKEN");
  });
});

describe("activation-email", () => {
  it("needs a merchant", async () => {
    const m = await activeMember();
    const before = await identitySnapshot();
    expectIdentityError(await api("POST", "/v1/activation-email", { body: { identityId: m.id } }), 401, "UNAUTHENTICATED");
    expectIdentityError(
      await api("POST", "/v1/activation-email", { key: await memberToken(m.id), body: { identityId: m.id } }),
      403,
      "PERMISSION_DENIED",
    );
    expect(await identitySnapshot()).toEqual(before);
    expectIdentityError(await merchant("POST", "/v1/activation-email", { identityId: "nobody" }), 404, "MEMBER_NOT_FOUND");
  });

  it("emails a 7-day link that sets a password and activates a member who had none", async () => {
    // A member created by sign-on (no password), then invited to set one.
    const email = newEmail("invited");
    const signOn = await api("POST", "/v2/sign-on", { key: OWNER_KEY, body: { loginId: { email } } });
    const id = signOn.body.identity.id;
    await env.DB.prepare("UPDATE identities SET status = 'OFFLINE' WHERE id = ?").bind(id).run();
    expectIdentityError(await loginCall(email, "anything at all"), 401, "-19976");

    const res = await api("POST", "/_api/iam/recovery/v1/activation-email", {
      key: OWNER_KEY,
      body: { identityId: id, emailOptions: { language: "en" } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({});
    const { url, token } = await lastLink(email, "activation-link");
    expect(url.pathname).toBe("/reset-password");
    const [row] = await oneTimeRows(id, "activation");
    const days = (new Date(row.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);

    const done = await recoverCall(token, "activated password");
    expect(done.body).toMatchObject({
      state: "SUCCESS",
      identity: { status: { name: "ACTIVE" }, factors: [{ type: "PASSWORD", status: "ENABLED" }] },
    });
    expect((await loginCall(email, "activated password")).body.state).toBe("SUCCESS");
    expectIdentityError(await recoverCall(token, "activated password"), 400, "INVALID_RECOVERY_TOKEN");
  });
});

describe("links on the shop's public origin", () => {
  const PUBLIC = { PUBLIC_URL: "https://shop.example" };
  /** Rows in the tables a refused send must leave alone. */
  const counts = async () => {
    const row = await env.DB.prepare(
      "SELECT (SELECT COUNT(*) FROM emails) AS emails, (SELECT COUNT(*) FROM one_time_tokens) AS tokens, (SELECT COUNT(*) FROM rate_limits) AS limits, (SELECT COUNT(*) FROM identities) AS identities",
    ).first();
    return row;
  };

  it("never puts a forged Host in an emailed recovery or activation link when PUBLIC_URL is set", async () => {
    const m = await activeMember();
    // A deployed Worker's URL has the Host header's host: here, the attacker's.
    const res = await apiWithEnv(PUBLIC, "POST", "https://evil.example/_api/iam/recovery/v1/send-email", { body: { email: m.email } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const recovery = await lastEmail(m.email, "recovery-link");
    expect((await lastLink(m.email, "recovery-link")).url.origin).toBe("https://shop.example");
    expect(recovery.text + recovery.html).not.toContain("evil.example");

    const activation = await apiWithEnv(PUBLIC, "POST", "https://evil.example/v1/activation-email", { key: OWNER_KEY, body: { identityId: m.id } });
    expect(activation.status, JSON.stringify(activation.body)).toBe(200);
    const mail = await lastEmail(m.email, "activation-link");
    expect((await lastLink(m.email, "activation-link")).url.origin).toBe("https://shop.example");
    expect(mail.text + mail.html).not.toContain("evil.example");
  });

  it("keeps a post-reset redirect only on PUBLIC_URL's origin, not on a forged Host's", async () => {
    const m = await activeMember();
    await apiWithEnv(PUBLIC, "POST", "https://evil.example/v1/send-email", {
      body: { email: m.email, redirect: { url: "https://evil.example/after" } },
    });
    expect((await oneTimeRows(m.id, "recovery"))[0].data).toEqual({});
    await apiWithEnv(PUBLIC, "POST", "https://evil.example/v1/send-email", {
      body: { email: m.email, redirect: { url: "https://shop.example/account" } },
    });
    expect((await oneTimeRows(m.id, "recovery"))[0].data).toEqual({ redirectUrl: "https://shop.example/account" });
  });

  it("in production without PUBLIC_URL refuses to email a link, writing and sending nothing", async () => {
    const m = await activeMember();
    const production = { ENVIRONMENT: "production", PUBLIC_URL: "" };
    const before = await counts();
    const recovery = await apiWithEnv(production, "POST", "https://shop.test/v1/send-email", {
      body: { email: m.email },
      headers: { "cf-connecting-ip": "192.0.2.77" },
    });
    expectIdentityError(recovery, 503, "PUBLIC_URL_NOT_CONFIGURED");
    expect(recovery.body.details.applicationError.description).toContain("PUBLIC_URL");
    // The same answer for an address with no account: the refusal tells nothing about who has one.
    expectIdentityError(
      await apiWithEnv(production, "POST", "https://shop.test/v1/send-email", { body: { email: newEmail("nobody") } }),
      503,
      "PUBLIC_URL_NOT_CONFIGURED",
    );
    expectIdentityError(
      await apiWithEnv(production, "POST", "https://shop.test/v1/activation-email", { key: OWNER_KEY, body: { identityId: m.id } }),
      503,
      "PUBLIC_URL_NOT_CONFIGURED",
    );
    expect(await counts()).toEqual(before);
    expect((await emailsTo(m.email)).map((r) => r.template)).not.toContain("recovery-link");
    // With PUBLIC_URL, production sends.
    expect(
      (
        await apiWithEnv({ ...production, PUBLIC_URL: "https://shop.example/" }, "POST", "https://shop.test/v1/send-email", {
          body: { email: m.email },
        })
      ).status,
    ).toBe(200);
    expect((await lastLink(m.email, "recovery-link")).url.origin).toBe("https://shop.example");
  });
});
