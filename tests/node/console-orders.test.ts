import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { addToCart, checkOutByCard, expectAccessible, hydrated, shopper, useStore, type Store } from "./commerce-fixtures";
import { BROWSER_UA, type RunningWorker } from "./worker";

/**
 * The console's orders: the list with its filters and paging in the URL, answered by the orders search;
 * the detail page; and the merchant's actions (mark paid, ship with tracking, cancel with restock, record a refund),
 * each through the orders service, refused without the orders.write permission, and with bad input reported next
 * to its field while nothing is written. In Chromium: the owner ships a member's order with a tracking number and
 * the member sees it in their account.
 */

const { store, needsChromium } = useStore("console orders");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const STORES_APP = "215238eb-22a5-4c36-9e7b-e7c08025e04e";
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

async function api(w: RunningWorker, method: string, p: string, body: unknown, authorization?: string, headers: Record<string, string> = {}) {
  const res = await w.fetch(p, {
    method,
    headers: { "content-type": "application/json", ...headers, ...(authorization ? { authorization } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, any>;
  expect(res.status, `${method} ${p}: ${JSON.stringify(json)}`).toBe(200);
  return json;
}

let buyers = 0;

/** A visitor's order placed through the API, to pay offline (NOT_PAID), for `quantity` of the tracked tee. */
async function placeOrder(
  s: Store,
  buyer: { email: string; firstName: string; lastName: string },
  quantity = 2,
): Promise<{ id: string; number: string }> {
  const w = s.w;
  const { access_token: token } = await api(w, "POST", "/oauth2/token", { grantType: "anonymous", clientId: "storefront" });
  const variant = await w.db
    // The variant with the most stock, so the test's thirty-odd orders never run one out.
    .prepare("SELECT id FROM variants WHERE product_id = ? AND in_stock = 1 ORDER BY COALESCE(quantity, 1000000) DESC LIMIT 1")
    .bind(s.tee.id)
    .first<{ id: string }>();
  const line = { catalogReference: { appId: STORES_APP, catalogItemId: s.tee.id, options: { variantId: variant!.id } }, quantity };
  await api(w, "POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, token);
  // Each buyer from its own address, as real shoppers are: the shop limits orders per client address.
  const address = { "cf-connecting-ip": `198.18.0.${++buyers}` };
  const { checkoutId } = await api(w, "POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, token, address);
  await api(
    w,
    "PATCH",
    `/ecom/v1/checkouts/${checkoutId}`,
    {
      checkout: {
        buyerInfo: { email: buyer.email },
        shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: { firstName: buyer.firstName, lastName: buyer.lastName } } },
      },
    },
    token,
  );
  const { orderId } = await api(w, "POST", `/ecom/v1/checkouts/${checkoutId}/create-order`, {}, token, address);
  const order = await w.db.prepare("SELECT number FROM orders WHERE id = ?").bind(orderId).first<{ number: number }>();
  return { id: orderId, number: String(order!.number) };
}

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const orderNumbers = (html: string) => [...html.matchAll(/href="\/console\/orders\/[^"]+"[^>]*>#(\d+)</g)].map((m) => m[1]);
const counts = async (w: RunningWorker, orderId: string) =>
  w.db
    .prepare(
      "SELECT (SELECT COUNT(*) FROM order_fulfillments WHERE order_id = ?1) AS fulfillments, (SELECT COUNT(*) FROM order_activities WHERE order_id = ?1) AS activities, (SELECT payment_status || '/' || fulfillment_status || '/' || status FROM orders WHERE id = ?1) AS state",
    )
    .bind(orderId)
    .first<{ fulfillments: number; activities: number; state: string }>();

describe("console orders", () => {
  let owner = "";
  let ada: { id: string; number: string };
  let grace: { id: string; number: string };
  const run = Date.now();

  beforeAll(async () => {
    if (!store()) return;
    const s = store();
    ada = await placeOrder(s, { email: `ada-${run}@example.test`, firstName: "Ada", lastName: "Lovelace" });
    grace = await placeOrder(s, { email: `grace-${run}@example.test`, firstName: "Grace", lastName: "Hopper" }, 1);
    // Enough others for a second page.
    for (let i = 0; i < 26; i++) await placeOrder(s, { email: `bulk-${run}-${i}@example.test`, firstName: "Bulk", lastName: `Buyer ${i}` }, 1);
    owner = await consoleCookie(s.w, await consoleAccount(s.w, "OWNER"));
  }, 120_000);

  it("lists orders newest first in pages of 25, finds one by number, email or name, and filters by status and date", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const first = await get(w, owner, "/console/orders");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(roundTrips(first)).toBeLessThanOrEqual(3);
    const html = await first.text();
    const numbers = orderNumbers(html);
    expect(numbers).toHaveLength(25);
    expect(numbers.map(Number)).toEqual([...numbers.map(Number)].sort((a, b) => b - a));
    const next = /href="(\/console\/orders\?[^"]*cursor=[^"]+)"[^>]*>Next page/.exec(html)?.[1].replace(/&amp;/g, "&");
    expect(next).toBeTruthy();
    const second = orderNumbers(await (await get(w, owner, next!)).text());
    expect(second.length).toBe(3);
    expect(second.filter((n) => numbers.includes(n))).toEqual([]);

    for (const q of [ada.number, `#${ada.number}`, `ada-${run}@example.test`, "Lovelace", "Ada Love"]) {
      const found = await (await get(w, owner, `/console/orders?q=${encodeURIComponent(q)}`)).text();
      expect(orderNumbers(found), q).toEqual([ada.number]);
    }
    expect(await (await get(w, owner, "/console/orders?q=Hopper")).text()).toContain(`grace-${run}@example.test`);
    expect(orderNumbers(await (await get(w, owner, "/console/orders?payment=PAID")).text())).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(orderNumbers(await (await get(w, owner, `/console/orders?from=${today}&to=${today}&q=Lovelace`)).text())).toEqual([ada.number]);
    expect(orderNumbers(await (await get(w, owner, "/console/orders?to=2001-01-01")).text())).toEqual([]);
    // By total: Ada's two tees are the biggest order; the 25 smallest leave it out.
    expect(orderNumbers(await (await get(w, owner, "/console/orders?sort=total-high")).text())[0]).toBe(ada.number);
    expect(orderNumbers(await (await get(w, owner, "/console/orders?sort=total-low")).text())).not.toContain(ada.number);

    // A bad date is reported next to its field; an edited cursor starts from the first page; neither is an error page.
    const bad = await get(w, owner, "/console/orders?from=31/12/2026");
    expect(bad.status).toBe(200);
    expect(await bad.text()).toContain("Enter a date as YYYY-MM-DD.");
    const forged = await get(w, owner, "/console/orders?cursor=not-a-cursor");
    expect(forged.status).toBe(200);
    expect(orderNumbers(await forged.text())).toEqual(numbers);
  });

  it("shows one order with its items, totals, buyer and history, in at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const res = await get(w, owner, `/console/orders/${ada.id}`);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    for (const text of [
      `Order #${ada.number}`,
      store().tee.name,
      "Ada Lovelace",
      `ada-${run}@example.test`,
      "1 Main St",
      "Order placed",
      "Not paid yet",
      "Mark as paid",
      "Mark as shipped",
      "Cancel order",
    ])
      expect(html).toContain(text);
    expect((await get(w, owner, "/console/orders/no-such-order")).status).toBe(404);
  });

  it("refuses every order action to staff without orders.write (the service's 403), and changes nothing", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write", "inventory.write"]));
    const view = await (await get(w, viewer, `/console/orders/${grace.id}`)).text();
    expect(view).not.toContain("Mark as shipped");
    expect(view).toContain("changing it needs the permission");
    const before = await counts(w, grace.id);
    const refused: Record<string, string>[] = [
      { intent: "mark-paid" },
      { intent: "fulfil", "lineItems[0].id": "x", "lineItems[0].quantity": "1", "trackingInfo.trackingNumber": "1Z" },
      { intent: "cancel", restock: "on" },
      { intent: "refund", status: "FULLY_REFUNDED" },
    ];
    for (const fields of refused) {
      const res = await postConsoleForm(w, viewer, `/console/orders/${grace.id}`, fields);
      expect(res.status, fields.intent).toBe(403);
      expect(await res.text()).toContain("You may not do this");
    }
    expect(await counts(w, grace.id)).toEqual(before);
  });

  it("marks paid, ships in two parcels with tracking, records a refund; bad input is refused next to its field and writes nothing", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const clerk = await consoleCookie(w, await consoleAccount(w, "STAFF", ["orders.write"]));
    const lineId = (await w.db.prepare("SELECT id FROM order_line_items WHERE order_id = ?").bind(ada.id).first<{ id: string }>())!.id;
    const before = await counts(w, ada.id);

    const tooMany = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, {
      intent: "fulfil",
      "lineItems[0].id": lineId,
      "lineItems[0].quantity": "5",
      "trackingInfo.trackingNumber": "1Z999",
    });
    expect(tooMany.status).toBe(400);
    const tooManyHtml = await tooMany.text();
    expect(tooManyHtml).toMatch(/id="f-lineItems-0--quantity-error"[^>]*>Is more than the 2 left to fulfil/);
    expect(tooManyHtml).toContain('value="1Z999"');
    const badLink = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, {
      intent: "fulfil",
      "lineItems[0].id": lineId,
      "lineItems[0].quantity": "1",
      "trackingInfo.trackingLink": "not a url",
    });
    expect(badLink.status).toBe(400);
    expect(await badLink.text()).toMatch(/id="f-trackingInfo-trackingLink-error"/);
    expect(await counts(w, ada.id)).toEqual(before);

    const paid = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, { intent: "mark-paid" });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain("Marked as paid.");
    const part = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, {
      intent: "fulfil",
      "lineItems[0].id": lineId,
      "lineItems[0].quantity": "1",
      "trackingInfo.shippingProvider": "UPS",
      "trackingInfo.trackingNumber": "1Z-FIRST",
    });
    expect(part.status).toBe(200);
    expect(await part.text()).toContain("Shipped, with tracking number 1Z-FIRST.");
    expect((await counts(w, ada.id))!.state).toBe("PAID/PARTIALLY_FULFILLED/APPROVED");
    const rest = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, {
      intent: "fulfil",
      "lineItems[0].id": lineId,
      "lineItems[0].quantity": "1",
      "trackingInfo.trackingNumber": "1Z-SECOND",
      "trackingInfo.trackingLink": "https://carrier.example/track/1Z-SECOND",
    });
    expect(rest.status).toBe(200);
    const shipped = await (await get(w, clerk, `/console/orders/${ada.id}`)).text();
    expect(shipped).toContain("1Z-FIRST");
    expect(shipped).toContain('href="https://carrier.example/track/1Z-SECOND"');
    expect(shipped).not.toContain("Cancel order");
    // Each change left its activity and its event.
    const after = await counts(w, ada.id);
    expect(after!.state).toBe("PAID/FULFILLED/APPROVED");
    expect(after!.activities).toBe(before!.activities + 5); // paid, 2 × shipped, 2 × tracking number
    const events = await w.db
      .prepare("SELECT COUNT(*) AS n FROM outbox WHERE entity_id = ? AND type LIKE 'wix.ecom.v1.order_%'")
      .bind(ada.id)
      .first<{ n: number }>();
    expect(events!.n).toBeGreaterThanOrEqual(6);

    const refund = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, { intent: "refund", status: "PARTIALLY_REFUNDED" });
    expect(refund.status).toBe(200);
    expect((await counts(w, ada.id))!.state).toBe("PARTIALLY_REFUNDED/FULFILLED/APPROVED");
    // A shipped order cannot be cancelled: the service's reason, nothing written.
    const cancel = await postConsoleForm(w, clerk, `/console/orders/${ada.id}`, { intent: "cancel", restock: "on" });
    expect(cancel.status).toBe(400);
    expect(await cancel.text()).toContain("can no longer be canceled");
  });

  it("cancels an unshipped order and puts its items back in stock", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const order = await placeOrder(s, { email: `cancel-${run}@example.test`, firstName: "Cass", lastName: "Cancel" }, 3);
    const line = (await s.w.db
      .prepare("SELECT variant_id AS variantId FROM order_line_items WHERE order_id = ?")
      .bind(order.id)
      .first<{ variantId: string }>())!;
    const stock = async () =>
      (await s.w.db.prepare("SELECT quantity FROM variants WHERE id = ?").bind(line.variantId).first<{ quantity: number }>())!.quantity;
    const before = await stock();
    const res = await postConsoleForm(s.w, owner, `/console/orders/${order.id}`, { intent: "cancel", restock: "on" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Cancelled; the items are back in stock.");
    expect(await stock()).toBe(before + 3);
    expect((await counts(s.w, order.id))!.state).toBe("NOT_PAID/NOT_FULFILLED/CANCELED");
  });

  it("in Chromium: the owner finds a member's order, ships it with a tracking number, and the member sees it in their account", {
    timeout: 120_000,
  }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const member = await consoleAccount(s.w, "MEMBER");
    const buyer = await shopper(s);
    const merchant = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      const { page } = buyer;
      await page.goto(`${s.w.url}/login`);
      await page.fill("#email", member.email);
      await page.fill("#password", member.password);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Log in" }).click()]);
      await addToCart(page, s, { productId: s.plain.id, quantity: "1", returnTo: "/cart" });
      const number = await checkOutByCard(page, s, member.email);

      const console = merchant.page;
      await console.goto(`${s.w.url}/console/orders`);
      await hydrated(console);
      await console.keyboard.press("/");
      await console.keyboard.type(member.email);
      await Promise.all([console.waitForURL((u) => u.searchParams.get("q") === member.email), console.keyboard.press("Enter")]);
      await expect.poll(() => console.locator(".orders-table tbody tr").count()).toBe(1);
      await expectAccessible(console, "console orders list");
      mkdirSync(shots, { recursive: true });
      await console.screenshot({ path: path.join(shots, "console-orders-1280.png"), fullPage: true });
      await console.getByRole("link", { name: `#${number}` }).click();
      await console.waitForURL(/\/console\/orders\/[^/?]+$/);
      await console.fill("#f-trackingInfo-shippingProvider", "DHL");
      await console.fill("#f-trackingInfo-trackingNumber", "JD0146000012345");
      await console.getByRole("button", { name: "Mark as shipped" }).click();
      await expect.poll(() => console.locator("[role=status]").textContent()).toContain("Shipped, with tracking number JD0146000012345.");
      await expectAccessible(console, "console order detail");
      await console.screenshot({ path: path.join(shots, "console-order-1280.png"), fullPage: true });
      expect(unexpected(merchant.problems)).toEqual([]);

      await page.goto(`${s.w.url}/account/orders`);
      await page
        .getByRole("link", { name: new RegExp(number) })
        .first()
        .click();
      await expect.poll(() => page.locator(".order-shipments").textContent()).toContain("JD0146000012345");
      expect(await page.locator(".order-shipments").textContent()).toContain("by DHL");
      await expectAccessible(page, "account order with a shipment");
    } finally {
      await buyer.context.close();
      await merchant.context.close();
    }
  });
});
