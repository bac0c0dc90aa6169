// Orders benchmark: places ORDERS orders (default 200), CONCURRENCY at a time (default 10), each from its own
// visitor's cart and checkout, against one tracked product, and prints orders per second, p50/p99 latency of
// create-order and its D1 round trips. Then the oversell check at that load: RACE parallel orders for 5 units.
//
//   npm run bench:orders
import { roundTrips, startServer } from "./server.mjs";

const ORDERS = Number(process.env.ORDERS || 200);
const CONCURRENCY = Number(process.env.CONCURRENCY || 10);
const RACE = Number(process.env.RACE || 50);
const { base, stop, ownerKey, clientId } = await startServer();
const json = { "content-type": "application/json" };
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

async function call(method, path, body, authorization, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...json, ...headers, ...(authorization ? { authorization } : {}) },
    body: body && JSON.stringify(body),
  });
  return { res, body: await res.json() };
}

async function product(name, quantity) {
  const { body } = await call(
    "POST",
    "/v1/products",
    { product: { name, priceData: { price: 12 }, stock: { trackInventory: true, quantity } } },
    ownerKey,
  );
  return body.product;
}

// Each visitor shops from its own address (198.18.0.0/15, the benchmarking range), as real shoppers do: the shop
// limits checkouts and orders per client address, and wrangler dev passes a client's CF-Connecting-IP through.
let shoppers = 0;
const shopperAddress = () => {
  const n = ++shoppers;
  return { "cf-connecting-ip": `198.18.${(n >> 8) & 255}.${n & 255}` };
};

/** A visitor's checkout for one unit, with email and address: ready for create-order. */
async function readyCheckout(p) {
  const address = shopperAddress();
  const { body: t } = await call("POST", "/oauth2/token", { grantType: "anonymous", clientId });
  const line = {
    catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: p.id, options: { variantId: p.variants[0].id } },
    quantity: 1,
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

async function placeAll(checkouts, concurrency) {
  const latencies = [];
  const statuses = {};
  let trips = "?";
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < checkouts.length) {
        const c = checkouts[next++];
        const t0 = performance.now();
        const res = await fetch(`${base}/ecom/v1/checkouts/${c.checkoutId}/create-order`, {
          method: "POST",
          headers: { ...json, ...c.address, authorization: c.token },
          body: JSON.stringify({ id: c.checkoutId }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) trips = roundTrips(res);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]);
  return { seconds, statuses, trips, p50: pct(50), p99: pct(99) };
}

const stocked = await product("Bench Tee", ORDERS * 2);
const checkouts = [];
for (let i = 0; i < ORDERS; i++) checkouts.push(await readyCheckout(stocked));
const run = await placeAll(checkouts, CONCURRENCY);

const scarce = await product("Last Few Tee", 5);
const racers = [];
for (let i = 0; i < RACE; i++) racers.push(await readyCheckout(scarce));
const race = await placeAll(racers, RACE);
const { body: after } = await call("GET", `/v1/products/${scarce.id}`);
stop();

console.log(`\nLocal server (wrangler dev, production build), ${new Date().toISOString()}`);
console.table([
  {
    run: `${ORDERS} orders, ${CONCURRENCY} at a time`,
    "orders/s": Math.round((run.statuses[200] ?? 0) / run.seconds),
    "p50 ms": run.p50,
    "p99 ms": run.p99,
    "D1 round trips": run.trips,
    statuses: JSON.stringify(run.statuses),
  },
  {
    run: `${RACE} parallel orders for 5 units`,
    "orders/s": Math.round((race.statuses[200] ?? 0) / race.seconds),
    "p50 ms": race.p50,
    "p99 ms": race.p99,
    "D1 round trips": race.trips,
    statuses: JSON.stringify(race.statuses),
  },
]);
console.log(`Oversell check: ${race.statuses[200] ?? 0} orders for 5 units; stock left ${after.product.stock.quantity}.`);
process.exit(0);
