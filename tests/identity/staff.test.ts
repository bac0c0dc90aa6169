import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { apiHost } from "#worker/app";
import { ensureOwner } from "#worker/identity/owner";
import { verifyPassword } from "#worker/identity/passwords";
import { issueTokens } from "#worker/identity/tokens";
import type { Ctx } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { sha256Hex } from "#worker/platform/ids";
import { api, merchant, OWNER_KEY, unique } from "../helpers";
import { apiWithEnv } from "./oauth-helpers";

/** The API host alone, without the page host. */
const app = apiHost();

/**
 * The store's owner, staff and API keys (merchant extensions at /api/v1): who may manage them, what an invited
 * staff member receives, and that blocking a person or revoking a key takes effect on the next request.
 */

const newProduct = () => ({ product: { name: `Staff-made ${unique()}`, priceData: { price: 12 } } });

/**
 * A staff (or owner) identity written straight to D1, ACTIVE, and member tokens for it: what a staff login yields.
 * Staff hold catalog.write unless told otherwise (tests/identity/permissions.test.ts covers each permission).
 */
async function staffSession(role: "STAFF" | "OWNER" | "MEMBER" = "STAFF", permissions: string[] = role === "STAFF" ? ["catalog.write"] : []) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO identities (id, email, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, 'ACTIVE', ?, ?, 1, ?, ?)",
  )
    .bind(id, `${role.toLowerCase()}-${unique()}@example.com`, role, JSON.stringify(permissions), now, now)
    .run();
  const tokens = await issueTokens(env, { role: "member", clientId: "test-client", visitorId: crypto.randomUUID(), identityId: id });
  return { id, token: tokens.access_token };
}

async function visitorToken() {
  return (await issueTokens(env, { role: "visitor", clientId: "test-client", visitorId: crypto.randomUUID() })).access_token;
}

async function latestEmailTo(to: string) {
  return env.DB.prepare('SELECT * FROM emails WHERE "to" = ? ORDER BY created_date DESC, rowid DESC LIMIT 1')
    .bind(to)
    .first<{ template: string; subject: string; html: string; text: string; status: string }>();
}

function codeOf(res: { body: any }) {
  return res.body?.details?.applicationError?.code;
}

// First: the file's database has no owner yet (each test file gets its own storage).
describe("the owner's account (ensureOwner, POST /api/v1/bootstrap)", () => {
  const credentials = { OWNER_EMAIL: " Owner@Example.com ", OWNER_PASSWORD: "correct horse battery" };

  /** Calls the Worker with extra env values (the owner's credentials), as `npm start` does with .dev.vars. */
  async function bootstrap(extra: Record<string, string>) {
    const execution = createExecutionContext();
    const res = await app.request(
      "https://shop.test/api/v1/bootstrap",
      { method: "POST", headers: { authorization: OWNER_KEY } },
      { ...env, ...extra },
      execution,
    );
    await waitOnExecutionContext(execution);
    return { status: res.status, body: (await res.json()) as { owner: { created: boolean; email: string | null; reason?: string } } };
  }

  const ownerRows = () => env.DB.prepare("SELECT * FROM identities WHERE role = 'OWNER'").all<Record<string, any>>();

  it("does nothing without OWNER_EMAIL and OWNER_PASSWORD, and says so", async () => {
    const res = await bootstrap({ OWNER_EMAIL: "", OWNER_PASSWORD: "" });
    expect(res.status).toBe(200);
    expect(res.body.owner).toEqual({ created: false, email: null, reason: expect.stringContaining("OWNER_EMAIL") });
    expect((await ownerRows()).results).toHaveLength(0);
  });

  it("never promotes an existing account that has the owner's email", async () => {
    const member = await staffSession("MEMBER");
    const { email } = (await env.DB.prepare("SELECT email FROM identities WHERE id = ?").bind(member.id).first<{ email: string }>())!;
    const ctx: Ctx = {
      db: openDb(env.DB),
      env: { ...env, OWNER_EMAIL: email, OWNER_PASSWORD: "long enough password" } as Env,
      auth: { kind: "apiKey", keyId: "owner", role: "OWNER" },
      currency: "USD",
      origin: "https://shop.test",
      waitUntil: () => {},
    };
    const result = await ensureOwner(ctx);
    expect(result.created).toBe(false);
    expect(result.reason).toMatch(/not the owner/);
    expect((await env.DB.prepare("SELECT role FROM identities WHERE id = ?").bind(member.id).first<{ role: string }>())!.role).toBe("MEMBER");
    expect((await ownerRows()).results).toHaveLength(0);
  });

  it("creates the owner once: ACTIVE, verified, role OWNER, the password only as a PBKDF2 hash", async () => {
    const res = await bootstrap(credentials);
    expect(res.status).toBe(200);
    expect(res.body.owner).toEqual({ created: true, email: "owner@example.com" });
    const { results } = await ownerRows();
    expect(results).toHaveLength(1);
    const owner = results[0];
    expect(owner).toMatchObject({ email: "owner@example.com", status: "ACTIVE", role: "OWNER", email_verified: 1 });
    expect(owner.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(owner.password_hash).not.toContain(credentials.OWNER_PASSWORD);
    expect(await verifyPassword(credentials.OWNER_PASSWORD, owner.password_hash)).toBe(true);
    expect(await verifyPassword("wrong password", owner.password_hash)).toBe(false);
  });

  it("is idempotent and never overwrites the owner's password, even when OWNER_PASSWORD changes", async () => {
    const before = (await ownerRows()).results[0];
    const res = await bootstrap({ ...credentials, OWNER_PASSWORD: "a different password" });
    expect(res.body.owner).toEqual({ created: false, email: "owner@example.com" });
    // Another OWNER_EMAIL does not create a second owner either.
    const other = await bootstrap({ OWNER_EMAIL: "second@example.com", OWNER_PASSWORD: "another password" });
    expect(other.body.owner).toEqual({ created: false, email: "owner@example.com" });
    const { results } = await ownerRows();
    expect(results).toEqual([before]);
  });

  it("creates the demo shopper in development only, once, as an active member who can log in", async () => {
    const shopper = { DEMO_SHOPPER_EMAIL: "Demo-Shopper@Example.test", DEMO_SHOPPER_PASSWORD: "demo shopper password" };
    const prod = await app.request(
      "https://shop.test/api/v1/bootstrap",
      { method: "POST", headers: { authorization: OWNER_KEY } },
      { ...env, ...credentials, ...shopper, ENVIRONMENT: "production" },
      createExecutionContext(),
    );
    expect(((await prod.json()) as { demoShopper: unknown }).demoShopper).toEqual({ created: false, email: null });
    expect(await env.DB.prepare("SELECT 1 FROM identities WHERE email = 'demo-shopper@example.test'").first()).toBeNull();

    const dev = await app.request(
      "https://shop.test/api/v1/bootstrap",
      { method: "POST", headers: { authorization: OWNER_KEY } },
      { ...env, ...credentials, ...shopper, ENVIRONMENT: "development" },
      createExecutionContext(),
    );
    expect(((await dev.json()) as { demoShopper: unknown }).demoShopper).toEqual({ created: true, email: "demo-shopper@example.test" });
    const again = await app.request(
      "https://shop.test/api/v1/bootstrap",
      { method: "POST", headers: { authorization: OWNER_KEY } },
      { ...env, ...credentials, ...shopper, ENVIRONMENT: "development" },
      createExecutionContext(),
    );
    expect(((await again.json()) as { demoShopper: unknown }).demoShopper).toEqual({ created: false, email: "demo-shopper@example.test" });

    const login = await api("POST", "/_api/iam/authentication/v2/login", {
      body: { loginId: { email: "demo-shopper@example.test" }, password: shopper.DEMO_SHOPPER_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.state).toBe("SUCCESS");
  });

  it("the owner appears in the staff list", async () => {
    const res = await merchant("GET", "/api/v1/staff");
    expect(res.body.staff.filter((s: { role: string }) => s.role === "OWNER").map((s: { email: string }) => s.email)).toContain("owner@example.com");
  });
});

describe("inviting staff (POST /api/v1/staff)", () => {
  it("creates a PENDING staff member and emails a one-time activation link valid for 7 days", async () => {
    const email = `Invitee-${unique()}@Example.com`;
    const res = await merchant("POST", "/api/v1/staff", { email, firstName: "Grace", lastName: "Hopper" });
    expect(res.status).toBe(200);
    const member = res.body.staffMember;
    expect(member).toMatchObject({ email: email.toLowerCase(), role: "STAFF", status: "PENDING", firstName: "Grace", lastName: "Hopper" });
    expect(member.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(member.createdDate).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);

    const mail = await latestEmailTo(email.toLowerCase());
    expect(mail).toMatchObject({ template: "activation-link", status: "QUEUED" });
    const link = mail!.text.match(/https:\/\/shop\.test\/reset-password\?token=([A-Za-z0-9_%-]+)&activation=1/);
    expect(link, mail!.text).not.toBeNull();
    expect(mail!.html).toContain(link![0].replace("&", "&amp;"));
    expect(mail!.text).toContain("Hi Grace,");

    // The token is stored only as a hash, as an activation token that lives 7 days.
    const token = decodeURIComponent(link![1]);
    const row = await env.DB.prepare("SELECT * FROM one_time_tokens WHERE identity_id = ?")
      .bind(member.id)
      .first<{ kind: string; token_hash: string; expires_at: string }>();
    expect(row!.kind).toBe("activation");
    expect(row!.token_hash).toBe(await sha256Hex(`activation:${token}`));
    const days = (Date.parse(row!.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
  });

  it("the invitee activates through the reset page's call (/v1/recover), once, then logs in", async () => {
    const email = `activate-${unique()}@example.com`;
    const { body } = await merchant("POST", "/api/v1/staff", { email, firstName: "Lin" });
    const mail = await latestEmailTo(email);
    const token = decodeURIComponent(mail!.text.match(/\?token=([^&\s]+)&activation=1/)![1]);

    const activated = await api("POST", "/v1/recover", { body: { recoveryToken: token, password: "a staff password" } });
    expect(activated.status).toBe(200);
    expect(activated.body.state).toBe("SUCCESS");
    const row = await env.DB.prepare("SELECT status, role, email_verified, password_hash FROM identities WHERE id = ?")
      .bind(body.staffMember.id)
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({ status: "ACTIVE", role: "STAFF", email_verified: 1 });
    expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$/);

    // The link works once.
    const again = await api("POST", "/v1/recover", { body: { recoveryToken: token, password: "another password" } });
    expect(again.status).toBeGreaterThanOrEqual(400);

    const login = await api("POST", "/v2/login", { body: { loginId: { email }, password: "a staff password" } });
    expect(login.status).toBe(200);
    expect(login.body.state).toBe("SUCCESS");
    const list = await merchant("GET", "/api/v1/staff");
    expect(list.body.staff.find((s: { id: string }) => s.id === body.staffMember.id).status).toBe("ACTIVE");
  });

  it("refuses an email that already has an account, changing nothing", async () => {
    const email = `taken-${unique()}@example.com`;
    expect((await merchant("POST", "/api/v1/staff", { email })).status).toBe(200);
    const before = (await env.DB.prepare("SELECT count(*) AS n FROM identities").first<{ n: number }>())!.n;
    const again = await merchant("POST", "/api/v1/staff", { email: email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(codeOf(again)).toBe("ALREADY_EXISTS");
    expect((await env.DB.prepare("SELECT count(*) AS n FROM identities").first<{ n: number }>())!.n).toBe(before);
  });

  it("refuses a bad email or name with field violations", async () => {
    const res = await merchant("POST", "/api/v1/staff", { email: "not-an-email", firstName: "" });
    expect(res.status).toBe(400);
    expect(res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field)).toEqual(["email", "firstName"]);
  });

  it("sends a new activation link on request, and the old one stops working", async () => {
    const email = `resend-${unique()}@example.com`;
    const { body } = await merchant("POST", "/api/v1/staff", { email });
    const first = await env.DB.prepare("SELECT token_hash FROM one_time_tokens WHERE identity_id = ?")
      .bind(body.staffMember.id)
      .first<{ token_hash: string }>();
    const res = await merchant("POST", `/api/v1/staff/${body.staffMember.id}/activation-email`, {});
    expect(res.status).toBe(200);
    const { results } = await env.DB.prepare("SELECT token_hash FROM one_time_tokens WHERE identity_id = ?")
      .bind(body.staffMember.id)
      .all<{ token_hash: string }>();
    expect(results).toHaveLength(1);
    expect(results[0].token_hash).not.toBe(first!.token_hash);
    const count = await env.DB.prepare('SELECT count(*) AS n FROM emails WHERE "to" = ?').bind(email).first<{ n: number }>();
    expect(count!.n).toBe(2);
  });
});

describe("staff activation links", () => {
  it("use PUBLIC_URL, never a forged Host; in production without PUBLIC_URL nothing is written or sent", async () => {
    const email = `public-${unique()}@example.com`;
    const invited = await apiWithEnv({ PUBLIC_URL: "https://shop.example" }, "POST", "https://evil.example/api/v1/staff", {
      key: OWNER_KEY,
      body: { email },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    const mail = await latestEmailTo(email);
    expect(mail!.text).toMatch(/https:\/\/shop\.example\/reset-password\?token=[A-Za-z0-9_%-]+&activation=1/);
    expect(mail!.text + mail!.html).not.toContain("evil.example");

    const production = { ENVIRONMENT: "production", PUBLIC_URL: "" };
    const other = `refused-${unique()}@example.com`;
    const refused = await apiWithEnv(production, "POST", "https://shop.test/api/v1/staff", { key: OWNER_KEY, body: { email: other } });
    expect(refused.status).toBe(503);
    expect(refused.body.details.applicationError.code).toBe("PUBLIC_URL_NOT_CONFIGURED");
    expect(await env.DB.prepare("SELECT id FROM identities WHERE email = ?").bind(other).first()).toBeNull();
    expect(await latestEmailTo(other)).toBeFalsy();

    const tokensBefore = await env.DB.prepare("SELECT token_hash FROM one_time_tokens WHERE identity_id = ?").bind(invited.body.staffMember.id).all();
    const resend = await apiWithEnv(production, "POST", `https://shop.test/api/v1/staff/${invited.body.staffMember.id}/activation-email`, {
      key: OWNER_KEY,
      body: {},
    });
    expect(resend.status).toBe(503);
    expect(
      (await env.DB.prepare("SELECT token_hash FROM one_time_tokens WHERE identity_id = ?").bind(invited.body.staffMember.id).all()).results,
    ).toEqual(tokensBefore.results);
    expect((await env.DB.prepare('SELECT count(*) AS n FROM emails WHERE "to" = ?').bind(email).first<{ n: number }>())!.n).toBe(1);
  });
});

describe("who may manage staff and keys", () => {
  let staff: { id: string; token: string };
  let staffKey: string;
  let member: { id: string; token: string };

  beforeAll(async () => {
    staff = await staffSession("STAFF");
    member = await staffSession("MEMBER");
    const res = await merchant("POST", "/api/v1/api-keys", { name: "Warehouse sync", role: "STAFF", permissions: ["catalog.write"] });
    expect(res.status).toBe(200);
    staffKey = res.body.key;
  });

  const ownerOnly: [string, string, unknown][] = [
    ["POST", "/api/v1/staff", { email: "someone@example.com" }],
    ["POST", "/api/v1/api-keys", { name: "Escalation", role: "OWNER" }],
    ["DELETE", "/api/v1/api-keys/00000000-0000-4000-8000-000000000000", undefined],
    ["DELETE", "/api/v1/staff/00000000-0000-4000-8000-000000000000", undefined],
    ["POST", "/api/v1/bootstrap", {}],
  ];

  it("nobody without credentials: 401", async () => {
    for (const [method, path, body] of [...ownerOnly, ["GET", "/api/v1/staff", undefined], ["GET", "/api/v1/api-keys", undefined]] as [
      string,
      string,
      unknown,
    ][]) {
      const res = await api(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it("visitors and members: 403", async () => {
    for (const key of [await visitorToken(), member.token]) {
      for (const [method, path, body] of [...ownerOnly, ["GET", "/api/v1/staff", undefined]] as [string, string, unknown][]) {
        const res = await api(method, path, { body, key });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(codeOf(res)).toBe("PERMISSION_DENIED");
      }
    }
  });

  it("a STAFF key or a staff member's token does catalogue writes but cannot manage staff or keys (403)", async () => {
    for (const key of [staffKey, staff.token]) {
      const created = await api("POST", "/v1/products", { body: newProduct(), key });
      expect(created.status).toBe(200);
      for (const [method, path, body] of ownerOnly) {
        const res = await api(method, path, { body, key });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(codeOf(res)).toBe("PERMISSION_DENIED");
      }
      // Reading the lists is merchant work.
      expect((await api("GET", "/api/v1/staff", { key })).status).toBe(200);
      expect((await api("GET", "/api/v1/api-keys", { key })).status).toBe(200);
    }
  });

  it("an OWNER key created by the owner can manage staff and keys", async () => {
    const { body } = await merchant("POST", "/api/v1/api-keys", { name: "Co-owner laptop", role: "OWNER" });
    const res = await api("POST", "/api/v1/staff", { key: body.key, body: { email: `by-owner-key-${unique()}@example.com` } });
    expect(res.status).toBe(200);
  });

  it("the owner's own token can manage staff", async () => {
    const owner = await staffSession("OWNER");
    const res = await api("POST", "/api/v1/staff", { key: owner.token, body: { email: `by-owner-${unique()}@example.com` } });
    expect(res.status).toBe(200);
  });
});

describe("listing and removing staff", () => {
  it("lists the owner and staff, not members", async () => {
    const invited = await merchant("POST", "/api/v1/staff", { email: `listed-${unique()}@example.com` });
    const member = await staffSession("MEMBER");
    const res = await merchant("GET", "/api/v1/staff");
    expect(res.status).toBe(200);
    const ids = res.body.staff.map((s: { id: string }) => s.id);
    expect(ids).toContain(invited.body.staffMember.id);
    expect(ids).not.toContain(member.id);
    for (const s of res.body.staff) expect(["OWNER", "STAFF"]).toContain(s.role);
    expect(JSON.stringify(res.body)).not.toMatch(/password/i);
  });

  it("blocking a staff member ends their access on the next request", async () => {
    const staff = await staffSession("STAFF");
    expect((await api("POST", "/v1/products", { body: newProduct(), key: staff.token })).status).toBe(200);
    const res = await merchant("DELETE", `/api/v1/staff/${staff.id}`);
    expect(res.status).toBe(200);
    expect(res.body.staffMember).toMatchObject({ id: staff.id, status: "BLOCKED" });
    const after = await api("POST", "/v1/products", { body: newProduct(), key: staff.token });
    expect(after.status).toBe(401);
    // Idempotent.
    expect((await merchant("DELETE", `/api/v1/staff/${staff.id}`)).body.staffMember.status).toBe("BLOCKED");
  });

  it("blocking a pending invitee also kills their activation link", async () => {
    const { body } = await merchant("POST", "/api/v1/staff", { email: `revoked-${unique()}@example.com` });
    expect((await merchant("DELETE", `/api/v1/staff/${body.staffMember.id}`)).status).toBe(200);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM one_time_tokens WHERE identity_id = ?")
      .bind(body.staffMember.id)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    const resend = await merchant("POST", `/api/v1/staff/${body.staffMember.id}/activation-email`, {});
    expect(resend.status).toBe(400);
  });

  it("the owner cannot be removed, and members or unknown ids are not staff (404)", async () => {
    const owner = await staffSession("OWNER");
    const res = await merchant("DELETE", `/api/v1/staff/${owner.id}`);
    expect(res.status).toBe(403);
    const member = await staffSession("MEMBER");
    expect((await merchant("DELETE", `/api/v1/staff/${member.id}`)).status).toBe(404);
    const unknown = await merchant("DELETE", `/api/v1/staff/${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(codeOf(unknown)).toBe("STAFF_MEMBER_NOT_FOUND");
    expect((await api("POST", "/v1/products", { body: newProduct(), key: owner.token })).status).toBe(200);
  });
});

describe("API keys (POST/GET/DELETE /api/v1/api-keys)", () => {
  it("shows a new key once and stores only its SHA-256", async () => {
    const res = await merchant("POST", "/api/v1/api-keys", { name: "  Inventory bot  ", role: "STAFF" });
    expect(res.status).toBe(200);
    const { apiKey, key } = res.body;
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    // The prefix (`sk_` and 6 of the 43 random characters) tells keys apart in the console without revealing them.
    expect(apiKey).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Inventory bot",
      role: "STAFF",
      permissions: [],
      prefix: key.slice(0, 9),
      createdDate: expect.any(String),
    });
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(apiKey.id).first<Record<string, unknown>>();
    expect(row!.key_hash).toBe(await sha256Hex(key));
    expect(Object.values(row!)).not.toContain(key);

    const list = await merchant("GET", "/api/v1/api-keys");
    expect(list.status).toBe(200);
    const listed = list.body.apiKeys.find((k: { id: string }) => k.id === apiKey.id);
    expect(listed).toEqual(apiKey);
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(JSON.stringify(list.body)).not.toMatch(/keyHash|key_hash/);
    expect(JSON.stringify(list.body)).not.toContain(key.slice(0, 10));
  });

  it("works as the Authorization header until revoked, then gets 401", async () => {
    const { body } = await merchant("POST", "/api/v1/api-keys", { name: `Temp ${unique()}`, role: "STAFF", permissions: ["catalog.write"] });
    expect((await api("POST", "/v1/products", { body: newProduct(), key: body.key })).status).toBe(200);
    expect((await api("POST", "/v1/products", { body: newProduct(), key: `Bearer ${body.key}` })).status).toBe(200);

    const revoked = await merchant("DELETE", `/api/v1/api-keys/${body.apiKey.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.apiKey).toMatchObject({ id: body.apiKey.id, revokedDate: expect.any(String) });
    const denied = await api("POST", "/v1/products", { body: newProduct(), key: body.key });
    expect(denied.status).toBe(401);
    expect(codeOf(denied)).toBe("UNAUTHENTICATED");

    // Revoking again keeps the first date; the list shows it revoked.
    const again = await merchant("DELETE", `/api/v1/api-keys/${body.apiKey.id}`);
    expect(again.body.apiKey.revokedDate).toBe(revoked.body.apiKey.revokedDate);
    const list = await merchant("GET", "/api/v1/api-keys");
    expect(list.body.apiKeys.find((k: { id: string }) => k.id === body.apiKey.id).revokedDate).toBe(revoked.body.apiKey.revokedDate);
  });

  it("refuses a missing name or an unknown role, and an unknown id is 404", async () => {
    const res = await merchant("POST", "/api/v1/api-keys", { role: "ADMIN" });
    expect(res.status).toBe(400);
    const violations = res.body.details.validationError.fieldViolations;
    expect(violations.map((v: { field: string; violatedRule: string }) => [v.field, v.violatedRule])).toEqual([
      ["name", "REQUIRED_FIELD"],
      ["role", "INVALID_ENUM_VALUE"],
    ]);
    const missing = await merchant("DELETE", `/api/v1/api-keys/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(codeOf(missing)).toBe("API_KEY_NOT_FOUND");
  });
});
