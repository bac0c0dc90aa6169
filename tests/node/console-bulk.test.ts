import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * Bulk edits from the console's products table: tick rows or take everything the filter matches, then
 * change the price, ribbon, brand, visibility, collection membership, or delete with a confirmation step, through
 * the catalogue's bulk services; a summary (n updated, n failed and why) follows. Each change is checked in D1.
 */

const { store, needsChromium } = useStore("console bulk");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);

/** The brand's products as D1 holds them (price in cents), by name. */
async function brandRows(w: RunningWorker, brand: string) {
  const { results } = await w.db
    .prepare("SELECT id, name, price, ribbon, visible FROM products WHERE brand = ? ORDER BY name")
    .bind(brand)
    .all<{ id: string; name: string; price: number; ribbon: string | null; visible: number }>();
  return results;
}

async function createProducts(w: RunningWorker, brand: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      // Prices with cents that do not divide evenly by ten, so rounding is exercised.
      body: JSON.stringify({
        product: {
          name: `${brand} item ${String(i + 1).padStart(2, "0")}`,
          productType: "physical",
          priceData: { price: (1000 + i * 137) / 100 },
          brand,
        },
      }),
    });
    expect(res.status).toBe(200);
  }
}

async function shoot(page: Page, name: string) {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}-1280.png`), fullPage: true });
}

describe("console bulk edits", () => {
  const brand = `Bulkline ${Date.now().toString(36)}`;
  const table = `/console/products?brand=${encodeURIComponent(brand)}&sort=name`;
  let editor = "";
  let viewer = "";

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    editor = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write"]));
    viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["orders.write"]));
    await createProducts(w, brand, 50);
  }, 120_000);

  it("in Chromium: +10 % on all 50 matching, a ribbon on 3 ticked rows, delete 2 after confirming", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const before = await brandRows(s.w, brand);
    expect(before).toHaveLength(50);
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["catalog.write"]));
    try {
      // Filter the table by the brand, through its own filter form.
      await page.goto(`${s.w.url}/console/products`);
      await hydrated(page);
      await page.selectOption("#products-brand", brand);
      await Promise.all([page.waitForURL((u) => u.searchParams.get("brand") === brand), page.getByRole("button", { name: "Show products" }).click()]);
      await expect.poll(() => page.locator("p[role=status]").first().textContent()).toContain("50 products match");

      // All 50 matching (two pages of 25), +10 %.
      await page.getByLabel("All 50 products matching the filter").check();
      await expect.poll(() => page.locator(".bulk-count").textContent()).toBe("All 50 matching products will change.");
      await page.selectOption("#bulk-op", "price-up-percent");
      await expect.poll(() => page.locator('label[for="bulk-value"]').textContent()).toBe("Percentage (%)");
      await page.fill("#bulk-value", "10");
      await Promise.all([page.waitForURL((u) => u.searchParams.has("done")), page.getByRole("button", { name: "Apply" }).click()]);
      await expect.poll(() => page.locator(".bulk-summary").textContent()).toContain("Raised the price by 10 %: 50 updated, 0 failed.");
      const raised = await brandRows(s.w, brand);
      expect(raised.map((r) => r.price)).toEqual(before.map((r) => Math.round(r.price * 1.1)));
      expect(raised.filter((r, n) => r.price === before[n].price)).toEqual([]);
      await expectAccessible(page, "console products after a bulk change");
      await shoot(page, "console-products-bulk-summary");
      // The summary survives a reload (signed for this session) and is dismissed by its link.
      await page.reload();
      await expect.poll(() => page.locator(".bulk-summary").textContent()).toContain("50 updated, 0 failed.");

      // A ribbon on 3 rows: tick the first, shift-click the third (a range), and the count follows.
      await page.goto(`${s.w.url}${table}`);
      await hydrated(page);
      const names = raised.map((r) => r.name);
      await page.getByLabel(`Select ${names[0]}`).check();
      await page.getByLabel(`Select ${names[2]}`).click({ modifiers: ["Shift"] });
      await expect.poll(() => page.locator(".bulk-count").textContent()).toBe("3 selected on this page.");
      expect(await page.getByLabel(`Select ${names[1]}`).isChecked()).toBe(true);
      await page.selectOption("#bulk-op", "ribbon-set");
      await page.fill("#bulk-value", "Staff pick");
      await expectAccessible(page, "console products with a selection");
      await shoot(page, "console-products-bulk-selection");
      await Promise.all([page.waitForURL((u) => u.searchParams.has("done")), page.getByRole("button", { name: "Apply" }).click()]);
      await expect.poll(() => page.locator(".bulk-summary").textContent()).toContain("Set the ribbon to “Staff pick”: 3 updated, 0 failed.");
      const ribboned = await brandRows(s.w, brand);
      expect(ribboned.filter((r) => r.ribbon === "Staff pick").map((r) => r.name)).toEqual(names.slice(0, 3));
      // The selection starts empty after an action.
      await expect.poll(() => page.locator(".bulk-count").textContent()).toBe("0 selected on this page.");

      // Delete 2: the first step only asks, naming them; the second deletes exactly those.
      await page.getByLabel(`Select ${names[3]}`).check();
      await page.getByLabel(`Select ${names[4]}`).check();
      await page.selectOption("#bulk-op", "delete");
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator("#bulk-confirm-title").textContent()).toBe("Delete 2 products?");
      expect(await page.locator(".bulk-confirm").textContent()).toContain(`${names[3]}, ${names[4]}.`);
      expect(await brandRows(s.w, brand)).toHaveLength(50);
      await expectAccessible(page, "console products delete confirmation");
      await Promise.all([page.waitForURL((u) => u.searchParams.has("done")), page.getByRole("button", { name: "Delete 2 products" }).click()]);
      await expect.poll(() => page.locator(".bulk-summary").textContent()).toContain("Deleted: 2 deleted, 0 failed.");
      const left = await brandRows(s.w, brand);
      expect(left).toHaveLength(48);
      expect(left.map((r) => r.name)).not.toContain(names[3]);
      expect(left.map((r) => r.name)).not.toContain(names[4]);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it("in Chromium: a bad percentage is shown next to its field, the ticks are kept and nothing changes", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const before = await brandRows(s.w, brand);
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["catalog.write"]));
    try {
      await page.goto(`${s.w.url}${table}`);
      await hydrated(page);
      const name = before[5].name;
      await page.getByLabel(`Select ${name}`).check();
      await page.selectOption("#bulk-op", "price-up-percent");
      await page.fill("#bulk-value", "abc");
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator("#bulk-value-error").textContent()).toBe("Enter a percentage such as 10 or 12.5");
      expect(await page.locator("#bulk-value").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#bulk-value").inputValue()).toBe("abc");
      expect(await page.getByLabel(`Select ${name}`).isChecked()).toBe(true);
      expect(await brandRows(s.w, brand)).toEqual(before);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("without JavaScript: posts the form, refuses bad input with the selection kept, adds to a collection", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const before = await brandRows(w, brand);
    const [a, b] = before;
    // A negative price: the error by the field, both rows still ticked, nothing written.
    const bad = await postConsoleForm(w, editor, table, { scope: "selected", ids: [a.id, b.id], op: "price-set", value: "-5" });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('id="bulk-value-error"');
    expect(html).toContain("A price cannot be negative");
    const box = (id: string) => new RegExp(`<input[^>]*name="ids"[^>]*value="${id}"[^>]*>`).exec(html)?.[0] ?? "";
    expect(box(a.id)).toContain('checked=""');
    expect(box(b.id)).toContain('checked=""');
    expect(box(before[2].id)).not.toContain("checked");
    expect(await brandRows(w, brand)).toEqual(before);
    // Nothing chosen: the problem is the selection.
    const none = await postConsoleForm(w, editor, table, { scope: "selected", op: "hide" });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('id="bulk-selection-error"');

    // "All on this page" (the header box) without JavaScript: the page's ids come with the form.
    const col = await w.fetch("/v1/collections", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ collection: { name: `${brand} picks` } }),
    });
    const collectionId = ((await col.json()) as { collection: { id: string } }).collection.id;
    const page1 = before.slice(0, 25).map((r) => r.id);
    const added = await postConsoleForm(w, editor, table, {
      scope: "selected",
      page: "all",
      pageIds: page1,
      op: "collection-add",
      collection: collectionId,
    });
    expect(added.status).toBe(302);
    const summary = await get(w, editor, added.headers.get("location")!);
    expect(roundTrips(summary)).toBeLessThanOrEqual(3);
    const summaryHtml = await summary.text();
    expect(summaryHtml).toContain("Added to a collection:</strong> 25 updated, 0 failed.");
    const members = await w.db
      .prepare("SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?")
      .bind(collectionId)
      .first<{ n: number }>();
    expect(members!.n).toBe(25);
    // The summary link is this session's: someone else opening it sees no summary.
    const other = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write"]));
    expect(await (await get(w, other, added.headers.get("location")!)).text()).not.toContain("bulk-summary");

    // A failure is reported per product with its name and why: lowering by more than a price leaves it negative.
    const cheap = before.reduce((m, r) => (r.price < m.price ? r : m));
    const dear = before.reduce((m, r) => (r.price > m.price ? r : m));
    const cut = (cheap.price + 1) / 100;
    const lowered = await postConsoleForm(w, editor, table, { scope: "selected", ids: [cheap.id, dear.id], op: "price-down", value: cut.toFixed(2) });
    expect(lowered.status).toBe(302);
    const text = await (await get(w, editor, lowered.headers.get("location")!)).text();
    expect(text).toContain("1 updated, 1 failed.");
    expect(text).toContain(`<strong>${cheap.name}</strong>: price would be negative`);
    const after = await brandRows(w, brand);
    expect(after.find((r) => r.id === cheap.id)!.price).toBe(cheap.price);
    expect(after.find((r) => r.id === dear.id)!.price).toBe(dear.price - (cheap.price + 1));
  }, 120_000);

  it("without JavaScript: all products matching the filter (two pages of the table) lose their ribbon", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const before = await brandRows(w, brand);
    expect(before.some((r) => r.ribbon)).toBe(true);
    const started = Date.now();
    const res = await postConsoleForm(w, editor, table, { scope: "matching", op: "ribbon-clear" });
    const took = Date.now() - started;
    expect(res.status).toBe(302);
    console.info(`bulk: ribbon-clear on all ${before.length} matching products took ${took} ms`);
    expect(await (await get(w, editor, res.headers.get("location")!)).text()).toContain(
      `Removed the ribbon:</strong> ${before.length} updated, 0 failed.`,
    );
    const after = await brandRows(w, brand);
    expect(after.map((r) => r.ribbon ?? "")).toEqual(before.map(() => ""));
    expect(after.map((r) => r.price)).toEqual(before.map((r) => r.price));
  });

  it("staff without catalog.write see no bulk controls and are refused (403), nothing written", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const res = await get(w, viewer, table);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).not.toContain('id="products-bulk"');
    expect(html).not.toContain('name="ids"');
    const before = await brandRows(w, brand);
    const refused = await postConsoleForm(w, viewer, table, { scope: "matching", op: "hide" });
    expect(refused.status).toBe(403);
    expect(await brandRows(w, brand)).toEqual(before);
    // The editor sees them, within the same round-trip budget.
    const editorPage = await get(w, editor, table);
    expect(roundTrips(editorPage)).toBeLessThanOrEqual(3);
    expect(await editorPage.text()).toContain('id="products-bulk"');
  });
});
