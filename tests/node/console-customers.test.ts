import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, uniqueEmail, useStore } from "./commerce-fixtures";
import { OWNER_KEY, type RunningWorker } from "./worker";

/**
 * Customers and order notes in the console, in Chromium: a merchant finds a buyer of two orders, one partly refunded,
 * and sees the lifetime spend net of the refund, the average order and both orders; adds a note on the customer and
 * one on an order, each shown with its author; and exports the customers as CSV.
 */

const { store, needsChromium } = useStore("console customers");
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

async function call(w: RunningWorker, method: string, p: string, body: unknown, authorization?: string) {
  const res = await w.fetch(p, {
    method,
    headers: { "content-type": "application/json", "cf-connecting-ip": "198.18.1.9", ...(authorization ? { authorization } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A visitor's order of `quantity` plain items for `email`, marked paid by the merchant; its total in cents. */
async function paidOrder(w: RunningWorker, productId: string, email: string, quantity: number) {
  const { body: token } = await call(w, "POST", "/oauth2/token", { grantType: "anonymous", clientId: "storefront" });
  const auth = token.access_token as string;
  const line = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: productId }, quantity };
  expect((await call(w, "POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, auth)).status).toBe(200);
  const { body: co } = await call(w, "POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, auth);
  const contact = { firstName: "Mary", lastName: "Somerville" };
  const patch = { checkout: { buyerInfo: { email }, shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: contact } } } };
  expect((await call(w, "PATCH", `/ecom/v1/checkouts/${co.checkoutId}`, patch, auth)).status).toBe(200);
  const placed = await call(w, "POST", `/ecom/v1/checkouts/${co.checkoutId}/create-order`, {}, auth);
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  const paid = await call(w, "POST", `/ecom/v1/orders/${placed.body.orderId}/mark-as-paid`, {}, OWNER_KEY);
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return { id: placed.body.orderId as string, cents: Math.round(Number(paid.body.order.priceSummary.total.amount) * 100) };
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

describe("console customers", () => {
  it("in Chromium: a customer page shows the lifetime spend after a partial refund, and notes keep their author", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const email = uniqueEmail("mary");
    const first = await paidOrder(s.w, s.plain.id, email, 2);
    const second = await paidOrder(s.w, s.plain.id, email, 1);
    const refund = await call(s.w, "POST", `/ecom/v1/orders/${first.id}/refunds`, { amount: "3.00" }, OWNER_KEY);
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    const spent = first.cents + second.cents - 300;

    const account = await consoleAccount(s.w, "STAFF", ["orders.write"]);
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, account);
    try {
      await hydrated(page);
      await page.getByRole("link", { name: "Customers", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/console/customers");
      await page.fill("#customers-q", email);
      await page.getByRole("button", { name: "Show customers" }).click();
      const table = page.getByRole("table", { name: "Customers matching the search" });
      await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
      expect(await table.locator("tbody tr").textContent()).toContain(dollars(spent));
      await table.getByRole("link", { name: "Mary Somerville" }).click();
      await page.waitForURL((u) => u.pathname === `/console/customers/${encodeURIComponent(email)}`);

      await expect.poll(() => page.locator("h1").textContent()).toBe("Mary Somerville");
      expect(await page.locator("#customer-spent").textContent()).toBe(dollars(spent));
      expect(await page.locator("#customer-refunded").textContent()).toBe("$3.00");
      expect(await page.locator("#customer-orders").textContent()).toBe("2");
      expect(await page.locator("#customer-average").textContent()).toBe(dollars(Math.round(spent / 2)));
      const orders = page.getByRole("table", { name: "The customer’s orders" });
      expect(await orders.locator("tbody tr").count()).toBe(2);
      expect(await page.locator("#customer-consent").textContent()).toBe("Receives marketing emails");
      expect(await page.locator(".customer-addresses").textContent()).toContain("1 Main St, New York 10001, US-NY, US");

      await page.getByRole("textbox", { name: "Add a note" }).fill("Prefers deliveries after 5pm");
      await page.getByRole("button", { name: "Add note" }).click();
      await expect.poll(() => page.locator(".customer-notes").textContent()).toContain("Prefers deliveries after 5pm");
      expect(await page.locator(".customer-notes").textContent()).toContain(account.email);
      await expectAccessible(page, "customer page");

      // The older order's own note, in its history (the list is newest first: the partly refunded one).
      await orders
        .getByRole("link", { name: /^#\d+$/ })
        .last()
        .click();
      await page.waitForURL((u) => u.pathname.startsWith("/console/orders/"));
      await page.getByLabel("Note for the team").fill("Leave at the back door");
      await page.getByRole("button", { name: "Add note" }).click();
      await expect.poll(() => page.locator(".order-activities").textContent()).toContain(`Note by ${account.email}: Leave at the back door`);

      // Its printable invoice and packing slip: the document alone on paper.
      await page.getByRole("link", { name: "Invoice", exact: true }).click();
      await expect.poll(() => page.locator("h1").textContent()).toMatch(/^Invoice #\d+$/);
      expect(await page.locator(".print-totals tr.total").textContent()).toContain(dollars(first.cents));
      expect(await page.locator(".print-addresses").textContent()).toContain("Mary Somerville");
      await page.emulateMedia({ media: "print" });
      expect(await page.locator(".console-header").isVisible()).toBe(false);
      expect(await page.locator(".print-lines").isVisible()).toBe(true);
      await page.emulateMedia({ media: "screen" });
      await page.goto(`${s.w.url}/console/orders/${first.id}/print/packing-slip`);
      expect(await page.locator("h1").textContent()).toMatch(/^Packing slip #\d+$/);
      expect(await page.locator(".print-lines tbody tr").count()).toBe(1);
      expect(await page.locator(".print-totals").count()).toBe(0);

      const csv = await page.request.get(`${s.w.url}/console/customers/export.csv?q=${encodeURIComponent(email)}`);
      expect(csv.status()).toBe(200);
      const lines = (await csv.text()).trim().split("\r\n");
      expect(lines[1]).toBe(
        `${email},Mary Somerville,guest,2,${(spent / 100).toFixed(2)},3.00,${(Math.round(spent / 2) / 100).toFixed(2)},${lines[1].split(",")[7]},${lines[1].split(",")[8]},USD`,
      );
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
