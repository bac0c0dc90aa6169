import { describe, expect, it } from "vitest";
import { api } from "../helpers";
import {
  apiWithEnv,
  authBody,
  CLIENT_ID,
  createIdentity,
  createRestrictedClient,
  pkce,
  REDIRECT_URI,
  sessionTokenFor,
  visit,
  visitorTokens,
} from "./oauth-helpers";

/** Redirect sessions: one URL on this store's origin per intent. */

const create = (body: unknown, key?: string) => api("POST", "/_api/redirects-api/v1/redirect-session", { body, key });

function violations(res: { status: number; body: any }) {
  expect(res.status).toBe(400);
  expect(res.body.details.applicationError.code).toBe("INVALID_ARGUMENT");
  return res.body.details.validationError.fieldViolations as { field: string; description: string; violatedRule: string; data: object }[];
}

describe("auth redirect sessions", () => {
  it("answer the shape the SDK reads, at both paths, with the authorize URL on this origin", async () => {
    const p = await pkce();
    const visitor = await visitorTokens();
    for (const path of ["/v1/redirect-session", "/_api/redirects-api/v1/redirect-session"]) {
      const q = await pkce();
      const res = await api("POST", path, { body: authBody(q, { responseMode: "fragment", prompt: "login" }), key: visitor.access_token });
      expect(res.status).toBe(200);
      const rs = res.body.redirectSession;
      expect(rs).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        fullUrl: expect.stringMatching(/^https:\/\/shop\.test\/oauth2\/authorize\?/),
      });
      expect(rs.shortCompleteUrl).toBe(rs.fullUrl);
      expect(rs.urlDetails.endpoint).toBe("https://shop.test/oauth2/authorize");
      expect(rs.urlDetails.searchParams).toEqual({
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        response_type: "code",
        response_mode: "fragment",
        scope: "offline_access",
        state: q.state,
        code_challenge: q.challenge,
        code_challenge_method: "S256",
        prompt: "login",
      });
      expect(new URL(rs.fullUrl).searchParams.get("state")).toBe(q.state);
    }
    // No caller token is needed (a plain REST client).
    expect((await create(authBody(p))).status).toBe(200);
  });

  it("carry the session token into the URL so following it logs the member in", async () => {
    const member = await createIdentity();
    const p = await pkce();
    const sessionToken = await sessionTokenFor(member.id);
    const res = await create(authBody(p, { sessionToken }));
    expect(res.body.redirectSession.urlDetails.searchParams.sessionToken).toBe(sessionToken);
    const followed = await visit(res.body.redirectSession.fullUrl);
    expect(new URL(followed.headers.get("location")!).searchParams.get("code")).toBeTruthy();
  });

  it("refuse a bad challenge, method, mode, prompt, missing state or redirect, with every violation sorted", async () => {
    const p = await pkce();
    const v = violations(
      await create({
        auth: {
          authRequest: { clientId: CLIENT_ID, codeChallenge: "short", codeChallengeMethod: "plain", responseMode: "popup", responseType: "token" },
          prompt: "always",
        },
      }),
    );
    expect(v.map((x) => [x.field, x.violatedRule])).toEqual([
      ["auth.authRequest.codeChallenge", "FORMAT"],
      ["auth.authRequest.codeChallengeMethod", "INVALID_ENUM_VALUE"],
      ["auth.authRequest.redirectUri", "REQUIRED_FIELD"],
      ["auth.authRequest.responseMode", "INVALID_ENUM_VALUE"],
      ["auth.authRequest.responseType", "INVALID_ENUM_VALUE"],
      ["auth.authRequest.state", "REQUIRED_FIELD"],
      ["auth.prompt", "INVALID_ENUM_VALUE"],
    ]);
    for (const x of v) expect(x.data).toEqual({});

    const noChallenge = violations(
      await create({ auth: { authRequest: { clientId: CLIENT_ID, state: p.state, redirectUri: REDIRECT_URI, responseMode: "query" } } }),
    );
    expect(noChallenge).toEqual([{ field: "auth.authRequest.codeChallenge", description: "is required", violatedRule: "REQUIRED_FIELD", data: {} }]);

    const tooLong = violations(await create(authBody({ challenge: `${p.challenge}A`, state: p.state })));
    expect(tooLong[0].field).toBe("auth.authRequest.codeChallenge");
    const badChars = violations(await create(authBody({ challenge: `${p.challenge.slice(0, 42)}+`, state: p.state })));
    expect(badChars[0].field).toBe("auth.authRequest.codeChallenge");

    expect(violations(await create({ auth: { prompt: "none" } }))).toEqual([
      { field: "auth.authRequest", description: "is required", violatedRule: "REQUIRED_FIELD", data: {} },
    ]);
  });

  it("refuse an unknown client and a redirect URI the client does not allow", async () => {
    const p = await pkce();
    const unknown = violations(await create(authBody(p, { clientId: "no-such-client" })));
    expect(unknown).toEqual([
      { field: "auth.authRequest.clientId", description: "is not a known OAuth client", violatedRule: "VALIDATION", data: {} },
    ]);

    const client = await createRestrictedClient(["https://headless.example/callback"]);
    expect((await create(authBody(await pkce(), { clientId: client, redirectUri: "https://headless.example/callback" }))).status).toBe(200);
    expect((await create(authBody(await pkce(), { clientId: client, redirectUri: "https://shop.test/account" }))).status).toBe(200);
    const elsewhere = violations(await create(authBody(await pkce(), { clientId: client, redirectUri: "https://evil.example/callback" })));
    expect(elsewhere[0]).toMatchObject({ field: "auth.authRequest.redirectUri", description: "is not an allowed redirect URI for this client" });

    for (const bad of ["javascript:alert(1)", "/relative", "https://app.example/cb#frag"]) {
      expect(violations(await create(authBody(await pkce(), { redirectUri: bad })))[0]).toMatchObject({
        field: "auth.authRequest.redirectUri",
        violatedRule: "FORMAT",
      });
    }
  });

  it("refuse a state already pending for another redirect URI (no hijacking of /v1/callback)", async () => {
    const p = await pkce();
    expect((await create(authBody(p))).status).toBe(200);
    expect((await create(authBody(p))).status).toBe(200);
    const hijack = violations(await create(authBody(p, { redirectUri: "https://evil.example/cb" })));
    expect(hijack[0].field).toBe("auth.authRequest.state");
  });
});

describe("other redirect sessions", () => {
  it("logout: a URL that ends the caller's session, for a known client", async () => {
    const res = await create({ logout: { clientId: CLIENT_ID }, callbacks: { postFlowUrl: "https://app.example/" } });
    expect(res.status).toBe(200);
    const rs = res.body.redirectSession;
    expect(rs.urlDetails.endpoint).toBe("https://shop.test/v1/logout");
    expect(rs.urlDetails.searchParams).toMatchObject({
      clientId: CLIENT_ID,
      postLogoutRedirectUri: "https://app.example/",
      logoutSession: expect.any(String),
    });
    expect((await visit(rs.fullUrl)).headers.get("location")).toBe("https://app.example/");

    expect(violations(await create({ logout: {} }))[0]).toMatchObject({ field: "logout.clientId", violatedRule: "REQUIRED_FIELD" });
    expect(violations(await create({ logout: { clientId: "nope" } }))[0]).toMatchObject({ field: "logout.clientId" });
    const noCallback = await create({ logout: { clientId: CLIENT_ID } });
    expect((await visit(noCallback.body.redirectSession.fullUrl)).headers.get("location")).toBe("/");
  });

  it("ecomCheckout, storesProduct, login and membersAccount land on the store's pages", async () => {
    const checkout = await create({
      ecomCheckout: { checkoutId: "chk-1" },
      callbacks: { postFlowUrl: "https://app.example/", thankYouPageUrl: "https://app.example/thanks" },
    });
    expect(checkout.status).toBe(200);
    expect(checkout.body.redirectSession.urlDetails).toEqual({
      endpoint: "https://shop.test/checkout",
      searchParams: { checkoutId: "chk-1", postFlowUrl: "https://app.example/", thankYouPageUrl: "https://app.example/thanks" },
    });
    expect(checkout.body.redirectSession.fullUrl).toBe(
      `https://shop.test/checkout?checkoutId=chk-1&postFlowUrl=${encodeURIComponent("https://app.example/")}&thankYouPageUrl=${encodeURIComponent("https://app.example/thanks")}`,
    );

    const product = await create({ storesProduct: { productSlug: "organic-tee" } });
    expect(product.body.redirectSession.fullUrl).toBe("https://shop.test/products/organic-tee");

    const login = await create({ login: {}, callbacks: { postFlowUrl: "https://shop.test/account?tab=orders" } });
    expect(login.body.redirectSession.fullUrl).toBe(`https://shop.test/login?returnTo=${encodeURIComponent("/account?tab=orders")}`);
    const loginAway = await create({ login: {}, callbacks: { postFlowUrl: "https://app.example/after" } });
    expect(loginAway.body.redirectSession.urlDetails.searchParams).toEqual({ postFlowUrl: "https://app.example/after" });
    expect((await create({ login: {} })).body.redirectSession.fullUrl).toBe("https://shop.test/login");

    const account = await create({ membersAccount: { section: "ORDERS" } });
    expect(account.body.redirectSession.fullUrl).toBe("https://shop.test/account?section=ORDERS");
  });

  it("bookings, events and paid-plans checkouts and payment requests get the store's checkout page", async () => {
    const cases: [unknown, Record<string, string>][] = [
      [{ eventsCheckout: { reservationId: "r-1", eventSlug: "launch" } }, { type: "events", reservationId: "r-1", eventSlug: "launch" }],
      [{ paidPlansCheckout: { planId: "plan-1" } }, { type: "paidPlans", planId: "plan-1" }],
      [{ bookingsCheckout: { timezone: "Europe/Paris" } }, { type: "bookings", timezone: "Europe/Paris" }],
      [{ bookingsBook: { resourceId: "res-1" } }, { type: "bookingsBook", resourceId: "res-1" }],
      [{ ecomOrderPaymentRequest: { paymentRequestId: "pr-1" } }, { paymentRequestId: "pr-1" }],
    ];
    for (const [body, searchParams] of cases) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.redirectSession.urlDetails).toEqual({ endpoint: "https://shop.test/checkout", searchParams });
    }
  });

  it("pass the preferences' extra query parameters on", async () => {
    const res = await create({
      storesProduct: { productSlug: "tee" },
      preferences: { additionalQueryParameters: { lang: "fr", utm_source: "app" } },
    });
    expect(res.body.redirectSession.fullUrl).toBe("https://shop.test/products/tee?lang=fr&utm_source=app");
  });

  it("refuse no intent, two intents, missing ids and callbacks the client does not allow", async () => {
    expect(violations(await create({}))[0]).toMatchObject({ field: "intent", violatedRule: "REQUIRED_FIELD" });
    expect(violations(await create({ callbacks: { postFlowUrl: "https://app.example/" } }))[0].field).toBe("intent");
    expect(violations(await create({ login: {}, storesProduct: { productSlug: "x" } }))).toEqual([
      { field: "storesProduct", description: "is not allowed together with login", violatedRule: "FIELD_NOT_ALLOWED", data: {} },
    ]);
    expect(violations(await create({ ecomCheckout: {} }))[0]).toMatchObject({ field: "ecomCheckout.checkoutId", violatedRule: "REQUIRED_FIELD" });
    expect(violations(await create({ storesProduct: {} }))[0]).toMatchObject({ field: "storesProduct.productSlug", violatedRule: "REQUIRED_FIELD" });
    expect(violations(await create({ membersAccount: { section: "WISHLIST" } }))[0]).toMatchObject({
      field: "membersAccount.section",
      violatedRule: "INVALID_ENUM_VALUE",
    });
    expect(violations(await create({ login: {}, callbacks: { postFlowUrl: "javascript:alert(1)" } }))[0]).toMatchObject({
      field: "callbacks.postFlowUrl",
      violatedRule: "FORMAT",
    });

    // A caller whose token belongs to a restricted client is held to that client's redirect URIs.
    const client = await createRestrictedClient(["https://headless.example/done"]);
    const tokens = await api("POST", "/oauth2/token", { body: { clientId: client, grantType: "anonymous" } });
    const ok = await create(
      { ecomCheckout: { checkoutId: "c" }, callbacks: { postFlowUrl: "https://headless.example/done" } },
      tokens.body.access_token,
    );
    expect(ok.status).toBe(200);
    const refused = await create(
      { ecomCheckout: { checkoutId: "c" }, callbacks: { postFlowUrl: "https://evil.example/" } },
      tokens.body.access_token,
    );
    expect(violations(refused)[0]).toMatchObject({ field: "callbacks.postFlowUrl", description: "is not an allowed redirect URI for this client" });
  });

  it("refuse a body that is not JSON", async () => {
    const res = await api("POST", "/v1/redirect-session", { rawBody: "login", contentType: "text/plain" });
    expect(res.status).toBe(415);
  });
});

describe("redirect sessions on the shop's public origin", () => {
  const PUBLIC = { PUBLIC_URL: "https://shop.example" };
  const at = (host: string, body: unknown) => apiWithEnv(PUBLIC, "POST", `https://${host}/v1/redirect-session`, { body });

  it("build their URLs from PUBLIC_URL, whatever the Host", async () => {
    const product = await at("evil.example", { storesProduct: { productSlug: "organic-tee" } });
    expect(product.body.redirectSession.fullUrl).toBe("https://shop.example/products/organic-tee");
    const auth = await at("evil.example", authBody(await pkce()));
    expect(auth.body.redirectSession.urlDetails.endpoint).toBe("https://shop.example/oauth2/authorize");
    // A login whose postFlowUrl is on the forged host is not treated as the shop's own page.
    const client = await createRestrictedClient(["https://headless.example/callback"]);
    const own = await at("evil.example", authBody(await pkce(), { clientId: client, redirectUri: "https://shop.example/account" }));
    expect(own.status).toBe(200);
    const forged = await at("evil.example", authBody(await pkce(), { clientId: client, redirectUri: "https://evil.example/account" }));
    expect(violations(forged)[0]).toMatchObject({
      field: "auth.authRequest.redirectUri",
      description: "is not an allowed redirect URI for this client",
    });
  });

  it("check a logout's postFlowUrl against PUBLIC_URL's origin, not the Host's", async () => {
    const client = await createRestrictedClient(["https://headless.example/callback"]);
    const ok = await at("evil.example", { logout: { clientId: client }, callbacks: { postFlowUrl: "https://shop.example/" } });
    expect(ok.status).toBe(200);
    const forged = await at("evil.example", { logout: { clientId: client }, callbacks: { postFlowUrl: "https://evil.example/" } });
    expect(violations(forged)[0]).toMatchObject({ field: "callbacks.postFlowUrl", description: "is not an allowed redirect URI for this client" });
  });
});
