import { env, SELF } from "cloudflare:test";
import { createClient, OAuthStrategy } from "@wix/sdk";
import { products } from "@wix/stores";
import { describe, expect, it } from "vitest";
import { redirectWixHosts, rejection, sdkMemberTokens } from "../wix-sdk-host";
import { api, OWNER_KEY, unique } from "../helpers";
import { CLIENT_ID, createIdentity, createRestrictedClient, sessionTokenFor, tokenRecord } from "./oauth-helpers";

/**
 * The unmodified official Wix SDK's OAuthStrategy against the Worker. Only the host is redirected:
 * whatever the SDK sends to www/edge.wixapis.com goes, unchanged, to the Worker.
 */

const sent = redirectWixHosts();

const REDIRECT_URI = "https://app.example/callback";

function storefront() {
  return createClient({ modules: { products }, auth: OAuthStrategy({ clientId: CLIENT_ID }) });
}

type Storefront = ReturnType<typeof storefront>;

/** Member tokens the headless way, through the SDK's own auth calls (tests/wix-sdk-host.ts). */
async function memberLogin(client: Storefront, sessionToken: string) {
  const result = await sdkMemberTokens(client.auth, sessionToken, REDIRECT_URI);
  expect(result.authUrl.startsWith("https://shop.test/oauth2/authorize?")).toBe(true);
  return result;
}

/** A new member and the session token login gives, through the SDK's own register and login. */
async function loggedInMember(client: Storefront): Promise<{ identityId: string; sessionToken: string }> {
  const email = `sdk-${unique()}@example.com`;
  const password = `Pw-${crypto.randomUUID()}`;
  const registered = await client.auth.register({ email, password, profile: { nickname: "Sdk" } });
  const row = await env.DB.prepare("SELECT id FROM identities WHERE email = ?").bind(email).first<{ id: string }>();
  expect(row, JSON.stringify(registered)).toBeTruthy();
  if (registered.loginState !== "SUCCESS") {
    // The store wants a verified email (the default). Verification has its own tests; here the address counts as
    // verified, and the member logs in.
    expect(registered.loginState).toBe("EMAIL_VERIFICATION_REQUIRED");
    await env.DB.prepare("UPDATE identities SET status = 'ACTIVE', email_verified = 1, pending_reasons = '[]' WHERE id = ?").bind(row!.id).run();
  }
  const loggedIn = await client.auth.login({ email, password });
  expect(loggedIn.loginState, JSON.stringify(loggedIn)).toBe("SUCCESS");
  const sessionToken = (loggedIn as { data: { sessionToken: string } }).data.sessionToken;
  expect(sessionToken).toBeTruthy();
  return { identityId: row!.id, sessionToken };
}

describe("the Wix SDK's OAuthStrategy against the Worker", () => {
  it("visitor tokens → visitor call → login → member tokens → member call → renewToken → logout", async () => {
    const client = storefront();

    // Visitor.
    const visitor = await client.auth.generateVisitorTokens();
    expect(sent[0]).toMatchObject({ method: "POST", host: "www.wixapis.com", path: "/oauth2/token" });
    expect(JSON.parse(sent[0].body!)).toEqual({ clientId: CLIENT_ID, grantType: "anonymous" });
    expect(visitor.refreshToken.role).toBe("visitor");
    expect(visitor.accessToken.expiresAt).toBeGreaterThan(Date.now() / 1000 + 3600);
    client.auth.setTokens(visitor);
    expect(client.auth.loggedIn()).toBe(false);

    const asVisitor = await client.products.queryProducts().limit(2).find();
    expect(asVisitor.items).toBeInstanceOf(Array);
    expect(sent.at(-1)).toMatchObject({
      host: "edge.wixapis.com",
      path: "/stores-reader/v1/products/query-platformized",
      authorization: visitor.accessToken.value,
    });

    // register → login (the SDK's own calls) → member tokens.
    const member = await loggedInMember(client);
    const { tokens } = await memberLogin(client, member.sessionToken);
    const redirectCall = sent.find((s) => s.path === "/_api/redirects-api/v1/redirect-session")!;
    expect(redirectCall.authorization).toBe(visitor.accessToken.value);
    expect(tokens.refreshToken.role).toBe("member");
    client.auth.setTokens(tokens);
    expect(client.auth.loggedIn()).toBe(true);
    // The member keeps the visitor's id, so the visitor's cart can follow.
    expect(await tokenRecord(tokens.accessToken.value)).toMatchObject({
      role: "member",
      identityId: member.identityId,
      visitorId: (await tokenRecord(visitor.accessToken.value))!.visitorId,
    });

    // A member call.
    await client.products.queryProducts().limit(1).find();
    expect(sent.at(-1)).toMatchObject({ host: "edge.wixapis.com", authorization: tokens.accessToken.value });

    // renewToken: a new access token, the same refresh token, still a member.
    const renewed = await client.auth.renewToken(tokens.refreshToken);
    expect(renewed.accessToken.value).not.toBe(tokens.accessToken.value);
    expect(renewed.refreshToken).toEqual(tokens.refreshToken);
    client.auth.setTokens(renewed);
    await client.products.queryProducts().limit(1).find();
    expect(sent.at(-1)!.authorization).toBe(renewed.accessToken.value);
    expect((await tokenRecord(renewed.accessToken.value))!.role).toBe("member");

    // An expired access token is renewed by the SDK itself before the call, and the member stays logged in.
    client.auth.setTokens({ ...renewed, accessToken: { value: renewed.accessToken.value, expiresAt: 0 } });
    await client.products.queryProducts().limit(1).find();
    expect(JSON.parse(sent.at(-2)!.body!)).toEqual({ clientId: CLIENT_ID, refreshToken: tokens.refreshToken.value, grantType: "refresh_token" });
    expect(client.auth.loggedIn()).toBe(true);
    const live = client.auth.getTokens();

    // Logout: a logout URL; the server ends the session when the browser visits it.
    const { logoutUrl } = await client.auth.logout("https://app.example/");
    expect(client.auth.loggedIn()).toBe(false);
    expect(logoutUrl.startsWith("https://shop.test/v1/logout?")).toBe(true);
    const bye = await SELF.fetch(logoutUrl, { redirect: "manual" });
    expect(bye.status).toBe(302);
    expect(bye.headers.get("location")).toBe("https://app.example/");

    const dead = await api("POST", "/stores-reader/v1/products/query", { body: {}, key: live.accessToken.value });
    expect(dead.status).toBe(401);
    const refused = await rejection(client.auth.renewToken(tokens.refreshToken));
    expect(refused.message).toMatch(/^Failed to fetch tokens from OAuth API: .*request id: [0-9a-f-]{36}\. Response: .*INVALID_GRANT/);

    // With the member's session gone, the SDK silently falls back to new visitor tokens.
    client.auth.setTokens({ accessToken: { value: "", expiresAt: 0 }, refreshToken: tokens.refreshToken });
    await client.products.queryProducts().limit(1).find();
    expect(client.auth.getTokens().refreshToken.role).toBe("visitor");
    expect(client.auth.loggedIn()).toBe(false);
  });

  it("a code is good once, and the SDK's own state checks hold", async () => {
    const client = storefront();
    client.auth.setTokens(await client.auth.generateVisitorTokens());
    const member = await createIdentity();
    const { oauthData, code } = await memberLogin(client, await sessionTokenFor(member.id));

    const reused = await rejection(client.auth.getMemberTokens(code, oauthData.state, oauthData));
    expect(reused.message).toMatch(/^Failed to fetch tokens from OAuth API: .*INVALID_GRANT/);
    expect((await rejection(client.auth.getMemberTokens("", oauthData.state, oauthData))).message).toBe("Missing code or _state");
    expect((await rejection(client.auth.getMemberTokens(code, "another-state", oauthData))).message).toBe("Invalid _state");
  });

  it("without a session token, prompt none comes back with login_required", async () => {
    const client = storefront();
    client.auth.setTokens(await client.auth.generateVisitorTokens());
    const oauthData = client.auth.generateOAuthData(REDIRECT_URI);
    const { authUrl } = await client.auth.getAuthUrl(oauthData, { prompt: "none", responseMode: "fragment" });
    const res = await SELF.fetch(authUrl, { redirect: "manual" });
    const parsed = client.auth.parseFromUrl(res.headers.get("location")!, "fragment");
    expect(parsed).toMatchObject({ code: null, state: oauthData.state, error: "login_required" });
  });

  it("direct login's hidden-iframe request (web_message, prompt none, no redirect URI) answers the page's registered origin only", async () => {
    const clientId = await createRestrictedClient(["https://headless.example/callback"]);
    const client = createClient({ modules: { products }, auth: OAuthStrategy({ clientId }) });
    client.auth.setTokens(await client.auth.generateVisitorTokens());
    // What getMemberTokensForDirectLogin asks for, from a browser page at `origin` (its fetch carries an Origin header).
    const directLogin = async (origin: string, sessionToken: string) => {
      const sdkFetch = globalThis.fetch;
      globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        const headers = new Headers(request.headers);
        headers.set("origin", origin);
        return sdkFetch(new Request(request, { headers }));
      };
      try {
        const oauthData = client.auth.generateOAuthData(undefined as unknown as string);
        return { oauthData, ...(await client.auth.getAuthUrl(oauthData, { responseMode: "web_message", prompt: "none", sessionToken } as never)) };
      } finally {
        globalThis.fetch = sdkFetch;
      }
    };
    const member = await createIdentity();
    const { oauthData, authUrl } = await directLogin("https://headless.example", await sessionTokenFor(member.id));
    expect(JSON.parse(sent.at(-1)!.body).auth.authRequest.redirectUri).toBeUndefined();
    const res = await SELF.fetch(authUrl);
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors https://headless.example");
    const html = await res.text();
    const [, message, origins] = html.match(/var m=(\{.*?\}),os=(\[.*?\]);/)!;
    expect(JSON.parse(origins)).toEqual(["https://headless.example"]);
    const { code, state } = JSON.parse(message);
    const tokens = await client.auth.getMemberTokens(code, state, oauthData);
    expect(await tokenRecord(tokens.accessToken.value)).toMatchObject({ role: "member", identityId: member.id, clientId });

    // A page on an origin the client has not registered gets no authorize URL at all.
    const refused = await rejection(directLogin("https://evil.example", await sessionTokenFor(member.id)));
    // (The SDK names the request's top-level fields "options.…".)
    expect(refused.details.validationError.fieldViolations).toEqual([
      { field: "options.origin", description: "is not an origin registered for this client", violatedRule: "VALIDATION", data: {} },
    ]);
  });

  it("getMemberTokensForExternalLogin with the owner's API key", async () => {
    const client = storefront();
    const visitor = await client.auth.generateVisitorTokens();
    client.auth.setTokens(visitor);
    const member = await createIdentity();
    const tokens = await client.auth.getMemberTokensForExternalLogin(member.id, OWNER_KEY);
    const call = sent.at(-1)!;
    expect(JSON.parse(call.body!)).toEqual({ grant_type: "authorized_client", scope: "offline_access", member_id: member.id });
    expect(call.authorization).toBe(`${visitor.accessToken.value},${OWNER_KEY}`);
    expect(tokens.refreshToken.role).toBe("member");
    expect(await tokenRecord(tokens.accessToken.value)).toMatchObject({
      identityId: member.id,
      visitorId: (await tokenRecord(visitor.accessToken.value))!.visitorId,
    });

    const stranger = storefront();
    const err = await rejection(stranger.auth.getMemberTokensForExternalLogin(member.id, "sk_not_a_key"));
    expect(err.message).toMatch(/^Failed to fetch tokens from OAuth API: /);
  });

  it("an unknown clientId gets no tokens", async () => {
    const client = createClient({ modules: { products }, auth: OAuthStrategy({ clientId: "not-a-client" }) });
    const err = await rejection(client.auth.generateVisitorTokens());
    expect(err.message).toMatch(/^Failed to fetch tokens from OAuth API: Bad Request\. request id: [0-9a-f-]{36}\. Response: .*INVALID_CLIENT/);
  });
});
