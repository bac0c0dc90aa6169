import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { checkOutByCard, expectAccessible, hydrated, shopper, useStore } from "./commerce-fixtures";
import type { Page } from "playwright-core";

/**
 * The merchant console end to end on the built Worker: a staff member creates a product with two options
 * and four variants, uploads its image, sets each variant's stock and puts it in a collection; a shopper finds it
 * in that collection and buys it; the owner ships the order with a tracking number and the buyer, a member, sees it
 * in their account; a staff member without orders.write cannot ship. Screenshots of each page at 1280 px.
 */

const { store, needsChromium } = useStore("console journey");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
// A 2×2 PNG (its bytes are what the media service checks, not the name).
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGOQ03KR03JhgFAADsYCMXgXjp8AAAAASUVORK5CYII=", "base64");

async function shoot(page: Page, name: string) {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}-1280.png`), fullPage: true });
}

describe("console journey", () => {
  it("staff create, stock and collect a product; a member buys it; the owner ships it and the member sees the tracking", {
    timeout: 240_000,
  }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const stamp = Date.now();
    const name = `Harbour Beanie ${stamp}`;
    const staff = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["catalog.write", "inventory.write"]));
    const owner = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    const member = await consoleAccount(s.w, "MEMBER");
    const buyer = await shopper(s);
    try {
      // 1. The product, with two options and four variants, each with its own stock.
      const c = staff.page;
      await c.goto(`${s.w.url}/console`);
      await shoot(c, "console-home");
      await c.goto(`${s.w.url}/console/products/new`);
      await hydrated(c);
      await c.fill("#f-product-name", name);
      await c.fill("#f-product-priceData-price", "22");
      await c.fill("#f-product-description", "Rib-knit **merino** beanie.\n\nHand wash cold, dry flat.");
      await c.check("input[name='product.stock.trackInventory']");
      await c.fill("#f-product-productOptions-0--name", "Size");
      await c.fill("#f-product-productOptions-0--choices-0--description", "Small");
      await c.fill("#f-product-productOptions-0--choices-1--description", "Large");
      await c.fill("#f-product-productOptions-1--name", "Colour");
      await c.selectOption("#f-product-productOptions-1--optionType", "color");
      await c.fill("#f-product-productOptions-1--choices-0--description", "Sand");
      await c.fill("#f-product-productOptions-1--choices-1--description", "Navy");
      await expect.poll(() => c.locator(".editor-variants tbody tr").count()).toBe(4);
      for (const [i, qty] of ["4", "4", "4", "1"].entries()) await c.locator(`#f-product-variants-${i}--stock-quantity`).fill(qty);
      await Promise.all([c.waitForURL(/\/console\/products\/[^/]+\?saved=1$/), c.getByRole("button", { name: "Create product" }).click()]);
      const productId = new URL(c.url()).pathname.split("/").pop()!;
      const slug = (await s.w.db.prepare("SELECT slug FROM products WHERE id = ?").bind(productId).first<{ slug: string }>())!.slug;

      // 2. Its image, uploaded to R2 through the Worker.
      await Promise.all([c.waitForURL(/\/media$/), c.getByRole("link", { name: "Add images →" }).click()]);
      await hydrated(c);
      await c.setInputFiles("#media-file", { name: "beanie.png", mimeType: "image/png", buffer: PNG });
      await c.click("button:has-text('Upload')");
      await expect
        .poll(async () => (await s.w.db.prepare("SELECT media FROM products WHERE id = ?").bind(productId).first<{ media: string }>())!.media, {
          timeout: 15_000,
        })
        .toMatch(/\/media\/[0-9a-f]{64}\.png/);

      // 3. Into a new collection, through the collection's product picker.
      await c.goto(`${s.w.url}/console/collections/new`);
      await hydrated(c);
      await c.fill("#f-name", `Winter ${stamp}`);
      await c.fill("#f-slug", `winter-${stamp}`);
      await Promise.all([
        c.waitForURL((u) => /^\/console\/collections\/[0-9a-f-]{36}$/.test(u.pathname)),
        c.getByRole("button", { name: "Create collection" }).click(),
      ]);
      await hydrated(c);
      await c.fill("#picker-find", name);
      await Promise.all([c.waitForURL((u) => u.searchParams.get("find") === name), c.getByRole("button", { name: "Find", exact: true }).click()]);
      await c.getByRole("button", { name: `Add ${name}`, exact: true }).click();
      await expect
        .poll(
          async () =>
            (await s.w.db.prepare("SELECT COUNT(*) AS n FROM collection_products WHERE product_id = ?").bind(productId).first<{ n: number }>())!.n,
        )
        .toBe(1);
      expect(unexpected(staff.problems)).toEqual([]);

      // 4. A member finds it in the collection, picks Large / Navy (the last one) and buys it.
      const { page } = buyer;
      await page.goto(`${s.w.url}/login`);
      await page.fill("#email", member.email);
      await page.fill("#password", member.password);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Log in" }).click()]);
      await page.goto(`${s.w.url}/collections/winter-${stamp}`);
      await expect.poll(() => page.locator(".product-grid .card-title").allTextContents()).toEqual([name]);
      await expect(page.locator(".product-grid .card img").first().getAttribute("src")).resolves.toMatch(/\/media\/[0-9a-f]{64}\.png/);
      await Promise.all([page.waitForURL(`**/products/${slug}`), page.locator(".product-grid .card a").first().click()]);
      await hydrated(page);
      await expect.poll(() => page.locator("strong", { hasText: "merino" }).count()).toBe(1);
      // The choices are radio groups (drawn as swatches and buttons): pick with the keyboard, as a shopper can.
      for (const [choice, param] of [
        ["Large", /Size=Large/],
        ["Navy", /Colour=Navy/],
      ] as const) {
        await page.getByRole("radio", { name: choice }).focus();
        await page.keyboard.press("Space");
        await page.waitForURL(param);
      }
      await expect.poll(() => page.locator(".stock").textContent()).toMatch(/In stock|Only 1 left/);
      await page.getByRole("button", { name: "Add to cart" }).click();
      await expect
        .poll(() =>
          s.w.db
            .prepare("SELECT COUNT(*) AS n FROM cart_line_items WHERE catalog_item_id = ?")
            .bind(productId)
            .first<{ n: number }>()
            .then((r) => r!.n),
        )
        .toBe(1);
      const number = await checkOutByCard(page, s, member.email);
      const navy = await s.w.db
        .prepare("SELECT quantity FROM variants WHERE product_id = ? AND choices LIKE '%Large%' AND choices LIKE '%Navy%'")
        .bind(productId)
        .first<{ quantity: number }>();
      expect(navy!.quantity).toBe(0);

      // 5. A staff member without orders.write cannot ship it.
      const orderId = (await s.w.db.prepare("SELECT id FROM orders WHERE number = ?").bind(Number(number)).first<{ id: string }>())!.id;
      const clerk = await consoleCookie(s.w, await consoleAccount(s.w, "STAFF", ["catalog.write"]));
      const lineId = (await s.w.db.prepare("SELECT id FROM order_line_items WHERE order_id = ?").bind(orderId).first<{ id: string }>())!.id;
      const refused = await postConsoleForm(s.w, clerk, `/console/orders/${orderId}`, {
        intent: "fulfil",
        "lineItems[0].id": lineId,
        "lineItems[0].quantity": "1",
        "trackingInfo.trackingNumber": "NOPE",
      });
      expect(refused.status).toBe(403);
      expect((await s.w.db.prepare("SELECT fulfillment_status AS f FROM orders WHERE id = ?").bind(orderId).first<{ f: string }>())!.f).toBe(
        "NOT_FULFILLED",
      );

      // 6. The owner ships it with a tracking number; the member sees it in their account.
      const o = owner.page;
      await o.goto(`${s.w.url}/console/orders/${orderId}`);
      await hydrated(o);
      await o.fill("#f-trackingInfo-shippingProvider", "Royal Mail");
      await o.fill("#f-trackingInfo-trackingNumber", `RM${stamp}GB`);
      await o.getByRole("button", { name: "Mark as shipped" }).click();
      await expect.poll(() => o.locator("[role=status]").textContent()).toContain(`Shipped, with tracking number RM${stamp}GB.`);
      expect(unexpected(owner.problems)).toEqual([]);
      await page.goto(`${s.w.url}/account/orders`);
      await page
        .getByRole("link", { name: new RegExp(number) })
        .first()
        .click();
      await expect.poll(() => page.locator(".order-shipments").textContent()).toContain(`RM${stamp}GB`);

      // Every console page the journey used, checked by axe once more in its final state.
      for (const p of [`/console/products/${productId}`, `/console/products/${productId}/media`, `/console/inventory/${productId}`]) {
        await c.goto(`${s.w.url}${p}`);
        await hydrated(c);
        await expectAccessible(c, p);
      }
      await shoot(c, "console-inventory-item");
    } finally {
      await buyer.context.close();
      await staff.context.close();
      await owner.context.close();
    }
  });
});
