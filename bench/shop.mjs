// What the benchmarks do as a shop's clients: JSON calls, the owner's products, and visitors' checkouts ready for
// create-order, each visitor from its own address (the shop limits checkouts and orders per client address).

const json = { "content-type": "application/json" };
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

/** The calls of a shop at `base`: `call` (JSON in and out), `product` (as the owner) and `readyCheckout` (as a visitor). */
export function shopClient({ base, ownerKey, clientId }) {
  async function call(method, path, body, authorization, headers = {}) {
    const res = await fetch(base + path, {
      method,
      headers: { ...json, ...headers, ...(authorization ? { authorization } : {}) },
      body: body && JSON.stringify(body),
    });
    return { res, body: await res.json() };
  }

  /** A product with `quantity` units in tracked stock. */
  async function product(name, quantity, price = 12) {
    const { body } = await call(
      "POST",
      "/v1/products",
      { product: { name, priceData: { price }, stock: { trackInventory: true, quantity } } },
      ownerKey,
    );
    return body.product;
  }

  // Addresses from 198.18.0.0/15, the benchmarking range; wrangler dev passes a client's CF-Connecting-IP through.
  let shoppers = 0;
  const shopperAddress = () => {
    const n = ++shoppers;
    return { "cf-connecting-ip": `198.18.${(n >> 8) & 255}.${n & 255}` };
  };

  /** A visitor's checkout for `quantity` of product `p`, with email and address: ready for create-order. */
  async function readyCheckout(p, quantity = 1) {
    const address = shopperAddress();
    const { body: t } = await call("POST", "/oauth2/token", { grantType: "anonymous", clientId });
    const line = {
      catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: p.id, options: { variantId: p.variants[0].id } },
      quantity,
    };
    await call("POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, t.access_token);
    const { body: co } = await call("POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, t.access_token, address);
    await call(
      "PATCH",
      `/ecom/v1/checkouts/${co.checkoutId}`,
      { checkout: { buyerInfo: { email: "bench@example.com" }, shippingInfo: { shippingDestination: { address: ADDRESS } } } },
      t.access_token,
    );
    return { token: t.access_token, checkoutId: co.checkoutId, address };
  }

  return { call, product, readyCheckout };
}

/** The p-th percentile (0-100) of some latencies in ms, rounded. */
export function percentile(latencies, p) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
}

/** Runs `fn` on each item of `list`, at most `concurrency` at a time; resolves when all are done. */
export async function eachAtMost(list, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, list.length) }, async () => {
      while (next < list.length) {
        const i = next++;
        await fn(list[i], i);
      }
    }),
  );
}
