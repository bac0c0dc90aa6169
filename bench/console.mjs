// Console benchmark: fills a fresh local store with PRODUCTS products (default 5,000; 6 variants each) and ORDERS
// orders (default 20,000), then prints p50/p99 and D1 round trips of the console's products table, product editor,
// orders list, customers list and page, reports and search. TEMPLATES real orders are placed, then copied in SQL (placing 20,000 one by one takes an hour).
//
//   npm run bench:console            (PRODUCTS=… ORDERS=… SAMPLES=… to change the sizes)
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { call as callAt, cartLine, consoleCookie, copyOrdersSql, percentile, placeOrder, pool } from "./lib/shop.mjs";
import { roundTrips, startServer } from "./server.mjs";

const PRODUCTS = Number(process.env.PRODUCTS || 5000);
const ORDERS = Number(process.env.ORDERS || 20000);
const TEMPLATES = 20;
const SAMPLES = Number(process.env.SAMPLES || 60);
const STATE = ".wrangler/bench-console-state";
const root = new URL("..", import.meta.url).pathname;
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
const call = (...args) => callAt(server.base, ...args);

// ---- Products
const started = performance.now();
const ids = [];
// A dev server on a busy machine may drop a connection when its Worker restarts: such a create is tried again.
const retried = async (attempt) => {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (tries >= 4 || !String(err.message).includes("fetch failed")) throw err;
      await new Promise((r) => setTimeout(r, 1000 * tries));
    }
  }
};
await pool(PRODUCTS, 8, async (i) => {
  const name = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} ${i}`;
  const { product } = await retried(() =>
    call(
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
    ),
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
  // A product shoppers can see and buy (every 13th is hidden, every 11th out of stock).
  let at = (i * 37 + 1) % ids.length;
  while (at % 13 === 0 || at % 11 === 0) at = (at + 1) % ids.length;
  try {
    await placeOrder(server.base, server.clientId, await cartLine(server.base, ids[at]), i);
  } catch (err) {
    console.warn(`template order ${i} not placed: ${err.message.slice(0, 120)}`);
  }
}
server.stop();

// Copies: each template K times, as new orders with their lines, numbered after the real ones, spread over a year.
const copies = Math.max(0, Math.ceil((ORDERS - TEMPLATES) / TEMPLATES));
const sql = copyOrdersSql({ from: 1, to: copies });
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
const cookie = await consoleCookie(server.base);
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
  const pct = (p) => percentile(times, p);
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
  await measure("customers list (plain, searched, deep)", [
    "/console/customers",
    "/console/customers?q=buyer4",
    "/console/customers?cursor=buyer5%40example.com",
  ]),
  await measure(
    "customer page (orders, spend, carts)",
    Array.from({ length: 10 }, (_, k) => `/console/customers/${encodeURIComponent(`buyer${k}@example.com`)}`),
  ),
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
