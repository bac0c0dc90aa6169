// API benchmark: requests per second and p50/p99 latency for the product query and get-product calls next to a
// bare JSON route of the same local server (wrangler dev on the production build), plus the D1 round trips each
// request makes (from the Server-Timing header). Prints figures; it is not a pass/fail test.
//
//   npm run bench                 # 10 s per route, 10 connections
//   DURATION=20 CONNECTIONS=20 npm run bench
import autocannon from "autocannon";
import { roundTrips, startServer } from "./server.mjs";

const duration = Number(process.env.DURATION || 10);
const connections = Number(process.env.CONNECTIONS || 10);
const { base, stop, clientId } = await startServer();

const dotR = (payload) => Buffer.from(JSON.stringify(payload)).toString("base64url");
const listing = await (await fetch(`${base}/v1/products/query-platformized`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
const productId = listing.products[0].id;
const queryPayload = { query: { filter: { price: { $lt: 100 } }, sort: [{ fieldName: "price", order: "ASC" }], paging: { limit: 20, offset: 0 } } };

// Visitors with a cart each: the cart calls rotate over them, as separate shoppers would (one shared cart would
// measure the optimistic-concurrency retries instead).
const untracked = (await (await fetch(`${base}/v1/products/query-platformized`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ query: { paging: { limit: 100 } }, includeVariants: true }),
})).json()).products.find((p) => !p.stock.trackInventory && p.stock.inStock);
const line = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: untracked.id, options: { variantId: untracked.variants[0].id } }, quantity: 1 };
const visitors = [];
for (let i = 0; i < 50; i++) {
  const t = await (await fetch(`${base}/oauth2/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grantType: "anonymous", clientId }) })).json();
  await fetch(`${base}/ecom/v1/carts/current/add-to-cart`, { method: "POST", headers: { "content-type": "application/json", authorization: t.access_token }, body: JSON.stringify({ lineItems: [line] }) });
  visitors.push(t.access_token);
}
let turn = 0;
const asVisitor = (req) => ({ ...req, headers: { ...req.headers, authorization: visitors[turn++ % visitors.length] } });

const routes = [
  { name: "bare JSON (/api/health)", path: "/api/health" },
  { name: "get product", path: `/stores-reader/v1/products/${productId}?id=${productId}` },
  { name: "product query (GET .r)", path: `/stores-reader/v1/products/query-platformized?.r=${dotR(queryPayload)}` },
  { name: "product query (POST)", path: "/v1/products/query-platformized", method: "POST", body: JSON.stringify(queryPayload), headers: { "content-type": "application/json" } },
  { name: "cart add-to-cart", path: "/ecom/v1/carts/current/add-to-cart", method: "POST", body: JSON.stringify({ lineItems: [line] }), headers: { "content-type": "application/json" }, perVisitor: true },
  { name: "cart estimate-totals", path: "/ecom/v1/carts/current/estimate-totals", method: "POST", body: "{}", headers: { "content-type": "application/json" }, perVisitor: true },
];

const rows = [];
for (const r of routes) {
  const probe = await fetch(base + r.path, { method: r.method ?? "GET", body: r.body, headers: r.perVisitor ? { ...r.headers, authorization: visitors[0] } : r.headers });
  if (probe.status !== 200) throw new Error(`${r.name}: HTTP ${probe.status}`);
  const trips = roundTrips(probe);
  const bytes = (await probe.arrayBuffer()).byteLength;
  const result = await autocannon({
    url: base + r.path,
    method: r.method ?? "GET",
    body: r.body,
    headers: r.headers,
    duration,
    connections,
    ...(r.perVisitor ? { requests: [{ setupRequest: asVisitor }] } : {}),
  });
  rows.push({ route: r.name, "req/s": Math.round(result.requests.average), "p50 ms": result.latency.p50, "p99 ms": result.latency.p99, "D1 round trips": trips, "body bytes": bytes, errors: result.errors + result.non2xx });
}
stop();

const bare = rows[0]["req/s"];
for (const row of rows) row["vs bare"] = `${((row["req/s"] / bare) * 100).toFixed(0)}%`;
console.log(`\nLocal server (wrangler dev, production build), ${connections} connections, ${duration} s per route, ${new Date().toISOString()}`);
console.table(rows);
process.exit(0);
