import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The built Worker on Node (Miniflare): the demo catalogue loader `npm start` calls, and the streamed SSR pages a
 * shopper gets. Each describe block starts its own store.
 */

const count = async (w: RunningWorker, table: string) => (await w.db.prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())!.n;

const snapshot = async (w: RunningWorker) => {
  const out: Record<string, unknown[]> = {};
  for (const t of ["products", "variants", "collections", "collection_products", "settings"]) {
    out[t] = (await w.db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()).results;
  }
  return out;
};

const loadDemo = async (w: RunningWorker, key = OWNER_KEY) => {
  const res = await w.fetch("/api/v1/demo-catalogue", { method: "POST", headers: { authorization: key } });
  return { status: res.status, body: (await res.json()) as { loaded: boolean; products: number; collections: number; reason?: string } };
};

describe("demo catalogue (POST /api/v1/demo-catalogue)", () => {
  let w: RunningWorker;
  beforeAll(async () => {
    w = await startWorker();
  });
  afterAll(async () => {
    await w?.dispose();
  });

  it("needs the owner key", async () => {
    const anonymous = await w.fetch("/api/v1/demo-catalogue", { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(await count(w, "products")).toBe(0);
  });

  it("loads 60+ products into an empty store, once", async () => {
    const first = await loadDemo(w);
    expect(first.status).toBe(200);
    expect(first.body.loaded).toBe(true);
    expect(first.body.products).toBeGreaterThanOrEqual(60);
    expect(await count(w, "products")).toBe(first.body.products);
    expect(await count(w, "collections")).toBe(first.body.collections + 1); // + the built-in All Products

    const before = await snapshot(w);
    const second = await loadDemo(w);
    expect(second.status).toBe(200);
    expect(second.body.loaded).toBe(false);
    expect(second.body.reason).toEqual(expect.any(String));
    expect(await snapshot(w)).toEqual(before);
  });

  it("serves the demo products through the API", async () => {
    const res = await w.fetch("/v1/products/query-platformized", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: { paging: { limit: 5 } } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { products: { name: string; priceData: { price: number } }[]; metadata: { total: number } };
    expect(body.metadata.total).toBeGreaterThanOrEqual(60);
    expect(body.products).toHaveLength(5);
    for (const p of body.products) expect(typeof p.priceData.price).toBe("number");
  });
});

describe("demo catalogue in a store that already has products", () => {
  let w: RunningWorker;
  beforeAll(async () => {
    w = await startWorker();
  });
  afterAll(async () => {
    await w?.dispose();
  });

  it("leaves the merchant's own catalogue alone", async () => {
    const created = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ product: { name: "The merchant's own mug", priceData: { price: 14 } } }),
    });
    expect(created.status).toBe(200);
    const before = await snapshot(w);
    const res = await loadDemo(w);
    expect(res.status).toBe(200);
    expect(res.body.loaded).toBe(false);
    expect(res.body.reason).toMatch(/own catalogue/);
    expect(await snapshot(w)).toEqual(before);
    expect(await count(w, "products")).toBe(1);
  });
});

describe("storefront pages (streamed SSR from the build)", () => {
  let w: RunningWorker;
  let demoNames: string[];
  beforeAll(async () => {
    w = await startWorker();
    expect((await loadDemo(w)).body.loaded).toBe(true);
    // The home page's new arrivals: the newest products first (ties in the order the product query breaks them).
    const { results } = await w.db
      .prepare("SELECT name FROM products WHERE visible = 1 ORDER BY created_date DESC, id ASC LIMIT 5")
      .all<{ name: string }>();
    demoNames = results.map((r) => r.name);
  });
  afterAll(async () => {
    await w?.dispose();
  });

  it("serves the home page as HTML with the demo products", async () => {
    const res = await w.fetch("/", { headers: { "user-agent": BROWSER_UA, accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("x-wix-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // A visitor without a session gets the page whole, as the edge cache keeps it (tests/node/anonymous-browsing.test.ts).
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain('<html lang="en"');
    expect(html).toMatch(/<h1[^>]*>Good things for outside and in<\/h1>/);
    for (const name of demoNames) expect(html).toContain(escapeHtml(name));
    expect(html).toMatch(/<img [^>]*src="[^"]*\/demo\/[^"]+\.svg"/);
    // The collections, with how many products each holds.
    const { results } = await w.db
      .prepare(
        `SELECT c.name, count(*) AS n FROM collections c JOIN collection_products cp ON cp.collection_id = c.id
         JOIN products p ON p.id = cp.product_id AND p.visible = 1 GROUP BY c.id ORDER BY c.name LIMIT 1`,
      )
      .all<{ name: string; n: number }>();
    expect(results).toHaveLength(1);
    expect(results[0].n).toBeGreaterThan(0);
    const grid = html.replace(/<!-- -->/g, "").match(/<ul class="collection-grid">.*?<\/ul>/)?.[0];
    expect(grid).toContain(
      `<span class="collection-name">${escapeHtml(results[0].name)}</span><span class="collection-count">${results[0].n} products</span>`,
    );
  });

  it("answers an unknown page with the 404 page and a way back", async () => {
    const res = await w.fetch("/no-such-page/anywhere", { headers: { "user-agent": BROWSER_UA, accept: "text/html" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("x-wix-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const html = await res.text();
    expect(html).toMatch(/<h1[^>]*>Page not found<\/h1>/);
    expect(html).toMatch(/<a [^>]*href="\/"[^>]*>Back to the shop<\/a>/);
  });

  it("keeps API paths out of the pages: an unknown API call is a JSON 404", async () => {
    const res = await w.fetch("/v1/no-such-call", { headers: { "user-agent": BROWSER_UA } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await res.json()) as { details: { applicationError: { code: string } } }).details.applicationError.code).toBe("NOT_FOUND");
  });

  it("serves the demo images from the static assets", async () => {
    const { results } = await w.db.prepare("SELECT media FROM products ORDER BY numeric_id LIMIT 1").all<{ media: string }>();
    const url = (JSON.parse(results[0].media) as { url: string }[])[0].url;
    expect(url).toMatch(/^\/demo\/[a-z0-9-]+\.svg$/);
    const res = await w.fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const svg = await res.text();
    expect(svg).toContain("<svg");
  });
});

function escapeHtml(s: string) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
}
