import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, jsonCall, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, uniqueEmail, useStore } from "./commerce-fixtures";
import type { RunningWorker } from "./worker";

/**
 * The console's search, in Chromium: from the products page a merchant presses Ctrl+K, types an order number and
 * Enter opens that order; without JavaScript the header's search box finds a customer by email on the search page.
 */

const { store, needsChromium } = useStore("console search");

/** A visitor's placed order of one plain item for `email` (left unpaid, as an offline order is): its id and number. */
async function placedOrder(w: RunningWorker, productId: string, email: string) {
  const { body: token } = await jsonCall(w, "POST", "/oauth2/token", { grantType: "anonymous", clientId: "storefront" });
  const auth = token.access_token as string;
  const line = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: productId }, quantity: 1 };
  expect((await jsonCall(w, "POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, auth)).status).toBe(200);
  const { body: co } = await jsonCall(w, "POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, auth);
  const address = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };
  const contact = { firstName: "Ada", lastName: "Lovelace" };
  const patch = { checkout: { buyerInfo: { email }, shippingInfo: { shippingDestination: { address, contactDetails: contact } } } };
  expect((await jsonCall(w, "PATCH", `/ecom/v1/checkouts/${co.checkoutId}`, patch, auth)).status).toBe(200);
  const placed = await jsonCall(w, "POST", `/ecom/v1/checkouts/${co.checkoutId}/create-order`, {}, auth);
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  const row = await w.db.prepare("SELECT number FROM orders WHERE id = ?").bind(placed.body.orderId).first<{ number: number }>();
  return { id: placed.body.orderId as string, number: Number(row?.number) };
}

describe("console search", () => {
  it("in Chromium: Ctrl+K on the products page, an order number, Enter opens the order", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const email = uniqueEmail("ada");
    const order = await placedOrder(s.w, s.plain.id, email);
    const account = await consoleAccount(s.w, "STAFF");
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, account);
    try {
      await page.goto(`${s.w.url}/console/products`);
      await hydrated(page);
      await page.keyboard.press("Control+k");
      const box = page.getByRole("combobox", { name: "Search the console" });
      await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.type(String(order.number));
      const option = page.getByRole("option", { name: new RegExp(`Order #${order.number}\\b`) });
      await option.waitFor();
      expect(await option.getAttribute("aria-selected")).toBe("true");
      expect(await option.textContent()).toContain(email);
      await expectAccessible(page, "search results in the header");
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === `/console/orders/${order.id}`);
      await expect.poll(() => page.locator("h1").textContent()).toContain(`#${order.number}`);
      expect(await page.getByRole("listbox", { name: "Search results" }).isVisible()).toBe(false);

      // The search page, grouped by kind, passes axe as well.
      await page.goto(`${s.w.url}/console/search?${new URLSearchParams({ q: email })}`);
      await page
        .getByRole("region", { name: "Orders" })
        .getByRole("link", { name: `Order #${order.number}` })
        .waitFor();
      await expectAccessible(page, "search page");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("in Chromium without JavaScript: the header's search finds a customer by email", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const email = uniqueEmail("grace");
    await placedOrder(s.w, s.plain.id, email);
    const account = await consoleAccount(s.w, "STAFF");
    const { context, page } = await consoleBrowser(s.browser, s.w, account, { javaScriptEnabled: false });
    try {
      await page.getByRole("combobox", { name: "Search the console" }).fill(email);
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname === "/console/search" && u.searchParams.get("q") === email);
      const customers = page.getByRole("region", { name: "Customers" });
      await customers.getByRole("link", { name: "Ada Lovelace" }).click();
      await page.waitForURL((u) => u.pathname === `/console/customers/${encodeURIComponent(email)}`);
      await expect.poll(() => page.locator("h1").textContent()).toBe("Ada Lovelace");
    } finally {
      await context.close();
    }
  });
});
