// Console benchmark: fills a fresh local store with PRODUCTS products (default 5,000; 6 variants each) and ORDERS
// orders (default 20,000), then prints p50/p99 and D1 round trips of the console's products table, product editor,
// orders list, reports and search. TEMPLATES real orders are placed, then copied in SQL (placing 20,000 one by one takes an hour).
//
//   npm run bench:console            (PRODUCTS=… ORDERS=… SAMPLES=… to change the sizes)
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { readDevVars } from "../scripts/local-setup.mjs";
import { roundTrips, startServer } from "./server.mjs";

const PRODUCTS = Number(process.env.PRODUCTS || 5000);
const ORDERS = Number(process.env.ORDERS || 20000);
const TEMPLATES = 20;
const SAMPLES = Number(process.env.SAMPLES || 60);
const STATE = ".wrangler/bench-console-state";
const root = new URL("..", import.meta.url).pathname;
const json = { "content-type": "application/json" };
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };
const WORDS = [
  "linen",
  "organic",
  "wool",
  "canvas",
  "cotton",
  "denim",
  "merino",
  "silk",
  "bamboo",
  "hemp",
  "tee",
  "cap",
  "scarf",
  "tote",
  "sock",
  "shirt",
  "jacket",
  "apron",
];
const BRANDS = ["Fernhill", "Northwind", "Saltmarsh", "Juniper", "Oakline", "Riverstone", "Tidewater", "Larkspur"];

rmSync(new URL(`../${STATE}`, import.meta.url), { recursive: true, force: true });
let server = await startServer({ state: STATE });
const { OWNER_EMAIL, OWNER_PASSWORD } = readDevVars();

async function call(method, path, body, authorization, headers = {}) {
  const res = await fetch(server.base + path, {
    method,
    headers: { ...json, ...headers, ...(authorization ? { authorization } : {}) },
    body: body && JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function pool(count, concurrency, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

// ---- Products
const started = performance.now();
const ids = [];
await pool(PRODUCTS, 8, async (i) => {
  const name = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${i}`;
  const { product } = await call(
    "POST",
    "/v1/products",
    {
      product: {
        name,
        description: `A ${WORDS[(i * 5) % WORDS.length]} piece, number ${i}.`,
        priceData: { price: 5 + (i % 95) + 0.99 },
        brand: BRANDS[i % BRANDS.length],
        ...(i % 9 === 0 ? { ribbon: "New" } : {}),
        visible: i % 13 !== 0,
        sku: `B-${i}`,
        productOptions: [
          { name: "Size", choices: [{ value: "S" }, { value: "M" }, { value: "L" }] },
          {
            name: "Colour",
            optionType: "color",
            choices: [
              { value: "#aa0000", description: "Red" },
              { value: "#0000aa", description: "Blue" },
            ],
          },
        ],
        stock: { trackInventory: true, quantity: i % 11 === 0 ? 0 : 1 + (i % 40) },
      },
    },
    server.ownerKey,
  );
  ids[i] = product.id;
});
const productSeconds = (performance.now() - started) / 1000;
const { collection } = await call("POST", "/v1/collections", { collection: { name: "Bench picks" } }, server.ownerKey);
for (let i = 0; i < Math.min(1000, ids.length); i += 100) {
  await call(
    "POST",
    `/v1/collections/${collection.id}/productIds`,
    { productIds: ids.slice(i, i + 100).filter((_, k) => (i + k) % 5 === 0) },
    server.ownerKey,
  );
}

// ---- Orders: real ones to copy
for (let i = 0; i < TEMPLATES; i++) {
  const { access_token: token } = await call("POST", "/oauth2/token", { grantType: "anonymous", clientId: server.clientId });
  // A product shoppers can see and buy (every 13th is hidden, every 11th out of stock).
  let at = (i * 37 + 1) % ids.length;
  while (at % 13 === 0 || at % 11 === 0) at = (at + 1) % ids.length;
  const p = await call("GET", `/v1/products/${ids[at]}`);
  const variant = p.product.variants.find((v) => v.stock.inStock) ?? p.product.variants[0];
  const line = {
    catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: p.product.id, options: { variantId: variant.id } },
    quantity: 1,
  };
  await call("POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, token);
  // Each template buyer from its own address (198.18.0.0/15): checkouts and orders are limited per address.
  const address = { "cf-connecting-ip": `198.18.1.${i + 1}` };
  const co = await call("POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, token, address);
  await call(
    "PATCH",
    `/ecom/v1/checkouts/${co.checkoutId}`,
    {
      checkout: {
        buyerInfo: { email: `template${i}@example.com` },
        shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: { firstName: "Sam", lastName: `Buyer${i}` } } },
      },
    },
    token,
  );
  try {
    await call("POST", `/ecom/v1/checkouts/${co.checkoutId}/create-order`, { id: co.checkoutId }, token, address);
  } catch (err) {
    console.warn(`template order ${i} not placed: ${err.message.slice(0, 120)}`);
  }
}
server.stop();

// Copies: each template K times, as new orders with their lines, numbered after the real ones, spread over a year.
const copies = Math.max(0, Math.ceil((ORDERS - TEMPLATES) / TEMPLATES));
const sql = `
WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ${copies}),
tpl AS (SELECT o.*, ROW_NUMBER() OVER (ORDER BY number) - 1 AS t, (SELECT COUNT(*) FROM orders) AS cnt, (SELECT MAX(number) FROM orders) AS top FROM orders o)
INSERT INTO orders (id, number, checkout_id, cart_id, owner_kind, owner_id, buyer_email, status, payment_status, fulfillment_status, currency, subtotal, total, channel_type, details, purchased_date, created_date, updated_date)
SELECT id || '~' || k, top + (k - 1) * cnt + t + 1, checkout_id || '~' || k, cart_id, owner_kind, owner_id || '~' || k,
  'buyer' || ((k * cnt + t) % 5000) || '@example.com', status,
  CASE (k + t) % 4 WHEN 0 THEN 'NOT_PAID' WHEN 3 THEN 'FULLY_REFUNDED' ELSE 'PAID' END,
  CASE (k + t) % 3 WHEN 0 THEN 'FULFILLED' ELSE 'NOT_FULFILLED' END,
  currency, subtotal, total, channel_type,
  json_set(details, '$.buyerInfo.email', 'buyer' || ((k * cnt + t) % 5000) || '@example.com', '$.number', CAST(top + (k - 1) * cnt + t + 1 AS TEXT)),
  strftime('%Y-%m-%dT%H:%M:%fZ', purchased_date, '-' || ((k * cnt + t) * 26) || ' minutes'),
  strftime('%Y-%m-%dT%H:%M:%fZ', created_date, '-' || ((k * cnt + t) * 26) || ' minutes'),
  updated_date
FROM tpl, n;
WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ${copies})
INSERT INTO order_line_items (id, order_id, position, catalog_item_id, variant_id, name, quantity, fulfilled_quantity, price, details)
SELECT li.id || '~' || k, li.order_id || '~' || k, position, catalog_item_id, variant_id, name, quantity, fulfilled_quantity, price, li.details
FROM order_line_items li, n WHERE instr(li.order_id, '~') = 0;
INSERT INTO order_numbers (id) SELECT MAX(number) FROM orders;
`;
const file = new URL(`../${STATE}/copy-orders.sql`, import.meta.url).pathname;
writeFileSync(file, sql);
const wrangler = (...args) =>
  execFileSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", STATE, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" },
  });
wrangler("--file", file);
const orderCount = JSON.parse(wrangler("--json", "--command", "SELECT COUNT(*) AS n FROM orders"))[0].results[0].n;

// ---- Measure
server = await startServer({ state: STATE, build: false });
await fetch(`${server.base}/api/v1/bootstrap`, { method: "POST", headers: { authorization: server.ownerKey } });
const login = await fetch(`${server.base}/console/login`, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", origin: server.base },
  body: new URLSearchParams({ email: OWNER_EMAIL, password: OWNER_PASSWORD, returnTo: "/console" }),
  redirect: "manual",
});
const cookie = (login.headers.getSetCookie().find((c) => c.startsWith("__Host-console=")) ?? "").split(";")[0];
if (!cookie) throw new Error(`console sign-in failed: ${login.status}`);
const counts = await (await fetch(`${server.base}/console/products?visibility=`, { headers: { cookie } })).text();
const totalProducts = /(\d+) products/.exec(counts)?.[1] ?? "?";

async function measure(label, urls) {
  const times = [];
  let trips = "?";
  let bad = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const url = urls[i % urls.length];
    const t0 = performance.now();
    const res = await fetch(server.base + url, { headers: { cookie } });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (res.status !== 200) bad++;
    trips = roundTrips(res);
  }
  times.sort((a, b) => a - b);
  const pct = (p) => Math.round(times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]);
  return { page: label, samples: SAMPLES, "p50 ms": pct(50), "p99 ms": pct(99), "D1 round trips": trips, "non-200": bad };
}

const pick = (k) => ids[(k * 7919) % ids.length];
const rows = [
  await measure("products table, newest first", ["/console/products"]),
  await measure("products table, search", ["/console/products?q=linen", "/console/products?q=merino%20scarf", "/console/products?q=B-1234"]),
  await measure("products table, filters + sort + deep page", [
    `/console/products?brand=Fernhill&stock=in&sort=price-asc&page=5`,
    `/console/products?collection=${collection.id}&visibility=visible&min=20&max=60`,
    `/console/products?ribbon=New&sort=name&page=20`,
    `/console/products?page=150`,
  ]),
  await measure(
    "product editor (6 variants)",
    Array.from({ length: 10 }, (_, k) => `/console/products/${pick(k)}`),
  ),
  await measure("orders list, newest first", ["/console/orders"]),
  await measure("orders list, filters", [
    "/console/orders?payment=PAID&fulfillment=NOT_FULFILLED",
    "/console/orders?from=2026-01-01&to=2026-06-30&payment=NOT_PAID",
    "/console/orders?q=buyer42%40example.com",
    "/console/orders?q=Buyer7&sort=oldest",
  ]),
  await measure("reports, each report over a year", [
    "/console/reports?report=products&from=2026-01-01&to=2026-12-31",
    "/console/reports?report=collections&from=2026-01-01&to=2026-12-31",
    "/console/reports?report=customers&from=2026-01-01&to=2026-12-31",
    "/console/reports?report=refunds&from=2026-01-01&to=2026-12-31",
    "/console/reports?report=taxes&from=2026-01-01&to=2026-12-31",
    "/console/reports?report=discounts&from=2026-01-01&to=2026-12-31",
  ]),
  await measure("console search (all four kinds)", [
    "/console/search?q=linen",
    "/console/search?q=1042",
    "/console/search?q=buyer42%40example.com",
    "/console/search?q=merino%20scarf",
  ]),
];
server.stop();

console.log(`\nConsole on the local server (wrangler dev, production build), ${new Date().toISOString()}`);
console.log(
  `Store: ${totalProducts} products (${PRODUCTS} created through the API in ${productSeconds.toFixed(0)} s, 6 variants each), ${orderCount} orders (${TEMPLATES} placed, the rest copied in SQL).`,
);
console.table(rows);
