import { currentCart } from "@wix/ecom";
import { createClient, OAuthStrategy } from "@wix/sdk";
import { describe, expect, it } from "vitest";
import { redirectWixHosts, rejection, sdkMemberTokens } from "../wix-sdk-host";
import { merchant, unique } from "../helpers";
import { CLIENT_ID, createIdentity, sessionTokenFor } from "../identity/oauth-helpers";
import { createPlain, createTee, STORES } from "./cart-fixtures";

/**
 * The unmodified official Wix SDK (`@wix/ecom` currentCart with OAuthStrategy) as a client of the Worker. Only the
 * host is redirected: what the SDK sends to www/edge.wixapis.com goes, unchanged, to the Worker.
 */

const sent = redirectWixHosts();

const REDIRECT_URI = "https://app.example/callback";

function storefront() {
  return createClient({ modules: { currentCart }, auth: OAuthStrategy({ clientId: CLIENT_ID }) });
}

type Storefront = ReturnType<typeof storefront>;

/** Member tokens the headless way (tests/wix-sdk-host.ts), set on the client. */
async function logIn(client: Storefront, identityId: string) {
  client.auth.setTokens((await sdkMemberTokens(client.auth, await sessionTokenFor(identityId), REDIRECT_URI)).tokens);
}

async function createCoupon(percentOffRate: number) {
  const code = `SAVE${unique().toUpperCase()}`;
  const res = await merchant("POST", "/api/v1/coupons", { coupon: { code, name: `${percentOffRate}% off`, percentOffRate } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return code;
}

/** Every call of the module, in a shopper's order, on whoever the client is logged in as. */
async function shop(client: Storefront) {
  const tee = await createTee({ price: 25 });
  const mug = await createPlain(8.5);

  const { cart } = await client.currentCart.addToCurrentCart({
    lineItems: [
      { catalogReference: { appId: STORES, catalogItemId: tee._id ?? tee.id, options: { options: { Size: "M", Color: "Navy" } } }, quantity: 2 },
      { catalogReference: { appId: STORES, catalogItemId: mug.id }, quantity: 1 },
    ],
  });
  expect(sent.at(-1)).toMatchObject({
    method: "POST",
    host: "edge.wixapis.com",
    path: "/ecom/v1/carts/current/add-to-cart",
    authorization: client.auth.getTokens().accessToken.value,
  });
  const teeLine = cart!.lineItems!.find((l) => l.catalogReference?.catalogItemId === tee.id)!;
  const mugLine = cart!.lineItems!.find((l) => l.catalogReference?.catalogItemId === mug.id)!;
  expect(cart!._id).toMatch(/^[0-9a-f-]{36}$/);
  expect(cart!._createdDate).toBeInstanceOf(Date);
  expect(cart!._updatedDate).toBeInstanceOf(Date);
  expect(teeLine._id).toMatch(/^[0-9a-f-]{36}$/);
  expect(teeLine).toMatchObject({
    quantity: 2,
    productName: { original: tee.name },
    price: { amount: "25.00", formattedAmount: "$25.00" },
    lineItemPrice: { amount: "50.00" },
    physicalProperties: { weight: 0.3, shippable: true },
    availability: { status: "AVAILABLE", quantityAvailable: 10 },
    itemType: { preset: "PHYSICAL" },
    paymentOption: "FULL_PAYMENT_ONLINE",
  });
  // The SDK turns the image object into a wix:image string and the page URL object into its url.
  expect(teeLine.image).toMatch(/^wix:image:\/\/v1\/[0-9a-f-]{36}\/A%20tee#originWidth=1000&originHeight=800$/);
  expect(teeLine.url).toBe(`https://shop.test/products/${tee.slug}`);

  const got = await client.currentCart.getCurrentCart();
  expect(sent.at(-1)).toMatchObject({ method: "GET", path: "/ecom/v1/carts/current" });
  expect(got._id).toBe(cart!._id);
  expect(got.lineItems).toHaveLength(2);

  const quantity = await client.currentCart.updateCurrentCartLineItemQuantity([{ _id: teeLine._id!, quantity: 3 }]);
  expect(JSON.parse(sent.at(-1)!.body!)).toEqual({ lineItems: [{ id: teeLine._id, quantity: 3 }] });
  expect(quantity.cart!.lineItems!.find((l) => l._id === teeLine._id)!.quantity).toBe(3);

  const removed = await client.currentCart.removeLineItemsFromCurrentCart([mugLine._id!]);
  expect(removed.cart!.lineItems!.map((l) => l._id)).toEqual([teeLine._id]);

  const code = await createCoupon(10);
  const withCoupon = await client.currentCart.updateCurrentCart({ couponCode: code, cartInfo: { buyerNote: "Gift" } });
  expect(sent.at(-1)).toMatchObject({ method: "PATCH", path: "/ecom/v1/carts/current" });
  expect(withCoupon.appliedDiscounts).toEqual([{ coupon: { code } }]);
  expect(withCoupon.buyerNote).toBe("Gift");
  const badCoupon = await rejection(client.currentCart.updateCurrentCart({ couponCode: "NO-SUCH-CODE" }));
  expect(badCoupon.details.applicationError.code).toBe("COUPON_DOES_NOT_EXIST");

  const totals = await client.currentCart.estimateCurrentCartTotals({ calculateShipping: false });
  expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/ecom/v1/carts/current/estimate-totals" });
  expect(totals.cart!._id).toBe(cart!._id);
  expect(totals.priceSummary).toMatchObject({ subtotal: { amount: "75.00" }, discount: { amount: "7.50" } });
  expect(totals.appliedDiscounts![0].coupon).toMatchObject({ code });
  expect(totals.calculatedLineItems![0].lineItemId).toBe(teeLine._id);

  const noCoupon = await client.currentCart.removeCouponFromCurrentCart();
  expect(noCoupon.cart!.appliedDiscounts).toEqual([]);

  const { checkoutId } = await client.currentCart.createCheckoutFromCurrentCart({ channelType: "WEB" });
  expect(JSON.parse(sent.at(-1)!.body!)).toEqual({ channelType: "WEB" });
  expect(checkoutId).toMatch(/^[0-9a-f-]{36}$/);
  expect((await client.currentCart.getCurrentCart()).checkoutId).toBe(checkoutId);

  // A validation error surfaces the SDK's way.
  const invalid = await rejection(
    client.currentCart.addToCurrentCart({ lineItems: [{ catalogReference: { appId: STORES, catalogItemId: mug.id }, quantity: 0 }] }),
  );
  // The SDK names the field after its own argument (options.lineItems…).
  expect(invalid.details.validationError.fieldViolations).toEqual([
    expect.objectContaining({ field: "options.lineItems[0].quantity", description: "must be at least 1", violatedRule: "MIN" }),
  ]);
  expect(invalid.message).toContain('INVALID_ARGUMENT: \\"options.lineItems[0].quantity\\" must be at least 1');

  expect(await client.currentCart.deleteCurrentCart()).toBeUndefined();
  expect(sent.at(-1)).toMatchObject({ method: "DELETE", path: "/ecom/v1/carts/current" });
  const gone = await rejection(client.currentCart.getCurrentCart());
  expect(gone.details.applicationError.code).toBe("OWNED_CART_NOT_FOUND");
}

describe("the Wix SDK's currentCart against the Worker", () => {
  it("a visitor: every call of the module", async () => {
    const client = storefront();
    client.auth.setTokens(await client.auth.generateVisitorTokens());
    const none = await rejection(client.currentCart.getCurrentCart());
    expect(none.details.applicationError.code).toBe("OWNED_CART_NOT_FOUND");
    await shop(client);
  });

  it("a member: the visitor's cart follows the login, then every call of the module", async () => {
    const client = storefront();
    client.auth.setTokens(await client.auth.generateVisitorTokens());
    const mug = await createPlain(4);
    const { cart: visitorCart } = await client.currentCart.addToCurrentCart({
      lineItems: [{ catalogReference: { appId: STORES, catalogItemId: mug.id }, quantity: 2 }],
    });

    const member = await createIdentity();
    await logIn(client, member.id);
    expect(client.auth.loggedIn()).toBe(true);
    const cart = await client.currentCart.getCurrentCart();
    expect(cart._id).not.toBe(visitorCart!._id);
    expect(cart.buyerInfo).toEqual({ memberId: member.id });
    expect(cart.lineItems!.map((l) => [l._id, l.quantity])).toEqual([[visitorCart!.lineItems![0]._id, 2]]);

    await client.currentCart.deleteCurrentCart();
    await shop(client);
  });
});
