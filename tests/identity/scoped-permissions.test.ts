import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PERMISSIONS, type Permission } from "#worker/platform/context";
import { cartCalls, createPlain, item } from "../cart/cart-fixtures";
import { ADDRESS, fillCheckout, row, visitorCheckout } from "../orders/order-fixtures";
import { api, merchant, OWNER_KEY, staffWith, unique } from "../helpers";
import { createIdentity, tokenCall } from "./oauth-helpers";

/**
 * Who may set prices, change another person's checkout, send activation emails and act as a member: the staff
 * member's or the API key's own permissions decide, not merely being staff.
 */

async function staffKey(permissions: Permission[]): Promise<{ id: string; key: string }> {
  const res = await merchant("POST", "/api/v1/api-keys", { name: `Scoped ${unique()}`, role: "STAFF", permissions });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.apiKey.id, key: res.body.key };
}

const code = (res: { body: any }) => res.body?.details?.applicationError?.code;

describe("prices set on a staff member's own cart", () => {
  it("customLineItems and merchantDiscounts need orders.write: a staff member without it cannot make a 0.00 order", async () => {
    const product = await createPlain(40);
    const staff = await staffWith(PERMISSIONS.filter((p) => p !== "orders.write"));
    const cart = cartCalls(staff.token);
    expect((await cart.add({ lineItems: [item(product.id)] })).status).toBe(200);
    const before = await env.DB.prepare("SELECT merchant_discounts FROM carts WHERE owner_id = ? AND status = 'ACTIVE'").bind(staff.id).first();

    const discount = await cart.patch({ merchantDiscounts: [{ percentage: 100 }] });
    expect(discount.status, JSON.stringify(discount.body)).toBe(403);
    expect(discount.body.details.applicationError.description).toMatch(/orders\.write/);
    const custom = await cart.add({ customLineItems: [{ quantity: 1, price: "0.00", productName: { original: "Anything" } }] });
    expect(custom.status).toBe(403);
    const viaPatch = await cart.patch({ customLineItems: [{ quantity: 1, price: "0.00", productName: { original: "Anything" } }] });
    expect(viaPatch.status).toBe(403);
    expect(await env.DB.prepare("SELECT merchant_discounts FROM carts WHERE owner_id = ? AND status = 'ACTIVE'").bind(staff.id).first()).toEqual(
      before,
    );
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM cart_line_items l JOIN carts c ON c.id = l.cart_id WHERE c.owner_id = ? AND l.custom = 1")
        .bind(staff.id)
        .first<{ n: number }>())!.n,
    ).toBe(0);

    // The order is placed at the catalogue price.
    const checkout = await cart.checkout();
    expect(checkout.status).toBe(200);
    await fillCheckout(staff.token, checkout.body.checkoutId);
    const order = await api("POST", `/ecom/v1/checkouts/${checkout.body.checkoutId}/create-order`, { key: staff.token, body: {} });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
    expect((await row("orders", order.body.orderId))!.total).toBe(4000);
  });

  it("a staff member holding orders.write may still set them", async () => {
    const product = await createPlain(40);
    const staff = await staffWith(["orders.write"]);
    const cart = cartCalls(staff.token);
    expect((await cart.add({ lineItems: [item(product.id)] })).status).toBe(200);
    const discounted = await cart.patch({ merchantDiscounts: [{ percentage: 50 }] });
    expect(discounted.status, JSON.stringify(discounted.body)).toBe(200);
    expect((await cart.add({ customLineItems: [{ quantity: 1, price: "2.00", productName: { original: "Wrapping" } }] })).status).toBe(200);
  });
});

describe("another person's checkout", () => {
  it("staff without orders.write may read a shopper's checkout but not change it or place its order", async () => {
    const product = await createPlain(15);
    const shopper = await visitorCheckout(product.id);
    await fillCheckout(shopper.token, shopper.checkoutId, "shopper@example.com");
    const before = await row("checkouts", shopper.checkoutId);
    const staff = await staffWith(PERMISSIONS.filter((p) => p !== "orders.write"));
    const key = await staffKey(PERMISSIONS.filter((p) => p !== "orders.write"));

    for (const caller of [staff.token, key.key]) {
      expect((await api("GET", `/ecom/v1/checkouts/${shopper.checkoutId}`, { key: caller })).status).toBe(200);
      const rewrite = await api("PATCH", `/ecom/v1/checkouts/${shopper.checkoutId}`, {
        key: caller,
        body: { checkout: { shippingInfo: { shippingDestination: { address: { ...ADDRESS, addressLine: "99 Elsewhere Rd" } } } } },
      });
      expect(rewrite.status, JSON.stringify(rewrite.body)).toBe(403);
      expect(rewrite.body.details.applicationError.description).toMatch(/orders\.write/);
      const order = await api("POST", `/ecom/v1/checkouts/${shopper.checkoutId}/create-order`, { key: caller, body: {} });
      expect(order.status, JSON.stringify(order.body)).toBe(403);
    }
    expect(await row("checkouts", shopper.checkoutId)).toEqual(before);
    expect(await env.DB.prepare("SELECT id FROM orders WHERE checkout_id = ?").bind(shopper.checkoutId).first()).toBeNull();

    // With orders.write (as before) the merchant may.
    const allowed = await staffWith(["orders.write"]);
    const patched = await api("PATCH", `/ecom/v1/checkouts/${shopper.checkoutId}`, { key: allowed.token, body: { checkout: { buyerNote: "Gift" } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  });

  it("a member who is not the buyer still gets 404, and the buyer still may change it", async () => {
    const product = await createPlain(15);
    const shopper = await visitorCheckout(product.id);
    const other = await visitorCheckout(product.id);
    expect(
      (await api("PATCH", `/ecom/v1/checkouts/${shopper.checkoutId}`, { key: other.token, body: { checkout: { buyerNote: "x" } } })).status,
    ).toBe(404);
    await fillCheckout(shopper.token, shopper.checkoutId);
  });
});

describe("POST /v1/activation-email", () => {
  it("needs settings.manage, and reaches members only: never the owner or staff", async () => {
    const member = await createIdentity({ status: "PENDING" });
    const owner = await createIdentity({ role: "OWNER" });
    const otherStaff = await staffWith([]);
    const emails = async () => (await env.DB.prepare("SELECT count(*) AS n FROM emails").first<{ n: number }>())!.n;
    const before = await emails();

    const without = await staffWith(PERMISSIONS.filter((p) => p !== "settings.manage"));
    const refused = await api("POST", "/v1/activation-email", { key: without.token, body: { identityId: member.id } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(code(refused)).toBe("PERMISSION_DENIED");

    const holder = await staffWith(["settings.manage"]);
    for (const target of [owner.id, otherStaff.id]) {
      const res = await api("POST", "/_api/iam/recovery/v1/activation-email", { key: holder.token, body: { identityId: target } });
      expect(res.status, JSON.stringify(res.body)).toBe(403);
    }
    expect((await merchant("POST", "/v1/activation-email", { identityId: owner.id })).status).toBe(403);
    expect(await emails()).toBe(before);

    expect((await api("POST", "/v1/activation-email", { key: holder.token, body: { identityId: member.id } })).status).toBe(200);
    expect(await emails()).toBe(before + 1);
  });

  it("POST /api/v1/staff/{id}/activation-email is the owner's only", async () => {
    const invited = await merchant("POST", "/api/v1/staff", { email: `resend-${unique()}@example.com` });
    const staff = await staffWith([...PERMISSIONS]);
    const key = await staffKey([...PERMISSIONS]);
    for (const caller of [staff.token, key.key]) {
      expect((await api("POST", `/api/v1/staff/${invited.body.staffMember.id}/activation-email`, { key: caller })).status).toBe(403);
    }
    expect((await merchant("POST", `/api/v1/staff/${invited.body.staffMember.id}/activation-email`)).status).toBe(200);
  });
});

describe("scoped API keys", () => {
  it("a STAFF key holds only the permissions it was given; the owner changes them and they apply at once", async () => {
    const key = await staffKey(["inventory.write"]);
    const product = () => api("POST", "/v1/products", { key: key.key, body: { product: { name: `Keyed ${unique()}`, priceData: { price: 5 } } } });
    const refused = await product();
    expect(refused.status).toBe(403);
    expect(refused.body.details.applicationError.description).toMatch(/catalog\.write/);
    // Reads need no permission.
    expect((await api("POST", "/ecom/v1/orders/search", { key: key.key, body: {} })).status).toBe(200);

    const changed = await merchant("PATCH", `/api/v1/api-keys/${key.id}`, { permissions: ["catalog.write", "catalog.write"] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.apiKey.permissions).toEqual(["catalog.write"]);
    expect((await product()).status).toBe(200);
    const listed = (await merchant("GET", "/api/v1/api-keys")).body.apiKeys.find((k: { id: string }) => k.id === key.id);
    expect(listed.permissions).toEqual(["catalog.write"]);

    // Only the owner changes a key, never the key itself or staff; an unknown permission is a 400.
    expect((await api("PATCH", `/api/v1/api-keys/${key.id}`, { key: key.key, body: { permissions: [...PERMISSIONS] } })).status).toBe(403);
    expect((await merchant("PATCH", `/api/v1/api-keys/${key.id}`, { permissions: ["everything"] })).status).toBe(400);
  });

  it("sign-on and the authorized_client grant need members.impersonate (a STAFF key no longer has it by being a key)", async () => {
    const member = await createIdentity();
    const email = `sso-${unique()}@example.com`;
    for (const credentials of [
      (await staffKey(PERMISSIONS.filter((p) => p !== "members.impersonate"))).key,
      (await staffWith(PERMISSIONS.filter((p) => p !== "members.impersonate"))).token,
    ]) {
      const grant = await tokenCall({ grant_type: "authorized_client", member_id: member.id }, { authorization: credentials });
      expect(grant.status, JSON.stringify(grant.body)).toBe(403);
      const signOn = await api("POST", "/v2/sign-on", { key: credentials, body: { loginId: { email } } });
      expect(signOn.status).toBe(403);
    }
    expect(await env.DB.prepare("SELECT id FROM identities WHERE email = ?").bind(email).first()).toBeNull();

    const impersonator = await staffKey(["members.impersonate"]);
    expect((await tokenCall({ grant_type: "authorized_client", member_id: member.id }, { authorization: impersonator.key })).status).toBe(200);
    expect((await api("POST", "/v2/sign-on", { key: impersonator.key, body: { loginId: { email } } })).status).toBe(200);
    // Granted to a staff member, it works with their token too (for members only).
    const staff = await staffWith(["members.impersonate"]);
    expect((await tokenCall({ grant_type: "authorized_client", member_id: member.id }, { authorization: staff.token })).status).toBe(200);
    const owner = await createIdentity({ role: "OWNER" });
    expect((await tokenCall({ grant_type: "authorized_client", member_id: owner.id }, { authorization: staff.token })).status).toBe(403);
  });

  it("the owner's key keeps every permission", async () => {
    const member = await createIdentity();
    expect((await tokenCall({ grant_type: "authorized_client", member_id: member.id }, { authorization: OWNER_KEY })).status).toBe(200);
    const keys = (await merchant("GET", "/api/v1/api-keys")).body.apiKeys as { role: string; permissions: string[] }[];
    for (const k of keys.filter((k) => k.role === "OWNER")) expect(k.permissions).toEqual([...PERMISSIONS]);
  });

  it("a STAFF key made before keys had permissions keeps the merchant work it was made for, without impersonation", async () => {
    const key = `sk_legacy_${unique()}`;
    const { sha256Hex } = await import("#worker/platform/ids");
    // As the migration leaves an existing row: the column's default.
    await env.DB.prepare("INSERT INTO api_keys (id, name, key_hash, role, created_date) VALUES (?, 'legacy', ?, 'STAFF', ?)")
      .bind(crypto.randomUUID(), await sha256Hex(key), new Date().toISOString())
      .run();
    expect((await api("POST", "/v1/products", { key, body: { product: { name: `Legacy ${unique()}`, priceData: { price: 5 } } } })).status).toBe(200);
    const member = await createIdentity();
    expect((await tokenCall({ grant_type: "authorized_client", member_id: member.id }, { authorization: key })).status).toBe(403);
  });
});
