import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../wait";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * A first visit (no cookie) from a real browser: browsing the catalogue writes nothing — no KV key, no D1 row, no
 * Set-Cookie — and the session starts on the first action that needs one (add to cart), through the same tokens.
 */

const COOKIE = "__Host-session";
const TOUR = ["/", "/shop", "/collections/bags", "/search?q=tee", "/products/waxed-canvas-tote"];
const header = (res: Response, metric: string) => Number(new RegExp(`(\\d+) ${metric}`).exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);

/** Every row of every table, and every KV key with its value: what a request may not change. */
async function storeState(w: RunningWorker) {
  const tables = (
    await w.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name",
      )
      .all<{ name: string }>()
  ).results;
  const d1: Record<string, string[]> = {};
  // Sorted as text: some tables have no rowid (WITHOUT ROWID, virtual tables).
  for (const { name } of tables) d1[name] = (await w.db.prepare(`SELECT * FROM "${name}"`).all()).results.map((r) => JSON.stringify(r)).sort();
  const kvNs = await w.mf.getKVNamespace("SESSIONS");
  const kv: Record<string, string | null> = {};
  for (const { name } of (await kvNs.list()).keys) kv[name] = await kvNs.get(name);
  return { d1, kv };
}

/** Waits until the queue has worked through the demo catalogue's events (each one may write processed_events rows). */
async function settle(w: RunningWorker) {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const row = await w.db
      .prepare("SELECT count(*) AS n FROM outbox o WHERE NOT EXISTS (SELECT 1 FROM processed_events p WHERE p.event_id = o.id)")
      .first<{ n: number }>();
    const a = JSON.stringify(await storeState(w));
    await new Promise((r) => setTimeout(r, 500));
    if (row?.n === 0 && JSON.stringify(await storeState(w)) === a) return;
  }
  throw new Error("the store did not settle");
}

describe("anonymous browsing writes nothing (built Worker)", () => {
  let w: RunningWorker;
  beforeAll(async () => {
    w = await startWorker();
    const res = await w.fetch("/api/v1/demo-catalogue", { method: "POST", headers: { authorization: OWNER_KEY } });
    expect(res.status).toBe(200);
    await settle(w);
  }, 60_000);
  afterAll(async () => {
    await w?.dispose();
  });

  it("home → shop → collection → search → product: no Set-Cookie, no KV key, no D1 row; then add to cart starts the session", {
    timeout: 60_000,
  }, async () => {
    const before = await storeState(w);
    for (const path of TOUR) {
      const res = await w.fetch(path, { headers: { "user-agent": BROWSER_UA, accept: "text/html" } });
      const html = await res.text();
      expect(res.status, path).toBe(200);
      expect(html, path).toContain("</html>");
      expect(res.headers.getSetCookie(), path).toEqual([]);
      expect(header(res, "rows written"), path).toBe(0);
      expect(header(res, "KV writes"), path).toBe(0);
    }
    // Give anything the pages left running after their response (waitUntil) time to land, then compare.
    await new Promise((r) => setTimeout(r, 500));
    expect(await storeState(w)).toEqual(before);
    const sessionsBefore = Object.keys(before.kv).filter((k) => k.startsWith("token:")).length;

    // The first add to cart mints the visitor's tokens (KV) and the cart (D1), and sets the cookie.
    const product = (await w.db
      .prepare(
        "SELECT id, name FROM products WHERE visible = 1 AND product_type = 'physical' AND product_options = '[]' AND track_inventory = 0 ORDER BY numeric_id LIMIT 1",
      )
      .first<{ id: string; name: string }>())!;
    const added = await w.fetch("/cart", {
      method: "POST",
      headers: { "user-agent": BROWSER_UA, origin: w.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "add", productId: product.id, quantity: "2" }).toString(),
      redirect: "manual",
    });
    await added.text();
    expect(added.status).toBeLessThan(400);
    const cookie = added.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(header(added, "KV writes")).toBe(2); // the visitor's refresh and access tokens
    // The write's D1 bookmark goes with the browser, so its next page reads its own cart even from a replica.
    expect(added.headers.getSetCookie().find((c) => c.startsWith("__Host-d1="))).toMatch(
      /^__Host-d1=[0-9a-f-]+; Path=\/; .*HttpOnly; Secure; SameSite=Lax/,
    );
    const after = await storeState(w);
    expect(Object.keys(after.kv).filter((k) => k.startsWith("token:")).length).toBe(sessionsBefore + 2);
    expect(after.d1.carts?.length ?? 0).toBe((before.d1.carts?.length ?? 0) + 1);

    // The cart works with that cookie, and browsing with it writes no new session.
    const pair = cookie!.split(";")[0];
    const cart = await w.fetch("/cart", { headers: { "user-agent": BROWSER_UA, cookie: pair } });
    const cartHtml = await cart.text();
    expect(cart.status).toBe(200);
    expect(cartHtml).toContain(product.name.replace(/&/g, "&amp;"));
    expect(cart.headers.getSetCookie()).toEqual([]);
    const home = await w.fetch("/", { headers: { "user-agent": BROWSER_UA, cookie: pair } });
    expect(await home.text()).toMatch(/data-testid="cart-count">2(<!-- -->)?<span/);
    expect(header(home, "KV writes")).toBe(0);
  });

  it("a product page whose cache is cold costs at most 2 D1 round trips (was 6), and none once cached", async () => {
    const kv = await w.mf.getKVNamespace("SESSIONS");
    const BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    for (const [who, ua] of [
      ["shopper", BROWSER_UA],
      ["crawler (waits for every deferred part)", BOT_UA],
    ]) {
      // A new catalogue version: every cached catalogue read is cold.
      await kv.put("catalog:version", `cold-${who}-${Date.now()}`);
      await new Promise((r) => setTimeout(r, 1_100)); // the isolate reuses the version it read for a second
      const cold = await w.fetch("/products/waxed-canvas-tote?Color=Olive", { headers: { "user-agent": ua } });
      const html = await cold.text();
      expect(cold.status, who).toBe(200);
      expect(html, who).toContain("Waxed Canvas Tote");
      expect(header(cold, "round trips"), who).toBeLessThanOrEqual(2);
      // The caches are written after the response: the same page again, until it comes from them (at most 10 s).
      const warm = await waitFor(
        async () => {
          const res = await w.fetch("/products/waxed-canvas-tote?Color=Olive", { headers: { "user-agent": ua } });
          await res.text();
          return header(res, "round trips") === 0 ? res : null;
        },
        `${who}: the product page from the cache`,
        10_000,
        50,
      );
      expect(warm.headers.get("x-page-cache"), who).toBe("hit");
      // Another parameter makes another page (rendered, not from the page cache), but the same data: the page
      // depends on the URL only through the option names, so its data comes from the cache, Olive still chosen.
      const other = await w.fetch(`/products/waxed-canvas-tote?ref=newsletter-${who.length}&Color=Olive`, { headers: { "user-agent": ua } });
      const otherHtml = await other.text();
      expect(other.headers.get("x-page-cache"), who).toBe("miss");
      expect(header(other, "round trips"), who).toBe(0);
      expect(otherHtml, who).toMatch(/Color(<!-- -->)?: <span class="option-current">Olive<\/span>/);
      // A colour the product does not have is no choice: the data of the page without one, not a new D1 read (made-up
      // values cannot fill the cache).
      // The page without a choice, each time under a parameter no page was kept for, until its data is read from the
      // cache (written after the first one's response).
      let probe = 0;
      await waitFor(
        async () => {
          const res = await w.fetch(`/products/waxed-canvas-tote?ref=plain-${who.length}-${probe++}`, { headers: { "user-agent": ua } });
          await res.text();
          return header(res, "round trips") === 0;
        },
        `${who}: the product's data from the cache`,
        10_000,
        50,
      );
      const madeUp = await w.fetch(`/products/waxed-canvas-tote?Color=${"x".repeat(500)}-${who.length}`, { headers: { "user-agent": ua } });
      const madeUpHtml = await madeUp.text();
      expect(madeUp.status, who).toBe(200);
      expect(header(madeUp, "round trips"), who).toBe(0);
      expect(madeUpHtml, who).toMatch(/Color(<!-- -->)?: <span class="option-current">choose one<\/span>/);
    }
  });

  const anonymous = async (path: string) => {
    const res = await w.fetch(path, { headers: { "user-agent": BROWSER_UA, accept: "text/html" } });
    return { res, html: await res.text() };
  };
  const pause = (ms = 300) => new Promise((r) => setTimeout(r, ms));
  /** The anonymous page again until it comes from the page cache (kept after the first view's response), at most 10 s. */
  const untilKept = (path: string) =>
    waitFor(
      async () => {
        const view = await anonymous(path);
        return view.res.headers.get("x-page-cache") === "hit" ? view : null;
      },
      `${path} from the page cache`,
      10_000,
      50,
    );

  it("a second anonymous view of each catalogue page comes from the edge cache: no D1 round trip, and a CSP that allows exactly its inline scripts by hash", {
    timeout: 60_000,
  }, async () => {
    const kv = await w.mf.getKVNamespace("SESSIONS");
    await kv.put("catalog:version", `pages-${Date.now()}`);
    await pause(1_100); // the isolate reuses the version it read for a second
    for (const path of TOUR) {
      const first = await anonymous(path);
      expect(first.res.headers.get("x-page-cache"), path).toBe("miss");
      expect(first.res.headers.get("content-security-policy"), path).toMatch(/'nonce-/);
      // Rendered whole, as it is kept: every deferred part in place (home's sale row, read cold after the version
      // change, included), no fallback for a script to swap.
      expect(first.html, path).not.toMatch(/Loading (sale items|suggestions)/);
      if (path === "/") expect(first.html).toMatch(/<h2 id="sale-heading">On sale<\/h2>[\s\S]*?class="card-title"/);
      const again = await untilKept(path);
      expect(again.res.status, path).toBe(200);
      expect(again.res.headers.get("x-page-cache"), path).toBe("hit");
      expect(header(again.res, "round trips"), path).toBe(0);
      expect(again.res.headers.getSetCookie(), path).toEqual([]);
      expect(again.res.headers.get("cache-control"), path).toBe("no-cache");
      expect(again.res.headers.get("vary"), path).toBe("Cookie");
      expect(again.html, path).toBe(first.html);
      // No nonce (it would be the same for every visitor): each inline script by its hash, and no external script.
      const csp = again.res.headers.get("content-security-policy")!;
      expect(csp, path).not.toMatch(/nonce/);
      expect(again.html, path).not.toMatch(/<script\b[^>]*\bsrc=/i);
      const scripts = [...again.html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const script of scripts) expect(csp, path).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    }
  });

  it("a visitor with a cart gets their own count, never the cached page; the cached page stays anonymous", { timeout: 30_000 }, async () => {
    await anonymous("/");
    expect((await untilKept("/")).res.headers.get("x-page-cache")).toBe("hit");
    const product = (await w.db
      .prepare(
        "SELECT id FROM products WHERE visible = 1 AND product_type = 'physical' AND product_options = '[]' AND track_inventory = 0 ORDER BY numeric_id LIMIT 1",
      )
      .first<{ id: string }>())!;
    const added = await w.fetch("/cart", {
      method: "POST",
      headers: { "user-agent": BROWSER_UA, origin: w.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "add", productId: product.id, quantity: "3" }).toString(),
      redirect: "manual",
    });
    await added.text();
    const pair = added.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${COOKIE}=`))!
      .split(";")[0];
    const own = await w.fetch("/", { headers: { "user-agent": BROWSER_UA, cookie: pair } });
    const ownHtml = await own.text();
    expect(own.headers.get("x-page-cache")).toBeNull();
    expect(ownHtml).toMatch(/data-testid="cart-count">3(<!-- -->)?<span/);
    await pause();
    const stranger = await anonymous("/");
    expect(stranger.res.headers.get("x-page-cache")).toBe("hit");
    expect(stranger.html).toMatch(/data-testid="cart-count">0(<!-- -->)?<span/);
    expect(stranger.html).not.toContain("Log out");
  });

  it("a visitor from an ad or a newsletter gets the cached page: tracking parameters are not part of the key, and the kept copy holds none", {
    timeout: 30_000,
  }, async () => {
    const fromAd = await anonymous("/search?q=tote&utm_source=newsletter&utm_campaign=autumn-drop&gclid=Cj0KCQ");
    expect(fromAd.res.status).toBe(200);
    expect(fromAd.res.headers.get("x-page-cache")).toBe("miss");
    expect(fromAd.html).toContain("Waxed Canvas Tote");
    // Rendered for the page without them: no campaign in the links or data every later visitor gets.
    expect(fromAd.html).not.toMatch(/utm_|autumn-drop|gclid|Cj0KCQ/);
    // Kept after that response: each look carries another campaign, so only a key without them can find it.
    let look = 0;
    await waitFor(
      async () => (await anonymous(`/search?q=tote&utm_source=look-${look++}`)).res.headers.get("x-page-cache") === "hit",
      "the search page kept",
      10_000,
      50,
    );
    for (const path of ["/search?q=tote", "/search?fbclid=IwAR2&q=tote", "/search?q=tote&utm_medium=email"]) {
      const later = await anonymous(path);
      expect(later.res.headers.get("x-page-cache"), path).toBe("hit");
      expect(later.html, path).toBe(fromAd.html);
    }
    // A parameter the page reads is still part of the key.
    const other = await anonymous("/search?q=mug&utm_source=newsletter");
    expect(other.res.headers.get("x-page-cache")).toBe("miss");
    expect(other.html).not.toContain("Waxed Canvas Tote");
  });

  it("a merchant's product edit shows on the cached product page at once", { timeout: 30_000 }, async () => {
    const path = "/products/organic-market-tote";
    await anonymous(path);
    expect((await untilKept(path)).res.headers.get("x-page-cache")).toBe("hit");
    const { id } = (await w.db.prepare("SELECT id FROM products WHERE slug = 'organic-market-tote'").first<{ id: string }>())!;
    const patched = await w.fetch(`/v1/products/${id}`, {
      method: "PATCH",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ product: { name: "Organic Market Tote, Renamed" } }),
    });
    expect(patched.status).toBe(200);
    const after = await anonymous(path);
    expect(after.res.headers.get("x-page-cache")).toBe("miss");
    expect(after.html).toContain("Organic Market Tote, Renamed");
  });

  it("D1 sessions: an API client gets its bookmark back and may send it (a malformed one is ignored); browsing sets no bookmark cookie", async () => {
    const first = await w.fetch("/v1/products/query-platformized", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: { paging: { limit: 1 } } }),
    });
    expect(first.status).toBe(200);
    const bookmark = first.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9a-f]{8}-[0-9a-f-]+$/);
    for (const sent of [bookmark ?? "", "not a bookmark!"]) {
      const res = await w.fetch("/v2/collections/query", {
        method: "POST",
        headers: { "content-type": "application/json", "x-d1-bookmark": sent },
        body: "{}",
      });
      expect(res.status, sent).toBe(200);
    }
    const page = await anonymous("/shop");
    expect(page.res.headers.getSetCookie()).toEqual([]);
  });

  it("a GET with a dead cookie clears it instead of starting a new visitor", async () => {
    const res = await w.fetch("/", { headers: { "user-agent": BROWSER_UA, cookie: `${COOKIE}=v1..0.rt_${"x".repeat(43)}` } });
    await res.text();
    expect(res.headers.getSetCookie()).toEqual([expect.stringMatching(new RegExp(`^${COOKIE}=;.*Max-Age=0`))]);
    expect(header(res, "KV writes")).toBe(0);
  });
});
