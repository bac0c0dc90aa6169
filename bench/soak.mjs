// Soak: SECONDS (default 60) of mixed traffic against the production build, then a wait for the queues to settle:
// SHOPPERS shoppers browsing and buying, an ERP's duplicated stock webhooks (with a restock SUBSCRIBERS shoppers
// wait for), outgoing deliveries to a receiver that fails every first attempt, and a hostile client, all at once.
// It exits non-zero on any 5xx, lost event, or lost or duplicated email (docs/benchmarks.md).
//
//   npm run bench:soak            SECONDS=300 SHOPPERS=10 npm run bench:soak
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startServer } from "./server.mjs";

const SECONDS = Number(process.env.SECONDS || 60);
const SHOPPERS = Number(process.env.SHOPPERS || 6);
const SUBSCRIBERS = Number(process.env.SUBSCRIBERS || 20);
const SETTLE_SECONDS = 180;
const INVENTORY_ITEM_CHANGED = "com.wix.ecommerce.inventory.api.v1.InventoryItemChanged";
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };
const STORES_APP = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

const root = new URL("..", import.meta.url).pathname;
const state = mkdtempSync(path.join(tmpdir(), "soak-"));
// Retries within seconds, so the flaky receiver's deliveries settle inside the run.
const { base, stop, ownerKey, clientId } = await startServer({ state, vars: { WEBHOOK_RETRY_SCHEDULE: "1,2,4,8,16" } });
const json = { "content-type": "application/json" };

// ---------------------------------------------------------------------------------------------------------------
// Measuring

const stats = new Map(); // kind → {latencies, statuses}
let stopping = false;

async function timed(kind, url, init = {}) {
  const entry = stats.get(kind) ?? { latencies: [], statuses: {} };
  stats.set(kind, entry);
  const t0 = performance.now();
  let status;
  let body = "";
  try {
    const res = await fetch(base + url, { redirect: "manual", ...init });
    body = await res.text();
    status = res.status;
  } catch (err) {
    status = `dropped (${err.cause?.code ?? err.message})`;
  }
  entry.latencies.push(performance.now() - t0);
  entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
  return { status, body };
}

const owner = (method, url, body) =>
  fetch(base + url, { method, headers: { ...json, authorization: ownerKey }, body: body && JSON.stringify(body) }).then((r) => r.json());

async function d1(sql) {
  const { stdout } = await promisify(execFile)(
    "npx",
    ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", state, "--json", "--command", sql],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" },
    },
  );
  return JSON.parse(stdout)[0].results;
}

// ---------------------------------------------------------------------------------------------------------------
// The flaky receiver of outgoing webhooks: fails every event's first attempt and a fifth of the later ones.

const seenAttempt = new Set();
const delivered = new Set(); // event ids acknowledged with 200
const attemptsByStatus = { 200: 0, 500: 0 };
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    let id = "";
    try {
      const event = JSON.parse(body).data;
      if (event.type === INVENTORY_ITEM_CHANGED && body.includes(stormProduct.id)) id = event.id;
    } catch {}
    const fail = id && (!seenAttempt.has(id) || Math.random() < 0.2);
    if (id) seenAttempt.add(id);
    if (fail) {
      attemptsByStatus[500]++;
      return res.writeHead(500).end("flaky");
    }
    if (id) {
      attemptsByStatus[200]++;
      delivered.add(id);
    }
    res.writeHead(200).end("ok");
  });
});
await new Promise((r) => receiver.listen(0, "127.0.0.1", r));

// ---------------------------------------------------------------------------------------------------------------
// Set-up: a product shoppers buy, one the ERP adjusts, one sold out with subscribers, the webhook source and
// subscription.

const run = Math.random().toString(36).slice(2, 8);
const { product: buyProduct } = await owner("POST", "/v1/products", {
  product: { name: `Soak tee ${run}`, priceData: { price: 12 }, stock: { trackInventory: true, quantity: 1_000_000 } },
});
const { product: stormProduct } = await owner("POST", "/v1/products", {
  product: { name: `Soak stock ${run}`, priceData: { price: 5 }, stock: { trackInventory: true, quantity: 1000 } },
});
const { product: soldOut } = await owner("POST", "/v1/products", {
  product: { name: `Soak restock ${run}`, priceData: { price: 9 }, stock: { trackInventory: true, quantity: 0 } },
});
for (let i = 0; i < SUBSCRIBERS; i++) {
  const res = await fetch(`${base}/back-in-stock-service/v1/back-in-stock-notification-requests`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      request: {
        email: `soak-${run}-${i}@example.com`,
        catalogReference: { appId: STORES_APP, catalogItemId: soldOut.id, options: { variantId: soldOut.variants[0].id } },
      },
    }),
  });
  if (!res.ok) throw new Error(`back-in-stock request: HTTP ${res.status} ${await res.text()}`);
}
const { secret, source } = await owner("POST", "/api/v1/webhook-sources", { name: `soak-${run}` });
const { subscription } = await owner("POST", "/api/v1/webhook-subscriptions", {
  url: `http://127.0.0.1:${receiver.address().port}/hooks`,
  eventTypes: [INVENTORY_ITEM_CHANGED],
});
const signingKey = Buffer.from(secret.slice("whsec_".length), "base64");
const listing = JSON.parse(
  (await timed("setup", "/stores-reader/v1/products/query-platformized", { method: "POST", headers: json, body: "{}" })).body,
);
const slugs = listing.products.map((p) => p.slug).filter(Boolean);
// Collections of the demo catalogue (worker/catalog/demo/catalogue.ts).
const collections = ["t-shirts", "hoodies", "bags", "coffee", "sale"];

// ---------------------------------------------------------------------------------------------------------------
// The actors

const pick = (list) => list[Math.floor(Math.random() * list.length)];
let ordersPlaced = 0;
let buyers = 0;

async function shopper() {
  for (let round = 0; !stopping; round++) {
    await timed(
      "page",
      pick(["/", `/products/${pick(slugs)}`, `/search?q=${pick(["tee", "mug", "bag", "zzz"])}`, ...collections.map((c) => `/collections/${c}`)]),
    );
    await timed("api read", "/stores-reader/v1/products/query-platformized", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ query: { paging: { limit: 20 } } }),
    });
    if (round % 4 !== 3) continue;
    const token = JSON.parse(
      (await timed("buy: token", "/oauth2/token", { method: "POST", headers: json, body: JSON.stringify({ grantType: "anonymous", clientId }) }))
        .body,
    ).access_token;
    // Each purchase from its own address (198.18.0.0/15), as real shoppers: checkouts and orders are limited per address.
    const buyer = ++buyers;
    const auth = { ...json, authorization: token, "cf-connecting-ip": `198.18.${(buyer >> 8) & 255}.${buyer & 255}` };
    const line = {
      catalogReference: { appId: STORES_APP, catalogItemId: buyProduct.id, options: { variantId: buyProduct.variants[0].id } },
      quantity: 1,
    };
    await timed("buy: add to cart", "/ecom/v1/carts/current/add-to-cart", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ lineItems: [line] }),
    });
    const checkout = await timed("buy: checkout", "/ecom/v1/carts/current/create-checkout", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ channelType: "WEB" }),
    });
    if (checkout.status !== 200) continue;
    const { checkoutId } = JSON.parse(checkout.body);
    await timed("buy: checkout details", `/ecom/v1/checkouts/${checkoutId}`, {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({
        checkout: { buyerInfo: { email: `buyer-${run}@example.com` }, shippingInfo: { shippingDestination: { address: ADDRESS } } },
      }),
    });
    const order = await timed("buy: place order", `/ecom/v1/checkouts/${checkoutId}/create-order`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ id: checkoutId }),
    });
    if (order.status === 200) ordersPlaced++;
  }
}

let webhooksSent = 0;
const webhookResults = { ACCEPTED: 0, DUPLICATE: 0, other: 0 };

function signed(id, body) {
  const ts = Math.floor(Date.now() / 1000);
  const signature = createHmac("sha256", signingKey).update(`${id}.${ts}.${body}`).digest("base64");
  return { ...json, "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": `v1,${signature}` };
}

/** One delivery three times at once, as a retrying sender behind a slow network would. */
async function deliverThrice(id, body) {
  const headers = signed(id, body);
  const results = await Promise.all([1, 2, 3].map(() => timed("webhook in", `/webhooks/${source.name}`, { method: "POST", headers, body })));
  for (const r of results) {
    const status = r.status === 200 ? JSON.parse(r.body).status : "other";
    webhookResults[status in webhookResults ? status : "other"]++;
  }
}

async function erp() {
  // The restock first: its back-in-stock emails must each go out once, duplicates or not.
  await deliverThrice(
    `soak_${run}_restock`,
    JSON.stringify({ type: "inventory.updated", timestamp: new Date().toISOString(), data: { items: [{ productId: soldOut.id, adjustBy: 5 }] } }),
  );
  for (let i = 0; !stopping; i++) {
    await deliverThrice(
      `soak_${run}_${i}`,
      JSON.stringify({
        type: "inventory.updated",
        timestamp: new Date().toISOString(),
        data: { items: [{ productId: stormProduct.id, adjustBy: 1 }] },
      }),
    );
    webhooksSent++;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hostileRequests = [
  () => ["POST", "/stores/v1/products", { authorization: ownerKey, ...json }, JSON.stringify({ product: { name: "x".repeat(2_000_000) } })],
  () => ["POST", "/stores/v1/products", { authorization: ownerKey, ...json }, '{"product": {"name": '],
  () => ["POST", "/stores/v1/products", json, JSON.stringify({ product: { name: "no credentials" } })],
  () => ["DELETE", "/stores/v1/products/%E0%A4%A", { authorization: ownerKey }, undefined],
  () => ["GET", "/products/%E0%A4%A", {}, undefined],
  () => ["POST", "/ecom/v1/carts/current/add-to-cart", { authorization: "Bearer garbage", ...json }, "{}"],
  () => ["POST", "/login", { "content-type": "application/json", origin: base }, '{"email":"a@b.c"}'],
  () => ["POST", `/webhooks/${source.name}`, { ...signed(`forged_${Math.random()}`, "{}"), "webhook-signature": "v1,Zm9yZ2Vk" }, "{}"],
  () => ["POST", "/ecom/v1/carts/current/add-to-cart", json, JSON.stringify({ lineItems: [{ quantity: "many" }] })],
];

async function hostile() {
  while (!stopping) {
    const [method, url, headers, body] = pick(hostileRequests)();
    await timed("hostile", url, { method, headers, body });
  }
}

// ---------------------------------------------------------------------------------------------------------------

try {
  const started = performance.now();
  const actors = [...Array.from({ length: SHOPPERS }, shopper), erp(), hostile()];
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  stopping = true;
  await Promise.all(actors);
  const loadSeconds = (performance.now() - started) / 1000;

  // Settle: every accepted stock change applied and delivered, every subscriber emailed.
  const stockOf = async (id) => (await owner("GET", `/v1/products/${id}`)).product.stock.quantity;
  const backInStockEmails = async () =>
    Number((await d1(`SELECT COUNT(*) AS n FROM emails WHERE template = 'back-in-stock' AND "to" LIKE 'soak-${run}-%'`))[0].n);
  const deadline = Date.now() + SETTLE_SECONDS * 1000;
  let settled = false;
  while (Date.now() < deadline) {
    if ((await stockOf(stormProduct.id)) === 1000 + webhooksSent && delivered.size >= webhooksSent && (await backInStockEmails()) >= SUBSCRIBERS) {
      settled = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  const settleSeconds = (performance.now() - started) / 1000 - loadSeconds;

  const [emailCounts] = await d1(
    `SELECT COUNT(*) AS total, COUNT(*) - COUNT(DISTINCT "to" || '|' || subject) AS duplicated, ` +
      `(SELECT COUNT(*) FROM emails WHERE template = 'order-confirmation' AND "to" = 'buyer-${run}@example.com') AS confirmations, ` +
      `(SELECT COUNT(*) FROM emails WHERE template = 'back-in-stock' AND "to" LIKE 'soak-${run}-%') AS backInStock FROM emails`,
  );
  const applied = (await stockOf(stormProduct.id)) - 1000;
  const pct = (list, p) => Math.round(list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))]);
  let requests = 0;
  let errors = 0;
  console.log(`soak: ${SECONDS} s of ${SHOPPERS} shoppers, an ERP's webhook storm (each delivery ×3) to a flaky receiver, and a hostile client`);
  for (const [kind, { latencies, statuses }] of stats) {
    if (kind === "setup") continue;
    latencies.sort((a, b) => a - b);
    const fives = Object.entries(statuses)
      .filter(([s]) => !/^[1-4]\d\d$/.test(s))
      .reduce((n, [, c]) => n + c, 0);
    requests += latencies.length;
    errors += fives;
    console.log(
      `  ${kind.padEnd(22)} ${String(latencies.length).padStart(6)} requests   5xx/dropped ${fives}   p50 ${pct(latencies, 50)} ms   p99 ${pct(latencies, 99)} ms   ${JSON.stringify(statuses)}`,
    );
  }
  console.log(
    `  requests ${requests} in ${loadSeconds.toFixed(0)} s (${(requests / loadSeconds).toFixed(1)}/s); 5xx or dropped: ${errors} (must be 0)`,
  );
  console.log(`  orders placed ${ordersPlaced}; confirmation emails ${emailCounts.confirmations}`);
  console.log(
    `  webhooks in: ${webhooksSent + 1} events sent ×3: ${JSON.stringify(webhookResults)}; stock changes applied ${applied}/${webhooksSent}`,
  );
  console.log(
    `  webhooks out: ${delivered.size}/${webhooksSent} stock changes delivered; receiver answered 500 ×${attemptsByStatus[500]}, 200 ×${attemptsByStatus[200]}`,
  );
  console.log(
    `  back-in-stock emails ${emailCounts.backInStock}/${SUBSCRIBERS}; settled ${settled ? "in" : "NOT within"} ${settleSeconds.toFixed(0)} s`,
  );
  const lost = Math.max(0, webhooksSent - applied) + Math.max(0, webhooksSent - delivered.size);
  const emailsLost = Math.max(0, SUBSCRIBERS - emailCounts.backInStock) + Math.max(0, ordersPlaced - emailCounts.confirmations);
  console.log(
    `  events lost ${lost} (must be 0); events applied twice ${Math.max(0, applied - webhooksSent)} (must be 0); emails duplicated ${emailCounts.duplicated} (must be 0); emails lost ${emailsLost} (must be 0)`,
  );
  await owner("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  if (errors || lost || emailCounts.duplicated || emailsLost || applied !== webhooksSent) process.exitCode = 1;
} finally {
  receiver.close();
  stop();
  rmSync(state, { recursive: true, force: true });
}
