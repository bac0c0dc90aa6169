import { checkout, currentCart, orders } from "@wix/ecom";
import { ApiKeyStrategy, createClient, OAuthStrategy } from "@wix/sdk";
import { expect, it } from "vitest";
import { redirectWixHosts } from "../wix-sdk-host";
import { OWNER_KEY } from "../helpers";
import { CLIENT_ID } from "../identity/oauth-helpers";
import { STORES } from "../cart/cart-fixtures";
import { stockOf, trackedProduct } from "./inventory-fixtures";
import { ADDRESS, CONTACT } from "./order-fixtures";

/** The unmodified `@wix/ecom` checkout and orders modules against the Worker (only the host is redirected). */

redirectWixHosts();

it("checkout → order → merchant search and cancel through the SDK", async () => {
  const p = await trackedProduct(4, { priceData: { price: 9 } });
  const shopper = createClient({ modules: { currentCart, checkout, orders }, auth: OAuthStrategy({ clientId: CLIENT_ID }) });
  shopper.auth.setTokens(await shopper.auth.generateVisitorTokens());
  await shopper.currentCart.addToCurrentCart({ lineItems: [{ catalogReference: { appId: STORES, catalogItemId: p.id }, quantity: 2 }] });
  const { checkoutId } = await shopper.currentCart.createCheckoutFromCurrentCart({ channelType: "WEB" as never });
  expect(checkoutId).toBeTruthy();

  const co = await shopper.checkout.getCheckout(checkoutId!);
  expect(co._id).toBe(checkoutId);
  expect(co.lineItems).toHaveLength(1);

  const updated = await shopper.checkout.updateCheckout(checkoutId!, {
    buyerInfo: { email: "sdk-buyer@example.com" },
    shippingInfo: { shippingDestination: { address: ADDRESS as never, contactDetails: CONTACT } },
  });
  expect(updated.buyerInfo?.email).toBe("sdk-buyer@example.com");

  const { orderId } = await shopper.checkout.createOrder(checkoutId!);
  expect(orderId).toBeTruthy();
  expect((await stockOf(p.id))!.quantity).toBe(2);

  const order = await shopper.orders.getOrder(orderId!);
  expect(order._id).toBe(orderId);
  expect(order.paymentStatus).toBe("NOT_PAID");

  const admin = createClient({ modules: { orders }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });
  const found = await admin.orders.searchOrders({ filter: { "buyerInfo.email": "sdk-buyer@example.com" } as never, cursorPaging: { limit: 10 } });
  expect((found.orders ?? []).map((o) => o._id)).toContain(orderId);

  const canceled = await admin.orders.cancelOrder(orderId!, { restockAllItems: true, sendOrderCanceledEmail: false });
  expect(canceled.order?.status).toBe("CANCELED");
  expect((await stockOf(p.id))!.quantity).toBe(4);
});
