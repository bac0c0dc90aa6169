import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleCookie, postConsoleForm } from "./console-fixtures";
import { BROWSER_UA, formBrowser, OWNER_KEY, startDemoShop, type RunningWorker } from "./worker";

/**
 * The pages around a shopper's order limits and unpaid offline orders, on the built Worker with plain form posts:
 * the checkout explains a refusal in a shopper's words (never the API's), the console sets how long an unpaid
 * offline order is held, an order the shop cancelled for want of payment says so on the shopper's page, and stored
 * tracking links that are not http(s) are never links on the shopper's or the merchant's order page.
 */

let w: RunningWorker;
let productId: string;

beforeAll(async () => {
  ({ w, productId } = await startDemoShop());
}, 60_000);

afterAll(async () => {
  await w?.dispose();
});

const CONTACT = {
  "ship.firstName": "Robin",
  "ship.lastName": "Hart",
  "ship.addressLine": "5 Harbour Road",
  "ship.city": "Seattle",
  "ship.postalCode": "98101",
  "ship.country": "US",
};

/** A shopper with a checkout filled up to the payment step; answers the browser and its visitor id. */
async function readyToPay(email: string) {
  const b = formBrowser(w);
  expect((await b.post("/cart", { intent: "add", productId, quantity: "1" })).status).toBe(302);
  expect((await b.get("/checkout")).status).toBe(200);
  expect((await b.post("/checkout", { intent: "contact", email, ...CONTACT })).status).toBe(302);
  const page = await (await b.get("/checkout?step=delivery")).text();
  const code = /<input[^>]*name="shippingOption"[^>]*value="([^"]+)"/.exec(page)?.[1] ?? /value="([^"]+)"[^>]*name="shippingOption"/.exec(page)?.[1];
  expect((await b.post("/checkout", { intent: "delivery", shippingOption: code! })).status).toBe(302);
  const owner = await w.db
    .prepare("SELECT owner_id AS id FROM checkouts WHERE json_extract(buyer_info, '$.email') = ?")
    .bind(email)
    .first<{ id: string }>();
  return { b, visitorId: owner!.id };
}

const saturate = (key: string, count: number) =>
  w.db
    .prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, ?)")
    .bind(key, Math.floor(Date.now() / 1000), count)
    .run();

describe("order safety pages", () => {
  it("the checkout explains the order and checkout limits in a shopper's words", { timeout: 60_000 }, async () => {
    const { b, visitorId } = await readyToPay("limited@example.test");
    await saturate(`orders:visitor:${visitorId}`, 10);
    const refused = await b.post("/checkout", { intent: "place-order", billingSame: "yes", payment: "offline" });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain("You have placed several orders in a short time");
    expect(html).toContain("Nothing was charged");
    expect(html).not.toMatch(/TOO_MANY_REQUESTS|Too many orders from this shopper|try again in \d+ seconds/);
    expect(await w.db.prepare("SELECT count(*) AS n FROM orders WHERE owner_id = ?").bind(visitorId).first<{ n: number }>()).toEqual({ n: 0 });

    // Making the checkout again (the cart changed) past the checkout limit: a page that says so, with a 429.
    await saturate(`checkouts:visitor:${visitorId}`, 60);
    expect((await b.post("/cart", { intent: "add", productId, quantity: "1" })).status).toBe(302);
    const page = await b.get("/checkout");
    expect(page.status).toBe(429);
    const text = await page.text();
    expect(text).toContain("Your cart is saved. Please come back in about");
    expect(text).not.toMatch(/TOO_MANY_REQUESTS|checkouts from this shopper/);
  });

  it("the console sets the unpaid-order hold; an order cancelled for want of payment says so; tracking links are http(s) only", {
    timeout: 60_000,
  }, async () => {
    const owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    const base = {
      name: "Edge Storefront",
      contactEmail: "",
      timeZone: "",
      "checkoutHeader.logoSize": "MEDIUM",
      "checkoutHeader.alignment": "LEFT",
      senderName: "",
      senderEmail: "",
    };
    const settingsPage = await (await w.fetch("/console/settings", { headers: { cookie: owner, "user-agent": BROWSER_UA } })).text();
    expect(settingsPage).toMatch(/<input[^>]*name="unpaidOrderHoldHours"[^>]*value="48"|value="48"[^>]*name="unpaidOrderHoldHours"/);
    const bad = await postConsoleForm(w, owner, "/console/settings", { ...base, unpaidOrderHoldHours: "two days" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(
      /id="f-unpaidOrderHoldHours-error"[^>]*>Must be a whole number of hours|id="f-unpaidOrderHoldHours-error"[^>]*>[^<]*whole number of hours/i,
    );
    expect((await postConsoleForm(w, owner, "/console/settings", { ...base, unpaidOrderHoldHours: "24" })).status).toBe(200);
    const stored = await w.db.prepare("SELECT value FROM settings WHERE key = 'store'").first<{ value: string }>();
    expect(JSON.parse(stored!.value).unpaidOrderHoldHours).toBe(24);

    const { b } = await readyToPay("late-payer@example.test");
    const placed = await b.post("/checkout", { intent: "place-order", billingSame: "yes", payment: "offline" });
    expect(placed.status).toBe(302);
    const confirmationPath = placed.headers.get("location")!;
    const orderId = /^\/orders\/([^/]+)\/confirmation$/.exec(confirmationPath)![1];
    expect(await (await b.get(confirmationPath)).text()).toContain("reserved for you for 24 hours");

    // A tracking link stored before links had to be http(s): shown as text, never as a link.
    await w.db
      .prepare("INSERT INTO order_fulfillments (id, order_id, line_items, tracking_info, created_date) VALUES (?, ?, '[]', ?, ?)")
      .bind(
        crypto.randomUUID(),
        orderId,
        JSON.stringify({ trackingNumber: "TRK-EVIL", trackingLink: "javascript:alert(document.cookie)" }),
        new Date().toISOString(),
      )
      .run();
    const shopperPage = await (await b.get(confirmationPath)).text();
    const consolePage = await (await w.fetch(`/console/orders/${orderId}`, { headers: { cookie: owner, "user-agent": BROWSER_UA } })).text();
    for (const html of [shopperPage, consolePage]) {
      expect(html).toContain("TRK-EVIL");
      expect(html).not.toMatch(/href="\s*javascript:/i);
    }

    // Unpaid past the hold: the sweep cancels it, and the shopper's page says why.
    await w.db
      .prepare("UPDATE orders SET created_date = ? WHERE id = ?")
      .bind(new Date(Date.now() - 25 * 3_600_000).toISOString(), orderId)
      .run();
    const swept = await w.fetch("/api/v1/events/sweep", { method: "POST", headers: { authorization: OWNER_KEY } });
    expect(swept.status).toBe(200);
    const after = await (await b.get(confirmationPath)).text();
    expect(after).toContain("its payment did not arrive within 24 hours");
    expect(after).not.toContain("reserved for you");
    const consoleAfter = await (await w.fetch(`/console/orders/${orderId}`, { headers: { cookie: owner, "user-agent": BROWSER_UA } })).text();
    expect(consoleAfter).toContain("Cancelled automatically: not paid within 24 hours");
  });
});
