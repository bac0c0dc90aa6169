import { describe, expect, it } from "vitest";
import { addToCart, COUPON, expectAccessible, fillContact, hydrated, screenshots, shopper, uniqueEmail, useStore } from "./commerce-fixtures";

/**
 * The cart and checkout pages on the built Worker in real Chromium: a shopper adds items (by posting a product
 * form, as a product page does), changes quantities, removes a line, applies and removes a coupon, estimates
 * shipping, and checks out with each payment option — with JavaScript on (updates in place) and off (plain forms).
 */

const { store, needsChromium } = useStore("cart and checkout");

const orderOf = (id: string) =>
  store()
    .w.db.prepare("SELECT number, payment_status AS paymentStatus, total, owner_kind AS ownerKind FROM orders WHERE id = ?")
    .bind(id)
    .first<{ number: number; paymentStatus: string; total: number; ownerKind: string }>();

describe("cart and checkout with JavaScript", () => {
  it("adds, changes, removes and discounts items in place, then pays by card after a declined card", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await shopper(s);
    try {
      // A product page posts its form to /cart and gets sent back with ?added=1.
      await page.goto(`${s.w.url}/cart`);
      await expect(page.locator("h1").textContent()).resolves.toBe("Your cart");
      await expect(page.getByText("Your cart is empty.").count()).resolves.toBe(1);
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "Navy", "option.Size": "M", quantity: "2", returnTo: "/cart" });
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/cart?added=1");
      await addToCart(page, s, { productId: s.plain.id, quantity: "1" });
      expect(new URL(page.url()).pathname).toBe("/cart");
      await hydrated(page);

      const tee = page.locator(".cart-line", { hasText: s.tee.name });
      await expect(tee.locator(".cart-line-options").textContent()).resolves.toMatch(/Color:?\s*Navy.*Size:?\s*M/);
      await expect(tee.locator("input[name=quantity]").inputValue()).resolves.toBe("2");
      await expect(tee.locator(".cart-line-total").textContent()).resolves.toContain("$56.00");
      await expect(tee.locator("img").getAttribute("alt")).resolves.toBeTruthy();
      await expectAccessible(page, "cart");
      await screenshots(page, "cart");

      // Everything below happens in place: the marker set on this document survives.
      await page.evaluate(() => ((window as unknown as { inPlace: boolean }).inPlace = true));

      // Quantity 2 → 3 through the Update button: line total and subtotal re-priced by the server.
      await tee.locator("input[name=quantity]").fill("3");
      await tee.getByRole("button", { name: /Update/ }).click();
      await expect.poll(() => tee.locator(".cart-line-total").textContent()).toContain("$84.00");

      // More than the stock of a variant: the error sits by that line's quantity field.
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "White", "option.Size": "XL", quantity: "1", returnTo: "/cart" });
      await hydrated(page);
      await page.evaluate(() => ((window as unknown as { inPlace: boolean }).inPlace = true));
      const white = page.locator(".cart-line", { hasText: "White" });
      await white.locator("input[name=quantity]").fill("5");
      await white.getByRole("button", { name: /Update/ }).click();
      const qtyError = white.locator(".field-error");
      await expect.poll(() => qtyError.textContent()).toMatch(/more than the 3 .* in stock/);
      await expect(white.locator("input[name=quantity]").getAttribute("aria-invalid")).resolves.toBe("true");
      const describedBy = (await white.locator("input[name=quantity]").getAttribute("aria-describedby"))!;
      expect(describedBy).toContain((await qtyError.getAttribute("id"))!);

      // Remove that line: it goes at once.
      await white.getByRole("button", { name: /^Remove/ }).click();
      await expect.poll(() => page.locator(".cart-line", { hasText: "White" }).count()).toBe(0);

      // A coupon that does not exist is refused next to the field; the real one takes 10% off.
      await page.fill("#f-couponCode", "NOPE");
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator(".coupon-form .field-error").textContent()).toContain("no coupon NOPE");
      await expect(page.locator("#f-couponCode").getAttribute("aria-invalid")).resolves.toBe("true");
      await page.fill("#f-couponCode", COUPON.toLowerCase());
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator(".coupon").textContent()).toContain(`you save`);
      const summary = page.locator(".summary");
      await expect(summary.textContent()).resolves.toContain(`Coupon ${COUPON.toLowerCase()}`);
      await page.getByRole("button", { name: /Remove coupon/ }).click();
      await expect.poll(() => page.locator(".coupon-form").count()).toBe(1);
      await expect.poll(() => summary.textContent()).not.toContain("Coupon");
      await page.fill("#f-couponCode", COUPON);
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator(".coupon").textContent()).toContain(COUPON);

      // Shipping and tax for a country: the US has free standard shipping over $75.
      await page.selectOption("#f-country", "US");
      await page.getByRole("button", { name: "Estimate" }).click();
      await expect.poll(() => summary.textContent()).toContain("Standard delivery");
      await expect(page.evaluate(() => (window as unknown as { inPlace?: boolean }).inPlace)).resolves.toBe(true);

      // Checkout: contact and address, delivery (pickup), then a declined card, then a good one.
      await page.getByRole("link", { name: "Check out" }).click();
      await page.waitForURL("**/checkout");
      await hydrated(page);
      await expectAccessible(page, "checkout (contact step)");
      await screenshots(page, "checkout-contact");
      const email = uniqueEmail("card");
      // A bad email is refused next to the field, and what was typed stays.
      await fillContact(page, "not-an-email");
      await page.locator("#f-email").evaluate((el: HTMLInputElement) => (el.type = "text"));
      await page.getByRole("button", { name: "Continue to delivery" }).click();
      await expect.poll(() => page.locator("#f-email-error").textContent()).toContain("valid email");
      await expect(page.locator("#f-ship-city").inputValue()).resolves.toBe("Seattle");
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("error-summary");
      await page.fill("#f-email", email);
      await page.getByRole("button", { name: "Continue to delivery" }).click();
      await page.waitForURL("**/checkout?step=delivery");
      await expect.poll(() => page.locator(".pick", { hasText: "Pick up at the Fernhill shop" }).count()).toBe(1);
      await expectAccessible(page, "checkout (delivery step)");
      await page.check("#ship-pickup");
      await page.getByRole("button", { name: "Continue to payment" }).click();
      await page.waitForURL("**/checkout?step=payment");
      await expect(page.locator("#step-delivery-title").locator("..").locator("..").textContent()).resolves.toContain("Pick up at the Fernhill shop");
      await expectAccessible(page, "checkout (payment step)");
      await screenshots(page, "checkout-payment");

      await page.check("#pay-card");
      await page.fill("#f-cardNumber", "4000 0000 0000 0002");
      await page.fill("#f-cardExpiry", "12/39");
      await page.fill("#f-cardCvc", "123");
      await page.getByRole("button", { name: /Place order/ }).click();
      await expect.poll(() => page.locator("#f-cardNumber-error").textContent()).toContain("declined");
      await expect(page.locator("#f-cardNumber").getAttribute("aria-invalid")).resolves.toBe("true");
      await expect(page.locator("#f-cardNumber").inputValue()).resolves.toBe("4000 0000 0000 0002");
      await expect(page.locator("#f-cardExpiry").inputValue()).resolves.toBe("12/39");
      await screenshots(page, "checkout-declined");
      expect(await s.w.db.prepare("SELECT count(*) AS n FROM orders WHERE buyer_email = ?").bind(email).first<{ n: number }>()).toEqual({ n: 0 });

      await page.fill("#f-cardNumber", "4242 4242 4242 4242");
      await page.fill("#f-cardCvc", "123");
      await page.getByRole("button", { name: /Place order/ }).click();
      await page.waitForURL(/\/orders\/[^/]+\/confirmation$/);
      const orderId = new URL(page.url()).pathname.split("/")[2];
      const order = (await orderOf(orderId))!;
      await expect(page.locator(".confirmation-head .order-number").textContent()).resolves.toBe(String(order.number));
      expect(order.paymentStatus).toBe("PAID");
      await expect(page.locator(".order-facts").textContent()).resolves.toContain("Paid");
      await expect(page.locator(".summary-lines").textContent()).resolves.toContain(s.tee.name);
      await expect(page.locator(".order-details").textContent()).resolves.toContain(`Discount (${COUPON})`);
      await expectAccessible(page, "order confirmation");
      await screenshots(page, "order-confirmation");

      // The cart is done: it is empty now.
      await page.goto(`${s.w.url}/cart`);
      await expect(page.getByText("Your cart is empty.").count()).resolves.toBe(1);

      // Another shopper cannot see this order.
      const other = await shopper(s);
      const res = await other.page.goto(`${s.w.url}/orders/${orderId}/confirmation`);
      expect(res!.status()).toBe(404);
      await other.context.close();
      // Refused input answers 400 on purpose (bad coupon, too many, declined card): the browser logs those loads.
      expect(problems.filter((p) => !p.includes("status of 400"))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("cart and checkout without JavaScript", () => {
  it("work as plain forms: add, quantity, coupon, remove, estimate, and an offline-paid order", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page } = await shopper(s, { javaScriptEnabled: false });
    try {
      await page.goto(`${s.w.url}/cart`);
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "Forest", "option.Size": "L", quantity: "1", returnTo: "/cart" });
      await addToCart(page, s, { productId: s.plain.id, quantity: "2" });
      const tee = page.locator(".cart-line", { hasText: s.tee.name });
      await expect(tee.locator(".cart-line-total").textContent()).resolves.toContain("$28.00");

      // Quantity: a POST that redirects back to the cart.
      await tee.locator("input[name=quantity]").fill("2");
      await Promise.all([page.waitForNavigation(), tee.getByRole("button", { name: /Update/ }).click()]);
      expect(new URL(page.url()).pathname).toBe("/cart");
      await expect(tee.locator(".cart-line-total").textContent()).resolves.toContain("$56.00");

      // A sold-out variant cannot be added; the cart says why.
      const soldOut = await page.goto(`${s.w.url}/cart`);
      expect(soldOut!.status()).toBe(200);
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "Forest", "option.Size": "XS", quantity: "1", returnTo: "/cart" });
      await expect(page.locator(".form-error").textContent()).resolves.toMatch(/not added.*out of stock/s);

      // Coupon: a wrong one is refused by the field, the right one applies; then it is removed and applied again.
      await page.goto(`${s.w.url}/cart`);
      await page.fill("#f-couponCode", "WRONG");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Apply" }).click()]);
      await expect(page.locator(".coupon-form .field-error").textContent()).resolves.toContain("no coupon WRONG");
      await expect(page.locator("#f-couponCode").inputValue()).resolves.toBe("WRONG");
      await page.fill("#f-couponCode", COUPON);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Apply" }).click()]);
      await expect(page.locator(".coupon").textContent()).resolves.toContain(COUPON);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: /Remove coupon/ }).click()]);
      await expect(page.locator(".coupon-form").count()).resolves.toBe(1);

      // Estimate for the US, then remove the plain item.
      await page.selectOption("#f-country", "US");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Estimate" }).click()]);
      await expect(page.locator(".summary").textContent()).resolves.toContain("Standard delivery");
      const plain = page.locator(".cart-line", { hasText: s.plain.name });
      await Promise.all([page.waitForNavigation(), plain.getByRole("button", { name: /^Remove/ }).click()]);
      await expect(page.locator(".cart-line", { hasText: s.plain.name }).count()).resolves.toBe(0);

      // Checkout, every step a plain form; pay offline.
      await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Check out" }).click()]);
      const email = uniqueEmail("offline");
      // An email the browser lets through but the shop cannot use: the page comes back with the error by the
      // field, the focus-free summary on top, and everything typed kept.
      await fillContact(page, "robin@localhost", { city: "Tacoma" });
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Continue to delivery" }).click()]);
      await expect(page.locator("#f-email-error").textContent()).resolves.toContain("valid email");
      await expect(page.locator("#error-summary a[href='#f-email']").count()).resolves.toBe(1);
      await expect(page.locator("#f-email").inputValue()).resolves.toBe("robin@localhost");
      await expect(page.locator("#f-ship-city").inputValue()).resolves.toBe("Tacoma");
      await expect(page.locator("#f-ship-country").inputValue()).resolves.toBe("US");
      await page.fill("#f-email", email);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Continue to delivery" }).click()]);
      expect(new URL(page.url()).search).toBe("?step=delivery");
      await page.check("#ship-express");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Continue to payment" }).click()]);
      await expect(page.locator(".summary").textContent()).resolves.toContain("$14.95");

      // Back to the cart for one more: the checkout follows the cart and keeps everything entered so far.
      await page.goto(`${s.w.url}/cart`);
      const again = page.locator(".cart-line", { hasText: s.tee.name });
      await again.locator("input[name=quantity]").fill("3");
      await Promise.all([page.waitForNavigation(), again.getByRole("button", { name: /Update/ }).click()]);
      await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Check out" }).click()]);
      await expect(page.locator("#f-cardNumber").count()).resolves.toBe(1);
      await expect(page.locator("section[aria-labelledby=step-contact-title]").textContent()).resolves.toContain(email);
      await expect(page.locator("section[aria-labelledby=step-delivery-title]").textContent()).resolves.toContain("Express delivery — $14.95");
      await expect(page.locator(".summary-lines").textContent()).resolves.toContain("$84.00");
      await page.check("#pay-offline");
      // The card fields hide for an offline payment, without any script.
      await expect(page.locator("#f-cardNumber").isVisible()).resolves.toBe(false);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: /Place order/ }).click()]);
      expect(page.url()).toMatch(/\/orders\/[^/]+\/confirmation$/);
      const orderId = new URL(page.url()).pathname.split("/")[2];
      const order = (await orderOf(orderId))!;
      await expect(page.locator(".confirmation-head .order-number").textContent()).resolves.toBe(String(order.number));
      expect(order.paymentStatus).toBe("NOT_PAID");
      await expect(page.locator(".confirmation-head").textContent()).resolves.toContain("pay offline");
      await expect(page.locator(".order-facts").textContent()).resolves.toContain("Express delivery");
    } finally {
      await context.close();
    }
  });
});

describe("stock that runs out during checkout", () => {
  it("is reported at place order by the item, with the way back to the cart, and nothing is ordered", { timeout: 90_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page } = await shopper(s);
    const email = uniqueEmail("stock");
    try {
      await page.goto(`${s.w.url}/cart`);
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "White", "option.Size": "XL", quantity: "3", returnTo: "/cart" });
      await page.goto(`${s.w.url}/checkout`);
      await hydrated(page);
      await fillContact(page, email);
      await page.getByRole("button", { name: "Continue to delivery" }).click();
      await page.waitForURL("**/checkout?step=delivery");
      await page.getByRole("button", { name: "Continue to payment" }).click();
      await page.waitForURL("**/checkout?step=payment");

      // Another buyer takes two of the three while this shopper is paying.
      await s.w.db
        .prepare(
          "UPDATE variants SET quantity = 1 WHERE product_id = ? AND json_extract(choices, '$.Color') = 'White' AND json_extract(choices, '$.Size') = 'XL'",
        )
        .bind(s.tee.id)
        .run();
      await page.check("#pay-offline");
      await page.getByRole("button", { name: /Place order/ }).click();
      await expect.poll(() => page.locator("#error-summary").textContent()).toContain(`Only 1 of ${s.tee.name} left`);
      await expect(page.getByRole("link", { name: "Update your cart" }).count()).resolves.toBe(1);
      expect(await s.w.db.prepare("SELECT count(*) AS n FROM orders WHERE buyer_email = ?").bind(email).first<{ n: number }>()).toEqual({ n: 0 });

      // The cart offers the fix: take the one that is left.
      await page.getByRole("link", { name: "Update your cart" }).click();
      await page.waitForURL("**/cart");
      const line = page.locator(".cart-line", { hasText: "White" });
      await expect.poll(() => line.locator(".line-warning").textContent()).toContain("Only 1");
      await line.getByRole("button", { name: "Change to 1" }).click();
      await expect.poll(() => line.locator(".line-warning").count()).toBe(0);
      await expect(line.locator("input[name=quantity]").inputValue()).resolves.toBe("1");
    } finally {
      await context.close();
    }
  });
});
