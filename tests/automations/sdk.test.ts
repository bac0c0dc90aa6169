import { abandonedCheckouts, backInStockNotifications } from "@wix/ecom";
import { ApiKeyStrategy, createClient, OAuthStrategy } from "@wix/sdk";
import { expect, it } from "vitest";
import { redirectWixHosts } from "../wix-sdk-host";
import { OWNER_KEY, unique } from "../helpers";
import { CLIENT_ID } from "../identity/oauth-helpers";
import { STORES, cartCalls, item, newVisitor } from "../cart/cart-fixtures";
import { trackedProduct } from "../orders/inventory-fixtures";
import { MINUTE, cartRow, deliver, outboxEvents, setCartEmail, sweepAt } from "./fixtures";
import { AutomationEventType } from "#worker/automations/events";

/** The unmodified `@wix/ecom` back-in-stock and abandoned-checkout modules against the Worker (only the host is redirected). */

const sent = redirectWixHosts();

it("back-in-stock requests through the SDK: a shopper creates, the merchant queries (GET ?.r=), reads and deletes", async () => {
  const p = await trackedProduct(0);
  const email = `sdk-bis-${unique()}@example.com`;
  const shopper = createClient({ modules: { backInStockNotifications }, auth: OAuthStrategy({ clientId: CLIENT_ID }) });
  shopper.auth.setTokens(await shopper.auth.generateVisitorTokens());
  const created = await shopper.backInStockNotifications.createBackInStockNotificationRequest(
    { email, catalogReference: { appId: STORES, catalogItemId: p.id }, itemUrl: "https://shop.test/products/x" },
    { name: p.name, price: "10" },
  );
  expect(created).toMatchObject({ email, status: "RECEIVED" });
  const id = created._id!;

  const admin = createClient({ modules: { backInStockNotifications }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });
  const found = await admin.backInStockNotifications.queryBackInStockNotificationRequests().eq("_id", id).find();
  expect(found.items.map((r) => r._id)).toEqual([id]);
  expect(sent.some((s) => s.method === "GET" && s.search.startsWith("?.r="))).toBe(true);
  expect((await admin.backInStockNotifications.getBackInStockNotificationRequest(id))._id).toBe(id);
  await admin.backInStockNotifications.deleteBackInStockNotificationRequest(id);
  await expect(admin.backInStockNotifications.getBackInStockNotificationRequest(id)).rejects.toThrow();
});

it("abandoned checkouts through the SDK: query and get with activities", async () => {
  const p = await trackedProduct(5, { priceData: { price: 12 } });
  const visitor = await newVisitor();
  const added = await cartCalls(visitor.token).add({ lineItems: [item(p.id, 1)] });
  const email = `sdk-ac-${unique()}@example.com`;
  await setCartEmail(visitor.token, email);
  const cartId = added.body.cart.id as string;
  const idle = Date.parse((await cartRow(cartId))!.last_activity);
  await sweepAt(idle + 61 * MINUTE);
  await deliver(await outboxEvents(cartId, AutomationEventType.cartAbandoned));

  const admin = createClient({ modules: { abandonedCheckouts }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });
  const page = await admin.abandonedCheckouts.queryAbandonedCheckouts().eq("buyerInfo.email", email).find();
  expect(page.items).toHaveLength(1);
  const [ac] = page.items;
  expect(ac.status).toBe("ABANDONED");
  expect(ac._createdDate).toBeInstanceOf(Date);
  const got = await admin.abandonedCheckouts.getAbandonedCheckout(ac._id!);
  expect(got.cartId).toBe(cartId);
  expect(got.activities?.map((a) => a.type)).toEqual(["SCHEDULED", "SCHEDULED", "SCHEDULED"]);
  expect(got.activities?.[0]._createdDate).toBeInstanceOf(Date);
  expect(got.totalPrice?.amount).toBe("12.00");
});
