import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveChromium, launchChromium, newContext, SKIP_NOTE } from "./chromium";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The storefront's cookie session on the built Worker: every page request resolves the shopper's tokens from the
 * `__Host-session` cookie (kept, renewed, or cleared); the first action that needs a session (a form post) starts a
 * new visitor, while browsing without one writes nothing; API requests never look at the cookie. Also the
 * owner's account and an email through the send_email binding, as `npm start` sets them up.
 */

const CLIENT_ID = "3c3a4c2e-5f7b-4d57-9a53-1f4c3e1b2a90";
const COOKIE = "__Host-session";
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

const pageHeaders = (cookie?: string) => ({ "user-agent": BROWSER_UA, accept: "text/html", ...(cookie ? { cookie } : {}) });

/** The session cookie a response sets, as `name=value`, with its attributes. */
function sessionCookieOf(res: Response) {
  const all = res.headers.getSetCookie().filter((c) => c.startsWith(`${COOKIE}=`));
  if (all.length === 0) return null;
  expect(all).toHaveLength(1);
  const [pair, ...attrs] = all[0].split(";").map((s) => s.trim());
  const [, access, expires, refresh] = pair.slice(COOKIE.length + 1).split(".");
  return { pair, attrs, access, expiresAt: Number(expires), refresh };
}

describe("the session cookie on pages (built Worker)", () => {
  let w: RunningWorker;
  beforeAll(async () => {
    w = await startWorker({ bindings: { OAUTH_CLIENT_ID: CLIENT_ID } });
  });
  afterAll(async () => {
    await w?.dispose();
  });

  const visit = async (path = "/", cookie?: string) => {
    const res = await w.fetch(path, { headers: pageHeaders(cookie) });
    await res.text();
    return res;
  };
  /** The first action that needs a session: here a (failed) login, a form post like add to cart or register. */
  const act = async (cookie?: string) => {
    const res = await w.fetch("/login", {
      method: "POST",
      headers: { ...pageHeaders(cookie), origin: w.url, "content-type": "application/x-www-form-urlencoded" },
      body: "",
      redirect: "manual",
    });
    await res.text();
    return res;
  };

  it("a first visit browses without a session; its first action gets visitor tokens in an HttpOnly, Secure, SameSite=Lax cookie for path /", async () => {
    const browsing = await visit();
    expect(browsing.status).toBe(200);
    expect(sessionCookieOf(browsing)).toBeNull();
    const res = await act();
    expect(res.status).toBeLessThan(500);
    const cookie = sessionCookieOf(res)!;
    expect(cookie).not.toBeNull();
    expect(cookie.attrs).toEqual(expect.arrayContaining(["Path=/", "HttpOnly", "Secure", "SameSite=Lax"]));
    expect(cookie.attrs.some((a) => /^Domain=/i.test(a))).toBe(false);
    expect(cookie.access).toMatch(/^at_/);
    expect(cookie.refresh).toMatch(/^rt_/);
    // Tokens only: the visitor's record lives in KV under the token's hash.
    const kv = await w.mf.getKVNamespace("SESSIONS");
    const record = JSON.parse((await kv.get(`token:refresh:${sha256(cookie.refresh)}`))!);
    expect(record).toMatchObject({ role: "visitor", clientId: CLIENT_ID });
  });

  it("a visit with a live cookie keeps the session: no new cookie, no new visitor", async () => {
    const first = sessionCookieOf(await act())!;
    const kv = await w.mf.getKVNamespace("SESSIONS");
    const before = (await kv.list({ prefix: "token:" })).keys.length;
    for (const path of ["/", "/no-such-page"]) {
      const res = await visit(path, first.pair);
      expect(sessionCookieOf(res)).toBeNull();
    }
    expect(sessionCookieOf(await act(first.pair))).toBeNull();
    expect((await kv.list({ prefix: "token:" })).keys.length).toBe(before);
  });

  it("an expired access token is renewed: same refresh token, new access token", async () => {
    const first = sessionCookieOf(await act())!;
    const expired = `${COOKIE}=v1.${first.access}.${Date.now() - 1000}.${first.refresh}`;
    const renewed = sessionCookieOf(await visit("/", expired))!;
    expect(renewed.refresh).toBe(first.refresh);
    expect(renewed.access).not.toBe(first.access);
    expect(renewed.expiresAt).toBeGreaterThan(Date.now());
    // And the renewed cookie is then kept.
    expect(sessionCookieOf(await visit("/", renewed.pair))).toBeNull();
  });

  it("a revoked or unknown refresh token is cleared by browsing and replaced by new anonymous tokens at the next action", async () => {
    const first = sessionCookieOf(await act())!;
    const kv = await w.mf.getKVNamespace("SESSIONS");
    await kv.delete(`token:refresh:${sha256(first.refresh)}`);
    const cleared = sessionCookieOf(await visit("/", `${COOKIE}=v1..0.${first.refresh}`))!;
    expect(cleared.pair).toBe(`${COOKIE}=`);
    expect(cleared.attrs).toContain("Max-Age=0");
    const fallback = sessionCookieOf(await act(first.pair))!;
    expect(fallback.refresh).not.toBe(first.refresh);
    expect(fallback.access).not.toBe(first.access);
    const record = JSON.parse((await kv.get(`token:refresh:${sha256(fallback.refresh)}`))!);
    expect(record.role).toBe("visitor");

    const unknown = sessionCookieOf(await act(`${COOKIE}=v1..0.rt_${"x".repeat(43)}`))!;
    expect(unknown.refresh).not.toBe(`rt_${"x".repeat(43)}`);
  });

  it("requests still on their way with the visitor's cookie at login neither log the member out nor get a cookie", async () => {
    const visitor = sessionCookieOf(await act())!;
    const form = (path: string, fields: Record<string, string>) =>
      w.fetch(path, {
        method: "POST",
        headers: { ...pageHeaders(visitor.pair), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
        redirect: "manual",
      });
    // Register and confirm the emailed code with the visitor's cookie: the answer signs the browser in as the member.
    const email = `straggler-${Date.now()}@example.test`;
    const registered = await (await form("/register", { email, password: "a long enough password", firstName: "Ada" })).text();
    const stateToken = registered.match(/name="stateToken" value="([^"]*)"/)![1];
    const mail = await w.db
      .prepare(`SELECT text FROM emails WHERE "to" = ? AND template = 'verification-code'`)
      .bind(email)
      .first<{ text: string }>();
    const verified = await form("/verify", { intent: "verify", stateToken, email, code: mail!.text.match(/\b(\d{6})\b/)![1] });
    expect(verified.status).toBe(302);
    const member = sessionCookieOf(verified)!;
    expect(member.refresh).not.toBe(visitor.refresh);

    // A prefetch and a route-discovery request sent before the login answer arrive after it: the old cookie still
    // answers (as the visitor) and neither response sets a cookie that would replace the member's.
    for (const path of ["/", "/cart.data", "/__manifest?p=%2Fcart&version=x"]) {
      const late = await visit(path, visitor.pair);
      expect(late.status, path).toBeLessThan(500);
      expect(late.headers.getSetCookie(), path).toEqual([]);
    }
    // Route discovery is asked only by a page of an earlier build (every route comes with the first page): it is
    // told to load the document again, as React Router tells a page whose build has changed.
    const discovery = await visit("/__manifest?paths=%2Fcart&version=old", visitor.pair);
    expect(discovery.status).toBe(204);
    expect(discovery.headers.get("x-remix-reload-document")).toBe("true");
    const account = await visit("/account", member.pair);
    expect(account.status).toBe(200);
    expect(sessionCookieOf(account)).toBeNull();

    // The replaced session lapses within a minute; even renewed in the meantime it never comes back as a cookie.
    const kv = await w.mf.getKVNamespace("SESSIONS");
    const key = `token:refresh:${sha256(visitor.refresh)}`;
    const record = JSON.parse((await kv.get(key))!);
    expect(record.superseded).toBe(true);
    expect(record.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    const expiredAccess = `${COOKIE}=v1.${visitor.access}.${Date.now() - 1000}.${visitor.refresh}`;
    expect((await visit("/", expiredAccess)).headers.getSetCookie()).toEqual([]);
    await kv.put(key, JSON.stringify({ ...record, expiresAt: Date.now() - 1 }));
    const after = sessionCookieOf(await act(visitor.pair))!;
    expect(after.refresh).toMatch(/^rt_/);
    expect(after.refresh).not.toBe(visitor.refresh);
  });

  it("bots get the page without a session", async () => {
    const res = await w.fetch("/", { headers: { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" } });
    await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it("a browser classed as a bot (HeadlessChrome) adds to cart from the product page's form: its post starts a session", async () => {
    const HEADLESS = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36";
    const created = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ product: { name: `Headless Tee ${Date.now()}`, priceData: { price: 12 } } }),
    });
    const product = ((await created.json()) as { product: { id: string; slug: string; name: string } }).product;
    const page = await w.fetch(`/products/${product.slug}`, { headers: { "user-agent": HEADLESS } });
    expect(await page.text()).toContain('<form class="add-to-cart" action="/cart" method="post">');
    const added = await w.fetch("/cart", {
      method: "POST",
      headers: { "user-agent": HEADLESS, origin: w.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "add", productId: product.id, quantity: "1", returnTo: `/products/${product.slug}` }).toString(),
      redirect: "manual",
    });
    const body = await added.text();
    expect(body).not.toMatch(/Authorization|access token/);
    expect(added.status).toBe(302);
    expect(added.headers.get("location")).toBe(`/products/${product.slug}?added=1`);
    const cookie = sessionCookieOf(added)!;
    expect(cookie.access).toMatch(/^at_/);
    const cart = await w.fetch("/cart", { headers: { "user-agent": HEADLESS, cookie: cookie.pair } });
    expect(await cart.text()).toContain(product.name);
  });

  it("API requests ignore the cookie and never set one", async () => {
    const { pair } = sessionCookieOf(await act())!;
    const read = await w.fetch("/v1/products/query-platformized", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: pair },
      body: JSON.stringify({ query: { paging: { limit: 1 } } }),
    });
    expect(read.status).toBe(200);
    expect(read.headers.getSetCookie()).toEqual([]);
    const write = await w.fetch("/v1/products", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: pair },
      body: JSON.stringify({ product: { name: "Cookie-made", priceData: { price: 1 } } }),
    });
    expect(write.status).toBe(401);
    expect(write.headers.getSetCookie()).toEqual([]);
  });
});

describe("the session cookie in a real browser (Chromium on http://127.0.0.1)", () => {
  let w: RunningWorker | undefined;
  beforeAll(async () => {
    if (haveChromium) w = await startWorker({ port: 0, bindings: { OAUTH_CLIENT_ID: CLIENT_ID } });
  });
  afterAll(async () => {
    await w?.dispose();
  });

  it("stores the __Host- cookie (Secure works on a loopback origin) and sends it back", async (ctx) => {
    if (!haveChromium) ctx.skip(SKIP_NOTE);
    const browser = await launchChromium();
    try {
      const context = await newContext(browser, { userAgent: BROWSER_UA });
      const page = await context.newPage();
      expect((await page.goto(`${w!.url}/`))!.status()).toBe(200);
      // Browsing sets nothing; the first form post (here a login attempt) starts the session.
      expect((await context.cookies()).filter((c) => c.name === COOKIE)).toEqual([]);
      const posted = await context.request.post(`${w!.url}/login`, {
        form: { email: "", password: "" },
        headers: { origin: w!.url },
        maxRedirects: 0,
      });
      expect(posted.status()).toBeLessThan(500);
      const [cookie] = (await context.cookies()).filter((c) => c.name === COOKIE);
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
      expect(await page.evaluate(() => document.cookie)).not.toContain(COOKIE);
      await page.reload();
      const [after] = (await context.cookies()).filter((c) => c.name === COOKIE);
      expect(after.value).toBe(cookie.value);
    } finally {
      await browser.close();
    }
  });
});

describe("first start: the owner's account and emails (built Worker)", () => {
  let w: RunningWorker;
  beforeAll(async () => {
    w = await startWorker({ bindings: { OWNER_EMAIL: "owner@example.com", OWNER_PASSWORD: "local-owner-password", EMAIL_FROM: "shop@example.com" } });
  });
  afterAll(async () => {
    await w?.dispose();
  });

  const post = (path: string, body?: unknown) =>
    w.fetch(path, {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("POST /api/v1/bootstrap creates the owner once", async () => {
    const first = await post("/api/v1/bootstrap");
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ owner: { created: true, email: "owner@example.com" } });
    const second = await post("/api/v1/bootstrap");
    expect(await second.json()).toMatchObject({ owner: { created: false, email: "owner@example.com" } });
    const row = await w.db
      .prepare("SELECT role, status, password_hash FROM identities WHERE email = 'owner@example.com'")
      .first<{ role: string; status: string; password_hash: string }>();
    expect(row).toMatchObject({ role: "OWNER", status: "ACTIVE" });
    expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$100000\$/);
  });

  it("a staff invitation goes out through the send_email binding and is recorded as SENT", async () => {
    const res = await post("/api/v1/staff", { email: "new.staff@example.com", firstName: "Lin" });
    expect(res.status).toBe(200);
    let row: { status: string; error: string | null; template: string } | null = null;
    for (let i = 0; i < 50; i++) {
      row = await w.db.prepare("SELECT status, error, template FROM emails WHERE \"to\" = 'new.staff@example.com'").first();
      if (row && row.status !== "QUEUED") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(row).toEqual({ status: "SENT", error: null, template: "activation-link" });
  });
});
