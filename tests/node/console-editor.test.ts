import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The console's product editor: create and edit a product on one page (rich description as Markdown,
 * price, cost and profit, discount, price per unit, details, SEO, info sections), options with drop-down and colour
 * choices and the generated variants as a grid saved in the same request, duplicate and delete. Every save goes
 * through the catalogue service the API uses; a refused one keeps what was typed and writes nothing.
 */

const { store, needsChromium } = useStore("console editor");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const productsNamed = async (w: RunningWorker, name: string) =>
  (
    await w.db
      .prepare(
        "SELECT id, slug, visible, price, brand, discount_type AS discountType, discount_value AS discountValue, rich_description AS rich FROM products WHERE name = ?",
      )
      .bind(name)
      .all<Record<string, unknown>>()
  ).results;
const variantsOf = async (w: RunningWorker, id: string) =>
  (
    await w.db
      .prepare("SELECT choices, price, quantity, visible FROM variants WHERE product_id = ? ORDER BY position")
      .bind(id)
      .all<{ choices: string; price: number | null; quantity: number | null; visible: number }>()
  ).results.map((v) => ({ ...v, choices: JSON.parse(v.choices) as Record<string, string> }));
const api = async (w: RunningWorker, method: string, p: string, body?: unknown) => {
  const res = await w.fetch(p, {
    method,
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

describe("console product editor", () => {
  let catalogStaff = { email: "", password: "", cookie: "" };

  beforeAll(async () => {
    if (!store()) return;
    const acct = await consoleAccount(store().w, "STAFF", ["catalog.write", "inventory.write"]);
    catalogStaff = { ...acct, cookie: await consoleCookie(store().w, acct) };
  });

  it("in Chromium: creates a product with two options and four variants, each with its own stock, and a shopper sees it", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, catalogStaff);
    const name = `Linen Cap ${Date.now()}`;
    try {
      await page.goto(`${s.w.url}/console/products`);
      await page.getByRole("link", { name: "New product" }).click();
      await page.waitForURL(/\/console\/products\/new$/);
      await hydrated(page);
      await page.fill("#f-product-name", name);
      await page.fill("#f-product-description", "A **washed linen** cap.\n\n- Adjustable strap\n- One size fits most");
      await page.fill("#f-product-priceData-price", "24");
      await page.fill("#f-product-costAndProfitData-itemCost", "9.50");
      await expect.poll(() => page.locator(".editor-profit").textContent()).toBe("Profit $14.50 · margin 60.4%");
      await page.fill("#f-product-brand", "Fernhill");
      await page.check("input[name='product.stock.trackInventory']");
      // Two options: a drop-down and colour swatches with picked colours. The grid follows as they are typed.
      await page.fill("#f-product-productOptions-0--name", "Size");
      await page.fill("#f-product-productOptions-0--choices-0--description", "S/M");
      await page.fill("#f-product-productOptions-0--choices-1--description", "L/XL");
      await page.fill("#f-product-productOptions-1--name", "Colour");
      await page.selectOption("#f-product-productOptions-1--optionType", "color");
      await page.fill("#f-product-productOptions-1--choices-0--description", "Sand");
      await page.fill("#f-product-productOptions-1--choices-0--value", "#c2b280");
      await page.fill("#f-product-productOptions-1--choices-1--description", "Navy");
      await page.fill("#f-product-productOptions-1--choices-1--value", "#1f2a44");
      const rows = page.locator(".editor-variants tbody tr");
      await expect.poll(() => rows.count()).toBe(4);
      expect(await page.locator(".editor-variants tbody th").allTextContents()).toEqual(["S/M / Sand", "S/M / Navy", "L/XL / Sand", "L/XL / Navy"]);
      await page.getByLabel("Price of L/XL / Navy").fill("26");
      for (const [i, qty] of ["3", "0", "5", "2"].entries()) await page.locator(`#f-product-variants-${i}--stock-quantity`).fill(qty);
      await expectAccessible(page, "console new product");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-product-new-1280.png"), fullPage: true });
      // Ctrl+S saves, as in any editor.
      await Promise.all([page.waitForURL(/\/console\/products\/[^/]+\?saved=1$/), page.keyboard.press("Control+s")]);
      await expect(page.getByRole("status").first().textContent()).resolves.toContain("Saved");

      const [row] = await productsNamed(s.w, name);
      expect(row).toBeTruthy();
      expect(row.brand).toBe("Fernhill");
      const variants = await variantsOf(s.w, row.id as string);
      expect(variants.map((v) => [v.choices, v.quantity, v.price])).toEqual([
        [{ Size: "S/M", Colour: "Sand" }, 3, 2400],
        [{ Size: "S/M", Colour: "Navy" }, 0, 2400],
        [{ Size: "L/XL", Colour: "Sand" }, 5, 2400],
        [{ Size: "L/XL", Colour: "Navy" }, 2, 2600],
      ]);
      // The API reads back what the console wrote: colour values, bold text in the rich description, cost.
      const { json } = await api(s.w, "GET", `/stores-reader/v1/products/${row.id}?includeMerchantSpecificData=true`);
      expect(json.product.productOptions[1].choices.map((c: any) => [c.value, c.description])).toEqual([
        ["#c2b280", "Sand"],
        ["#1f2a44", "Navy"],
      ]);
      expect(JSON.stringify(row.rich)).toContain("BOLD");
      expect(json.product.costAndProfitData.itemCost).toBe(9.5);
      await expectAccessible(page, "console product editor");
      await page.screenshot({ path: path.join(shots, "console-product-edit-1280.png"), fullPage: true });

      // A shopper sees it: the name, the bold text and the list, the price range.
      const shop = await context.newPage();
      await shop.goto(`${s.w.url}/products/${row.slug}`);
      await expect(shop.locator("h1").textContent()).resolves.toBe(name);
      await expect(shop.locator("strong", { hasText: "washed linen" }).count()).resolves.toBe(1);
      await expect(shop.locator("li", { hasText: "Adjustable strap" }).count()).resolves.toBeGreaterThan(0);
      await shop.close();
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("without JavaScript: 'Update variants' draws the grid from the options, then the form creates the product", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page } = await consoleBrowser(s.browser, s.w, catalogStaff, { javaScriptEnabled: false });
    const name = `Plain Form Scarf ${Date.now()}`;
    try {
      await page.goto(`${s.w.url}/console/products/new`);
      await page.fill("#f-product-name", name);
      await page.fill("#f-product-priceData-price", "30");
      await page.fill("#f-product-productOptions-0--name", "Length");
      await page.fill("#f-product-productOptions-0--choices-0--description", "Short");
      await page.getByRole("button", { name: "Update variants" }).click();
      // The server answered with the grid and a spare choice row to type the next one into.
      await page.fill("#f-product-productOptions-0--choices-1--description", "Long");
      await page.getByRole("button", { name: "Update variants" }).click();
      expect(await page.locator(".editor-variants tbody th").allTextContents()).toEqual(["Short", "Long"]);
      expect(await page.inputValue("#f-product-name")).toBe(name);
      await page.fill("#f-product-variants-1--price", "35");
      await Promise.all([page.waitForURL(/\?saved=1$/), page.getByRole("button", { name: "Create product" }).click()]);
      const [row] = await productsNamed(s.w, name);
      expect((await variantsOf(s.w, row.id as string)).map((v) => [v.choices.Length, v.price])).toEqual([
        ["Short", 3000],
        ["Long", 3500],
      ]);
    } finally {
      await context.close();
    }
  });

  it("shows bad input next to its field, keeps what was typed, and writes nothing", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, catalogStaff);
    const name = `Refused Mug ${Date.now()}`;
    try {
      await page.goto(`${s.w.url}/console/products/new`);
      await hydrated(page);
      await page.fill("#f-product-name", name);
      await page.fill("#f-product-priceData-price", "twelve");
      await page.fill("#f-product-slug", "Not A Slug!");
      await page.fill("#f-product-description", "Kept *as typed*.");
      await page.getByRole("button", { name: "Create product" }).click();
      await expect.poll(() => page.locator("#f-product-priceData-price-error").textContent()).toBeTruthy();
      await expect(page.locator("#f-product-priceData-price").getAttribute("aria-invalid")).resolves.toBe("true");
      await expect(page.locator("#f-product-priceData-price").getAttribute("aria-describedby")).resolves.toContain("f-product-priceData-price-error");
      await expect(page.locator("#f-product-slug-error").textContent()).resolves.toMatch(/lower-case/);
      expect(await page.inputValue("#f-product-name")).toBe(name);
      expect(await page.inputValue("#f-product-description")).toBe("Kept *as typed*.");
      expect(await page.inputValue("#f-product-priceData-price")).toBe("twelve");
      await expectAccessible(page, "console editor with errors");
      expect(await productsNamed(s.w, name)).toEqual([]);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows a refused choice next to the row the merchant typed it in, past an emptied row", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, catalogStaff);
    const name = `Repeated Sock ${Date.now()}`;
    const choice = (j: number) => `#f-product-productOptions-0--choices-${j}--description`;
    try {
      await page.goto(`${s.w.url}/console/products/new`);
      await hydrated(page);
      await page.fill("#f-product-name", name);
      await page.fill("#f-product-priceData-price", "8");
      await page.fill("#f-product-productOptions-0--name", "Size");
      await page.fill(choice(0), "S");
      await page.fill(choice(1), "M");
      await page.fill(choice(2), "m");
      // Emptying the first choice leaves its row on the form; the request holds M and m only.
      await page.fill(choice(0), "");
      await page.getByRole("button", { name: "Create product" }).click();
      await expect.poll(() => page.locator(`${choice(2)}-error`).textContent()).toBe('Repeats the choice "m"');
      expect(await page.locator(choice(2)).getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator(`${choice(1)}-error`).count()).toBe(0);
      expect(await page.inputValue(choice(2))).toBe("m");
      expect(await productsNamed(s.w, name)).toEqual([]);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("edits a product: an unchanged description keeps nodes Markdown cannot hold; the page costs at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const name = `Rich Poster ${Date.now()}`;
    const rich = {
      nodes: [
        { type: "PARAGRAPH", id: "a", nodes: [{ type: "TEXT", id: "", textData: { text: "Printed on cotton paper.", decorations: [] } }] },
        { type: "IMAGE", id: "b", imageData: { image: { src: { url: "https://example.com/p.jpg" } } } },
      ],
    };
    const created = await api(s.w, "POST", "/stores/v1/products", { product: { name, priceData: { price: 40 }, richDescription: rich } });
    expect(created.status).toBe(200);
    const id = created.json.product.id as string;
    const page1 = await get(s.w, catalogStaff.cookie, `/console/products/${id}`);
    expect(page1.status).toBe(200);
    expect(roundTrips(page1)).toBeLessThanOrEqual(3);
    const html = await page1.text();
    expect(html).toContain("Printed on cotton paper.");
    expect(html).toMatch(/also holds image content/);

    // Save a new price and a 10 % discount from the form as loaded (no JavaScript needed).
    const { context, page } = await consoleBrowser(s.browser, s.w, catalogStaff);
    try {
      await page.goto(`${s.w.url}/console/products/${id}`);
      await hydrated(page);
      await page.fill("#f-product-priceData-price", "45");
      await page.selectOption("#f-product-discount-type", "PERCENT");
      await page.fill("#f-product-discount-value", "10");
      await page.fill("#f-seoTitle", "Cotton paper poster");
      await page.fill("#f-product-additionalInfoSections-0--title", "Shipping");
      await page.fill("#f-product-additionalInfoSections-0--description", "Rolled in a tube.");
      await Promise.all([page.waitForURL(/\?saved=1$/), page.getByRole("button", { name: "Save" }).click()]);
    } finally {
      await context.close();
    }
    const { json } = await api(s.w, "GET", `/stores-reader/v1/products/${id}`);
    expect(json.product.priceData.price).toBe(45);
    expect(json.product.priceData.discountedPrice).toBe(40.5);
    expect(json.product.additionalInfoSections).toEqual([expect.objectContaining({ title: "Shipping", description: "Rolled in a tube." })]);
    expect(json.product.seoData.tags).toEqual(expect.arrayContaining([expect.objectContaining({ type: "title", children: "Cotton paper poster" })]));
    const [row] = await productsNamed(s.w, name);
    expect(String(row.rich)).toContain('"type":"IMAGE"');
  });

  it("duplicates a product (hidden, same variants and collections) and deletes one after a confirmation", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, catalogStaff);
    try {
      await page.goto(`${s.w.url}/console/products/${s.tee.id}`);
      await hydrated(page);
      await Promise.all([page.waitForURL(/\?duplicated=1$/), page.getByRole("button", { name: "Duplicate" }).click()]);
      const copyId = new URL(page.url()).pathname.split("/").pop()!;
      expect(copyId).not.toBe(s.tee.id);
      const [copy] = await productsNamed(s.w, `${s.tee.name} (copy)`);
      expect(copy.id).toBe(copyId);
      expect(copy.visible).toBe(0);
      const strip = (vs: Awaited<ReturnType<typeof variantsOf>>) => vs.map((v) => [v.choices, v.quantity, v.visible]);
      expect(strip(await variantsOf(s.w, copyId))).toEqual(strip(await variantsOf(s.w, s.tee.id)));
      const collectionsOf = async (id: string) =>
        (
          await s.w.db
            .prepare("SELECT collection_id AS c FROM collection_products WHERE product_id = ? ORDER BY collection_id")
            .bind(id)
            .all<{ c: string }>()
        ).results.map((r) => r.c);
      expect(await collectionsOf(copyId)).toEqual(await collectionsOf(s.tee.id));
      expect((await collectionsOf(copyId)).length).toBeGreaterThan(0);

      // Delete asks first; "Keep it" leaves it alone, "Delete for good" removes it.
      await Promise.all([page.waitForURL((u) => u.searchParams.has("delete")), page.getByRole("link", { name: "Delete…" }).click()]);
      await expect.poll(() => page.getByRole("heading", { name: /^Delete “/ }).count()).toBe(1);
      await expectAccessible(page, "console delete confirmation");
      await Promise.all([page.waitForURL((u) => u.pathname === "/console/products"), page.getByRole("button", { name: "Delete for good" }).click()]);
      await expect(page.getByRole("status").first().textContent()).resolves.toContain(`Deleted “${s.tee.name} (copy)”`);
      expect(await productsNamed(s.w, `${s.tee.name} (copy)`)).toEqual([]);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("refuses staff without catalog.write (403, nothing written) and keeps stock out of reach without inventory.write", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const viewer = await consoleCookie(s.w, await consoleAccount(s.w, "STAFF"));
    const page = await (await get(s.w, viewer, `/console/products/${s.plain.id}`)).text();
    expect(page).not.toContain(">Duplicate<");
    expect(page).not.toContain(">Delete…<");
    expect(page).toMatch(/<button[^>]*disabled=""[^>]*>Save<\/button>|<button[^>]*type="submit"[^>]*disabled[^>]*>Save/);
    const before = await productsNamed(s.w, s.plain.name);
    for (const [path, fields] of [
      [`/console/products/${s.plain.id}`, { intent: "save", "product.name": "Taken over", "product.priceData.price": "1" }],
      [`/console/products/${s.plain.id}`, { intent: "delete" }],
      [`/console/products/${s.plain.id}`, { intent: "duplicate" }],
      ["/console/products/new", { intent: "save", "product.name": "Sneaked in", "product.priceData.price": "1" }],
    ] as const) {
      const res = await postConsoleForm(s.w, viewer, path, fields);
      expect(res.status, `${path} ${fields.intent}`).toBe(403);
    }
    expect(await productsNamed(s.w, s.plain.name)).toEqual(before);
    expect(await productsNamed(s.w, "Sneaked in")).toEqual([]);

    // catalog.write without inventory.write: the product saves, a forged quantity does not move stock.
    const editor = await consoleCookie(s.w, await consoleAccount(s.w, "STAFF", ["catalog.write"]));
    const html = await (await get(s.w, editor, `/console/products/${s.tee.id}`)).text();
    expect(html).toContain("Quantities are changed by staff with the permission");
    const stock = await variantsOf(s.w, s.tee.id);
    const form = await postConsoleForm(s.w, editor, `/console/products/${s.plain.id}`, {
      intent: "save",
      "product.name": s.plain.name,
      "product.priceData.price": "19",
      "product.visible": "on",
      "product.stock.trackInventory": "on",
      "product.stock.quantity": "999",
    });
    expect(form.status).toBe(302);
    expect((await productsNamed(s.w, s.plain.name))[0].price).toBe(1900);
    expect((await variantsOf(s.w, s.plain.id)).map((v) => v.quantity)).toEqual([null]);
    expect(await variantsOf(s.w, s.tee.id)).toEqual(stock);
  });
});
