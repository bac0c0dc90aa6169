// Scale benchmark: grows one local store from 1k to 10k to 100k products (6 variants each, media, collections) with
// 10k, 100k and 1M orders, seeded straight into the local D1 file in SQL (copies of one product and of real orders
// placed through the API), and prints for each size p50, p99, D1 round trips and D1 rows read (the most any sample
// reported, from Server-Timing) of the storefront's pages and API calls, the console's lists, the sweeps and exports.
//
//   npm run bench:scale                         (all sizes; --no-build reuses build/)
//   npm run bench:scale -- --sizes 1k,10k       (SAMPLES=… requests per figure, default 20)
//
// Storefront pages are asked with a fresh `_bench` parameter each time so the page cache misses; the catalogue reads
// behind a page may still come from the shoppers' cache, which is why rows read is the most any sample reported.
import { execFileSync } from "node:child_process";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { call, cartLine, consoleCookie, copyOrdersSql, percentile, placeOrder } from "./lib/shop.mjs";
import { startServer, usage } from "./server.mjs";

const SIZES = {
  "1k": { products: 1_000, orders: 10_000 },
  "10k": { products: 10_000, orders: 100_000 },
  "100k": { products: 100_000, orders: 1_000_000 },
};
const arg = process.argv.indexOf("--sizes");
const sizes = (arg > 0 ? process.argv[arg + 1] : "1k,10k,100k").split(",").map((s) => s.trim());
for (const s of sizes) if (!SIZES[s]) throw new Error(`unknown size ${s} (1k, 10k or 100k)`);
const SAMPLES = Number(process.env.SAMPLES || 20);
const TEMPLATES = 20;
const STATE = ".wrangler/bench-scale-state";
const WORDS = ["linen", "organic", "wool", "canvas", "cotton", "denim", "merino", "silk", "bamboo", "hemp", "tee", "cap", "scarf", "tote", "sock"];
const BRANDS = ["Fernhill", "Northwind", "Saltmarsh", "Juniper", "Oakline", "Riverstone", "Tidewater", "Larkspur"];
const COLLECTIONS = 10;
const began = performance.now();

// ---- A template product (6 variants) and real orders to copy, through the API.
rmSync(new URL(`../${STATE}`, import.meta.url), { recursive: true, force: true });
let server = await startServer({ state: STATE });
const api = (method, path, body) => call(server.base, method, path, body, server.ownerKey);
await fetch(`${server.base}/api/v1/bootstrap`, { method: "POST", headers: { authorization: server.ownerKey } });
const { product: template } = await api("POST", "/v1/products", {
  product: {
    name: "Scale template",
    description: "A piece made to be copied.",
    priceData: { price: 20 },
    sku: "SCALE-T",
    productOptions: [
      { name: "Size", choices: [{ value: "S" }, { value: "M" }, { value: "L" }] },
      { name: "Colour", choices: [{ value: "Red" }, { value: "Blue" }] },
    ],
    stock: { trackInventory: true, quantity: 1000 },
  },
});
const line = await cartLine(server.base, template.id);
for (let i = 0; i < TEMPLATES; i++) await placeOrder(server.base, server.clientId, line, i);
server.stop();
await new Promise((r) => setTimeout(r, 1000));

const dir = new URL(`../${STATE}/v3/d1/miniflare-D1DatabaseObject/`, import.meta.url).pathname;
const dbFile = dir + readdirSync(dir).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
const sqlite = (sql) => execFileSync("sqlite3", ["-bail", dbFile], { input: sql, encoding: "utf8", maxBuffer: 1 << 26 });
const count = (table) => Number(sqlite(`SELECT count(*) FROM ${table};`).trim());

// Products bench-p<k>: the template's row with its own name, slug, sku, brand, price, visibility and date; its
// variants; its media (the first demo product's with media); in collection bench-c<k % 10> and in bench-all.
const columns = sqlite(`SELECT name FROM pragma_table_info('products');`).trim().split("\n");
const words = `'${JSON.stringify(WORDS)}'`;
const brands = `'${JSON.stringify(BRANDS)}'`;
const price = "(500 + (k * 7919) % 19500)";
const overrides = {
  id: "'bench-p' || k",
  numeric_id: "1000000 + k",
  slug: "'bench-' || k",
  name: `json_extract(${words}, '$[' || (k % 15) || ']') || ' ' || json_extract(${words}, '$[' || ((k * 7 + 3) % 15) || ']') || ' ' || k`,
  description: `'A ' || json_extract(${words}, '$[' || ((k * 5) % 15) || ']') || ' piece, number ' || k || '.'`,
  sku: "'SC-' || k",
  visible: "k % 13 != 0",
  price,
  min_price: price,
  max_price: price,
  brand: `json_extract(${brands}, '$[' || (k % 8) || ']')`,
  ribbon: "CASE WHEN k % 9 = 0 THEN 'New' END",
  media: "coalesce((SELECT media FROM products WHERE media != '[]' ORDER BY numeric_id LIMIT 1), t.media)",
  variant_skus: "''",
  created_date: "strftime('%Y-%m-%dT%H:%M:%fZ', t.created_date, '-' || k || ' minutes')",
};
function growProducts(from, to) {
  const n = `WITH RECURSIVE n(k) AS (SELECT ${from} UNION ALL SELECT k + 1 FROM n WHERE k < ${to})`;
  const select = columns.map((c) => overrides[c] ?? `t.${c}`).join(", ");
  const collections = Array.from({ length: COLLECTIONS }, (_, c) => `('bench-c${c}', 'bench-${c}', 'Bench ${c}', 'Ten percent of the bench.')`);
  sqlite(`BEGIN;
INSERT OR IGNORE INTO collections (id, slug, name, description, created_date, updated_date)
  SELECT column1, column2, column3, column4, strftime('%Y-%m-%dT%H:%M:%fZ'), strftime('%Y-%m-%dT%H:%M:%fZ')
  FROM (VALUES ('bench-all', 'bench-all', 'Bench: everything', 'Every bench product.'), ${collections.join(", ")});
${n} INSERT INTO products (${columns.join(", ")}) SELECT ${select} FROM products t, n WHERE t.id = '${template.id}';
${n} INSERT INTO variants (product_id, id, choices, position, price, cost, weight, sku, visible, quantity, in_stock)
  SELECT 'bench-p' || k, v.id, v.choices, v.position, v.price, v.cost, v.weight, NULL, v.visible, v.quantity, v.in_stock
  FROM variants v, n WHERE v.product_id = '${template.id}';
${n} INSERT INTO collection_products (collection_id, product_id, added_date)
  SELECT 'bench-all', 'bench-p' || k, strftime('%Y-%m-%dT%H:%M:%fZ') FROM n
  UNION ALL SELECT 'bench-c' || (k % ${COLLECTIONS}), 'bench-p' || k, strftime('%Y-%m-%dT%H:%M:%fZ') FROM n;
INSERT OR IGNORE INTO product_numbers (id) VALUES (${1_000_000 + to});
COMMIT;`);
}

// Orders: the placed ones copied (ids "<id>~<k>"), buyers spread over a tenth of the order count; then, per size, a
// tenth as many emails sent and carts already looked at by the abandoned-cart sweep (the sweeps' idle data).
function growOrders(from, to) {
  const copies = (n) => n / TEMPLATES - 1;
  sqlite(`BEGIN;\n${copyOrdersSql({ from: copies(from) + 1, to: copies(to), buyers: to / 10, spacingSeconds: 30 })}
WITH RECURSIVE n(k) AS (SELECT ${from / 10} UNION ALL SELECT k + 1 FROM n WHERE k < ${to / 10 - 1})
INSERT INTO emails (id, "to", template, subject, html, text, status, created_date, sent_date, attempts)
  SELECT 'bench-e' || k, 'buyer' || k || '@example.com', 'order-confirmation', 'Your order', '<p>Thanks</p>', 'Thanks', 'SENT',
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (k * 300) || ' seconds'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (k * 300) || ' seconds'), 1 FROM n;
WITH RECURSIVE n(k) AS (SELECT ${from / 10} UNION ALL SELECT k + 1 FROM n WHERE k < ${to / 10 - 1})
INSERT INTO carts (id, owner_kind, owner_id, status, currency, purchase_flow_id, created_date, updated_date, last_activity, abandon_checked)
  SELECT 'bench-cart' || k, 'visitor', 'bench-visitor' || k, 'ACTIVE', 'USD', 'bench-flow' || k, d, d, d, d
  FROM (SELECT k, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (k * 600) || ' seconds') AS d FROM n);
COMMIT;`);
}

// ---- Measurements
let cookie = "";
let bust = 0;
const fresh = (path) => `${path}${path.includes("?") ? "&" : "?"}_bench=${Date.now()}-${++bust}`;

/** Times `request(i)` SAMPLES times (it returns one Response or several whose costs add up). */
async function figure(label, request, samples = SAMPLES) {
  const times = [];
  let trips = 0;
  let rows = 0;
  let bad = 0;
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    let out;
    try {
      out = await request(i);
    } catch (err) {
      // A request that does not answer within TIMEOUT_MS counts as failed and ends the figure.
      console.warn(`${label}: ${err.cause?.code ?? err.name ?? err.message}`);
      bad++;
      times.push(performance.now() - t0);
      break;
    }
    const answers = Array.isArray(out) ? out : [out];
    let ms = performance.now() - t0;
    if (out && !Array.isArray(out)) {
      await out.arrayBuffer().catch(() => bad++);
      ms = performance.now() - t0;
    }
    if (out?.ms !== undefined) ms = out.ms;
    times.push(ms);
    const cost = answers.filter((a) => a?.headers).map(usage);
    trips = Math.max(
      trips,
      cost.reduce((s, u) => s + u.d1Trips, 0),
    );
    rows = Math.max(
      rows,
      cost.reduce((s, u) => s + u.d1RowsRead, 0),
    );
    bad += answers.filter((a) => a?.status && a.status !== 200).length;
  }
  times.sort((a, b) => a - b);
  console.log(`  ${label}: p50 ${percentile(times, 50)} ms, ${trips} trips, ${rows} rows read${bad ? `, ${bad} failed` : ""}`);
  return { label, p50: percentile(times, 50), p99: percentile(times, 99), trips, rows, bad };
}

const TIMEOUT_MS = Number(process.env.TIMEOUT_MS || 60_000);
const get = (path, headers = {}) => fetch(server.base + path, { headers, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
const staff = (path) => get(path, { cookie });
const owner = (method, path, body) =>
  fetch(server.base + path, {
    method,
    headers: { "content-type": "application/json", authorization: server.ownerKey },
    body: body && JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });

async function measureAll(size) {
  const pick = (i) => 1 + ((i * 7919 + 17) % size.products);
  const rows = [
    await figure("home", () => get(fresh("/"))),
    await figure("collection by price, page 1", () => get(fresh("/collections/bench-all?sort=price-asc"))),
    await figure("collection by price, page 50", () => get(fresh("/collections/bench-all?sort=price-asc&page=50"))),
    await figure("search", (i) => get(fresh(`/search?q=${WORDS[i % WORDS.length]}`))),
    await figure("product page", (i) => get(fresh(`/products/bench-${pick(i)}`))),
    await figure("API products query, filter + sort", (i) =>
      owner("POST", "/v1/products/query", {
        query: {
          filter: { brand: BRANDS[i % BRANDS.length], "priceData.price": { $gt: 50, $lt: 150 } },
          sort: [{ fieldName: "price", order: "ASC" }],
          paging: { limit: 50 },
        },
      }),
    ),
  ];
  // Carts and orders: each sample a new shopper; only the steps named are timed.
  const timed = { cart: [], order: [] };
  const orderSamples = Math.min(SAMPLES, 10);
  for (let i = 0; i < orderSamples; i++) await placeOrder(server.base, server.clientId, line, 1000 + bust++ * 10 + i, timed);
  const stepFigure = (label, steps) => figure(label, (i) => Object.assign(steps[i].res, { ms: steps[i].ms }), steps.length);
  rows.push(await stepFigure("add to cart + estimate", timed.cart), await stepFigure("create order", timed.order));
  rows.push(
    await figure("console products, search", (i) => staff(`/console/products?q=${WORDS[i % WORDS.length]}`)),
    await figure("console products, filter + sort + page 5", (i) =>
      staff(`/console/products?brand=${BRANDS[i % BRANDS.length]}&stock=in&sort=price-asc&page=5`),
    ),
    await figure("console orders, search", (i) => staff(`/console/orders?q=buyer${i * 37}%40example.com`)),
    await figure("console orders, filtered", () => staff("/console/orders?payment=PAID&fulfillment=NOT_FULFILLED")),
    await figure("console customers", () => staff("/console/customers")),
    await figure("console customers, search", (i) => staff(`/console/customers?q=buyer${i * 3}`)),
    await figure("global search (console-search)", (i) =>
      owner("GET", `/api/v1/console-search?q=${["linen", "1042", "buyer42@example.com", "merino scarf"][i % 4]}`),
    ),
    await figure("dashboard", () => staff("/console")),
    await figure("sweeps (abandoned carts, emails, …)", () => owner("POST", "/api/v1/events/sweep"), 5),
    await figure("CSV export, products", () => staff("/console/products/export.csv"), 3),
    await figure(
      "CSV export, orders (last 7 days)",
      () => staff(`/console/orders/export.csv?from=${new Date(Date.now() - 7 * 864e5).toISOString().slice(0, 10)}`),
      3,
    ),
  );
  const reports = await owner("GET", "/api/v1/reports/products");
  await reports.arrayBuffer();
  rows.push(
    reports.status === 200
      ? await figure("reports: products", () => owner("GET", "/api/v1/reports/products"))
      : { label: "reports: products", skipped: `HTTP ${reports.status}` },
  );
  return rows;
}

// ---- Grow and measure, size by size
const results = {};
let grown = { products: 0, orders: TEMPLATES };
for (const name of sizes) {
  const size = SIZES[name];
  const t0 = performance.now();
  if (size.products > grown.products) growProducts(grown.products + 1, size.products);
  if (size.orders > grown.orders) growOrders(grown.orders, size.orders);
  sqlite("ANALYZE;");
  grown = size;
  const have = { products: count("products"), orders: count("orders") };
  const seeded = (performance.now() - t0) / 1000;
  server = await startServer({ state: STATE, build: false });
  cookie = await consoleCookie(server.base);
  const t1 = performance.now();
  results[name] = await measureAll(size);
  server.stop();
  await new Promise((r) => setTimeout(r, 1000));
  console.log(
    `${name}: ${have.products} products, ${have.orders} orders; seeded in ${seeded.toFixed(0)} s, measured in ${((performance.now() - t1) / 1000).toFixed(0)} s`,
  );
  console.table(
    results[name].map((r) =>
      r.skipped
        ? { figure: r.label, skipped: r.skipped }
        : { figure: r.label, "p50 ms": r.p50, "p99 ms": r.p99, "D1 trips": r.trips, "D1 rows read": r.rows, "non-200": r.bad },
    ),
  );
}

// The curve: each figure at every size measured.
const curve = results[sizes[0]].map((r, i) => {
  const row = { figure: r.label };
  for (const name of sizes) {
    const x = results[name][i];
    row[name] = x.skipped ? `skipped (${x.skipped})` : `${x.p50} / ${x.p99} ms, ${x.trips} trips, ${x.rows} rows`;
  }
  return row;
});
console.log(`\nScale curve (p50 / p99, D1 round trips, D1 rows read), ${new Date().toISOString()}`);
console.table(curve);
writeFileSync(new URL(`../${STATE}/scale.json`, import.meta.url), JSON.stringify(results, null, 2));
console.log(`Whole run: ${((performance.now() - began) / 60000).toFixed(1)} minutes.`);
