// Events benchmark: EVENTS signed `inventory.updated` webhooks (default 300), CONCURRENCY at a time (default 10),
// through ingest, the queue, the inventory processor, the outgoing-webhook processor and a signed delivery to a
// local receiver. Prints the ingest rate, its D1 round trips and the end-to-end rate, then the same number of events
// through a bare floor Worker (a queue whose consumer makes one D1 write per message) and the ratio (docs/benchmarks.md).
//
//   npm run bench:events
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { startFloor } from "./floor/start.mjs";
import { roundTrips, startServer } from "./server.mjs";

const EVENTS = Number(process.env.EVENTS || 300);
const CONCURRENCY = Number(process.env.CONCURRENCY || 10);
const PRODUCTS = Number(process.env.PRODUCTS || 20);
const INVENTORY_ITEM_CHANGED = "com.wix.ecommerce.inventory.api.v1.InventoryItemChanged";

const { base, stop, ownerKey } = await startServer();
const json = { "content-type": "application/json" };
const call = async (method, path, body) => {
  const res = await fetch(base + path, { method, headers: { ...json, authorization: ownerKey }, body: body && JSON.stringify(body) });
  return res.json();
};

// The far end: counts the deliveries of stock changes to this run's products.
const run = Math.random().toString(36).slice(2, 8);
const delivered = new Set();
let lastDelivery = 0;
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    try {
      const event = JSON.parse(body).data;
      if (event.type === INVENTORY_ITEM_CHANGED) {
        delivered.add(event.id);
        lastDelivery = performance.now();
      }
    } catch {}
    res.writeHead(200).end("ok");
  });
});
await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
let shopRate = 0;

try {
  const products = [];
  for (let i = 0; i < PRODUCTS; i++) {
    const { product } = await call("POST", "/v1/products", {
      product: { name: `Bench stock ${run} ${i}`, priceData: { price: 10 }, stock: { trackInventory: true, quantity: 1000 } },
    });
    products.push(product);
  }
  const { secret, source } = await call("POST", "/api/v1/webhook-sources", { name: `bench-${run}`, description: "events benchmark" });
  const { subscription } = await call("POST", "/api/v1/webhook-subscriptions", {
    url: `http://127.0.0.1:${receiver.address().port}/hooks`,
    eventTypes: [INVENTORY_ITEM_CHANGED],
    description: "events benchmark",
  });
  const key = Buffer.from(secret.slice("whsec_".length), "base64");

  // Each event adds 1 to one product, so the end state does not depend on the order the queue processes them in.
  const bodies = Array.from({ length: EVENTS }, (_, i) =>
    JSON.stringify({
      type: "inventory.updated",
      timestamp: new Date().toISOString(),
      data: { items: [{ productId: products[i % PRODUCTS].id, adjustBy: 1 }] },
    }),
  );
  /** Posts signed webhooks CONCURRENCY at a time; returns the rate, latency percentiles, statuses and round trips. */
  async function ingest(list, tag) {
    const latencies = [];
    const statuses = {};
    const trips = {};
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < list.length) {
          const i = next++;
          const id = `bench_${run}_${tag}_${i}`;
          const ts = Math.floor(Date.now() / 1000);
          const signature = createHmac("sha256", key).update(`${id}.${ts}.${list[i]}`).digest("base64");
          const t0 = performance.now();
          const res = await fetch(`${base}/webhooks/${source.name}`, {
            method: "POST",
            headers: { ...json, "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": `v1,${signature}` },
            body: list[i],
          });
          await res.arrayBuffer();
          latencies.push(performance.now() - t0);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          const n = roundTrips(res);
          trips[n] = (trips[n] ?? 0) + 1;
        }
      }),
    );
    const seconds = (performance.now() - t) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]);
    return {
      rate: (list.length / seconds).toFixed(1),
      p50: pct(50),
      p99: pct(99),
      statuses: JSON.stringify(statuses),
      trips: Object.entries(trips)
        .map(([n, c]) => `${n} round trips ×${c}`)
        .join(", "),
    };
  }

  // Baseline: an event type nothing handles is verified and stored, but never queued.
  const unhandled = Array.from({ length: EVENTS }, (_, i) =>
    JSON.stringify({ type: "bench.unhandled", timestamp: new Date().toISOString(), data: { n: i } }),
  );
  const baseline = await ingest(unhandled, "u");

  const started = performance.now();
  const loaded = await ingest(bodies, "i");
  // Wait (up to 3 minutes) for every stock change to be processed and delivered.
  const deadline = Date.now() + 180_000;
  while (delivered.size < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const endSeconds = ((lastDelivery || performance.now()) - started) / 1000;
  let stock = 0;
  for (const p of products) stock += (await call("GET", `/v1/products/${p.id}`)).product.stock.quantity - 1000;

  console.log(`events benchmark: ${EVENTS} signed webhooks per phase, ${CONCURRENCY} at a time; inventory.updated over ${PRODUCTS} products`);
  console.log(
    `  ingest only (unhandled type)  ${baseline.rate} events/s   p50 ${baseline.p50} ms   p99 ${baseline.p99} ms   statuses ${baseline.statuses}   D1: ${baseline.trips}`,
  );
  console.log(
    `  ingest inventory.updated      ${loaded.rate} events/s   p50 ${loaded.p50} ms   p99 ${loaded.p99} ms   statuses ${loaded.statuses}   D1: ${loaded.trips}`,
  );
  console.log(
    `  end to end    ${(delivered.size / endSeconds).toFixed(1)} events/s   (${delivered.size}/${EVENTS} stock changes delivered to the receiver in ${endSeconds.toFixed(1)} s)`,
  );
  console.log(`  stock         +${stock} units applied (expected +${EVENTS})`);
  shopRate = delivered.size / endSeconds;
  await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  await call("DELETE", `/api/v1/webhook-sources/${source.id}`);
} finally {
  receiver.close();
  stop();
}

// The floor, alone on the machine once the shop has stopped: the same number of events, as many at a time, from a
// POST to a queue to one D1 write each.
const floor = await startFloor();
try {
  const { applied: before } = await (await fetch(`${floor.base}/events/count`)).json();
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        const i = next++;
        const res = await fetch(`${floor.base}/events`, { method: "POST", headers: json, body: JSON.stringify({ n: i }) });
        await res.arrayBuffer();
      }
    }),
  );
  let applied = 0;
  const deadline = Date.now() + 180_000;
  while (applied < EVENTS && Date.now() < deadline) {
    applied = (await (await fetch(`${floor.base}/events/count`)).json()).applied - before;
    if (applied < EVENTS) await new Promise((r) => setTimeout(r, 100));
  }
  const floorRate = applied / ((performance.now() - t) / 1000);
  console.log(`  floor         ${floorRate.toFixed(1)} events/s   (${applied}/${EVENTS} applied by a bare queue consumer, one D1 write each)`);
  console.log(`  ratio         ${(shopRate / floorRate).toFixed(2)}x the floor (target: 0.5x or more)`);
} finally {
  floor.stop();
}
