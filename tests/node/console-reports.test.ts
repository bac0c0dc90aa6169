import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, jsonCall, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, uniqueEmail, useStore } from "./commerce-fixtures";
import { OWNER_KEY, type RunningWorker } from "./worker";

/**
 * Reports in the console, in Chromium: a merchant picks today as the period and the sales-by-product report, and
 * reads the units, gross, refunds and net of two paid orders (one partly refunded by a line) while an unpaid order
 * stays out; the totals row says the same, the CSV download keeps the period and holds the same figures, and the
 * page works without JavaScript.
 */

const { store, needsChromium } = useStore("console reports");
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

/** A visitor's placed order of `quantity` of a product for `email`, marked paid by the merchant when `paid`. */
async function placed(w: RunningWorker, productId: string, email: string, quantity: number, paid: boolean) {
  const { body: token } = await jsonCall(w, "POST", "/oauth2/token", { grantType: "anonymous", clientId: "storefront" });
  const auth = token.access_token as string;
  const line = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: productId }, quantity };
  expect((await jsonCall(w, "POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, auth)).status).toBe(200);
  const { body: co } = await jsonCall(w, "POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, auth);
  const contact = { firstName: "Emmy", lastName: "Noether" };
  const patch = { checkout: { buyerInfo: { email }, shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: contact } } } };
  expect((await jsonCall(w, "PATCH", `/ecom/v1/checkouts/${co.checkoutId}`, patch, auth)).status).toBe(200);
  const order = await jsonCall(w, "POST", `/ecom/v1/checkouts/${co.checkoutId}/create-order`, {}, auth);
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  if (!paid) return null;
  const marked = await jsonCall(w, "POST", `/ecom/v1/orders/${order.body.orderId}/mark-as-paid`, {}, OWNER_KEY);
  expect(marked.status, JSON.stringify(marked.body)).toBe(200);
  return marked.body.order as { id: string; lineItems: { id: string; price: { amount: string } }[] };
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const decimal = (cents: number) => (cents / 100).toFixed(2);

describe("console reports", () => {
  it("in Chromium: the product report's totals match the orders of the period, and the CSV says the same", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const first = (await placed(s.w, s.plain.id, uniqueEmail("emmy"), 2, true))!;
    await placed(s.w, s.plain.id, uniqueEmail("emmy"), 1, true);
    await placed(s.w, s.plain.id, uniqueEmail("unpaid"), 5, false);
    const refund = await jsonCall(
      s.w,
      "POST",
      `/ecom/v1/orders/${first.id}/refunds`,
      { lineItems: [{ lineItemId: first.lineItems[0].id, quantity: 1 }] },
      OWNER_KEY,
    );
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    const price = Math.round(Number(first.lineItems[0].price.amount) * 100);
    const today = new Date().toISOString().slice(0, 10);

    const account = await consoleAccount(s.w, "STAFF");
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, account);
    try {
      await hydrated(page);
      await page.getByRole("link", { name: "Reports", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/console/reports");
      await page.selectOption("#reports-report", "products");
      await page.fill("#reports-from", today);
      await page.fill("#reports-to", today);
      await page.getByRole("button", { name: "Show report" }).click();
      await page.waitForURL((u) => u.searchParams.get("from") === today);
      const table = page.getByRole("table", { name: `Sales by product, ${today} to ${today}` });
      const cells = async (row: string) =>
        (await table.locator("tbody tr", { hasText: row }).locator("th, td").allTextContents()).map((t) => t.trim());
      const figures = ["2", "3", dollars(3 * price), "1", dollars(price), dollars(2 * price)];
      await expect.poll(() => cells(s.plain.name)).toEqual([s.plain.name, ...figures]);
      expect(await cells("Total")).toEqual(["Total", ...figures]);
      await expectAccessible(page, "reports page");

      const href = await page.getByRole("link", { name: "Download CSV" }).getAttribute("href");
      expect(href).toBe(`/console/reports/export.csv?report=products&from=${today}&to=${today}`);
      const csv = await page.request.get(`${s.w.url}${href}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()["content-disposition"]).toContain(`products-${today}-to-${today}.csv`);
      const lines = (await csv.text()).trimEnd().split("\r\n");
      expect(lines[0]).toBe("name,orders,units,gross,refunded_units,refunds,net,currency");
      const csvFigures = `2,3,${decimal(3 * price)},1,${decimal(price)},${decimal(2 * price)},USD`;
      expect(lines.slice(1)).toEqual([`${s.plain.name},${csvFigures}`, `Total,${csvFigures}`]);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }

    // Without JavaScript the period form is a plain GET: the same table.
    const plain = await consoleBrowser(s.browser, s.w, account, { javaScriptEnabled: false });
    try {
      await plain.page.goto(`${s.w.url}/console/reports`);
      await plain.page.fill("#reports-from", today);
      await plain.page.fill("#reports-to", today);
      await plain.page.getByRole("button", { name: "Show report" }).click();
      await plain.page.waitForURL((u) => u.searchParams.get("from") === today);
      expect(await plain.page.locator("tbody tr", { hasText: "Total" }).textContent()).toContain(dollars(2 * price));
    } finally {
      await plain.context.close();
    }
  });
});
