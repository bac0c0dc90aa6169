import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleCookie, postConsoleForm } from "./console-fixtures";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * Long query strings on the built Worker: every page that redirects keeps its Location short (a return path past
 * 2 KB goes back to its page without the query), and every page answers a query string near the runtime's limit.
 */

const MAX_LOCATION = 2100;
// The local runtime itself answers 431 to a request line much past 64 KB, before the Worker sees it.
const SIZES = [12 * 1024, 40 * 1024];

let w: RunningWorker;
let owner: string;
let product: { id: string; slug: string };

beforeAll(async () => {
  w = await startWorker();
  const created = await w.fetch("/v1/products", {
    method: "POST",
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: JSON.stringify({ product: { name: `Long Query Tee ${Date.now()}`, priceData: { price: 10 } } }),
  });
  product = ((await created.json()) as { product: { id: string; slug: string } }).product;
  owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
}, 60_000);

afterAll(async () => {
  await w?.dispose();
});

const get = async (path: string, cookie?: string) => {
  const res = await w.fetch(path, { headers: { "user-agent": BROWSER_UA, accept: "text/html", ...(cookie ? { cookie } : {}) }, redirect: "manual" });
  await res.text();
  return res;
};

describe("redirects with a long query string (built Worker)", () => {
  it("every redirecting page answers a 12 KB and a 40 KB query with a short Location", { timeout: 120_000 }, async () => {
    // Each page that redirects a request it is given, and where it sends it.
    const pages: [path: string, cookie: string | undefined, location: string][] = [
      ["/account", undefined, "/login?returnTo=%2Faccount"],
      ["/account/orders", undefined, "/login?returnTo=%2Faccount%2Forders"],
      ["/account/orders/some-order", undefined, "/login?returnTo=%2Faccount%2Forders%2Fsome-order"],
      ["/console", undefined, "/console/login?returnTo=%2Fconsole"],
      ["/console/products", undefined, "/console/login?returnTo=%2Fconsole%2Fproducts"],
      ["/console/orders/some-order", undefined, "/console/login?returnTo=%2Fconsole%2Forders%2Fsome-order"],
      ["/logout", undefined, "/"],
    ];
    for (const size of SIZES) {
      for (const [path, cookie, location] of pages) {
        const res = await get(`${path}?q=${"x".repeat(size)}`, cookie);
        expect(res.status, `${path} ${size}`).toBe(302);
        expect(res.headers.get("location"), `${path} ${size}`).toBe(location);
      }
      // A return path in the query itself: the console's sign-in sends a signed-in merchant there, without the query.
      const back = await get(`/console/login?returnTo=${encodeURIComponent(`/console/products?q=${"x".repeat(size)}`)}`, owner);
      expect(back.status).toBe(302);
      expect(back.headers.get("location")).toBe("/console/products");
      // The login page keeps where to go back to in its form, and that too is the path alone.
      const login = await w.fetch(`/login?returnTo=${encodeURIComponent(`/account?q=${"x".repeat(size)}`)}`, {
        headers: { "user-agent": BROWSER_UA },
      });
      const html = await login.text();
      expect(login.status).toBe(200);
      expect(html).toContain('name="returnTo" value="/account"');
    }
    // A return path that fits keeps its query.
    expect((await get(`/account?section=ORDERS&page=2`)).headers.get("location")).toBe(
      `/login?returnTo=${encodeURIComponent("/account?section=ORDERS&page=2")}`,
    );
  });

  it("every page answers a 60 KB query string itself, with a short Location when it redirects", { timeout: 120_000 }, async () => {
    const paths = [
      "/",
      "/shop",
      "/search",
      `/products/${product.slug}`,
      "/cart",
      "/checkout",
      "/cart/recover/nope",
      "/login",
      "/register",
      "/verify",
      "/forgot-password",
      "/reset-password",
      "/email/unsubscribe",
      "/console/login",
      "/orders/nope/confirmation",
      "/no-such-page",
    ];
    for (const path of paths) {
      const res = await get(`${path}?q=${"x".repeat(60 * 1024)}`);
      expect(res.status, path).toBeLessThan(500);
      expect(res.status, path).not.toBe(431);
      if (res.status >= 300 && res.status < 400) expect(res.headers.get("location")!.length, path).toBeLessThan(MAX_LOCATION);
    }
  });

  it("a form's long return path (add to cart, log in) and a console list's long query come back as a short Location", {
    timeout: 60_000,
  }, async () => {
    const pad = "x".repeat(12 * 1024);
    const post = (path: string, fields: Record<string, string>, cookie?: string) =>
      w.fetch(path, {
        method: "POST",
        headers: { "user-agent": BROWSER_UA, origin: w.url, "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams(fields).toString(),
        redirect: "manual",
      });
    const added = await post("/cart", { intent: "add", productId: product.id, quantity: "1", returnTo: `/products/${product.slug}?ref=${pad}` });
    expect(added.status).toBe(302);
    expect(added.headers.get("location")).toBe(`/products/${product.slug}?added=1`);

    const member = await consoleAccount(w, "MEMBER");
    const login = await post("/login", { email: member.email, password: member.password, returnTo: `/account/orders?ref=${pad}` });
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toBe("/account/orders");

    const hidden = await postConsoleForm(w, owner, `/console/products?ref=${pad}`, { scope: "selected", ids: [product.id], op: "hide" });
    expect(hidden.status).toBe(302);
    const location = hidden.headers.get("location")!;
    expect(location.length).toBeLessThan(MAX_LOCATION);
    expect(location).toMatch(/^\/console\/products\?done=[^&]+$/);
  });
});
