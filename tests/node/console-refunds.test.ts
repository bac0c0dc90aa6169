import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, useStore } from "./commerce-fixtures";
import { OWNER_KEY, type RunningWorker } from "./worker";

/**
 * Refunds in the console, in Chromium: the merchant refunds one of two items of a paid order with restock and sees
 * the refund on the order (amount, item, status, what is left); then refunds the rest, after which the order offers
 * no shipping, no refund and no marking paid, and the API refuses to ship it too.
 */

const { store, needsChromium } = useStore("console refunds");
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

async function call(w: RunningWorker, method: string, p: string, body: unknown, authorization?: string) {
  const res = await w.fetch(p, {
    method,
    headers: { "content-type": "application/json", "cf-connecting-ip": "198.18.1.7", ...(authorization ? { authorization } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A visitor's order of two plain items, paid (marked paid by the merchant). */
async function paidOrder(w: RunningWorker, productId: string) {
  const { body: token } = await call(w, "POST", "/oauth2/token", { grantType: "anonymous", clientId: "storefront" });
  const auth = token.access_token as string;
  const line = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: productId }, quantity: 2 };
  expect((await call(w, "POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, auth)).status).toBe(200);
  const { body: co } = await call(w, "POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, auth);
  const contact = { firstName: "Mary", lastName: "Somerville" };
  const patch = {
    checkout: { buyerInfo: { email: "mary@example.test" }, shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: contact } } },
  };
  expect((await call(w, "PATCH", `/ecom/v1/checkouts/${co.checkoutId}`, patch, auth)).status).toBe(200);
  const placed = await call(w, "POST", `/ecom/v1/checkouts/${co.checkoutId}/create-order`, {}, auth);
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  const orderId = placed.body.orderId as string;
  const paid = await call(w, "POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {}, OWNER_KEY);
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return { id: orderId, number: paid.body.order.number as string, total: paid.body.order.priceSummary.total.formattedAmount as string };
}

describe("console refunds", () => {
  it("in Chromium: a merchant refunds one item, sees it on the order, then refunds the rest and the order can no longer ship", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const order = await paidOrder(s.w, s.plain.id);
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["orders.write"]));
    try {
      await page.goto(`${s.w.url}/console/orders/${order.id}`);
      await hydrated(page);
      const form = page.locator("form", { has: page.getByRole("heading", { name: "Refund", exact: true }) });
      expect(await form.locator("#refund-left").textContent()).toBe(`Left to refund: ${order.total}`);
      expect(await page.getByRole("button", { name: "Mark as shipped" }).count()).toBe(1);

      // Without the confirmation tick nothing happens, and the form says why next to the tick.
      await form.getByLabel(new RegExp(s.plain.name)).fill("1");
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      await expect.poll(() => page.locator("#refund-f-confirm-error").textContent()).toContain("Tick to confirm");
      const made = () => s.w.db.prepare("SELECT count(*) AS n FROM order_refunds WHERE order_id = ?").bind(order.id).first<{ n: number }>();
      expect(await made()).toEqual({ n: 0 });

      await form.getByLabel(new RegExp(s.plain.name)).fill("1");
      await form.getByLabel("Yes, give this money back to the buyer").check();
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      await expect.poll(() => page.locator("[role=status]").textContent()).toMatch(/^Refunded \$[\d.]+\.$/);
      const refunds = page.getByRole("table", { name: "Refunds" });
      await expect.poll(() => refunds.locator("tbody tr").count()).toBe(1);
      const row = await refunds.locator("tbody tr").textContent();
      expect(row).toContain(`1 × ${s.plain.name}`);
      expect(row).toContain("Refunded");
      expect(await page.locator("h1").textContent()).toContain("Partly refunded");
      expect(await page.locator(".order-activities").textContent()).toMatch(/Refunded \$[\d.]+ for 1 item\(s\)/);
      expect(await form.locator("#refund-left").textContent()).not.toBe(`Left to refund: ${order.total}`);
      await expectAccessible(page, "order with a refund");

      // The rest: everything left, after which nothing ships and nothing more can be refunded or marked paid.
      await form.getByLabel(/Refund everything left/).check();
      await form.getByLabel("Yes, give this money back to the buyer").check();
      await form.getByRole("button", { name: "Refund", exact: true }).click();
      await expect.poll(() => refunds.locator("tbody tr").count()).toBe(2);
      expect(await page.locator("h1").textContent()).toContain("Refunded");
      expect(await page.getByRole("heading", { name: "Refund", exact: true }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Mark as shipped" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Mark as paid" }).count()).toBe(0);
      expect(await made()).toEqual({ n: 2 });

      const ship = await call(s.w, "POST", `/ecom/v1/orders/${order.id}/fulfillments`, {}, OWNER_KEY);
      expect(ship.status).toBe(400);
      expect(ship.body.details.applicationError.code).toBe("PARTIALLY_OR_FULLY_REFUNDED");
      const emails = await s.w.db
        .prepare("SELECT subject FROM emails WHERE template = 'order-refund' AND \"to\" = 'mary@example.test'")
        .all<{ subject: string }>();
      expect(emails.results).toHaveLength(2);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
