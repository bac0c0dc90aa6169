import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, shopper, useStore } from "./commerce-fixtures";
import { BROWSER_UA, type RunningWorker } from "./worker";

/**
 * CSV export and import in the console, in Chromium on the built Worker: export the products table
 * filtered by a brand, change a price and add a product in the file, import it (the preview: 1 update, 1 create),
 * apply it through the queue until the progress page says done, and see both on the storefront. A file with a bad
 * row shows the row's error in the preview; a file that is not a CSV is refused next to the file field; staff
 * without catalog.write see no import link and get 403.
 */

const { store, needsChromium } = useStore("console CSV");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const BRAND = "Kettle & Pine";

async function consoleScreenshot(page: Page, name: string) {
  mkdirSync(shots, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(shots, `${name}-1280.png`), fullPage: true });
}

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const jobs = async (w: RunningWorker) => (await w.db.prepare("SELECT count(*) AS n FROM import_jobs").first<{ n: number }>())!.n;

/** Uploads a file on the import page and answers the page it lands on. */
async function upload(page: Page, w: RunningWorker, name: string, text: string | Buffer) {
  await page.goto(`${w.url}/console/products/import`);
  await hydrated(page);
  await page.setInputFiles("#import-file", { name, mimeType: "text/csv", buffer: Buffer.isBuffer(text) ? text : Buffer.from(text) });
  await page.getByRole("button", { name: "Check the file" }).click();
}

describe("console CSV export and import", () => {
  it("exports a brand, imports the edited file (1 update, 1 create) through the queue, and the storefront shows both", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const w = s.w;
    const { context, page, problems } = await consoleBrowser(s.browser, w, await consoleAccount(w, "STAFF", ["catalog.write", "inventory.write"]));
    try {
      await page.goto(`${w.url}/console/products?brand=${encodeURIComponent(BRAND)}`);
      await hydrated(page);
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
      expect(download.suggestedFilename()).toMatch(/^products-\d{4}-\d{2}-\d{2}\.csv$/);
      const exported = readFileSync((await download.path())!, "utf8");
      const parsed = Papa.parse<Record<string, string>>(exported, { header: true, skipEmptyLines: true });
      const fields = parsed.meta.fields!;
      const brandProducts = (
        await w.db.prepare("SELECT slug, price FROM products WHERE brand = ? ORDER BY slug").bind(BRAND).all<{ slug: string; price: number }>()
      ).results;
      const variants = (await w.db
        .prepare("SELECT count(*) AS n FROM variants v JOIN products p ON p.id = v.product_id WHERE p.brand = ?")
        .bind(BRAND)
        .first<{ n: number }>())!.n;
      expect(brandProducts.length).toBeGreaterThan(1);
      expect(parsed.data).toHaveLength(variants);
      expect([...new Set(parsed.data.map((r) => r.Handle))].sort()).toEqual(brandProducts.map((p) => p.slug));
      expect(parsed.data.every((r) => r.Brand === BRAND)).toBe(true);

      // Edit: a new price for one product (on each of its rows), and a new product row.
      const target = brandProducts[0];
      const newPrice = (target.price + 500) / 100;
      for (const r of parsed.data) if (r.Handle === target.slug) r.Price = newPrice.toFixed(2);
      const slug = `csv-lantern-${Date.now()}`;
      parsed.data.push({
        ...Object.fromEntries(fields.map((f) => [f, ""])),
        Handle: slug,
        Name: "CSV Lantern",
        Price: "42.50",
        Brand: BRAND,
        Visible: "true",
        Description: "Made in a spreadsheet.",
        "Track inventory": "true",
        Quantity: "6",
      });
      const edited = Papa.unparse({ fields, data: parsed.data.map((r) => fields.map((f) => r[f] ?? "")) });

      await upload(page, w, "kettle.csv", edited);
      await page.waitForURL(/\/console\/products\/import\/[^/]+$/);
      const jobUrl = page.url();
      const summary = page.getByRole("list", { name: "What applying does" });
      await expect.poll(() => summary.textContent()).toContain("1 product to create");
      expect(await summary.textContent()).toContain("1 to update");
      expect(await summary.textContent()).toContain(`${brandProducts.length - 1} unchanged`);
      expect(await summary.textContent()).toContain("0 rows with errors");
      // Nothing is written before Apply.
      expect(await w.db.prepare("SELECT count(*) AS n FROM products WHERE slug = ?").bind(slug).first("n")).toBe(0);
      await expectAccessible(page, "import preview");
      await consoleScreenshot(page, "console-import-preview");
      const preview = await get(w, await consoleCookie(w, await consoleAccount(w, "OWNER")), new URL(jobUrl).pathname);
      expect(roundTrips(preview)).toBeLessThanOrEqual(3);

      await page.getByRole("button", { name: /^Apply/ }).click();
      await expect
        .poll(() =>
          page
            .getByRole("heading", { level: 2, name: "Applying" })
            .or(page.getByRole("heading", { level: 2, name: "Done" }))
            .count(),
        )
        .toBe(1);
      // The page refreshes itself until the queue has applied every row.
      const total = parsed.data.length;
      await expect.poll(() => page.locator(".imports-progress-text").textContent(), { timeout: 60_000 }).toBe(`${total} of ${total} rows applied.`);
      expect(await page.getByRole("list", { name: "Results so far" }).textContent()).toContain("0 rows failed");
      await expectAccessible(page, "import progress");
      await consoleScreenshot(page, "console-import-progress");
      // A new tab (or a reload) shows the same import.
      const other = await context.newPage();
      await other.goto(jobUrl);
      expect(await other.locator(".imports-progress-text").textContent()).toBe(`${total} of ${total} rows applied.`);
      await other.close();

      const stored = await w.db.prepare("SELECT price, brand, quantity FROM products WHERE slug = ?").bind(slug).first();
      expect(stored).toEqual({ price: 4250, brand: BRAND, quantity: 6 });
      expect(await w.db.prepare("SELECT price FROM products WHERE slug = ?").bind(target.slug).first("price")).toBe(target.price + 500);

      // The shopper sees the new price and the new product (once the catalogue's cache has heard of the change).
      const { context: shop, page: shopPage } = await shopper(s);
      try {
        const price = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(newPrice);
        await expect
          .poll(
            async () => {
              await shopPage.goto(`${w.url}/products/${target.slug}`);
              return shopPage.locator("main").textContent();
            },
            { timeout: 30_000 },
          )
          .toContain(price);
        await shopPage.goto(`${w.url}/products/${slug}`);
        expect(await shopPage.locator("h1").textContent()).toContain("CSV Lantern");
        expect(await shopPage.locator("main").textContent()).toContain("$42.50");
      } finally {
        await shop.close();
      }
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it("shows a bad row's error in the preview, and refuses a file that is not a CSV next to the file field", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const w = s.w;
    const { context, page, problems } = await consoleBrowser(s.browser, w, await consoleAccount(w, "STAFF", ["catalog.write"]));
    try {
      const bad = Papa.unparse([
        ["Handle", "Name", "Price"],
        ["csv-good-one", "Good one", "10"],
        ["csv-bad-one", "Bad one", "ten dollars"],
      ]);
      await upload(page, w, "bad.csv", bad);
      await page.waitForURL(/\/console\/products\/import\/[^/]+$/);
      const errors = page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Problem" }) });
      await expect.poll(() => errors.locator("tbody tr").count()).toBe(1);
      expect((await errors.locator("tbody tr").first().innerText()).split("\t").map((c) => c.trim())).toEqual([
        "3",
        "csv-bad-one",
        "Price",
        'must be an amount, such as 19.99 (got "ten dollars")',
      ]);
      expect(await page.getByRole("list", { name: "What applying does" }).textContent()).toContain("1 row with errors");

      // Not a CSV: the error next to the file field, nothing stored.
      const before = await jobs(w);
      await upload(page, w, "photo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
      await expect.poll(() => page.locator("#import-file-error").textContent()).toContain("This is not a CSV file");
      expect(await page.locator("#import-file").getAttribute("aria-describedby")).toContain("import-file-error");
      // A CSV without a required column.
      await upload(page, w, "names.csv", "Handle,Name\nx,X\n");
      await expect.poll(() => page.locator("#import-file-error").textContent()).toContain('The file has no "Price" column');
      expect(await jobs(w)).toBe(before);
      await expectAccessible(page, "import upload with an error");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("without JavaScript: a stalled import's page reloads itself and Resume finishes it", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const w = s.w;
    const account = await consoleAccount(w, "STAFF", ["catalog.write"]);
    const { context, page, problems } = await consoleBrowser(s.browser, w, account, { javaScriptEnabled: false });
    try {
      const slug = `csv-resumed-${Date.now()}`;
      await page.goto(`${w.url}/console/products/import`);
      await page.setInputFiles("#import-file", {
        name: "one.csv",
        mimeType: "text/csv",
        buffer: Buffer.from(`Handle,Name,Price\n${slug},Resumed,7\n`),
      });
      await Promise.all([page.waitForURL(/\/console\/products\/import\/[^/]+$/), page.getByRole("button", { name: "Check the file" }).click()]);
      const jobId = page.url().split("/").pop()!;
      // An import whose queue message was lost: APPLYING, nothing applied, quiet for ten minutes.
      await w.db
        .prepare("UPDATE import_jobs SET status = 'APPLYING', updated_date = ? WHERE id = ?")
        .bind(new Date(Date.now() - 600_000).toISOString(), jobId)
        .run();
      await page.reload();
      expect(await page.locator(".imports-progress-text").textContent()).toBe("0 of 1 row applied…");
      // <noscript> refresh: the page loads itself again after 3 s.
      await page.waitForEvent("framenavigated", { timeout: 10_000 });
      await page.getByRole("button", { name: "Resume the import" }).click();
      await expect
        .poll(async () => (await page.reload(), page.locator(".imports-progress-text").textContent()), { timeout: 30_000 })
        .toBe("1 of 1 row applied.");
      expect(await w.db.prepare("SELECT price FROM products WHERE slug = ?").bind(slug).first("price")).toBe(700);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it("staff without catalog.write can export but see no import link and get 403 from the import", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const cookie = await consoleCookie(w, await consoleAccount(w, "STAFF", ["orders.write"]));
    const list = await (await get(w, cookie, "/console/products")).text();
    expect(list).toContain("Export CSV");
    expect(list).not.toContain("/console/products/import");
    const exported = await get(w, cookie, `/console/products/export.csv?brand=${encodeURIComponent(BRAND)}`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(exported.headers.get("content-disposition")).toMatch(/^attachment; filename="products-/);
    expect((await exported.text()).split("\r\n")[0]).toMatch(/^Handle,Name,Description,/);
    expect((await get(w, cookie, "/console/products/import")).status).toBe(403);
    const before = await jobs(w);
    const form = new FormData();
    form.append("file", new File(["Handle,Name,Price\ncsv-nope,Nope,1\n"], "nope.csv", { type: "text/csv" }));
    const multipart = new Request("http://x/", { method: "POST", body: form });
    const posted = await w.fetch("/console/products/import", {
      method: "POST",
      body: await multipart.arrayBuffer(),
      headers: { "content-type": multipart.headers.get("content-type")!, cookie, origin: w.url, "user-agent": BROWSER_UA },
      redirect: "manual",
    });
    expect(posted.status).toBe(403);
    expect(await jobs(w)).toBe(before);
  });
});
