// Pieces several benchmarks share: the owner's console sign-in, percentiles, a small task pool, placing one real
// order through the shopper API, and the SQL that copies placed orders into many more.
import { readDevVars } from "../../scripts/local-setup.mjs";

const json = { "content-type": "application/json" };
export const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };
/** The app id shoppers' cart lines name for catalogue products. */
export const CATALOG_APP_ID = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

/** A JSON call that throws on a non-2xx answer; `authorization` and extra headers optional. */
export async function call(base, method, path, body, authorization, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...json, ...headers, ...(authorization ? { authorization } : {}) },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Runs `task(i)` for i below `count`, `concurrency` at a time. */
export async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** The p-th percentile (0-100) of the sorted times, rounded to a millisecond. */
export const percentile = (sorted, p) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

/** Signs the owner into the console (after bootstrap) and returns the session cookie. */
export async function consoleCookie(base) {
  const { OWNER_EMAIL, OWNER_PASSWORD } = readDevVars();
  const login = await fetch(`${base}/console/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    body: new URLSearchParams({ email: OWNER_EMAIL, password: OWNER_PASSWORD, returnTo: "/console" }),
    redirect: "manual",
  });
  const cookie = (login.headers.getSetCookie().find((c) => c.startsWith("__Host-console=")) ?? "").split(";")[0];
  if (!cookie) throw new Error(`console sign-in failed: ${login.status}`);
  return cookie;
}

/** A cart line of `productId`'s first in-stock variant. */
export async function cartLine(base, productId) {
  const p = await call(base, "GET", `/v1/products/${productId}`);
  const variant = p.product.variants.find((v) => v.stock.inStock) ?? p.product.variants[0];
  return { catalogReference: { appId: CATALOG_APP_ID, catalogItemId: p.product.id, options: { variantId: variant.id } }, quantity: 1 };
}

/**
 * Places one order as an anonymous shopper from address 198.18.<i / 250>.<i % 250 + 1> (checkouts and orders are
 * limited per address): token, add to cart, checkout, email and address, create order. `timed` names the steps to
 * time ("cart": add to cart + estimate; "order": create order); returns their milliseconds and Server-Timing answers.
 */
export async function placeOrder(base, clientId, line, i, timed = {}) {
  const { access_token: token } = await call(base, "POST", "/oauth2/token", { grantType: "anonymous", clientId });
  const address = { "cf-connecting-ip": `198.18.${Math.floor(i / 250) % 250}.${(i % 250) + 1}` };
  const step = async (name, fn) => {
    const t0 = performance.now();
    const res = await fn();
    if (timed[name]) timed[name].push({ ms: performance.now() - t0, res });
    return res;
  };
  const post = (path, body) =>
    fetch(base + path, { method: "POST", headers: { ...json, ...address, authorization: token }, body: JSON.stringify(body) });
  const ok = async (res) => {
    if (!res.ok) throw new Error(`${new URL(res.url).pathname}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return res.json();
  };
  await step("cart", async () => {
    const a = await post("/ecom/v1/carts/current/add-to-cart", { lineItems: [line] });
    await ok(a);
    const e = await post("/ecom/v1/carts/current/estimate-totals", {});
    await ok(e);
    return [a, e];
  });
  const co = await ok(await post("/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }));
  await call(
    base,
    "PATCH",
    `/ecom/v1/checkouts/${co.checkoutId}`,
    {
      checkout: {
        buyerInfo: { email: `template${i}@example.com` },
        shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: { firstName: "Sam", lastName: `Buyer${i}` } } },
      },
    },
    token,
    address,
  );
  await step("order", async () => {
    const o = await post(`/ecom/v1/checkouts/${co.checkoutId}/create-order`, { id: co.checkoutId });
    await ok(o);
    return [o];
  });
}

/**
 * SQL that copies the placed orders (ids without "~") as copies `from`..`to` of each: new ids, numbers after the
 * placed ones, buyers buyer<n>@example.com (`buyers` of them), mixed payment and fulfilment states, purchase dates
 * `spacingSeconds` apart going back from the templates', with their line items; then moves the order counter on.
 */
export function copyOrdersSql({ from, to, buyers = 5000, spacingSeconds = 1560 }) {
  const n = `WITH RECURSIVE n(k) AS (SELECT ${from} UNION ALL SELECT k + 1 FROM n WHERE k < ${to})`;
  return `
${n},
tpl AS (SELECT o.*, ROW_NUMBER() OVER (ORDER BY number) - 1 AS t, (SELECT COUNT(*) FROM orders WHERE instr(id, '~') = 0) AS cnt,
  (SELECT MAX(number) FROM orders WHERE instr(id, '~') = 0) AS top FROM orders o WHERE instr(o.id, '~') = 0)
INSERT INTO orders (id, number, checkout_id, cart_id, owner_kind, owner_id, buyer_email, status, payment_status, fulfillment_status, currency, subtotal, total, channel_type, details, purchased_date, created_date, updated_date)
SELECT id || '~' || k, top + (k - 1) * cnt + t + 1, checkout_id || '~' || k, cart_id, owner_kind, owner_id || '~' || k,
  'buyer' || ((k * cnt + t) % ${buyers}) || '@example.com', status,
  CASE (k + t) % 4 WHEN 0 THEN 'NOT_PAID' WHEN 3 THEN 'FULLY_REFUNDED' ELSE 'PAID' END,
  CASE (k + t) % 3 WHEN 0 THEN 'FULFILLED' ELSE 'NOT_FULFILLED' END,
  currency, subtotal, total, channel_type,
  json_set(details, '$.buyerInfo.email', 'buyer' || ((k * cnt + t) % ${buyers}) || '@example.com', '$.number', CAST(top + (k - 1) * cnt + t + 1 AS TEXT)),
  strftime('%Y-%m-%dT%H:%M:%fZ', purchased_date, '-' || ((k * cnt + t) * ${spacingSeconds}) || ' seconds'),
  strftime('%Y-%m-%dT%H:%M:%fZ', created_date, '-' || ((k * cnt + t) * ${spacingSeconds}) || ' seconds'),
  updated_date
FROM tpl, n;
${n}
INSERT INTO order_line_items (id, order_id, position, catalog_item_id, variant_id, name, quantity, fulfilled_quantity, price, details)
SELECT li.id || '~' || k, li.order_id || '~' || k, position, catalog_item_id, variant_id, name, quantity, fulfilled_quantity, price, li.details
FROM order_line_items li, n WHERE instr(li.order_id, '~') = 0;
INSERT OR IGNORE INTO order_numbers (id) SELECT MAX(number) FROM orders;
`;
}
