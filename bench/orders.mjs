// Orders benchmark: places ORDERS orders (default 200), CONCURRENCY at a time (default 10), each from its own
// visitor's cart and checkout, against one tracked product, and prints orders per second, p50/p99 latency of
// create-order and its D1 round trips. Then the oversell check at that load: RACE parallel orders for 5 units.
//
//   npm run bench:orders
import { eachAtMost, percentile, shopClient } from "./shop.mjs";
import { roundTrips, startServer } from "./server.mjs";

const ORDERS = Number(process.env.ORDERS || 200);
const CONCURRENCY = Number(process.env.CONCURRENCY || 10);
const RACE = Number(process.env.RACE || 50);
const server = await startServer();
const { base, stop } = server;
const json = { "content-type": "application/json" };
const { call, product, readyCheckout } = shopClient(server);

async function placeAll(checkouts, concurrency) {
  const latencies = [];
  const statuses = {};
  let trips = "?";
  const started = performance.now();
  await eachAtMost(checkouts, concurrency, async (c) => {
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
  });
  const seconds = (performance.now() - started) / 1000;
  return { seconds, statuses, trips, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
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
