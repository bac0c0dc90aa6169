import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The console's products table: full-text search, filters (collection, stock, visibility, brand, ribbon,
 * price range), sort and paging, all in the URL and answered by the product query on the server, one page at a
 * time, hidden products included. Each filter's count is checked against the catalogue in D1.
 */

const { store, needsChromium } = useStore("console products");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const names = (html: string) =>
  [...html.matchAll(/<a[^>]*class="products-name"[^>]*>([^<]*)<\/a>/g)].map((m) => m[1].replace(/&amp;/g, "&").replace(/&#x27;/g, "'"));
const matched = (html: string) => Number(/(\d+) products?( match)?;/.exec(html)?.[1] ?? (/No products/.test(html) ? 0 : NaN));
const count = async (w: RunningWorker, where: string, ...binds: unknown[]) =>
  (await w.db
    .prepare(`SELECT COUNT(*) AS n FROM products WHERE ${where}`)
    .bind(...binds)
    .first<{ n: number }>())!.n;

describe("console products table", () => {
  let staff = "";
  let hiddenName = "";

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    // A view-only staff member: reading the catalogue needs no permission.
    staff = await consoleCookie(w, await consoleAccount(w, "STAFF"));
    hiddenName = `Hidden sample ${Date.now()}`;
    const res = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        product: { name: hiddenName, productType: "physical", visible: false, priceData: { price: 999 }, brand: "Secret Label", ribbon: "Soon" },
      }),
    });
    expect(res.status).toBe(200);
  });

  it("pages through the whole catalogue, hidden products included, in at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const all = await count(w, "1 = 1");
    expect(all).toBeGreaterThan(25);
    const res = await get(w, staff, "/console/products");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(matched(html)).toBe(all);
    const first = names(html);
    expect(first).toHaveLength(25);
    expect(first[0]).toBe(hiddenName); // newest first
    const pages = Math.ceil(all / 25);
    const last = names(await (await get(w, staff, `/console/products?page=${pages}`)).text());
    expect(last).toHaveLength(all - (pages - 1) * 25);
    expect(last.filter((n) => first.includes(n))).toEqual([]);
    // Sorted by name, the first page is the alphabet's start.
    const byName = names(await (await get(w, staff, "/console/products?sort=name")).text());
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" })));
  });

  it("answers each filter with the products D1 holds for it", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const tshirts = (await w.db.prepare("SELECT id FROM collections WHERE slug = 't-shirts'").first<{ id: string }>())!.id;
    const cases: [string, number][] = [
      [`collection=${tshirts}`, await count(w, "id IN (SELECT product_id FROM collection_products WHERE collection_id = ?)", tshirts)],
      ["visibility=hidden", await count(w, "visible = 0")],
      ["visibility=visible", await count(w, "visible = 1")],
      ["stock=out", await count(w, "in_stock = 0")],
      ["stock=in", await count(w, "in_stock = 1")],
      ["brand=Secret%20Label", 1],
      ["ribbon=Soon", 1],
      ["min=20&max=30", await count(w, "min_price >= 2000 AND min_price <= 3000")],
    ];
    for (const [query, expected] of cases) {
      const html = await (await get(w, staff, `/console/products?${query}`)).text();
      expect(matched(html), query).toBe(expected);
    }
    expect(names(await (await get(w, staff, "/console/products?brand=Secret%20Label")).text())).toEqual([hiddenName]);
    // Full-text search, best match first; and combined with a filter.
    const tee = names(await (await get(w, staff, "/console/products?q=organic%20tee")).text());
    expect(tee[0]).toBe(store().tee.name);
    expect(matched(await (await get(w, staff, `/console/products?q=organic%20tee&visibility=hidden`)).text())).toBe(0);
    // Bad input: the error next to its field, the rest of the filters still applied.
    const bad = await (await get(w, staff, "/console/products?min=cheap&ribbon=Soon")).text();
    expect(bad).toContain('id="products-min-error"');
    expect(bad).toContain("Enter an amount such as 25 or 19.99.");
    expect(matched(bad)).toBe(1);
    expect(matched(await (await get(w, staff, "/console/products?page=99999")).text())).toBe(await count(w, "1 = 1"));
  });

  it("in Chromium: searches with the keyboard, filters by stock, and passes axe at 1280 px", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["catalog.write"]));
    try {
      await page.goto(`${s.w.url}/console/products`);
      await hydrated(page);
      await page.keyboard.press("/");
      await page.keyboard.type("tee");
      await Promise.all([page.waitForURL((u) => u.searchParams.get("q") === "tee"), page.keyboard.press("Enter")]);
      await expect.poll(() => page.locator(".products-name").first().textContent()).toContain("Tee");
      await page.selectOption("#products-stock", "in");
      await Promise.all([page.waitForURL((u) => u.searchParams.get("stock") === "in"), page.getByRole("button", { name: "Show products" }).click()]);
      await expect.poll(() => page.locator("[role=status]").textContent()).toMatch(/\d+ products? match/);
      await expectAccessible(page, "console products");
      mkdirSync(shots, { recursive: true });
      await page.goto(`${s.w.url}/console/products`);
      await page.screenshot({ path: path.join(shots, "console-products-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
