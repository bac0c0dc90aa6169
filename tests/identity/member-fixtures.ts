import { env } from "cloudflare:test";
import { expect } from "vitest";
import { issueTokens } from "#worker/identity/tokens";
import { api, merchant, unique } from "../helpers";

/** Shared steps of the member, verification, recovery and password tests. */

export const PASSWORD = "correct horse battery";

/** A fresh email no other test uses. */
export const newEmail = (label = "member") => `${label}-${unique()}${unique()}@example.test`;

/** Sets the store's identity settings through the owner API (fields left out keep their value). */
export async function setIdentitySettings(settings: { requireEmailVerification?: boolean; requireOwnerApproval?: boolean; captcha?: boolean }) {
  const res = await merchant("PATCH", "/api/v1/identity-settings", { settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.settings;
}

/** Back to the defaults: verification required, no approval, no captcha. */
export const resetIdentitySettings = () => setIdentitySettings({ requireEmailVerification: true, requireOwnerApproval: false, captcha: false });

export interface EmailRow {
  id: string;
  to: string;
  template: string;
  subject: string;
  html: string;
  text: string;
  created_date: string;
}

/** Every email sent to an address, oldest first. */
export async function emailsTo(to: string): Promise<EmailRow[]> {
  const { results } = await env.DB.prepare('SELECT * FROM emails WHERE "to" = ? ORDER BY created_date, rowid').bind(to).all<EmailRow>();
  return results;
}

/** The newest email of a template sent to an address. */
export async function lastEmail(to: string, template: string): Promise<EmailRow> {
  const rows = (await emailsTo(to)).filter((r) => r.template === template);
  expect(rows.length, `an email "${template}" to ${to}`).toBeGreaterThan(0);
  return rows[rows.length - 1];
}

/** The 6-digit code of the newest verification email. */
export async function lastCode(to: string): Promise<string> {
  const mail = await lastEmail(to, "verification-code");
  const code = mail.text.match(/\b(\d{6})\b/)?.[1];
  expect(code, mail.text).toBeDefined();
  return code!;
}

/** The link of the newest recovery or activation email, and its token. */
export async function lastLink(to: string, template: "recovery-link" | "activation-link"): Promise<{ url: URL; token: string }> {
  const mail = await lastEmail(to, template);
  const href = mail.text.match(/https?:\/\/\S+/)?.[0];
  expect(href, mail.text).toBeDefined();
  const url = new URL(href!);
  return { url, token: url.searchParams.get("token")! };
}

export const registerCall = (email: string, password = PASSWORD, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  api("POST", "/_api/iam/authentication/v2/register", { body: { loginId: { email }, password, ...extra }, headers });

export const loginCall = (email: string, password = PASSWORD, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  api("POST", "/_api/iam/authentication/v2/login", { body: { loginId: { email }, password, ...extra }, headers });

export const verifyCall = (stateToken: string, code: string, headers?: Record<string, string>) =>
  api("POST", "/_api/iam/verification/v1/auth/verify", { body: { code, stateToken }, headers });

/** The identities row of an email, or null. */
export async function identityRow(email: string) {
  return env.DB.prepare("SELECT * FROM identities WHERE email = ?").bind(email.toLowerCase()).first<Record<string, any>>();
}

/**
 * Registers a member and walks them to ACTIVE (verifying the emailed code when the store requires it); returns the
 * identity id. Leaves the store's settings as they were.
 */
export async function activeMember(email = newEmail(), password = PASSWORD): Promise<{ id: string; email: string; password: string }> {
  const reg = await registerCall(email, password);
  expect(reg.status, JSON.stringify(reg.body)).toBe(200);
  if (reg.body.state === "REQUIRE_EMAIL_VERIFICATION") {
    const ok = await verifyCall(reg.body.stateToken, await lastCode(email));
    expect(ok.body.state, JSON.stringify(ok.body)).toBe("SUCCESS");
  } else {
    expect(reg.body.state).toBe("SUCCESS");
  }
  return { id: reg.body.identity.id, email, password };
}

/** A member access token for an identity (as the OAuth flow would issue it). */
export async function memberToken(identityId: string): Promise<string> {
  const tokens = await issueTokens(env, { role: "member", clientId: "test-client", visitorId: crypto.randomUUID(), identityId });
  return tokens.access_token;
}

/** A visitor access token. */
export async function visitorToken(): Promise<string> {
  const tokens = await issueTokens(env, { role: "visitor", clientId: "test-client", visitorId: crypto.randomUUID() });
  return tokens.access_token;
}

/** The identity tables a refused request must leave alone. */
export async function identitySnapshot() {
  const out: Record<string, unknown[]> = {};
  for (const t of ["identities", "one_time_tokens", "emails"]) out[t] = (await env.DB.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()).results;
  return out;
}

/** A one-time token row's data (by its kind and the identity). */
export async function oneTimeRows(identityId: string, kind: string) {
  const { results } = await env.DB.prepare("SELECT * FROM one_time_tokens WHERE identity_id = ? AND kind = ?")
    .bind(identityId, kind)
    .all<{ token_hash: string; kind: string; identity_id: string; data: string; expires_at: string; created_date: string }>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, any> }));
}

/** Expects the error shape every identity error has: an applicationError with a string code. */
export function expectIdentityError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.details.applicationError.code).toBe(code);
  expect(typeof res.body.details.applicationError.code).toBe("string");
  expect(res.body.message).toEqual(expect.any(String));
  for (const v of res.body.details.validationError?.fieldViolations ?? []) expect(v.data).toEqual(expect.any(Object));
}
