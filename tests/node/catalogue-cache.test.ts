import { waitFor } from "../wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The storefront's catalogue pages read through the shoppers' cache: a repeated page costs no D1 round trip, and a
 * product change reaches the page once its event has gone through the queue (which purges the cache).
 */

const BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
/**
 * The page without the CSP nonce it was rendered with (in the attributes and the loader data): a fresh render has a
 * new one; a page from the edge cache (x-page-cache: hit) is the stored render, nonce and all.
 */
const withoutNonce = ({ html }: { res: Response; html: string }) => {
  const nonce = / nonce="([^"]+)"/.exec(html)?.[1];
  return nonce ? html.split(nonce).join("") : html;
};
const roundTrips = (res: Response) => Number(/(\d+) round trips/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);

describe("catalogue pages through the cache", () => {
  let w: RunningWorker;

  beforeAll(async () => {
    w = await startWorker();
    const res = await w.fetch("/api/v1/demo-catalogue", { method: "POST", headers: { authorization: OWNER_KEY } });
    expect(res.status).toBe(200);
  });

  afterAll(async () => {
    await w?.dispose();
  });

  // A crawler has no session, so nothing on the page is the shopper's own: everything comes from the catalogue.
  const page = async (path: string) => {
    const res = await w.fetch(path, { headers: { "user-agent": BOT_UA } });
    return { res, html: await res.text() };
  };

  it("serves a repeated product page and listing without touching D1", async () => {
    // Loading the demo catalogue made product events; until the queue has worked through them, each batch may purge
    // the cache again. Wait until the catalog-cache processor has seen every one.
    const settled = Date.now() + 20_000;
    let pending = -1;
    while (Date.now() < settled && pending !== 0) {
      const row = await w.db
        .prepare(
          `SELECT count(*) AS n FROM outbox o WHERE (o.type LIKE 'com.wix.ecommerce.catalog.%' OR o.type LIKE 'com.wix.ecommerce.inventory.%' OR o.type LIKE 'wix.stores.catalog.v3.inventory%')
             AND NOT EXISTS (SELECT 1 FROM processed_events p WHERE p.event_id = o.id AND p.processor = 'catalog-cache')`,
        )
        .first<{ n: number }>();
      pending = row?.n ?? -1;
      if (pending !== 0) await new Promise((r) => setTimeout(r, 250));
    }
    expect(pending).toBe(0);
    for (const path of ["/products/waxed-canvas-tote", "/shop", "/collections/bags", "/search?q=tee", "/"]) {
      const first = await page(path);
      expect(first.res.status, path).toBe(200);
      expect(roundTrips(first.res), path).toBeGreaterThan(0);
      // The cache is written after the response: the page again until it comes from it (at most 10 s).
      const again = await waitFor(
        async () => {
          const view = await page(path);
          return roundTrips(view.res) === 0 ? view : null;
        },
        `${path} from the cache`,
        10_000,
        50,
      );
      expect(again.res.status, path).toBe(200);
      // The same page (only the per-request CSP nonce differs).
      expect(withoutNonce(again), path).toBe(withoutNonce(first));
      expect(roundTrips(again.res), path).toBe(0);
    }
  });

  it("shows a product change once its event has been processed", async () => {
    const path = "/products/organic-market-tote";
    const before = await page(path);
    expect(before.html).toContain("Organic Market Tote");
    const { results } = await w.db.prepare("SELECT id FROM products WHERE slug = 'organic-market-tote'").all<{ id: string }>();
    const patched = await w.fetch(`/v1/products/${results[0].id}`, {
      method: "PATCH",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ product: { name: "Organic Market Tote, Large" } }),
    });
    expect(patched.status).toBe(200);
    // The queue delivers the change event within a second or two; the page follows.
    const deadline = Date.now() + 15_000;
    let html = "";
    while (Date.now() < deadline) {
      html = (await page(path)).html;
      if (html.includes("Organic Market Tote, Large")) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(html).toContain("Organic Market Tote, Large");
  });
});
