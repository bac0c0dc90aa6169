import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, PRODUCTION_ORIGIN, startProductionWorker, type ProductionWorker } from "./worker";

/**
 * The rules that hold only in production, over HTTP on the built Worker started with ENVIRONMENT=production (and
 * PUBLIC_URL=https://shop.example, except where a second Worker runs without it), fetched at https:// URLs as
 * Cloudflare's edge hands them to the Worker.
 */

let w: ProductionWorker;
beforeAll(async () => {
  w = await startProductionWorker();
});
afterAll(async () => {
  await w?.dispose();
});

const PAGES = ["/", "/login", "/register", "/forgot-password", "/cart"];

/** A JSON call at an https origin (default: the shop's public one). */
async function call(method: string, path: string, body?: unknown, origin?: string) {
  const res = await w.fetchAt(
    path,
    {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
    origin,
  );
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/** A member written straight to D1 (an account recovery can be asked for). */
async function member(db: D1Database) {
  const id = crypto.randomUUID();
  const email = `prod-${id.slice(0, 8)}@example.test`;
  const now = new Date().toISOString();
  await db
    .prepare("INSERT INTO identities (id, email, status, role, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'MEMBER', ?, ?)")
    .bind(id, email, now, now)
    .run();
  return { id, email };
}

const emailsTo = async (db: D1Database, to: string) =>
  (
    await db
      .prepare('SELECT template, text, html FROM emails WHERE "to" = ? ORDER BY created_date, rowid')
      .bind(to)
      .all<{ template: string; text: string; html: string }>()
  ).results;

/** A PKCE challenge and state, as the SDK makes them (any 43 base64url characters will do for the checks here). */
const challenge = () =>
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

const authBody = (extra: Record<string, unknown>, prompt = "none") => ({
  auth: {
    authRequest: {
      clientId: "storefront",
      codeChallenge: challenge(),
      codeChallengeMethod: "S256",
      responseType: "code",
      scope: "offline_access",
      state: challenge(),
      ...extra,
    },
    prompt,
  },
});

describe("production headers", () => {
  it("pages over https carry Strict-Transport-Security and Cross-Origin-Opener-Policy: same-origin", async () => {
    for (const path of PAGES) {
      const res = await w.fetchAt(path, { headers: { "user-agent": BROWSER_UA }, redirect: "manual" });
      expect(res.status, path).toBeLessThan(400);
      expect(res.headers.get("strict-transport-security"), path).toBe("max-age=31536000; includeSubDomains");
      expect(res.headers.get("cross-origin-opener-policy"), path).toBe("same-origin");
      await res.arrayBuffer();
    }
  });

  it("plain http gets no HSTS; API answers get HSTS but no COOP", async () => {
    const plain = await w.fetch("/login", { headers: { "user-agent": BROWSER_UA } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("strict-transport-security")).toBeNull();
    expect(plain.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    await plain.arrayBuffer();
    const api = await call("GET", "/api/health");
    expect(api.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(api.headers.get("cross-origin-opener-policy")).toBeNull();
  });
});

describe("production OAuth", () => {
  it("refuses a redirect URI the storefront client has not registered, and accepts the shop's own", async () => {
    const refused = await call("POST", "/v1/redirect-session", authBody({ redirectUri: "https://app.example/callback", responseMode: "query" }));
    expect(refused.status).toBe(400);
    expect(refused.body.details.validationError.fieldViolations).toEqual([
      { field: "auth.authRequest.redirectUri", description: "is not an allowed redirect URI for this client", violatedRule: "VALIDATION", data: {} },
    ]);
    const own = await call("POST", "/v1/redirect-session", authBody({ redirectUri: `${PRODUCTION_ORIGIN}/`, responseMode: "query" }));
    expect(own.status).toBe(200);
    expect(own.body.redirectSession.fullUrl.startsWith(`${PRODUCTION_ORIGIN}/oauth2/authorize?`)).toBe(true);
  });

  it("answers web_message only for prompt none, and only to a registered origin", async () => {
    const login = await call("POST", "/v1/redirect-session", authBody({ responseMode: "web_message" }, "login"));
    expect(login.status).toBe(400);
    expect(login.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "auth.prompt" });
    const elsewhere = await call("POST", "/v1/redirect-session", { ...authBody({ responseMode: "web_message" }), origin: "https://app.example" });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.details.validationError.fieldViolations[0]).toMatchObject({
      field: "origin",
      description: "is not an origin registered for this client",
    });

    const ok = await call("POST", "/v1/redirect-session", authBody({ responseMode: "web_message" }));
    expect(ok.status).toBe(200);
    const page = await w.mf.dispatchFetch(ok.body.redirectSession.fullUrl);
    expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(page.headers.get("content-security-policy")).toContain(`frame-ancestors ${PRODUCTION_ORIGIN}`);
    const html = await page.text();
    expect(html).toContain(`os=["${PRODUCTION_ORIGIN}"]`);
    expect(html).not.toContain('"*"');
  });
});

describe("production links", () => {
  it("a reset link uses PUBLIC_URL even when the Host is forged, from the API and from the page", async () => {
    const m = await member(w.db);
    const res = await call("POST", "/v1/send-email", { email: m.email }, "https://evil.example");
    expect(res.status).toBe(200);
    const page = await w.fetchAt(
      "/forgot-password",
      {
        method: "POST",
        headers: { "user-agent": BROWSER_UA, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: m.email }).toString(),
      },
      "https://evil.example",
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("If an account exists for");
    const mails = await emailsTo(w.db, m.email);
    expect(mails.map((e) => e.template)).toEqual(["recovery-link", "recovery-link"]);
    for (const mail of mails) {
      const link = new URL(mail.text.match(/https?:\/\/\S+/)![0]);
      expect(link.origin + link.pathname).toBe(`${PRODUCTION_ORIGIN}/reset-password`);
      expect(mail.text + mail.html).not.toContain("evil.example");
    }
  });
});

describe("production without PUBLIC_URL", () => {
  let bare: ProductionWorker;
  beforeAll(async () => {
    bare = await startProductionWorker({ bindings: { PUBLIC_URL: "" } });
  });
  afterAll(async () => {
    await bare?.dispose();
  });

  const counts = async () =>
    bare.db
      .prepare(
        "SELECT (SELECT COUNT(*) FROM emails) AS emails, (SELECT COUNT(*) FROM one_time_tokens) AS tokens, (SELECT COUNT(*) FROM rate_limits) AS limits",
      )
      .first();

  it("refuses to email a reset link, with a clear error, writing and sending nothing", async () => {
    const m = await member(bare.db);
    const before = await counts();
    const res = await bare.fetchAt("/v1/send-email", {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": "192.0.2.9" },
      body: JSON.stringify({ email: m.email }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.details.applicationError.code).toBe("PUBLIC_URL_NOT_CONFIGURED");
    expect(body.details.applicationError.description).toContain("PUBLIC_URL");

    const page = await bare.fetchAt("/forgot-password", {
      method: "POST",
      headers: { "user-agent": BROWSER_UA, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: m.email }).toString(),
    });
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain("PUBLIC_URL");
    expect(html).not.toContain("If an account exists for");
    expect(await counts()).toEqual(before);
    expect(await emailsTo(bare.db, m.email)).toEqual([]);
  });
});
