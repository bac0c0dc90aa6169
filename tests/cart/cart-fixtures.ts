import { env } from "cloudflare:test";
import { expect } from "vitest";
import { issueTokens } from "#worker/identity/tokens";
import { api, createProduct, merchant, unique } from "../helpers";

/** Shared steps of the cart tests. */

/** The Wix REST path and the gateway path the Wix SDK uses: every call is tested on both. */
export const MOUNTS = ["/v1/carts/current", "/ecom/v1/carts/current"] as const;
export type Mount = (typeof MOUNTS)[number];

/** Wix Stores' app id (catalogReference.appId). */
export const STORES = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

/** A new visitor: anonymous tokens for the test client. */
export async function newVisitor(): Promise<{ token: string; visitorId: string }> {
  const visitorId = crypto.randomUUID();
  const tokens = await issueTokens(env, { role: "visitor", clientId: "test-client-id", visitorId });
  return { token: tokens.access_token, visitorId };
}

/** The nine cart calls for one caller (token) on one mount. */
export function cartCalls(token: string | undefined, mount: Mount = MOUNTS[0]) {
  const opts = (body?: unknown) => ({ ...(token !== undefined ? { key: token } : {}), ...(body !== undefined ? { body } : {}) });
  return {
    get: () => api("GET", mount, opts()),
    patch: (body: unknown) => api("PATCH", mount, opts(body)),
    delete: () => api("DELETE", mount, opts()),
    add: (body: unknown) => api("POST", `${mount}/add-to-cart`, opts(body)),
    remove: (lineItemIds: unknown) => api("POST", `${mount}/remove-line-items`, opts({ lineItemIds })),
    quantities: (lineItems: unknown) => api("POST", `${mount}/update-line-items-quantity`, opts({ lineItems })),
    removeCoupon: () => api("POST", `${mount}/remove-coupon`, opts({})),
    checkout: (body: unknown = { channelType: "WEB" }) => api("POST", `${mount}/create-checkout`, opts(body)),
    estimate: (body: unknown = {}) => api("POST", `${mount}/estimate-totals`, opts(body)),
  };
}

/** A catalogue line item as the SDK sends it. */
export const item = (catalogItemId: string, quantity = 1, options?: Record<string, unknown>) => ({
  catalogReference: { appId: STORES, catalogItemId, ...(options ? { options } : {}) },
  quantity,
});

/** A tee with Size (S, M, L) × Color (Navy, Rust), tracked stock (10 of each by default) and one image. */
export async function createTee(opts: { price?: number; quantity?: number; discount?: { type: "AMOUNT" | "PERCENT"; value: number } } = {}) {
  return createProduct({
    name: `Cart Tee ${unique()}`,
    priceData: { price: opts.price ?? 25 },
    weight: 0.3,
    sku: "TEE",
    ...(opts.discount ? { discount: opts.discount } : {}),
    manageVariants: true,
    stock: { trackInventory: true, quantity: opts.quantity ?? 10 },
    media: [{ url: "https://images.example/tee.jpg", width: 1000, height: 800, altText: "A tee" }],
    productOptions: [
      {
        name: "Size",
        optionType: "drop_down",
        choices: [
          { value: "S", description: "S" },
          { value: "M", description: "M" },
          { value: "L", description: "L" },
        ],
      },
      {
        name: "Color",
        optionType: "color",
        choices: [
          { value: "#1F3A5F", description: "Navy" },
          { value: "#B5532C", description: "Rust" },
        ],
      },
    ],
  });
}

/** A product without options (untracked stock) at a price. */
export async function createPlain(price = 10, extra: Record<string, unknown> = {}) {
  return createProduct({ name: `Cart Mug ${unique()}`, priceData: { price }, weight: 0.5, ...extra });
}

/** The variant of a product with these choices. */
export function variantOf(product: { variants: { id: string; choices: Record<string, string> }[] }, choices: Record<string, string>): string {
  const v = product.variants.find((x) => Object.entries(choices).every(([k, val]) => x.choices[k] === val));
  if (!v) throw new Error(`no variant ${JSON.stringify(choices)}`);
  return v.id;
}

/** Sets the stock of one variant through the catalogue API. */
export async function setVariantStock(productId: string, choices: Record<string, string>, quantity: number) {
  const res = await merchant("PATCH", `/v1/products/${productId}/variants`, { variants: [{ choices, stock: { quantity } }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export async function cartRow(id: string) {
  return env.DB.prepare("SELECT * FROM carts WHERE id = ?").bind(id).first<Record<string, any>>();
}

export async function lineRows(cartId: string) {
  return (await env.DB.prepare("SELECT * FROM cart_line_items WHERE cart_id = ? ORDER BY position").bind(cartId).all<Record<string, any>>()).results;
}

/** Carts, lines and cart events of one owner, to compare before and after a refused call. */
export async function ownerSnapshot(ownerId: string) {
  const cartRows = (await env.DB.prepare("SELECT * FROM carts WHERE owner_id = ? ORDER BY created_date").bind(ownerId).all()).results;
  const ids = cartRows.map((r) => r.id as string);
  const lines = (
    await env.DB.prepare("SELECT * FROM cart_line_items WHERE cart_id IN (SELECT value FROM json_each(?)) ORDER BY id")
      .bind(JSON.stringify(ids))
      .all()
  ).results;
  const events = (
    await env.DB.prepare("SELECT id, type, entity_id FROM outbox WHERE entity_id IN (SELECT value FROM json_each(?)) ORDER BY id")
      .bind(JSON.stringify(ids))
      .all()
  ).results;
  const checkoutRows = (await env.DB.prepare("SELECT id, updated_date FROM checkouts WHERE owner_id = ? ORDER BY id").bind(ownerId).all()).results;
  return { cartRows, lines, events, checkoutRows };
}

/** The D1 round trips a response reports (Server-Timing). */
export function roundTrips(headers: Headers): number {
  const m = /(\d+) round trips/.exec(headers.get("server-timing") ?? "");
  return m ? Number(m[1]) : -1;
}
