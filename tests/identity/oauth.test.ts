import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createOAuthClient, getOAuthClient, isRedirectAllowed } from "#worker/identity/clients";
import type { Ctx } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { sha256Hex } from "#worker/platform/ids";
import { putOneTime } from "#worker/identity/one-time";
import { sessionCookie, sessionTokensOf } from "#web/session.server";
import { api, OWNER_KEY } from "../helpers";
import {
  authBody,
  CLIENT_ID,
  codeFrom,
  createIdentity,
  createRestrictedClient,
  expireToken,
  memberTokens,
  pkce,
  readCatalogue,
  REDIRECT_URI,
  remember,
  seenTokens,
  sessionTokenFor,
  tokenCall,
  tokenRecord,
  visit,
  visitorTokens,
} from "./oauth-helpers";

/** The token endpoint, authorize, callback and logout: what the SDK's OAuthStrategy relies on. */

function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("x-wix-request-id")).toBeTruthy();
  expect(res.body.details.applicationError.code).toBe(code);
  expect(typeof res.body.message).toBe("string");
}

/** An auth redirect session's fullUrl for a fresh PKCE pair. */
async function authUrl(opts: Parameters<typeof authBody>[1] = {}, key?: string) {
  const p = await pkce();
  const rs = await api("POST", "/v1/redirect-session", { body: authBody(p, opts), key });
  expect(rs.status, JSON.stringify(rs.body)).toBe(200);
  return { ...p, fullUrl: rs.body.redirectSession.fullUrl as string };
}

/** What a web_message page posts: its message and the origins it addresses (parsed from its script). */
function webMessagePage(html: string): { message: Record<string, string>; origins: string[] } {
  const match = html.match(/var m=(\{.*?\}),os=(\[.*?\]);/);
  if (!match) throw new Error(`not a web_message page: ${html}`);
  return { message: JSON.parse(match[1]), origins: JSON.parse(match[2]) };
}

/** Runs a web_message page's script against a framed-and-opened window, and returns what it posted where. */
function runWebMessageScript(html: string): { to: string; origin: string; message: any }[] {
  const script = html.match(/<script nonce="[^"]+">(.*)<\/script>/)![1];
  const posted: { to: string; origin: string; message: any }[] = [];
  const target = (to: string) => ({ postMessage: (message: unknown, origin: string) => void posted.push({ to, origin, message }) });
  const window = { parent: target("parent"), opener: target("opener") };
  new Function("window", script)(window);
  return posted;
}

/** A code for the identity through the query-mode round trip, with its PKCE verifier. */
async function codeFor(identityId: string, opts: Parameters<typeof authBody>[1] = {}) {
  const sessionToken = await sessionTokenFor(identityId);
  const a = await authUrl({ sessionToken, ...opts });
  const { code, state } = codeFrom(await visit(a.fullUrl));
  expect(state).toBe(a.state);
  return { ...a, code: code! };
}

describe("anonymous grant", () => {
  it("answers visitor tokens the SDK can use, in camelCase, snake_case or a form", async () => {
    const camel = await tokenCall({ clientId: CLIENT_ID, grantType: "anonymous" });
    expect(camel.status).toBe(200);
    expect(camel.body).toEqual({
      access_token: expect.stringMatching(/^at_/),
      refresh_token: expect.stringMatching(/^rt_/),
      expires_in: 14400,
      token_type: "Bearer",
    });
    expect(camel.headers.get("cache-control")).toBe("no-store");

    const snake = await tokenCall({ client_id: CLIENT_ID, grant_type: "anonymous" });
    expect(snake.status).toBe(200);
    expect(snake.body.access_token).not.toBe(camel.body.access_token);

    const form = await api("POST", "/oauth2/token", {
      rawBody: `grant_type=anonymous&client_id=${CLIENT_ID}`,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(200);
    remember(form.body.access_token);
    remember(form.body.refresh_token);

    // Each anonymous grant is a new visitor.
    const a = await tokenRecord(camel.body.access_token);
    const b = await tokenRecord(snake.body.access_token);
    expect(a).toMatchObject({ role: "visitor", clientId: CLIENT_ID, visitorId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(b!.visitorId).not.toBe(a!.visitorId);
  });

  it("gives an access token that works on API calls, while a garbage token gets 401 in the error shape", async () => {
    const { access_token } = await visitorTokens();
    const ok = await readCatalogue(access_token);
    expect(ok.status).toBe(200);
    expect(ok.body.products).toBeInstanceOf(Array);
    expect((await readCatalogue(`Bearer ${access_token}`)).status).toBe(200);

    expectError(await readCatalogue("at_garbage"), 401, "UNAUTHENTICATED");
    expectError(await readCatalogue("rt_not-an-access-token"), 401, "UNAUTHENTICATED");
  });

  it("refuses an unknown or missing client, a missing or unknown grant type, and a body that is not an object", async () => {
    expectError(await tokenCall({ clientId: "no-such-client", grantType: "anonymous" }), 400, "INVALID_CLIENT");
    const missingClient = await tokenCall({ grantType: "anonymous" });
    expectError(missingClient, 400, "INVALID_ARGUMENT");
    expect(missingClient.body.details.validationError.fieldViolations).toEqual([
      { field: "clientId", description: "is required", violatedRule: "REQUIRED_FIELD", data: {} },
    ]);
    const missingGrant = await tokenCall({ clientId: CLIENT_ID });
    expectError(missingGrant, 400, "INVALID_ARGUMENT");
    expect(missingGrant.body.message).toBe('INVALID_ARGUMENT: "grantType" is required');
    expectError(await tokenCall({ clientId: CLIENT_ID, grantType: "password" }), 400, "UNSUPPORTED_GRANT_TYPE");
    expectError(await tokenCall({ clientId: CLIENT_ID, grantType: "client_credentials" }), 400, "UNSUPPORTED_GRANT_TYPE");
    expectError(await tokenCall(["anonymous"]), 400, "INVALID_ARGUMENT");
    expectError(await api("POST", "/oauth2/token", { rawBody: "{nope", contentType: "application/json" }), 400, "INVALID_ARGUMENT");
  });
  it("limits how many visitor tokens one client address can mint, per window, in D1", async () => {
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const key = `anon-token:${CLIENT_ID}:ip:${ip}`;
    // Start just under the ceiling rather than minting 300 tokens.
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, 299)")
      .bind(key, Math.floor(Date.now() / 1000))
      .run();
    const call = () => api("POST", "/oauth2/token", { body: { clientId: CLIENT_ID, grantType: "anonymous" }, headers: { "cf-connecting-ip": ip } });
    const last = await call();
    expect(last.status).toBe(200);
    remember(last.body.access_token);
    remember(last.body.refresh_token);
    const over = await call();
    expectError(over, 429, "TOO_MANY_REQUESTS");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address is not affected.
    const other = await api("POST", "/oauth2/token", {
      body: { clientId: CLIENT_ID, grantType: "anonymous" },
      headers: { "cf-connecting-ip": "198.51.100.7" },
    });
    expect(other.status).toBe(200);
    remember(other.body.access_token);
    remember(other.body.refresh_token);
    await env.DB.prepare("DELETE FROM rate_limits WHERE key = ?").bind(key).run();
  });
});

describe("refresh_token grant", () => {
  it("mints new access tokens and keeps the refresh token valid however often it is used", async () => {
    const first = await visitorTokens();
    const visitorId = (await tokenRecord(first.access_token))!.visitorId;
    for (let i = 0; i < 3; i++) {
      const res = await tokenCall({ clientId: CLIENT_ID, refreshToken: first.refresh_token, grantType: "refresh_token" });
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).toBe(first.refresh_token);
      expect(res.body.access_token).not.toBe(first.access_token);
      expect(res.body.expires_in).toBe(14400);
      expect(await tokenRecord(res.body.access_token)).toMatchObject({ role: "visitor", visitorId });
      expect((await readCatalogue(res.body.access_token)).status).toBe(200);
    }
    // snake_case too.
    const snake = await tokenCall({ client_id: CLIENT_ID, refresh_token: first.refresh_token, grant_type: "refresh_token" });
    expect(snake.status).toBe(200);
  });

  it("refuses an unknown, expired or other client's refresh token, and missing fields", async () => {
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: "rt_unknown", grantType: "refresh_token" }), 400, "INVALID_GRANT");
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: "not-even-a-token", grantType: "refresh_token" }), 400, "INVALID_GRANT");
    const missing = await tokenCall({ clientId: CLIENT_ID, grantType: "refresh_token" });
    expectError(missing, 400, "INVALID_ARGUMENT");
    expect(missing.body.details.validationError.fieldViolations[0].field).toBe("refreshToken");

    const other = await createRestrictedClient(["https://other.example/cb"]);
    const t = await visitorTokens();
    expectError(await tokenCall({ clientId: other, refreshToken: t.refresh_token, grantType: "refresh_token" }), 400, "INVALID_GRANT");

    await expireToken(t.refresh_token);
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: t.refresh_token, grantType: "refresh_token" }), 400, "INVALID_GRANT");
  });

  it("an expired access token gets 401; so does one whose refresh token has expired", async () => {
    const t = await visitorTokens();
    await expireToken(t.access_token);
    expectError(await readCatalogue(t.access_token), 401, "UNAUTHENTICATED");
    const renewed = await tokenCall({ clientId: CLIENT_ID, refreshToken: t.refresh_token, grantType: "refresh_token" });
    expect((await readCatalogue(renewed.body.access_token)).status).toBe(200);

    const u = await visitorTokens();
    await env.SESSIONS.delete(`token:refresh:${await sha256Hex(u.refresh_token)}`);
    expectError(await readCatalogue(u.access_token), 401, "UNAUTHENTICATED");
  });
});

describe("authorization_code grant (PKCE S256)", () => {
  it("turns a code into member tokens that keep the visitor's id", async () => {
    const member = await createIdentity();
    const visitor = await visitorTokens();
    const visitorId = (await tokenRecord(visitor.access_token))!.visitorId;
    const tokens = await memberTokens(member.id, visitor.access_token);
    expect(tokens).toMatchObject({ access_token: expect.stringMatching(/^at_/), refresh_token: expect.stringMatching(/^rt_/), expires_in: 14400 });
    expect(await tokenRecord(tokens.access_token)).toMatchObject({ role: "member", identityId: member.id, visitorId, clientId: CLIENT_ID });
    expect(await tokenRecord(tokens.refresh_token)).toMatchObject({ role: "member", identityId: member.id, visitorId });
    expect((await readCatalogue(tokens.access_token)).status).toBe(200);
    // A member is not a merchant.
    expectError(
      await api("POST", "/v1/products", { body: { product: { name: "Nope", priceData: { price: 1 } } }, key: tokens.access_token }),
      403,
      "PERMISSION_DENIED",
    );

    // Renewing a member's token keeps the member.
    const renewed = await tokenCall({ clientId: CLIENT_ID, refreshToken: tokens.refresh_token, grantType: "refresh_token" });
    expect(renewed.status).toBe(200);
    expect(await tokenRecord(renewed.body.access_token)).toMatchObject({ role: "member", identityId: member.id, visitorId });
  });

  it("gives a new visitor id when the redirect session had no caller", async () => {
    const member = await createIdentity();
    const tokens = await memberTokens(member.id);
    expect((await tokenRecord(tokens.access_token))!.visitorId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses a wrong verifier, and the code is then used up", async () => {
    const member = await createIdentity();
    const { code, verifier } = await codeFor(member.id);
    const wrong = (await pkce()).verifier;
    const res = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code, codeVerifier: wrong });
    expectError(res, 400, "INVALID_GRANT");
    expect(res.body.details.applicationError.description).toContain("PKCE");
    expectError(
      await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code, codeVerifier: verifier }),
      400,
      "INVALID_GRANT",
    );
  });

  it("refuses a reused code", async () => {
    const member = await createIdentity();
    const { code, verifier } = await codeFor(member.id);
    const body = { clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code, codeVerifier: verifier };
    expect((await tokenCall(body)).status).toBe(200);
    const again = await tokenCall(body);
    expectError(again, 400, "INVALID_GRANT");
    expect(again.body.details.applicationError.description).toBe("The authorization code is unknown, expired or already used");
  });

  it("refuses a code for another client or redirect URI, an expired code, and an unknown code", async () => {
    const member = await createIdentity();
    const other = await createRestrictedClient([REDIRECT_URI]);

    const a = await codeFor(member.id);
    expectError(
      await tokenCall({ clientId: other, grantType: "authorization_code", redirectUri: REDIRECT_URI, code: a.code, codeVerifier: a.verifier }),
      400,
      "INVALID_GRANT",
    );

    const b = await codeFor(member.id);
    expectError(
      await tokenCall({
        clientId: CLIENT_ID,
        grantType: "authorization_code",
        redirectUri: "https://evil.example/cb",
        code: b.code,
        codeVerifier: b.verifier,
      }),
      400,
      "INVALID_GRANT",
    );
    const c = await codeFor(member.id);
    expectError(
      await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", code: c.code, codeVerifier: c.verifier }),
      400,
      "INVALID_GRANT",
    );

    const d = await codeFor(member.id);
    await env.DB.prepare("UPDATE one_time_tokens SET expires_at = ? WHERE kind = 'auth_code' AND identity_id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), member.id)
      .run();
    expectError(
      await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code: d.code, codeVerifier: d.verifier }),
      400,
      "INVALID_GRANT",
    );

    expectError(
      await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code: "made-up", codeVerifier: d.verifier }),
      400,
      "INVALID_GRANT",
    );
    expectError(
      await tokenCall({
        clientId: "no-such-client",
        grantType: "authorization_code",
        redirectUri: REDIRECT_URI,
        code: "x",
        codeVerifier: d.verifier,
      }),
      400,
      "INVALID_CLIENT",
    );
  });

  it("uses the spec's text for a verifier of the wrong length, and names missing fields", async () => {
    const short = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", code: "x", codeVerifier: "a".repeat(10) });
    expectError(short, 400, "INVALID_ARGUMENT");
    expect(short.body.message).toBe('INVALID_ARGUMENT: "codeVerifier" Expected a length between 43 and 128. Received 10.');
    const long = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", code: "x", codeVerifier: "a".repeat(129) });
    expect(long.body.details.validationError.fieldViolations[0].description).toBe("Expected a length between 43 and 128. Received 129.");
    const chars = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", code: "x", codeVerifier: `${"a".repeat(42)}!` });
    expect(chars.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "codeVerifier", violatedRule: "FORMAT" });

    const missing = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code" });
    expectError(missing, 400, "INVALID_ARGUMENT");
    expect(missing.body.details.validationError.fieldViolations.map((v: any) => v.field)).toEqual(["code", "codeVerifier"]);
  });

  it("accepts a 128-character verifier and snake_case names", async () => {
    const member = await createIdentity();
    const p = await pkce(128);
    const sessionToken = await sessionTokenFor(member.id);
    const rs = await api("POST", "/v1/redirect-session", { body: authBody(p, { sessionToken }) });
    const { code } = codeFrom(await visit(rs.body.redirectSession.fullUrl));
    const res = await tokenCall({
      client_id: CLIENT_ID,
      grant_type: "authorization_code",
      redirect_uri: REDIRECT_URI,
      code,
      code_verifier: p.verifier,
    });
    expect(res.status).toBe(200);
  });

  it("stops renewing a member who was blocked", async () => {
    const member = await createIdentity();
    const tokens = await memberTokens(member.id);
    await env.DB.prepare("UPDATE identities SET status = 'BLOCKED' WHERE id = ?").bind(member.id).run();
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: tokens.refresh_token, grantType: "refresh_token" }), 400, "INVALID_GRANT");
    expectError(await readCatalogue(tokens.access_token), 401, "UNAUTHENTICATED");
  });

  it("gives no member tokens to an identity that is no longer active", async () => {
    const member = await createIdentity();
    const { code, verifier } = await codeFor(member.id);
    await env.DB.prepare("UPDATE identities SET status = 'BLOCKED' WHERE id = ?").bind(member.id).run();
    expectError(
      await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code, codeVerifier: verifier }),
      400,
      "INVALID_GRANT",
    );
  });
});

describe("authorize (the auth redirect session's fullUrl)", () => {
  it("redirects with the code in the query, or in the fragment", async () => {
    const member = await createIdentity();
    const q = await authUrl({ responseMode: "query", sessionToken: await sessionTokenFor(member.id) });
    const qRes = await visit(q.fullUrl);
    expect(qRes.status).toBe(302);
    expect(qRes.headers.get("cache-control")).toBe("no-store");
    const ql = new URL(qRes.headers.get("location")!);
    expect(ql.origin + ql.pathname).toBe(REDIRECT_URI);
    expect(ql.searchParams.get("state")).toBe(q.state);
    expect(remember(ql.searchParams.get("code"))).toBeTruthy();

    const f = await authUrl({ responseMode: "fragment", sessionToken: await sessionTokenFor(member.id) });
    const fRes = await visit(f.fullUrl);
    expect(fRes.status).toBe(302);
    const fl = new URL(fRes.headers.get("location")!);
    expect(fl.search).toBe("");
    const hash = new URLSearchParams(fl.hash.slice(1));
    expect(hash.get("state")).toBe(f.state);
    const code = remember(hash.get("code"))!;
    const res = await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri: REDIRECT_URI, code, codeVerifier: f.verifier });
    expect(res.status).toBe(200);
  });

  it("keeps the redirect URI's own query parameters", async () => {
    const member = await createIdentity();
    const p = await pkce();
    const redirectUri = "https://app.example/callback?from=shop";
    const rs = await api("POST", "/v1/redirect-session", { body: authBody(p, { redirectUri, sessionToken: await sessionTokenFor(member.id) }) });
    const { location, code } = codeFrom(await visit(rs.body.redirectSession.fullUrl));
    expect(location.searchParams.get("from")).toBe("shop");
    expect((await tokenCall({ clientId: CLIENT_ID, grantType: "authorization_code", redirectUri, code, codeVerifier: p.verifier })).status).toBe(200);
  });

  it("answers web_message with a page that posts {code, state} to its parent and opener, at registered origins only", async () => {
    const member = await createIdentity();
    const w = await authUrl({ responseMode: "web_message", redirectUri: null, sessionToken: await sessionTokenFor(member.id) });
    const res = await visit(w.fullUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    const csp = res.headers.get("content-security-policy")!;
    const nonce = csp.match(/'nonce-([^']+)'/)![1];
    const html = await res.text();
    expect(html).toContain(`<script nonce="${nonce}">`);
    const page = webMessagePage(html);
    expect(page.message.state).toBe(w.state);
    // No origin named and none in the redirect session's request: the client's registered origins (here the shop's).
    expect(page.origins).toEqual(["https://shop.test"]);
    expect(csp).toContain("frame-ancestors https://shop.test");
    // The SDK's direct login sends no redirectUri, here or at the token call.
    const tokens = await tokenCall({
      clientId: CLIENT_ID,
      grantType: "authorization_code",
      code: remember(page.message.code),
      codeVerifier: w.verifier,
    });
    expect(tokens.status).toBe(200);
  });

  it("the web_message page's script posts to exactly its origins, to the parent and the opener, never to '*'", async () => {
    const member = await createIdentity();
    // With a redirect URI, its origin.
    const w = await authUrl({ responseMode: "web_message", sessionToken: await sessionTokenFor(member.id) });
    const html = await (await visit(w.fullUrl)).text();
    const posted = runWebMessageScript(html);
    expect(posted).toEqual([
      { to: "parent", origin: "https://app.example", message: { code: expect.any(String), state: w.state } },
      { to: "opener", origin: "https://app.example", message: { code: expect.any(String), state: w.state } },
    ]);
    remember(posted[0].message.code);
    // Without one (the SDK's direct login), the registered origins: never "*".
    const bare = await authUrl({ responseMode: "web_message", redirectUri: null, sessionToken: await sessionTokenFor(member.id) });
    const answer = runWebMessageScript(await (await visit(bare.fullUrl)).text());
    expect(answer.map((p) => [p.to, p.origin])).toEqual([
      ["parent", "https://shop.test"],
      ["opener", "https://shop.test"],
    ]);
    remember(answer[0].message.code);
  });

  it("refuses web_message without prompt=none, before a session token is spent or a code issued", async () => {
    const member = await createIdentity();
    // Through the redirect session (the SDK's way).
    const rs = await api("POST", "/v1/redirect-session", {
      body: authBody(await pkce(), { responseMode: "web_message", prompt: "login", redirectUri: null }),
    });
    expectError(rs, 400, "INVALID_ARGUMENT");
    expect(rs.body.details.validationError.fieldViolations).toEqual([
      { field: "auth.prompt", description: "must be none for responseMode web_message", violatedRule: "VALIDATION", data: {} },
    ]);
    // A hand-made authorize URL, as a page that opened it in a popup would send it: no prompt means login.
    const p = await pkce();
    const sessionToken = await sessionTokenFor(member.id);
    const base = { client_id: CLIENT_ID, response_type: "code", response_mode: "web_message", state: p.state, code_challenge: p.challenge };
    for (const prompt of [undefined, "login", "consent", "select_account"]) {
      const res = await visit(`/oauth2/authorize?${new URLSearchParams({ ...base, ...(prompt && { prompt }), sessionToken })}`);
      expect(res.status, prompt).toBe(400);
      expect(((await res.json()) as any).details.validationError.fieldViolations[0]).toMatchObject({
        field: "prompt",
        description: "must be none for responseMode web_message",
      });
    }
    // Not to the login page either; and the session token is still unspent.
    expect(
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM one_time_tokens WHERE kind = 'auth_code' AND identity_id = ?")
        .bind(member.id)
        .first<{ n: number }>())!.n,
    ).toBe(0);
    const ok = await visit(`/oauth2/authorize?${new URLSearchParams({ ...base, prompt: "none", sessionToken })}`);
    expect(webMessagePage(await ok.text()).message.code).toBeTruthy();
  });

  it("refuses a web_message origin the client has not registered, and answers a registered one only", async () => {
    const member = await createIdentity();
    const client = await createRestrictedClient(["https://headless.example/callback", "myapp://callback"]);
    const hand = async (extra: Record<string, string>) => {
      const p = await pkce();
      const q = {
        client_id: client,
        response_type: "code",
        response_mode: "web_message",
        prompt: "none",
        state: p.state,
        code_challenge: p.challenge,
        ...extra,
      };
      return visit(`/oauth2/authorize?${new URLSearchParams(q)}`);
    };
    for (const origin of ["https://evil.example", "https://headless.example.evil.example", "http://headless.example"]) {
      const sessionToken = await sessionTokenFor(member.id);
      const res = await hand({ origin, sessionToken });
      expect(res.status, origin).toBe(400);
      const body = (await res.json()) as any;
      expect(body.details.validationError.fieldViolations).toEqual([
        { field: "origin", description: "is not an origin registered for this client", violatedRule: "VALIDATION", data: {} },
      ]);
    }
    for (const origin of ["*", "https://headless.example/callback", "null"]) {
      const res = await hand({ origin });
      expect(res.status, origin).toBe(400);
      expect(((await res.json()) as any).details.validationError.fieldViolations[0]).toMatchObject({ field: "origin", violatedRule: "FORMAT" });
    }
    const named = await hand({ origin: "https://headless.example", sessionToken: await sessionTokenFor(member.id) });
    expect(webMessagePage(await named.text()).origins).toEqual(["https://headless.example"]);
    expect(named.headers.get("content-security-policy")).toContain("frame-ancestors https://headless.example");
    // Unnamed: every registered origin (the browser delivers only to the one that matches the waiting page).
    const unnamed = webMessagePage(await (await hand({ sessionToken: await sessionTokenFor(member.id) })).text());
    expect(unnamed.origins).toEqual(["https://shop.test", "https://headless.example"]);
    remember(unnamed.message.code);
  });

  it("takes the web_message origin from the redirect session's origin or the caller page's Origin header", async () => {
    const member = await createIdentity();
    const client = await createRestrictedClient(["https://headless.example/callback"]);
    const body = async (extra: Record<string, unknown> = {}) => ({
      ...authBody(await pkce(), { clientId: client, responseMode: "web_message", redirectUri: null, sessionToken: await sessionTokenFor(member.id) }),
      ...extra,
    });
    const fromHeader = await api("POST", "/v1/redirect-session", { body: await body(), headers: { origin: "https://headless.example" } });
    expect(fromHeader.status).toBe(200);
    expect(fromHeader.body.redirectSession.urlDetails.searchParams.origin).toBe("https://headless.example");
    const page = webMessagePage(await (await visit(fromHeader.body.redirectSession.fullUrl)).text());
    expect(page.origins).toEqual(["https://headless.example"]);
    remember(page.message.code);

    const fromBody = await api("POST", "/v1/redirect-session", {
      body: await body({ origin: "https://shop.test" }),
      headers: { origin: "https://headless.example" },
    });
    expect(fromBody.body.redirectSession.urlDetails.searchParams.origin).toBe("https://shop.test");

    const evil = await api("POST", "/v1/redirect-session", { body: await body(), headers: { origin: "https://evil.example" } });
    expectError(evil, 400, "INVALID_ARGUMENT");
    expect(evil.body.details.validationError.fieldViolations).toEqual([
      { field: "origin", description: "is not an origin registered for this client", violatedRule: "VALIDATION", data: {} },
    ]);
    // A tampered URL cannot swap the origin for an unregistered one.
    const tampered = new URL(fromHeader.body.redirectSession.fullUrl);
    tampered.searchParams.set("origin", "https://evil.example");
    expect((await visit(tampered.toString())).status).toBe(400);
    // Other response modes ignore the Origin header.
    const query = await api("POST", "/v1/redirect-session", {
      body: authBody(await pkce(), { clientId: client, redirectUri: "https://headless.example/callback" }),
      headers: { origin: "https://evil.example" },
    });
    expect(query.status).toBe(200);
  });

  it("refuses to continue a stored web_message request that is not prompt=none", async () => {
    const member = await createIdentity();
    const p = await pkce();
    await putOneTime(openDb(env.DB), "auth_request", p.state, 600, null, {
      clientId: CLIENT_ID,
      codeChallenge: p.challenge,
      responseMode: "web_message",
      prompt: "login",
      scope: "offline_access",
      state: p.state,
    });
    const res = await visit(`/v1/callback?state=${encodeURIComponent(p.state)}&sessionToken=${encodeURIComponent(await sessionTokenFor(member.id))}`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("postMessage");
  });

  it("sends Cross-Origin-Opener-Policy on every authorize answer", async () => {
    const q = await authUrl({ responseMode: "query", prompt: "login" });
    const res = await visit(q.fullUrl);
    expect(res.status).toBe(302);
    expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  });

  it("with prompt=none and no session answers login_required in each response mode", async () => {
    const q = await authUrl({ responseMode: "query", prompt: "none" });
    const ql = new URL((await visit(q.fullUrl)).headers.get("location")!);
    expect(ql.searchParams.get("error")).toBe("login_required");
    expect(ql.searchParams.get("state")).toBe(q.state);
    expect(ql.searchParams.get("code")).toBeNull();

    const f = await authUrl({ responseMode: "fragment", prompt: "none" });
    const fl = new URL((await visit(f.fullUrl)).headers.get("location")!);
    expect(new URLSearchParams(fl.hash.slice(1)).get("error")).toBe("login_required");

    const w = await authUrl({ responseMode: "web_message", prompt: "none", redirectUri: null });
    const html = await (await visit(w.fullUrl)).text();
    expect(webMessagePage(html).message).toMatchObject({ error: "login_required", state: w.state });
  });

  it("with prompt=login and no session sends the browser to the login page, which comes back with a session token", async () => {
    const member = await createIdentity();
    const visitor = await visitorTokens();
    const a = await authUrl({ responseMode: "query", prompt: "login" }, visitor.access_token);
    const res = await visit(a.fullUrl);
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get("location")!, "https://shop.test");
    expect(login.pathname).toBe("/login");
    const returnTo = login.searchParams.get("returnTo")!;
    expect(returnTo.startsWith("/oauth2/authorize?")).toBe(true);
    expect(returnTo).not.toContain("sessionToken");

    // What the login page does after a successful login.
    const back = await visit(`${returnTo}&sessionToken=${encodeURIComponent(await sessionTokenFor(member.id))}`);
    const { code, state } = codeFrom(back);
    expect(state).toBe(a.state);
    const tokens = await tokenCall({
      clientId: CLIENT_ID,
      grantType: "authorization_code",
      redirectUri: REDIRECT_URI,
      code,
      codeVerifier: a.verifier,
    });
    expect(tokens.status).toBe(200);
    // The pending request remembered the visitor who asked.
    expect((await tokenRecord(tokens.body.access_token))!.visitorId).toBe((await tokenRecord(visitor.access_token))!.visitorId);
  });

  it("treats a used, unknown or inactive member's session token as no session", async () => {
    const member = await createIdentity();
    const used = await sessionTokenFor(member.id);
    codeFrom(await visit((await authUrl({ sessionToken: used })).fullUrl));

    const again = await authUrl({ sessionToken: used, prompt: "none" });
    expect(new URL((await visit(again.fullUrl)).headers.get("location")!).searchParams.get("error")).toBe("login_required");

    const withLogin = await authUrl({ sessionToken: "made-up", prompt: "login" });
    const loginRes = await visit(withLogin.fullUrl);
    const returnTo = new URL(loginRes.headers.get("location")!, "https://shop.test").searchParams.get("returnTo")!;
    expect(returnTo).not.toContain("made-up");

    const pending = await createIdentity({ status: "PENDING" });
    const p = await authUrl({ sessionToken: await sessionTokenFor(pending.id), prompt: "none" });
    expect(new URL((await visit(p.fullUrl)).headers.get("location")!).searchParams.get("error")).toBe("login_required");
  });

  it("validates a hand-made authorize URL like the redirect session does", async () => {
    const p = await pkce();
    const base = {
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
      response_mode: "query",
      state: p.state,
      code_challenge: p.challenge,
      prompt: "none",
    };
    const ok = await visit(`/oauth2/authorize?${new URLSearchParams(base)}`);
    expect(ok.status).toBe(302);
    expect(new URL(ok.headers.get("location")!).searchParams.get("error")).toBe("login_required");

    const { code_challenge: _c, state: _s, ...rest } = base;
    const bad = await visit(`/oauth2/authorize?${new URLSearchParams({ ...rest, client_id: "no-such-client", code_challenge_method: "plain" })}`);
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as any;
    expect(body.details.validationError.fieldViolations.map((v: any) => v.field)).toEqual([
      "client_id",
      "code_challenge",
      "code_challenge_method",
      "state",
    ]);
  });
});

describe("/v1/callback", () => {
  it("continues a pending auth request by state after login, once", async () => {
    const member = await createIdentity();
    const visitor = await visitorTokens();
    const a = await authUrl({ responseMode: "query", prompt: "login" }, visitor.access_token);
    const sessionToken = await sessionTokenFor(member.id);
    const res = await visit(
      `/_api/iam/authentication/v1/callback?state=${encodeURIComponent(a.state)}&sessionToken=${encodeURIComponent(sessionToken)}`,
    );
    const { code, state } = codeFrom(res);
    expect(state).toBe(a.state);
    const tokens = await tokenCall({
      clientId: CLIENT_ID,
      grantType: "authorization_code",
      redirectUri: REDIRECT_URI,
      code,
      codeVerifier: a.verifier,
    });
    expect(tokens.status).toBe(200);
    expect((await tokenRecord(tokens.body.access_token))!.visitorId).toBe((await tokenRecord(visitor.access_token))!.visitorId);

    const replay = await visit(
      `/v1/callback?state=${encodeURIComponent(a.state)}&sessionToken=${encodeURIComponent(await sessionTokenFor(member.id))}`,
    );
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as any).message).toBe("Invalid _state");
  });

  it("uses the spec's texts for a missing or unknown state", async () => {
    const missing = await visit("/v1/callback?sessionToken=x");
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).message).toBe("Missing code or _state");
    const noToken = await visit("/v1/callback?state=abc");
    expect(((await noToken.json()) as any).message).toBe("Missing code or _state");
    const unknown = await visit("/v1/callback?state=never-issued&sessionToken=x");
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as any;
    expect(body.message).toBe("Invalid _state");
    expect(body.details.applicationError.code).toBe("INVALID_STATE");
  });

  it("keeps the login redirect short when the URL is padded with parameters it does not read", async () => {
    const a = await authUrl({ responseMode: "query", prompt: "login" });
    const pad = `&q=${"x".repeat(12_000)}&state=${"y".repeat(12_000)}`;
    for (const url of [`${a.fullUrl}${pad}`, `/v1/callback?state=${encodeURIComponent(a.state)}&sessionToken=stale${pad}`]) {
      const res = await visit(url);
      expect(res.status).toBe(302);
      const location = res.headers.get("location")!;
      expect(location.length).toBeLessThan(2048);
      const returnTo = new URL(location, "https://shop.test").searchParams.get("returnTo")!;
      expect(new URL(returnTo, "https://shop.test").searchParams.get("state")).toBe(a.state);
      expect(returnTo).not.toContain("xxx");
    }
  });

  it("sends the browser to log in again when the session token is no good", async () => {
    const a = await authUrl({ responseMode: "query", prompt: "login" });
    const res = await visit(`/v1/callback?state=${encodeURIComponent(a.state)}&sessionToken=stale`);
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get("location")!, "https://shop.test");
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("returnTo")).toBe(`/v1/callback?state=${encodeURIComponent(a.state)}`);
  });
});

describe("authorized_client grant", () => {
  it("gives member tokens to the store's API key, keeping the visitor of the token beside it", async () => {
    const member = await createIdentity();
    const bare = await tokenCall(
      { grant_type: "authorized_client", scope: "offline_access", member_id: member.id },
      { authorization: `,${OWNER_KEY}` },
    );
    expect(bare.status).toBe(200);
    expect(await tokenRecord(bare.body.access_token)).toMatchObject({ role: "member", identityId: member.id, clientId: CLIENT_ID });

    const visitor = await visitorTokens();
    const withVisitor = await tokenCall(
      { grant_type: "authorized_client", scope: "offline_access", member_id: member.id },
      { authorization: `${visitor.access_token},${OWNER_KEY}` },
    );
    expect(withVisitor.status).toBe(200);
    expect((await tokenRecord(withVisitor.body.access_token))!.visitorId).toBe((await tokenRecord(visitor.access_token))!.visitorId);
    expect((await readCatalogue(withVisitor.body.access_token)).status).toBe(200);

    // With a session token (getMemberTokensForExternalLoginWithSession): it must be the member's.
    const session = await sessionTokenFor(member.id);
    expect(
      (await tokenCall({ grant_type: "authorized_client", member_id: member.id, session_token: session }, { authorization: `,${OWNER_KEY}` })).status,
    ).toBe(200);
    const otherSession = await sessionTokenFor((await createIdentity()).id);
    expectError(
      await tokenCall({ grant_type: "authorized_client", member_id: member.id, session_token: otherSession }, { authorization: `,${OWNER_KEY}` }),
      400,
      "INVALID_GRANT",
    );
  });

  it("is refused without an API key (401) or with only a visitor's or member's token (403)", async () => {
    const member = await createIdentity();
    const body = { grant_type: "authorized_client", scope: "offline_access", member_id: member.id };
    expectError(await tokenCall(body), 401, "UNAUTHENTICATED");
    const visitor = await visitorTokens();
    expectError(await tokenCall(body, { authorization: visitor.access_token }), 403, "PERMISSION_DENIED");
    const m = await memberTokens(member.id);
    expectError(await tokenCall(body, { authorization: m.access_token }), 403, "PERMISSION_DENIED");
    expectError(await tokenCall(body, { authorization: "sk_wrong" }), 401, "UNAUTHENTICATED");
  });

  it("refuses an unknown or inactive member, a missing member id and another scope", async () => {
    const auth = { authorization: OWNER_KEY };
    expectError(await tokenCall({ grant_type: "authorized_client", member_id: crypto.randomUUID() }, auth), 400, "INVALID_GRANT");
    const blocked = await createIdentity({ status: "BLOCKED" });
    expectError(await tokenCall({ grant_type: "authorized_client", member_id: blocked.id }, auth), 400, "INVALID_GRANT");
    expectError(await tokenCall({ grant_type: "authorized_client" }, auth), 400, "INVALID_ARGUMENT");
    const member = await createIdentity();
    expectError(await tokenCall({ grant_type: "authorized_client", member_id: member.id, scope: "admin" }, auth), 400, "INVALID_SCOPE");
  });

  it("lets a staff API key holding members.impersonate log in members but not the owner", async () => {
    const key = `sk_staff_${crypto.randomUUID()}`;
    await env.DB.prepare(
      "INSERT INTO api_keys (id, name, key_hash, role, permissions, created_date) VALUES (?, 'staff key', ?, 'STAFF', '[\"members.impersonate\"]', ?)",
    )
      .bind(crypto.randomUUID(), await sha256Hex(key), new Date().toISOString())
      .run();
    const member = await createIdentity();
    const owner = await createIdentity({ role: "OWNER" });
    expect((await tokenCall({ grant_type: "authorized_client", member_id: member.id }, { authorization: key })).status).toBe(200);
    expectError(await tokenCall({ grant_type: "authorized_client", member_id: owner.id }, { authorization: key }), 403, "PERMISSION_DENIED");
    expect((await tokenCall({ grant_type: "authorized_client", member_id: owner.id }, { authorization: OWNER_KEY })).status).toBe(200);
  });
});

describe("logout", () => {
  it("GET /v1/logout with the member's token ends both tokens", async () => {
    const member = await createIdentity();
    const tokens = await memberTokens(member.id);
    const res = await api(
      "GET",
      `/_api/iam/authentication/v1/logout?postLogoutRedirectUri=${encodeURIComponent("https://app.example/")}&clientId=${CLIENT_ID}`,
      { key: tokens.access_token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await readCatalogue(tokens.access_token), 401, "UNAUTHENTICATED");
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: tokens.refresh_token, grantType: "refresh_token" }), 400, "INVALID_GRANT");
  });

  it("a visitor can log out too; access tokens renewed from the same refresh token die with it", async () => {
    const t = await visitorTokens();
    const renewed = await tokenCall({ clientId: CLIENT_ID, refreshToken: t.refresh_token, grantType: "refresh_token" });
    expect((await api("GET", "/v1/logout", { key: renewed.body.access_token })).status).toBe(200);
    expectError(await readCatalogue(t.access_token), 401, "UNAUTHENTICATED");
    expectError(await readCatalogue(renewed.body.access_token), 401, "UNAUTHENTICATED");
  });

  it("the logout redirect session's URL ends the session when the browser visits it, then goes to postFlowUrl", async () => {
    const member = await createIdentity();
    const tokens = await memberTokens(member.id);
    const rs = await api("POST", "/_api/redirects-api/v1/redirect-session", {
      body: { logout: { clientId: CLIENT_ID }, callbacks: { postFlowUrl: "https://app.example/bye" } },
      key: tokens.access_token,
    });
    expect(rs.status).toBe(200);
    const { fullUrl, urlDetails } = rs.body.redirectSession;
    expect(urlDetails.endpoint).toBe("https://shop.test/v1/logout");
    expect(urlDetails.searchParams).toMatchObject({ clientId: CLIENT_ID, postLogoutRedirectUri: "https://app.example/bye" });
    // Nothing ends before the browser goes there (the SDK clears its own tokens meanwhile).
    expect((await readCatalogue(tokens.access_token)).status).toBe(200);

    const res = await visit(fullUrl, { accept: "text/html" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://app.example/bye");
    expectError(await readCatalogue(tokens.access_token), 401, "UNAUTHENTICATED");
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: tokens.refresh_token, grantType: "refresh_token" }), 400, "INVALID_GRANT");

    // A second visit is harmless.
    const again = await visit(fullUrl);
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe("https://app.example/bye");
  });

  it("a browser visiting the logout URL is logged out of the store's own pages too", async () => {
    const member = await createIdentity();
    const tokens = await memberTokens(member.id);
    const cookie = sessionCookie(sessionTokensOf(tokens)).split(";")[0];
    const res = await visit(`/v1/logout?clientId=${CLIENT_ID}&postLogoutRedirectUri=${encodeURIComponent("https://shop.test/")}`, { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://shop.test/");
    expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expectError(await tokenCall({ clientId: CLIENT_ID, refreshToken: tokens.refresh_token, grantType: "refresh_token" }), 400, "INVALID_GRANT");
    expectError(await readCatalogue(tokens.access_token), 401, "UNAUTHENTICATED");
  });

  it("sends a browser only where the client allows, else to the home page", async () => {
    const client = await createRestrictedClient(["https://app.example/bye"]);
    const allowed = await visit(`/v1/logout?clientId=${client}&postLogoutRedirectUri=${encodeURIComponent("https://app.example/bye")}`);
    expect(allowed.headers.get("location")).toBe("https://app.example/bye");
    const elsewhere = await visit(`/v1/logout?clientId=${client}&postLogoutRedirectUri=${encodeURIComponent("https://evil.example/")}`);
    expect(elsewhere.headers.get("location")).toBe("/");
    const sameOrigin = await visit(`/v1/logout?clientId=${client}&postLogoutRedirectUri=${encodeURIComponent("https://shop.test/account")}`);
    expect(sameOrigin.headers.get("location")).toBe("https://shop.test/account");
    const unknown = await visit(`/v1/logout?clientId=nope&postLogoutRedirectUri=${encodeURIComponent("https://app.example/bye")}`);
    expect(unknown.headers.get("location")).toBe("/");
    const script = await visit(`/v1/logout?clientId=${CLIENT_ID}&postLogoutRedirectUri=${encodeURIComponent("javascript:alert(1)")}`);
    expect(script.headers.get("location")).toBe("/");

    const refused = await api("POST", "/v1/redirect-session", {
      body: { logout: { clientId: client }, callbacks: { postFlowUrl: "https://evil.example/" } },
    });
    expectError(refused, 400, "INVALID_ARGUMENT");
    expect(refused.body.details.validationError.fieldViolations[0].field).toBe("callbacks.postFlowUrl");
  });
});

describe("OAuth clients", () => {
  const ctxFor = (environment: string): Ctx => ({
    db: openDb(env.DB),
    env: { ...env, ENVIRONMENT: environment },
    auth: { kind: "apiKey", keyId: "owner", role: "OWNER" },
    currency: "USD",
    origin: "https://shop.test",
    waitUntil: () => {},
  });

  it("the default client allows any redirect URI except in production, where only listed and same-origin ones pass", async () => {
    const dev = (await getOAuthClient(ctxFor("development"), CLIENT_ID))!;
    expect(isRedirectAllowed(ctxFor("development"), dev, "https://anywhere.example/cb")).toBe(true);
    expect(isRedirectAllowed(ctxFor("development"), dev, "myapp://callback")).toBe(true);
    expect(isRedirectAllowed(ctxFor("development"), dev, "javascript:alert(1)")).toBe(false);

    const prod = ctxFor("production");
    const client = (await getOAuthClient(prod, CLIENT_ID))!;
    expect(client.allowAnyRedirect).toBe(false);
    expect(isRedirectAllowed(prod, client, "https://anywhere.example/cb")).toBe(false);
    expect(isRedirectAllowed(prod, client, "https://shop.test/account")).toBe(true);
  });

  it("createOAuthClient makes a client whose listed URIs are its only external redirects (owner only)", async () => {
    const ctx = ctxFor("test");
    const created = await createOAuthClient(ctx, { name: "Headless site", redirectUris: ["https://headless.example/callback"] });
    expect(created).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "Headless site", allowAnyRedirect: false });
    const client = (await getOAuthClient(ctx, created.id))!;
    expect(isRedirectAllowed(ctx, client, "https://headless.example/callback")).toBe(true);
    expect(isRedirectAllowed(ctx, client, "https://headless.example/other")).toBe(false);
    // The new client can get tokens.
    expect((await tokenCall({ clientId: created.id, grantType: "anonymous" })).status).toBe(200);

    await expect(createOAuthClient(ctx, { name: "Bad", redirectUris: ["javascript:alert(1)"] })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(createOAuthClient({ ...ctx, auth: { kind: "anonymous" } }, { name: "Nope" })).rejects.toMatchObject({ status: 401 });
    await expect(createOAuthClient({ ...ctx, auth: { kind: "apiKey", keyId: "k", role: "STAFF" } }, { name: "Nope" })).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe("storage", () => {
  it("keeps no token, code or session token in plain in KV or D1", async () => {
    expect(seenTokens.size).toBeGreaterThan(50);
    const stored: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await env.SESSIONS.list({ cursor });
      for (const key of page.keys) stored.push(key.name, (await env.SESSIONS.get(key.name)) ?? "");
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor);
    const rows = await env.DB.prepare("SELECT * FROM one_time_tokens").all();
    stored.push(JSON.stringify(rows.results));
    expect(stored.length).toBeGreaterThan(10);
    const haystack = stored.join("\n");
    for (const token of seenTokens) expect(haystack.includes(token), `token ${token.slice(0, 6)}… stored in plain`).toBe(false);
  });
});
