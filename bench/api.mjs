// API benchmark: req/s and p50/p99 of the catalogue reads, cached and uncached, each beside a bare Hono route
// serving the same bytes on the same runtime (bench/floor/); then the cart calls, D1 round trips and the cost table.
// docs/benchmarks.md explains the figures.
//
//   npm run bench                 # 10 s per measurement, 10 connections (about 3 minutes)
//   DURATION=20 CONNECTIONS=20 npm run bench
import { measureCosts, printCosts } from "./costs.mjs";
import { startFloor } from "./floor/start.mjs";
import { connections, duration, load, loadInTurns, printComparison } from "./floor/compare.mjs";
import { roundTrips, startServer } from "./server.mjs";

const { base, stop, clientId, state } = await startServer();
const floor = await startFloor();

try {
  const dotR = (payload) => Buffer.from(JSON.stringify(payload)).toString("base64url");
  const listing = await (
    await fetch(`${base}/v1/products/query-platformized`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
  ).json();
  const productId = listing.products[0].id;
  const queryOf = (bound) => ({
    query: { filter: { price: { $lt: bound } }, sort: [{ fieldName: "price", order: "ASC" }], paging: { limit: 20, offset: 0 } },
  });
  const queryPath = (bound) => `/stores-reader/v1/products/query-platformized?.r=${dotR(queryOf(bound))}`;
  let bust = 0;
  // 100 + n·1e-7 for n < 10^6 stays below 100.1: no demo product is priced in between, so the answer is the same.
  const uncachedQuery = (req) => ({ ...req, path: queryPath(100 + (++bust % 1_000_000) * 1e-7) });

  // Visitors with a cart each: the cart calls rotate over them, as separate shoppers would (one shared cart would
  // measure the optimistic-concurrency retries instead).
  const untracked = (
    await (
      await fetch(`${base}/v1/products/query-platformized`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: { paging: { limit: 100 } }, includeVariants: true }),
      })
    ).json()
  ).products.find((p) => !p.stock.trackInventory && p.stock.inStock);
  const line = {
    catalogReference: {
      appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e",
      catalogItemId: untracked.id,
      options: { variantId: untracked.variants[0].id },
    },
    quantity: 1,
  };
  const visitors = [];
  for (let i = 0; i < 50; i++) {
    const t = await (
      await fetch(`${base}/oauth2/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grantType: "anonymous", clientId }),
      })
    ).json();
    await fetch(`${base}/ecom/v1/carts/current/add-to-cart`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: t.access_token },
      body: JSON.stringify({ lineItems: [line] }),
    });
    visitors.push(t.access_token);
  }
  let turn = 0;
  const asVisitor = (req) => ({ ...req, headers: { ...req.headers, authorization: visitors[turn++ % visitors.length] } });

  /** The shop's answer (fetched twice: the second shows what a repeat costs), and the floor serving its bytes. */
  async function probe(name, path, init = {}) {
    await (await fetch(base + path, init)).arrayBuffer();
    const res = await fetch(base + path, init);
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
    const trips = roundTrips(res);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { trips, bytes, floorUrl: await floor.json(name, bytes) };
  }

  const rows = [];
  const query = await probe("query", queryPath(100));
  const busted = new Uint8Array(await (await fetch(base + queryPath(100 + 1e-7))).arrayBuffer());
  if (Buffer.compare(busted, query.bytes) !== 0) throw new Error("the cache-busting query does not answer the same bytes");
  // Each shop figure and its floor are loaded in turns (the median turn of each), so the machine's drift falls on both.
  const cachedQuery = await loadInTurns({ shop: [base + queryPath(100)], floor: [query.floorUrl] });
  rows.push({ name: "products query, 20 products (GET .r), cached", ...cachedQuery, target: 0.5, bytes: query.bytes.length, trips: query.trips });
  const bustedTrips = roundTrips(await fetch(base + queryPath(100 + 2e-7)));
  // The miss path, for what it costs: a D1 read, serialisation and a Cache API store on every request, beside a floor
  // that serves bytes from memory. The target for API reads (>= 0.5x) is for reads served from the cache of
  // serialised responses, a repeated query, which is the cached row; no target is printed for this one.
  const uncachedQueryFigures = await loadInTurns({ shop: [base + queryPath(100), { setupRequest: uncachedQuery }], floor: [query.floorUrl] });
  rows.push({ name: "products query, 20 products (GET .r), uncached", ...uncachedQueryFigures, bytes: query.bytes.length, trips: bustedTrips });

  const byId = await probe("product", `/stores-reader/v1/products/${productId}?id=${productId}`);
  const byIdFigures = await loadInTurns({ shop: [`${base}/stores-reader/v1/products/${productId}?id=${productId}`], floor: [byId.floorUrl] });
  rows.push({ name: "product by id, cached", ...byIdFigures, target: 0.5, bytes: byId.bytes.length, trips: byId.trips });

  const cartHeaders = { "content-type": "application/json" };
  for (const [name, path, body] of [
    ["cart add-to-cart", "/ecom/v1/carts/current/add-to-cart", JSON.stringify({ lineItems: [line] })],
    ["cart estimate-totals", "/ecom/v1/carts/current/estimate-totals", "{}"],
  ]) {
    const res = await fetch(base + path, { method: "POST", body, headers: { ...cartHeaders, authorization: visitors[0] } });
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}`);
    const bytes = (await res.arrayBuffer()).byteLength;
    rows.push({
      name,
      shop: await load(base + path, { method: "POST", body, headers: cartHeaders, setupRequest: asVisitor }),
      bytes,
      trips: roundTrips(res),
    });
  }

  printComparison(
    `Local servers (wrangler dev; the shop's production build; the floor: a bare Hono route serving the same bytes), ${connections} connections, ${duration} s each (a read and its floor in ${process.env.ROUNDS || 3} turns, the median turn), ${new Date().toISOString()}`,
    rows,
  );
  printCosts(await measureCosts(base, clientId, line, state));
} finally {
  floor.stop();
  stop();
}
process.exit(0);
