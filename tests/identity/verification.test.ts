import { env } from "cloudflare:test";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "#worker/platform/ids";
import { PERMISSIONS, type Permission } from "#worker/platform/context";
import { api, merchant, OWNER_KEY, staffWith } from "../helpers";
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
  oneTimeRows,
  registerCall,
  resetIdentitySettings,
  verifyCall,
} from "./member-fixtures";

/** Email verification codes: /v1/Start (/v1/start), /v1/auth/verify, /v1/auth/resend. */

beforeEach(async () => {
  await resetIdentitySettings();
});
afterAll(async () => {
  await resetIdentitySettings();
});

async function pending() {
  const email = newEmail("verify");
  const reg = await registerCall(email);
  expect(reg.body.state).toBe("REQUIRE_EMAIL_VERIFICATION");
  return { email, id: reg.body.identity.id as string, stateToken: reg.body.stateToken as string, code: await lastCode(email) };
}

const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("auth/verify", () => {
  it("stores only a hash of the code; the email holds the code", async () => {
    const p = await pending();
    const [state] = await oneTimeRows(p.id, "verification");
    expect(state.data).toEqual({ codeHash: expect.stringMatching(/^[0-9a-f]{64}$/), attempts: 0, target: "EMAIL" });
    expect(JSON.stringify(state)).not.toContain(p.code);
    expect(JSON.stringify(state)).not.toContain(p.stateToken);
    expect(state.token_hash).toBe(await sha256Hex(`verification:${p.stateToken}`));
    const [mail] = await emailsTo(p.email);
    expect(mail.subject).toContain(p.code);
  });

  it("counts wrong codes: 4 left, 3 left … and the fifth wrong code ends the state token", async () => {
    const p = await pending();
    const wrong = otherCode(p.code);
    for (let left = 4; left >= 1; left--) {
      const res = await verifyCall(p.stateToken, wrong);
      expectIdentityError(res, 400, "INVALID_VERIFICATION_CODE");
      expect(res.body.details.applicationError.data).toEqual({ attemptsLeft: left });
    }
    expectIdentityError(await verifyCall(p.stateToken, wrong), 400, "VERIFICATION_ATTEMPTS_EXCEEDED");
    expect(await oneTimeRows(p.id, "verification")).toEqual([]);
    // Even the right code is now refused, and the member is still pending.
    expectIdentityError(await verifyCall(p.stateToken, p.code), 400, "INVALID_STATE_TOKEN");
    expect((await identityRow(p.email))!.status).toBe("PENDING");
  });

  it("gives parallel guesses no more than 5 attempts in all", async () => {
    const p = await pending();
    const wrong = otherCode(p.code);
    const results = await Promise.all(Array.from({ length: 12 }, () => verifyCall(p.stateToken, wrong)));
    const counted = results.filter((r) =>
      ["INVALID_VERIFICATION_CODE", "VERIFICATION_ATTEMPTS_EXCEEDED"].includes(r.body.details.applicationError.code),
    );
    expect(counted.length).toBe(5);
    expect(results.filter((r) => r.body.details.applicationError.code === "INVALID_STATE_TOKEN").length).toBe(7);
  });

  it("a state token works once", async () => {
    const p = await pending();
    expect((await verifyCall(p.stateToken, p.code)).body.state).toBe("SUCCESS");
    expectIdentityError(await verifyCall(p.stateToken, p.code), 400, "INVALID_STATE_TOKEN");
  });

  it("refuses an expired, unknown or forged state token and changes nothing", async () => {
    const p = await pending();
    await env.DB.prepare("UPDATE one_time_tokens SET expires_at = ? WHERE identity_id = ? AND kind = 'verification'")
      .bind(new Date(Date.now() - 1000).toISOString(), p.id)
      .run();
    const before = await identitySnapshot();
    expectIdentityError(await verifyCall(p.stateToken, p.code), 400, "INVALID_STATE_TOKEN");
    expectIdentityError(await verifyCall("forged-state-token", p.code), 400, "INVALID_STATE_TOKEN");
    expectIdentityError(await verifyCall(p.stateToken.slice(0, -1) + (p.stateToken.endsWith("A") ? "B" : "A"), p.code), 400, "INVALID_STATE_TOKEN");
    expect(await identitySnapshot()).toEqual(before);
    expect((await identityRow(p.email))!.status).toBe("PENDING");
  });

  it("validates the body with field violations", async () => {
    const res = await api("POST", "/v1/auth/verify", { body: { stateToken: "" } });
    expectIdentityError(res, 400, "INVALID_ARGUMENT");
    expect(res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field)).toEqual(["code", "stateToken"]);
  });
});

describe("auth/resend", () => {
  it("emails a new code; the old one stops working, the new one works", async () => {
    const p = await pending();
    const res = await api("POST", "/_api/iam/verification/v1/auth/resend", { body: { stateToken: p.stateToken } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const mails = await emailsTo(p.email);
    expect(mails.length).toBe(2);
    const fresh = await lastCode(p.email);
    if (fresh !== p.code) expectIdentityError(await verifyCall(p.stateToken, p.code), 400, "INVALID_VERIFICATION_CODE");
    expect((await verifyCall(p.stateToken, fresh)).body.state).toBe("SUCCESS");
  });

  it("is limited to 5 code emails per account in 15 minutes", async () => {
    const p = await pending(); // registration sent the first
    for (let i = 0; i < 4; i++) expect((await api("POST", "/v1/auth/resend", { body: { stateToken: p.stateToken } })).status).toBe(200);
    const limited = await api("POST", "/v1/auth/resend", { body: { stateToken: p.stateToken } });
    expectIdentityError(limited, 429, "TOO_MANY_REQUESTS");
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await emailsTo(p.email)).length).toBe(5);
    // Login would send another code: refused the same way.
    expectIdentityError(await loginCall(p.email), 429, "TOO_MANY_REQUESTS");
  });

  it("refuses an unknown state token", async () => {
    expectIdentityError(await api("POST", "/v1/auth/resend", { body: { stateToken: "nope" } }), 400, "INVALID_STATE_TOKEN");
  });
});

describe("Start", () => {
  it("the API key starts a verification for any member (/v1/Start and the SDK's /v1/start)", async () => {
    const p = await pending();
    for (const path of ["/v1/Start", "/_api/iam/verification/v1/start"]) {
      const res = await api("POST", path, { key: OWNER_KEY, body: { identityId: p.id, target: "AUTH_ONLY" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ verificationId: expect.any(String), stateToken: res.body.verificationId });
    }
    const states = await oneTimeRows(p.id, "verification");
    expect(states.length).toBe(1);
    expect(states[0].data.target).toBe("AUTH_ONLY");
  });

  it("a member verifies their own email: Start, then the code → SUCCESS and isVerified", async () => {
    const m = await activeMember();
    await env.DB.prepare("UPDATE identities SET email_verified = 0 WHERE id = ?").bind(m.id).run();
    const start = await api("POST", "/v1/Start", { key: await memberToken(m.id), body: { identityId: m.id, target: "EMAIL" } });
    expect(start.status).toBe(200);
    const res = await verifyCall(start.body.stateToken, await lastCode(m.email));
    expect(res.body).toMatchObject({ state: "SUCCESS", identity: { email: { isVerified: true }, status: { name: "ACTIVE" } } });
  });

  it("for another member it needs members.impersonate: STAFF keys and staff holding any other permission get 403", async () => {
    const p = await pending();
    const staffKey = async (permissions: Permission[]) => {
      const res = await merchant("POST", "/api/v1/api-keys", { name: `start ${permissions.join(",") || "none"}`, role: "STAFF", permissions });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.key as string;
    };
    const refused: string[] = [];
    for (const held of [[], ...PERMISSIONS.filter((x) => x !== "members.impersonate").map((x) => [x])]) {
      refused.push(await staffKey(held), (await staffWith(held)).token);
    }
    const before = await identitySnapshot();
    for (const key of refused) {
      expectIdentityError(await api("POST", "/v1/start", { key, body: { identityId: p.id, target: "AUTH_ONLY" } }), 403, "PERMISSION_DENIED");
    }
    expect(await identitySnapshot()).toEqual(before);
    for (const key of [await staffKey(["members.impersonate"]), (await staffWith(["members.impersonate"])).token]) {
      const res = await api("POST", "/v1/start", { key, body: { identityId: p.id, target: "AUTH_ONLY" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  it("refuses strangers, other members and unknown ids", async () => {
    const a = await activeMember();
    const b = await activeMember();
    const before = await identitySnapshot();
    expectIdentityError(await api("POST", "/v1/start", { body: { identityId: a.id } }), 401, "UNAUTHENTICATED");
    expectIdentityError(await api("POST", "/v1/start", { key: await memberToken(b.id), body: { identityId: a.id } }), 403, "PERMISSION_DENIED");
    expect(await identitySnapshot()).toEqual(before);
    expectIdentityError(await merchant("POST", "/v1/start", { identityId: "no-such-member" }), 404, "MEMBER_NOT_FOUND");
    expectIdentityError(await merchant("POST", "/v1/start", { identityId: a.id, target: "SMS" }), 400, "INVALID_ARGUMENT");
  });
});
