import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { checkOutByCard as checkOut, COUPON, hydrated, lastEmail, shopper, uniqueEmail, useStore } from "./commerce-fixtures";

/**
 * The whole journey through the shop's own pages in real Chromium: find a product by search and by collection
 * filters, pick a variant on the product page, add it to the cart, apply a coupon, check out by card and see the
 * confirmation; and a registered member does the same and finds the order under ORDERS.
 */

const { store, needsChromium } = useStore("journey");
const checkOutByCard = (page: Page, email: string) => checkOut(page, store(), email);

/** On a product page: pick choices by their labels, add to cart, and wait for the in-place confirmation. */
async function pickAndAdd(page: Page, choices: Record<string, string>) {
  for (const [name, choice] of Object.entries(choices)) {
    await page.click(`label[for="opt-${name}-${choice}"]`);
    await page.waitForURL((u) => u.searchParams.get(name) === choice);
  }
  await page.getByRole("button", { name: "Add to cart" }).click();
  await expect.poll(() => page.locator(".add-result").textContent()).toContain("Added to your cart.");
}

describe("the shopping journey", () => {
  it("a visitor finds a tee by search and by collection filters, picks a variant, adds it, applies a coupon and pays by card", {
    timeout: 120_000,
  }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page } = await shopper(s);
    try {
      // Search.
      await page.goto(`${s.w.url}/search?q=organic%20tee`);
      await hydrated(page);
      await expect(page.locator(".card-title", { hasText: s.tee.name }).count()).resolves.toBeGreaterThan(0);

      // Collection filters: T-shirts in Navy.
      await page.goto(`${s.w.url}/collections/t-shirts`);
      await hydrated(page);
      await page.locator("fieldset.facet", { hasText: "Color" }).locator('input[value="Navy"]').check();
      await page.waitForURL((u) => u.searchParams.getAll("opt.Color").includes("Navy"));
      await expect.poll(() => page.locator(".card-title", { hasText: s.tee.name }).count()).toBe(1);
      await page.locator(".card-link", { hasText: s.tee.name }).click();
      await page.waitForURL(`**/products/${s.tee.slug}**`);
      await hydrated(page);

      // The variant in the URL, then add to cart in place.
      await pickAndAdd(page, { Color: "Forest", Size: "L" });
      await expect.poll(() => page.locator(".cart-link").textContent()).toContain("1");

      // Cart: the variant is there; the coupon applies.
      await page.goto(`${s.w.url}/cart`);
      await hydrated(page);
      const line = page.locator(".cart-line", { hasText: s.tee.name });
      await expect(line.locator(".cart-line-options").textContent()).resolves.toMatch(/Forest.*L/);
      await page.fill("#f-couponCode", COUPON);
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator(".coupon").textContent()).toContain("you save");

      const number = await checkOutByCard(page, uniqueEmail("journey"));
      expect(number).toMatch(/^\d+$/);
      await expect(page.locator(".summary-lines").textContent()).resolves.toContain(s.tee.name);
      await expect(page.locator(".order-details").textContent()).resolves.toContain(`Discount (${COUPON})`);
    } finally {
      await context.close();
    }
  });

  it("a registered member checks out and finds the order under ORDERS", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page } = await shopper(s);
    const email = uniqueEmail("journey-member");
    try {
      await page.goto(`${s.w.url}/register`);
      await hydrated(page);
      await page.fill("#firstName", "Jo");
      await page.fill("#email", email);
      await page.fill("#password", "journey password 1");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.waitForSelector("#code");
      await page.fill("#code", (await lastEmail(s, email, "verification-code")).match(/\b(\d{6})\b/)![1]);
      await Promise.all([
        page.waitForURL((u) => u.pathname !== "/verify" && u.pathname !== "/register"),
        page.getByRole("button", { name: "Confirm email" }).click(),
      ]);

      await page.goto(`${s.w.url}/products/${s.tee.slug}`);
      await hydrated(page);
      await pickAndAdd(page, { Color: "White", Size: "S" });
      // The member's email comes filled in; the address is typed once.
      await page.goto(`${s.w.url}/checkout`);
      await hydrated(page);
      await expect(page.locator("#f-email").inputValue()).resolves.toBe(email);
      const placed = await checkOutByCard(page, email);
      await page.goto(`${s.w.url}/account/orders`);
      await expect.poll(() => page.locator(".order-card", { hasText: `Order ${placed}` }).count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});
