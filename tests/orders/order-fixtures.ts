import { env } from "cloudflare:test";
import { expect } from "vitest";
import { api } from "../helpers";
import { cartCalls, item, newVisitor } from "../cart/cart-fixtures";

/** Shared steps of the checkout and order suites. */

export const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };
export const CONTACT = { firstName: "Ada", lastName: "Lovelace", phone: "+1 555 0100" };

/** A visitor with a cart holding `quantity` of a product, and the checkout made from it. */
export async function visitorCheckout(productId: string, quantity = 1, options?: Record<string, unknown>) {
  const visitor = await newVisitor();
  const cart = cartCalls(visitor.token);
  const added = await cart.add({ lineItems: [item(productId, quantity, options)] });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  const co = await cart.checkout();
  expect(co.status, JSON.stringify(co.body)).toBe(200);
  return { ...visitor, cartId: added.body.cart.id as string, checkoutId: co.body.checkoutId as string };
}

/** Sets the buyer's email and shipping address on a checkout. */
export async function fillCheckout(token: string, checkoutId: string, email = "buyer@example.com") {
  const res = await api("PATCH", `/ecom/v1/checkouts/${checkoutId}`, {
    key: token,
    body: { checkout: { buyerInfo: { email }, shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: CONTACT } } } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.checkout;
}

export const placeOrder = (token: string, checkoutId: string, body: Record<string, unknown> = { id: checkoutId }) =>
  api("POST", `/ecom/v1/checkouts/${checkoutId}/create-order`, { key: token, body });

/** A visitor's placed (offline) order for `quantity` of a product. */
export async function placedOrder(productId: string, quantity = 1, email = "buyer@example.com") {
  const v = await visitorCheckout(productId, quantity);
  await fillCheckout(v.token, v.checkoutId, email);
  const res = await placeOrder(v.token, v.checkoutId);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...v, orderId: res.body.orderId as string };
}

export async function row(table: string, id: string) {
  return env.DB.prepare(`SELECT * FROM ${table} WHERE id = ?`).bind(id).first<Record<string, any>>();
}

/** Tables an order writes, to assert a refused create-order changed nothing. */
export async function orderSnapshot(checkoutId: string, cartId: string, productId: string) {
  const q = (s: string, ...b: unknown[]) =>
    env.DB.prepare(s)
      .bind(...b)
      .all()
      .then((r) => r.results);
  return {
    checkout: await q("SELECT status, updated_date FROM checkouts WHERE id = ?", checkoutId),
    cart: await q("SELECT status, revision FROM carts WHERE id = ?", cartId),
    orders: await q("SELECT id FROM orders WHERE checkout_id = ?", checkoutId),
    stock: await q("SELECT id, quantity, in_stock FROM variants WHERE product_id = ? ORDER BY id", productId),
    log: await q("SELECT id FROM inventory_changes WHERE product_id = ?", productId),
    transactions: await q("SELECT t.id FROM transactions t JOIN orders o ON o.id = t.order_id WHERE o.checkout_id = ?", checkoutId),
  };
}
