import { Hono } from "hono";
import type { AppEnv } from "#worker/platform/http";
import { clientAddress } from "#worker/platform/rate-limit";
import { readBody } from "#worker/platform/validation";
import {
  addToCurrentCart,
  cartOwnerOf,
  createCheckout,
  deleteCurrentCart,
  estimateTotals,
  getCurrentCart,
  removeCoupon,
  removeLineItems,
  updateCurrentCart,
  updateLineItemsQuantity,
} from "./cart";
import {
  addToCartRequest,
  createCheckoutRequest,
  estimateTotalsRequest,
  removeLineItemsRequest,
  updateCartRequest,
  updateQuantityRequest,
} from "./schemas";

/**
 * The current cart: mounted at /v1/carts/current and /ecom/v1/carts/current (the path the Wix SDK sends). Every call
 * acts on the caller's own cart, so it needs a visitor's or member's token: 401 without one, 403 for an API key.
 */
export const currentCartRoutes = new Hono<AppEnv>()
  .use("*", async (c, next) => {
    cartOwnerOf(c.get("ctx"));
    await next();
  })
  .get("/", async (c) => c.json(await getCurrentCart(c.get("ctx"))))
  .patch("/", async (c) => c.json(await updateCurrentCart(c.get("ctx"), await readBody(c, updateCartRequest))))
  .delete("/", async (c) => c.json(await deleteCurrentCart(c.get("ctx"))))
  .post("/add-to-cart", async (c) => c.json(await addToCurrentCart(c.get("ctx"), await readBody(c, addToCartRequest))))
  .post("/remove-line-items", async (c) => c.json(await removeLineItems(c.get("ctx"), (await readBody(c, removeLineItemsRequest)).lineItemIds)))
  .post("/update-line-items-quantity", async (c) =>
    c.json(await updateLineItemsQuantity(c.get("ctx"), (await readBody(c, updateQuantityRequest)).lineItems)),
  )
  .post("/remove-coupon", async (c) => c.json(await removeCoupon(c.get("ctx"))))
  .post("/create-checkout", async (c) =>
    c.json(await createCheckout(c.get("ctx"), await readBody(c, createCheckoutRequest), { ip: clientAddress(c.req.raw.headers) })),
  )
  .post("/estimate-totals", async (c) => c.json(await estimateTotals(c.get("ctx"), await readBody(c, estimateTotalsRequest))));
