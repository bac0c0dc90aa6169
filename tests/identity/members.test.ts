import { env, SELF } from "cloudflare:test";
import { createClient, OAuthStrategy } from "@wix/sdk";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { setCaptchaVerifier } from "#worker/identity/captcha";
import { issueTokens } from "#worker/identity/tokens";
import { sha256Hex } from "#worker/platform/ids";
import { emailKey } from "#worker/platform/rate-limit";
import { api, merchant, OWNER_KEY } from "../helpers";
import {
  activeMember,
  emailsTo,
  expectIdentityError,
  identityRow,
  identitySnapshot,
  lastCode,
  loginCall,
  memberToken,
  newEmail,
  PASSWORD,
  registerCall,
  resetIdentitySettings,
  setIdentitySettings,
  verifyCall,
  visitorToken,
} from "./member-fixtures";

/** Register, login and the login state machine, sign-on, change-password, approval, captcha, rate limits. */

beforeEach(async () => {
  await resetIdentitySettings();
});
afterAll(async () => {
  setCaptchaVerifier(null);
  await resetIdentitySettings();
});

async function sessionTokenExists(token: string, identityId: string) {
  const row = await env.DB.prepare("SELECT * FROM one_time_tokens WHERE token_hash = ?")
    .bind(await sha256Hex(`session:${token}`))
    .first<Record<string, string>>();
  return row?.kind === "session" && row.identity_id === identityId;
}

describe("register", () => {
  it("asks for email verification by default, emails a 6-digit code, and SUCCESS follows the right code", async () => {
    const email = newEmail();
    const reg = await registerCall(email, PASSWORD, { profile: { firstName: "Ada", lastName: "Lovelace", nickname: "ada" } });
    expect(reg.status).toBe(200);
    expect(reg.body).toMatchObject({
      state: "REQUIRE_EMAIL_VERIFICATION",
      stateToken: expect.any(String),
      identity: {
        id: expect.any(String),
        status: { name: "PENDING", reasons: ["PENDING_EMAIL_VERIFICATION_REQUIRED"] },
        identityProfile: { firstName: "Ada", lastName: "Lovelace", nickname: "ada" },
        factors: [{ type: "PASSWORD", status: "ENABLED" }],
        email: { address: email, isVerified: false },
      },
    });
    expect(reg.body.sessionToken).toBeUndefined();
    expect(new Date(reg.body.identity.createdDate).toISOString()).toBe(reg.body.identity.createdDate);

    const mails = await emailsTo(email);
    expect(mails.map((m) => m.template)).toEqual(["verification-code"]);
    const code = await lastCode(email);
    expect(mails[0].html).toContain(code);

    const ok = await verifyCall(reg.body.stateToken, code);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      state: "SUCCESS",
      sessionToken: expect.any(String),
      identity: { id: reg.body.identity.id, status: { name: "ACTIVE", reasons: [] }, email: { address: email, isVerified: true } },
    });
    expect(await sessionTokenExists(ok.body.sessionToken, reg.body.identity.id)).toBe(true);
    const row = await identityRow(email);
    expect(row).toMatchObject({ status: "ACTIVE", email_verified: 1, pending_reasons: "[]" });

    const again = await loginCall(email);
    expect(again.body.state).toBe("SUCCESS");
  });

  it("answers SUCCESS with a session token when the store does not require verification", async () => {
    await setIdentitySettings({ requireEmailVerification: false });
    const email = newEmail();
    const reg = await registerCall(email);
    expect(reg.status).toBe(200);
    expect(reg.body.state).toBe("SUCCESS");
    expect(reg.body.identity.status).toEqual({ name: "ACTIVE", reasons: [] });
    expect(await sessionTokenExists(reg.body.sessionToken, reg.body.identity.id)).toBe(true);
    expect(await emailsTo(email)).toEqual([]);
  });

  it("stores only a salted PBKDF2 hash, never the password", async () => {
    await setIdentitySettings({ requireEmailVerification: false });
    const a = await activeMember(newEmail(), PASSWORD);
    const b = await activeMember(newEmail(), PASSWORD);
    const rows = await env.DB.prepare("SELECT * FROM identities WHERE id IN (?, ?)").bind(a.id, b.id).all<Record<string, unknown>>();
    for (const row of rows.results) {
      expect(row.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(row)).not.toContain(PASSWORD);
    }
    expect(rows.results[0].password_hash).not.toBe(rows.results[1].password_hash);
    const all = await env.DB.prepare("SELECT * FROM identities").all();
    expect(JSON.stringify(all.results)).not.toContain(PASSWORD);
  });

  it("keeps the profile: names, tagged emails and phones, addresses (REST and SDK names), custom fields", async () => {
    await setIdentitySettings({ requireEmailVerification: false });
    const profile = {
      firstName: " Grace ",
      lastName: "Hopper",
      emails: ["second@example.test", { email: "Work@Example.test", tag: "WORK" }],
      phonesV2: [{ phone: "+1 555 0100", tag: "MOBILE" }],
      addresses: [
        {
          address: {
            addressLine1: "1 Navy Way",
            city: "Arlington",
            country: "us",
            postalCode: "22201",
            location: { latitude: 38.8, longitude: -77.1 },
          },
          tag: "HOME",
        },
        {
          address: { addressLine: "2 Main St", formattedAddress: "2 Main St, Springfield", streetAddress: { name: "Main St", number: "2" } },
          tag: "SHIPPING",
        },
      ],
      customFields: [
        { name: "shoeSize", value: { numValue: 41.5 } },
        { name: "memberSince", value: { dateValue: "2024-05-01T00:00:00.000Z" } },
        { name: "note", value: { strValue: "hello" } },
      ],
      unknownKey: "dropped",
    };
    const reg = await registerCall(newEmail(), PASSWORD, { profile });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const p = reg.body.identity.identityProfile;
    expect(p.firstName).toBe("Grace");
    expect(p.emails).toEqual([
      { email: "second@example.test", tag: "UNTAGGED" },
      { email: "Work@Example.test", tag: "WORK" },
    ]);
    expect(p.phones).toEqual([{ phone: "+1 555 0100", tag: "MOBILE" }]);
    expect(p.phonesV2).toEqual(p.phones);
    expect(p.addresses).toEqual([
      {
        address: { addressLine: "1 Navy Way", city: "Arlington", country: "US", postalCode: "22201", geocode: { latitude: 38.8, longitude: -77.1 } },
        tag: "HOME",
      },
      {
        address: { addressLine: "2 Main St", formattedAddress: "2 Main St, Springfield", streetAddress: { name: "Main St", number: "2" } },
        tag: "SHIPPING",
      },
    ]);
    expect(p.customFields).toEqual(profile.customFields);
    expect(p.unknownKey).toBeUndefined();
  });

  it("refuses a taken email with -19995 (whatever its case) and changes nothing", async () => {
    const email = newEmail();
    expect((await registerCall(email)).status).toBe(200);
    const before = await identitySnapshot();
    const again = await registerCall(email.toUpperCase(), "another password");
    expectIdentityError(again, 409, "-19995");
    expect(await identitySnapshot()).toEqual(before);
  });

  it("refuses an invalid email with an EMAIL field violation and an applicationError", async () => {
    const before = await identitySnapshot();
    const res = await registerCall("not-an-email");
    expectIdentityError(res, 400, "INVALID_ARGUMENT");
    expect(res.body.details.validationError.fieldViolations).toEqual([
      { field: "loginId.email", description: "must be a valid email address", violatedRule: "FORMAT", data: { type: "EMAIL" } },
    ]);
    expect(res.body.message).toBe('INVALID_ARGUMENT: "loginId.email" must be a valid email address');
    const missing = await api("POST", "/v2/register", { body: { password: PASSWORD } });
    expectIdentityError(missing, 400, "INVALID_ARGUMENT");
    expect(missing.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "loginId", violatedRule: "REQUIRED_FIELD" });
    expect(await identitySnapshot()).toEqual(before);
  });

  it("refuses bad profile fields with violations, each with a data object", async () => {
    const res = await registerCall(newEmail(), PASSWORD, {
      profile: {
        firstName: "x".repeat(101),
        phones: [{ phone: "call me", tag: "PAGER" }],
        addresses: [{ address: { country: "USA" }, tag: "HOME" }],
        customFields: [{ name: "two", value: { strValue: "a", numValue: 1 } }],
      },
    });
    expectIdentityError(res, 400, "INVALID_ARGUMENT");
    const fields = res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field);
    expect(fields).toEqual(expect.arrayContaining(["profile.addresses[0].address.country", "profile.customFields[0].value", "profile.firstName"]));
    expect(fields).toEqual([...fields].sort());
    for (const v of res.body.details.validationError.fieldViolations) expect(v.data).toEqual({});
  });
});

describe("login", () => {
  it("answers SUCCESS with a session token for an active member, and resets the account's failure count", async () => {
    const m = await activeMember();
    await loginCall(m.email, "wrong password!");
    const key = await emailKey("login:account", m.email);
    expect(await env.DB.prepare("SELECT count FROM rate_limits WHERE key = ?").bind(key).first("count")).toBe(1);
    const res = await loginCall(m.email.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: "SUCCESS", sessionToken: expect.any(String), identity: { id: m.id, status: { name: "ACTIVE" } } });
    expect(await sessionTokenExists(res.body.sessionToken, m.id)).toBe(true);
    expect(await env.DB.prepare("SELECT count FROM rate_limits WHERE key = ?").bind(key).first("count")).toBeNull();
    expect((await identityRow(m.email))!.last_login_date).toEqual(expect.any(String));
  });

  it("gives a wrong password and an unknown email the same -19976 answer, and changes nothing", async () => {
    const m = await activeMember();
    const before = await identitySnapshot();
    const wrong = await loginCall(m.email, "not the password");
    const unknown = await loginCall(newEmail("nobody"), "not the password");
    expectIdentityError(wrong, 401, "-19976");
    expectIdentityError(unknown, 401, "-19976");
    expect(wrong.body).toEqual(unknown.body);
    expect(await identitySnapshot()).toEqual(before);
  });

  it("emails a new code to an unverified member and answers REQUIRE_EMAIL_VERIFICATION; only the newest state works", async () => {
    const email = newEmail();
    const reg = await registerCall(email);
    const firstCode = await lastCode(email);
    const res = await loginCall(email);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: "REQUIRE_EMAIL_VERIFICATION",
      stateToken: expect.any(String),
      identity: { status: { name: "PENDING" } },
    });
    expect(res.body.sessionToken).toBeUndefined();
    expect((await emailsTo(email)).length).toBe(2);
    const stale = await verifyCall(reg.body.stateToken, firstCode);
    expectIdentityError(stale, 400, "INVALID_STATE_TOKEN");
    const ok = await verifyCall(res.body.stateToken, await lastCode(email));
    expect(ok.body.state).toBe("SUCCESS");
  });

  it("refuses a member whose password must be reset with -19973", async () => {
    const m = await activeMember();
    await env.DB.prepare("UPDATE identities SET password_reset_required = 1 WHERE id = ?").bind(m.id).run();
    expectIdentityError(await loginCall(m.email), 400, "-19973");
    // The wrong password still says only "wrong password".
    expectIdentityError(await loginCall(m.email, "nope nope nope"), 401, "-19976");
  });

  it("refuses blocked members clearly, and treats deleted ones as unknown", async () => {
    const blocked = await activeMember();
    expect((await merchant("POST", `/api/v1/members/${blocked.id}/block`)).status).toBe(200);
    expectIdentityError(await loginCall(blocked.email), 403, "MEMBER_BLOCKED");
    const deleted = await activeMember();
    await env.DB.prepare("UPDATE identities SET status = 'DELETED' WHERE id = ?").bind(deleted.id).run();
    expectIdentityError(await loginCall(deleted.email), 401, "-19976");
  });

  it("validates the request with an applicationError only (the SDK's login() crashes on a validationError)", async () => {
    const res = await loginCall("bad@", PASSWORD);
    expectIdentityError(res, 400, "INVALID_ARGUMENT");
    expect(res.body.details.validationError).toBeUndefined();
    expect(res.body.message).toBe('INVALID_ARGUMENT: "loginId.email" must be a valid email address');
    expect(res.body.details.applicationError.data.fieldViolations[0]).toMatchObject({ field: "loginId.email", data: { type: "EMAIL" } });
    const noPassword = await api("POST", "/v2/login", { body: { loginId: { email: newEmail() } } });
    expectIdentityError(noPassword, 400, "INVALID_ARGUMENT");
    expect(noPassword.body.details.applicationError.data.fieldViolations[0]).toMatchObject({
      field: "password",
      violatedRule: "REQUIRED_FIELD",
      data: {},
    });
    const malformed = await api("POST", "/v2/login", { rawBody: "{" });
    expectIdentityError(malformed, 400, "INVALID_ARGUMENT");
    expect(malformed.body.details.validationError).toBeUndefined();
  });

  it("serves the spec paths and the gateway paths alike", async () => {
    const m = await activeMember();
    const spec = await api("POST", "/v2/login", { body: { loginId: { email: m.email }, password: PASSWORD } });
    expect(spec.body.state).toBe("SUCCESS");
  });
});

describe("owner approval", () => {
  it("REQUIRE_OWNER_APPROVAL until the owner approves, then login SUCCESS", async () => {
    await setIdentitySettings({ requireEmailVerification: false, requireOwnerApproval: true });
    const email = newEmail();
    const reg = await registerCall(email);
    expect(reg.status).toBe(200);
    expect(reg.body).toMatchObject({
      state: "REQUIRE_OWNER_APPROVAL",
      identity: { status: { name: "PENDING", reasons: ["PENDING_ADMIN_APPROVAL_REQUIRED"] } },
    });
    expect(reg.body.sessionToken).toBeUndefined();
    expect(reg.body.stateToken).toBeUndefined();
    const id = reg.body.identity.id;

    const waiting = await loginCall(email);
    expect(waiting.body).toMatchObject({ state: "REQUIRE_OWNER_APPROVAL" });
    expect(waiting.body.sessionToken).toBeUndefined();

    const pending = await merchant("GET", "/api/v1/members?status=PENDING&limit=100");
    expect(pending.status).toBe(200);
    expect(pending.body.members.map((m: { id: string }) => m.id)).toContain(id);

    // Only a merchant approves.
    const before = await identitySnapshot();
    expectIdentityError(await api("POST", `/api/v1/members/${id}/approve`), 401, "UNAUTHENTICATED");
    expectIdentityError(await api("POST", `/api/v1/members/${id}/approve`, { key: await memberToken(id) }), 403, "PERMISSION_DENIED");
    expect(await identitySnapshot()).toEqual(before);

    const approved = await merchant("POST", `/api/v1/members/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.identity.status).toEqual({ name: "ACTIVE", reasons: [] });
    const ok = await loginCall(email);
    expect(ok.body).toMatchObject({ state: "SUCCESS", sessionToken: expect.any(String) });
    // Approving twice is harmless.
    expect((await merchant("POST", `/api/v1/members/${id}/approve`)).body.identity.status.name).toBe("ACTIVE");
  });

  it("verification first, then approval: REQUIRE_EMAIL_VERIFICATION → REQUIRE_OWNER_APPROVAL → approve → SUCCESS", async () => {
    await setIdentitySettings({ requireEmailVerification: true, requireOwnerApproval: true });
    const email = newEmail();
    const reg = await registerCall(email);
    expect(reg.body.state).toBe("REQUIRE_EMAIL_VERIFICATION");
    expect(reg.body.identity.status.reasons).toEqual(["PENDING_EMAIL_VERIFICATION_REQUIRED", "PENDING_ADMIN_APPROVAL_REQUIRED"]);
    const verified = await verifyCall(reg.body.stateToken, await lastCode(email));
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      state: "REQUIRE_OWNER_APPROVAL",
      identity: { status: { name: "PENDING", reasons: ["PENDING_ADMIN_APPROVAL_REQUIRED"] }, email: { isVerified: true } },
    });
    expect(verified.body.sessionToken).toBeUndefined();
    expect((await loginCall(email)).body.state).toBe("REQUIRE_OWNER_APPROVAL");
    await merchant("POST", `/api/v1/members/${reg.body.identity.id}/approve`);
    expect((await loginCall(email)).body.state).toBe("SUCCESS");
  });

  it("rejecting blocks the member; unblocking lets them back", async () => {
    await setIdentitySettings({ requireEmailVerification: false, requireOwnerApproval: true });
    const email = newEmail();
    const id = (await registerCall(email)).body.identity.id;
    const blocked = await merchant("POST", `/api/v1/members/${id}/block`);
    expect(blocked.body.identity.status.name).toBe("BLOCKED");
    expectIdentityError(await loginCall(email), 403, "MEMBER_BLOCKED");
    expectIdentityError(await merchant("POST", `/api/v1/members/${id}/approve`), 400, "MEMBER_NOT_PENDING");
    const unblocked = await merchant("POST", `/api/v1/members/${id}/unblock`);
    expect(unblocked.body.identity.status).toEqual({ name: "PENDING", reasons: ["PENDING_ADMIN_APPROVAL_REQUIRED"] });
    expectIdentityError(await merchant("POST", "/api/v1/members/no-such-member/approve"), 404, "MEMBER_NOT_FOUND");
  });

  it("a blocked member's token stops working at once", async () => {
    const m = await activeMember();
    const token = await memberToken(m.id);
    expect((await api("POST", "/v2/change-password", { key: token, body: { newPassword: "another password 1" } })).status).toBe(200);
    await merchant("POST", `/api/v1/members/${m.id}/block`);
    expect((await api("POST", "/v2/change-password", { key: token, body: { newPassword: "another password 2" } })).status).toBe(401);
  });
});

describe("identity settings", () => {
  it("reads defaults, and only the owner changes them", async () => {
    const read = await merchant("GET", "/api/v1/identity-settings");
    expect(read.body).toEqual({ settings: { requireEmailVerification: true, requireOwnerApproval: false, captcha: false } });
    const m = await activeMember();
    expectIdentityError(
      await api("PATCH", "/api/v1/identity-settings", { key: await memberToken(m.id), body: { settings: { requireOwnerApproval: true } } }),
      403,
      "PERMISSION_DENIED",
    );
    expectIdentityError(await api("GET", "/api/v1/identity-settings"), 401, "UNAUTHENTICATED");
    const bad = await merchant("PATCH", "/api/v1/identity-settings", { settings: { requireOwnerApproval: "yes" } });
    expectIdentityError(bad, 400, "INVALID_ARGUMENT");
    expect((await merchant("GET", "/api/v1/identity-settings")).body.settings.requireOwnerApproval).toBe(false);
  });

  it("will not turn captcha on before a verifier is configured (it would lock everyone out)", async () => {
    setCaptchaVerifier(null);
    const res = await merchant("PATCH", "/api/v1/identity-settings", { settings: { captcha: true } });
    expectIdentityError(res, 400, "CAPTCHA_NOT_CONFIGURED");
  });
});

describe("captcha", () => {
  beforeEach(async () => {
    setCaptchaVerifier(async ({ token }) => token === "solved");
    await setIdentitySettings({ captcha: true, requireEmailVerification: false });
  });
  afterEach(async () => {
    await setIdentitySettings({ captcha: false });
    setCaptchaVerifier(null);
  });

  it("register: -19971 without a token, -19970 for a bad one, and works with a good one", async () => {
    const email = newEmail();
    const before = await identitySnapshot();
    expectIdentityError(await registerCall(email), 400, "-19971");
    expectIdentityError(await registerCall(email, PASSWORD, { captchaTokens: [{}] }), 400, "-19971");
    expectIdentityError(await registerCall(email, PASSWORD, { captchaTokens: [{ Recaptcha: "forged" }] }), 400, "-19970");
    expect(await identitySnapshot()).toEqual(before);
    const ok = await registerCall(email, PASSWORD, { captchaTokens: [{ InvisibleRecaptcha: "solved" }] });
    expect(ok.body.state).toBe("SUCCESS");
  });

  it("login: -19971 and -19970 before the password is even checked", async () => {
    const email = newEmail();
    expect((await registerCall(email, PASSWORD, { captchaTokens: [{ Turnstile: "solved" }] })).status).toBe(200);
    expectIdentityError(await loginCall(email), 400, "-19971");
    expectIdentityError(await loginCall(email, "wrong password", { captchaTokens: [{ Recaptcha: "forged" }] }), 400, "-19970");
    expect((await loginCall(email, PASSWORD, { captchaTokens: [{ Recaptcha: "solved" }] })).body.state).toBe("SUCCESS");
  });
});

describe("change-password", () => {
  it("needs a member token; the old password stops working and the new one works", async () => {
    const m = await activeMember();
    const before = await identitySnapshot();
    expectIdentityError(
      await api("POST", "/_api/iam/authentication/v2/change-password", { body: { newPassword: "brand new password" } }),
      401,
      "UNAUTHENTICATED",
    );
    expectIdentityError(
      await api("POST", "/_api/iam/authentication/v2/change-password", { key: await visitorToken(), body: { newPassword: "brand new password" } }),
      403,
      "PERMISSION_DENIED",
    );
    expectIdentityError(
      await api("POST", "/_api/iam/authentication/v2/change-password", { key: OWNER_KEY, body: { newPassword: "brand new password" } }),
      403,
      "PERMISSION_DENIED",
    );
    const token = await memberToken(m.id);
    const short = await api("POST", "/_api/iam/authentication/v2/change-password", { key: token, body: { newPassword: "short" } });
    expectIdentityError(short, 400, "INVALID_ARGUMENT");
    expect(short.body.details.validationError.fieldViolations).toEqual([
      { field: "newPassword", description: "must be at least 8 characters", violatedRule: "MIN_LENGTH", data: {} },
    ]);
    expect(await identitySnapshot()).toEqual(before);

    const res = await api("POST", "/_api/iam/authentication/v2/change-password", {
      key: `Bearer ${token}`,
      body: { newPassword: "brand new password" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectIdentityError(await loginCall(m.email, PASSWORD), 401, "-19976");
    expect((await loginCall(m.email, "brand new password")).body.state).toBe("SUCCESS");
  });
});

describe("sign-on", () => {
  it("needs the API key", async () => {
    const email = newEmail();
    const before = await identitySnapshot();
    expectIdentityError(await api("POST", "/_api/iam/authentication/v2/sign-on", { body: { loginId: { email } } }), 401, "UNAUTHENTICATED");
    expectIdentityError(
      await api("POST", "/_api/iam/authentication/v2/sign-on", { key: await visitorToken(), body: { loginId: { email } } }),
      403,
      "PERMISSION_DENIED",
    );
    expect(await identitySnapshot()).toEqual(before);
  });

  it("creates an active member (no password), then finds the same one; the SDK's '<visitor>,<apiKey>' header works", async () => {
    const email = newEmail("sso");
    const header = `${await visitorToken()},${OWNER_KEY}`;
    const first = await api("POST", "/_api/iam/authentication/v2/sign-on", {
      key: header,
      body: { loginId: { email }, profile: { nickname: "sso" }, verifyEmail: true },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      sessionToken: expect.any(String),
      identity: { status: { name: "ACTIVE" }, email: { address: email, isVerified: true }, factors: [], identityProfile: { nickname: "sso" } },
    });
    expect(await sessionTokenExists(first.body.sessionToken, first.body.identity.id)).toBe(true);
    const second = await api("POST", "/v2/sign-on", { key: OWNER_KEY, body: { loginId: { email: email.toUpperCase() } } });
    expect(second.body.identity.id).toBe(first.body.identity.id);
    expect(second.body.sessionToken).not.toBe(first.body.sessionToken);
    // No password: a password login is refused like any wrong password.
    expectIdentityError(await loginCall(email, "anything at all"), 401, "-19976");
  });

  it("activates a pending member, and refuses owner and staff accounts", async () => {
    const email = newEmail();
    await registerCall(email);
    const res = await api("POST", "/v2/sign-on", { key: OWNER_KEY, body: { loginId: { email } } });
    expect(res.body.identity.status.name).toBe("ACTIVE");

    const staffEmail = newEmail("staff");
    const now = new Date().toISOString();
    await env.DB.prepare("INSERT INTO identities (id, email, status, role, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'STAFF', ?, ?)")
      .bind(crypto.randomUUID(), staffEmail, now, now)
      .run();
    expectIdentityError(await api("POST", "/v2/sign-on", { key: OWNER_KEY, body: { loginId: { email: staffEmail } } }), 403, "PERMISSION_DENIED");
  });
});

describe("rate limits", () => {
  it("429 after 10 attempts on one account, even with the right password; the window expires", async () => {
    const m = await activeMember();
    for (let i = 0; i < 10; i++) expectIdentityError(await loginCall(m.email, `wrong password ${i}`), 401, "-19976");
    const limited = await loginCall(m.email);
    expectIdentityError(limited, 429, "TOO_MANY_REQUESTS");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(limited.body.details.applicationError.data.retryAfterSeconds).toBe(retryAfter);

    // The window started 15 minutes ago: it is over, and the real owner of the account gets in.
    const key = await emailKey("login:account", m.email);
    await env.DB.prepare("UPDATE rate_limits SET window_start = window_start - 901 WHERE key = ?").bind(key).run();
    expect((await loginCall(m.email)).body.state).toBe("SUCCESS");
    expect(await env.DB.prepare("SELECT count(*) AS n FROM rate_limits WHERE key = ?").bind(key).first("n")).toBe(0);
  });

  it("limits attempts per client address (cf-connecting-ip), across accounts", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const m = await activeMember();
    const headers = { "cf-connecting-ip": ip };
    expect((await loginCall(m.email, PASSWORD, {}, headers)).body.state).toBe("SUCCESS");
    // 49 more attempts from that address are allowed (set directly, to keep the test fast), then the 51st is refused.
    await env.DB.prepare("UPDATE rate_limits SET count = 50 WHERE key = ?").bind(`login:ip:${ip}`).run();
    const limited = await loginCall(newEmail(), PASSWORD, {}, headers);
    expectIdentityError(limited, 429, "TOO_MANY_REQUESTS");
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    // A success does not reset the address's counter (one good account must not unlock guessing at others).
    expectIdentityError(await loginCall(m.email, PASSWORD, {}, headers), 429, "TOO_MANY_REQUESTS");
    // Another address is not affected.
    expect((await loginCall(m.email, PASSWORD, {}, { "cf-connecting-ip": "198.51.100.7" })).body.state).toBe("SUCCESS");
    // Counts are atomic upserts: one row per key.
    expect(await env.DB.prepare("SELECT count FROM rate_limits WHERE key = ?").bind(`login:ip:${ip}`).first("count")).toBe(52);
  });

  it("limits registrations per client address", async () => {
    const ip = `192.0.2.${Math.floor(Math.random() * 250)}`;
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, 20)")
      .bind(`register:ip:${ip}`, Math.floor(Date.now() / 1000))
      .run();
    const before = await identitySnapshot();
    expectIdentityError(await registerCall(newEmail(), PASSWORD, {}, { "cf-connecting-ip": ip }), 429, "TOO_MANY_REQUESTS");
    expect(await identitySnapshot()).toEqual(before);
  });
});

describe("factor verify and validate-email", () => {
  it("POST /v2/email/verify takes the code in emailData", async () => {
    const email = newEmail();
    const reg = await registerCall(email);
    const res = await api("POST", "/_api/iam/authentication/v2/email/verify", {
      body: { stateToken: reg.body.stateToken, emailData: { code: await lastCode(email) } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.state).toBe("SUCCESS");
    expectIdentityError(await api("POST", "/v2/sms/verify", { body: { stateToken: "x", smsData: { code: "1" } } }), 400, "UNSUPPORTED_FACTOR");
    const missing = await api("POST", "/v2/email/verify", { body: { stateToken: "x" } });
    expectIdentityError(missing, 400, "INVALID_ARGUMENT");
    expect(missing.body.details.validationError.fieldViolations[0].field).toBe("emailData.code");
  });

  it("validate-email checks the format only", async () => {
    expect((await api("POST", "/_api/iam/authentication/v2/validate-email", { body: { email: "a@b.co" } })).body).toEqual({
      valid: true,
      formatInvalid: false,
    });
    expect((await api("POST", "/_api/iam/authentication/v2/validate-email", { body: { email: "nope" } })).body).toEqual({
      valid: false,
      formatInvalid: true,
    });
  });
});

describe("the unmodified Wix SDK (OAuthStrategy) against these calls", () => {
  // Requests to the wixapis hosts go to the Worker with the same path; the token call is answered with a real
  // visitor token minted here (the grants are tested with the OAuth routes), so this exercises only this file's calls.
  let realFetch: typeof fetch;
  beforeEach(() => {
    realFetch = globalThis.fetch;
    globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (url.host !== "www.wixapis.com" && url.host !== "edge.wixapis.com") return realFetch(input, init);
      if (url.pathname === "/oauth2/token") {
        const tokens = await issueTokens(env, { role: "visitor", clientId: "sdk-client", visitorId: crypto.randomUUID() });
        return Response.json(tokens);
      }
      const body = request.method === "GET" ? undefined : await request.arrayBuffer();
      return SELF.fetch(`https://shop.test${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
    setCaptchaVerifier(null);
  });

  const sdk = () => createClient({ auth: OAuthStrategy({ clientId: "sdk-client" }) });

  it("register → EMAIL_VERIFICATION_REQUIRED → processVerification → SUCCESS; login SUCCESS", async () => {
    const client = sdk();
    const email = newEmail("sdk");
    const reg = await client.auth.register({ email, password: PASSWORD, profile: { nickname: "sdk" } });
    expect(reg.loginState).toBe("EMAIL_VERIFICATION_REQUIRED");
    const verified = await client.auth.processVerification({ verificationCode: await lastCode(email) });
    expect(verified).toEqual({ loginState: "SUCCESS", data: { sessionToken: expect.any(String) } });
    expect(await client.auth.login({ email, password: PASSWORD })).toEqual({ loginState: "SUCCESS", data: { sessionToken: expect.any(String) } });
  });

  it("maps every error code: invalidPassword, resetPassword, emailAlreadyExists, invalidEmail", async () => {
    const client = sdk();
    const m = await activeMember();
    expect(await client.auth.login({ email: m.email, password: "wrong password" })).toMatchObject({
      loginState: "FAILURE",
      errorCode: "invalidPassword",
    });
    expect(await client.auth.login({ email: newEmail("nobody"), password: "wrong password" })).toMatchObject({
      loginState: "FAILURE",
      errorCode: "invalidPassword",
    });
    expect(await client.auth.register({ email: m.email, password: PASSWORD })).toMatchObject({
      loginState: "FAILURE",
      errorCode: "emailAlreadyExists",
    });
    expect(await client.auth.register({ email: "not-an-email", password: PASSWORD })).toMatchObject({
      loginState: "FAILURE",
      errorCode: "invalidEmail",
      error: "must be a valid email address",
    });
    expect(await client.auth.login({ email: "not-an-email", password: PASSWORD })).toMatchObject({
      loginState: "FAILURE",
      errorCode: "invalidEmail",
    });
    await env.DB.prepare("UPDATE identities SET password_reset_required = 1 WHERE id = ?").bind(m.id).run();
    expect(await client.auth.login({ email: m.email, password: PASSWORD })).toMatchObject({ loginState: "FAILURE", errorCode: "resetPassword" });
  });

  it("maps captcha errors: missingCaptchaToken and invalidCaptchaToken", async () => {
    setCaptchaVerifier(async ({ token }) => token === "solved");
    await setIdentitySettings({ captcha: true });
    try {
      const client = sdk();
      const email = newEmail("sdk");
      expect(await client.auth.register({ email, password: PASSWORD })).toMatchObject({ errorCode: "missingCaptchaToken" });
      expect(await client.auth.register({ email, password: PASSWORD, captchaTokens: { recaptchaToken: "forged" } })).toMatchObject({
        errorCode: "invalidCaptchaToken",
      });
      expect(await client.auth.login({ email, password: PASSWORD })).toMatchObject({ errorCode: "missingCaptchaToken" });
      expect(await client.auth.login({ email, password: PASSWORD, captchaTokens: { invisibleRecaptchaToken: "forged" } })).toMatchObject({
        errorCode: "invalidCaptchaToken",
      });
      expect((await client.auth.register({ email, password: PASSWORD, captchaTokens: { invisibleRecaptchaToken: "solved" } })).loginState).toBe(
        "EMAIL_VERIFICATION_REQUIRED",
      );
    } finally {
      await setIdentitySettings({ captcha: false });
    }
  });

  it("OWNER_APPROVAL_REQUIRED, and sendPasswordResetEmail", async () => {
    await setIdentitySettings({ requireEmailVerification: false, requireOwnerApproval: true });
    const client = sdk();
    const email = newEmail("sdk");
    expect(await client.auth.register({ email, password: PASSWORD })).toEqual({ loginState: "OWNER_APPROVAL_REQUIRED" });
    await client.auth.sendPasswordResetEmail(email, "https://shop.test/account");
    expect((await emailsTo(email)).map((e) => e.template)).toEqual(["recovery-link"]);
  });
});
