// The cost table: what 1,000 anonymous page views, 1,000 carts and 1,000 orders use of the platform's billed
// resources, measured from the Server-Timing figures each response reports, and what that costs per
// million shoppers on Cloudflare's published Workers paid-plan prices.
//
// Counted: what a request does before its response is sent, and the queue messages its changes emit (the outbox rows
// a flow adds, read from the local D1). Not counted: the outbox flush's own UPDATE after the response, the queue
// consumer's work on those messages (emails, webhooks, cache purges), the cron sweeps, CPU time, storage, and
// static assets (served by the assets binding, which does not bill Worker requests).
import { execFileSync } from "node:child_process";
import { usage } from "./server.mjs";

const root = new URL("..", import.meta.url).pathname;

/**
 * The events the shop has written to its outbox (local D1 in `state`): each becomes one queue message. Some are sent
 * after the response (an order's stock events are read back from the outbox first), where Server-Timing cannot see
 * them, so the cost table counts queue messages by the outbox rows a flow adds. Null if the count fails.
 */
function outboxRows(state) {
  try {
    const out = execFileSync(
      "npx",
      ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", state, "--command", "SELECT count(*) AS n FROM outbox", "--json"],
      {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" },
      },
    );
    return JSON.parse(out)[0].results[0].n;
  } catch {
    return null;
  }
}

// Workers paid plan ($5/month), price per million beyond the monthly allowance, from developers.cloudflare.com:
// /workers/platform/pricing/ (requests), /kv/platform/pricing/, /d1/platform/pricing/, /queues/platform/pricing/,
// as published in 2025 (read 2026-11-25 from that year's pages; check them before quoting a bill).
// The Cache API is not billed. A queue message is 3 operations (write, read, delete) per 64 KB.
export const PRICES = {
  workerRequests: { perMillion: 0.3, included: 10_000_000 },
  kvReads: { perMillion: 0.5, included: 10_000_000 },
  kvWrites: { perMillion: 5.0, included: 1_000_000 },
  d1RowsRead: { perMillion: 0.001, included: 25_000_000_000 },
  d1RowsWritten: { perMillion: 1.0, included: 50_000_000 },
  queueOperations: { perMillion: 0.4, included: 1_000_000 },
};
const QUEUE_OPS_PER_MESSAGE = 3;

/** What one shopper does, on average (override with SHOPPER="pageViews,carts,orders", e.g. "8,0.2,0.05"). */
const [pageViews, carts, orders] = (process.env.SHOPPER || "5,0.1,0.03").split(",").map(Number);
export const SHOPPER = { pageViews, carts, orders };

const PAGES = ["/", "/collections/t-shirts", "/products/everyday-organic-tee"];
const RUNS = 5;
const json = { "content-type": "application/json" };
const zero = () => ({ workerRequests: 0, d1Trips: 0, d1RowsRead: 0, d1RowsWritten: 0, kvReads: 0, kvWrites: 0, queueMessages: 0 });
function add(total, res) {
  const u = usage(res);
  total.workerRequests++;
  for (const k of Object.keys(u)) total[k] += u[k];
}

/**
 * Anonymous page views: each page once cold (its cache just filled or missed) and then RUNS times again, without a
 * cookie. Returns the per-page figures and the average steady-state view (the repeats).
 */
export async function measurePageViews(base) {
  const perPage = [];
  const steady = zero();
  let views = 0;
  for (const path of PAGES) {
    const cold = zero();
    const first = await fetch(base + path);
    await first.arrayBuffer();
    add(cold, first);
    const warm = zero();
    for (let i = 0; i < RUNS; i++) {
      const res = await fetch(base + path);
      await res.arrayBuffer();
      if (res.headers.get("set-cookie")) warm.setCookie = (warm.setCookie ?? 0) + 1;
      add(warm, res);
      add(steady, res);
      views++;
    }
    perPage.push({ path, cold, warm: scale(warm, 1 / RUNS) });
  }
  return { perPage, view: scale(steady, 1 / views) };
}

/** A cart: an anonymous token, add to cart, estimate totals (the API calls a headless shop makes). */
async function cartFlow(base, clientId, line, total) {
  const t = await fetch(`${base}/oauth2/token`, { method: "POST", headers: json, body: JSON.stringify({ grantType: "anonymous", clientId }) });
  add(total, t);
  const token = (await t.json()).access_token;
  const a = await fetch(`${base}/ecom/v1/carts/current/add-to-cart`, {
    method: "POST",
    headers: { ...json, authorization: token },
    body: JSON.stringify({ lineItems: [line] }),
  });
  await a.arrayBuffer();
  add(total, a);
  const e = await fetch(`${base}/ecom/v1/carts/current/estimate-totals`, { method: "POST", headers: { ...json, authorization: token }, body: "{}" });
  await e.arrayBuffer();
  add(total, e);
  if (a.status !== 200 || e.status !== 200) throw new Error(`cart flow: HTTP ${a.status}/${e.status}`);
  return token;
}

/** An order from a cart: create checkout, set email and address, create the order. */
async function orderFlow(base, token, total) {
  const c = await fetch(`${base}/ecom/v1/carts/current/create-checkout`, {
    method: "POST",
    headers: { ...json, authorization: token },
    body: JSON.stringify({ channelType: "WEB" }),
  });
  add(total, c);
  const { checkoutId } = await c.json();
  const address = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };
  const p = await fetch(`${base}/ecom/v1/checkouts/${checkoutId}`, {
    method: "PATCH",
    headers: { ...json, authorization: token },
    body: JSON.stringify({ checkout: { buyerInfo: { email: "bench@example.com" }, shippingInfo: { shippingDestination: { address } } } }),
  });
  await p.arrayBuffer();
  add(total, p);
  const o = await fetch(`${base}/ecom/v1/checkouts/${checkoutId}/create-order`, {
    method: "POST",
    headers: { ...json, authorization: token },
    body: JSON.stringify({ id: checkoutId }),
  });
  await o.arrayBuffer();
  add(total, o);
  if (o.status !== 200) throw new Error(`order flow: create-order HTTP ${o.status}`);
}

const scale = (u, f) => Object.fromEntries(Object.entries(u).map(([k, v]) => [k, v * f]));

/** Measures the three flows RUNS times each; `line` is a cart line item of a product in stock. */
export async function measureCosts(base, clientId, line, state) {
  const { perPage, view } = await measurePageViews(base);
  const cart = zero();
  const order = zero();
  const tokens = [];
  const before = outboxRows(state);
  for (let i = 0; i < RUNS; i++) tokens.push(await cartFlow(base, clientId, line, cart));
  const carted = outboxRows(state);
  for (const token of tokens) await orderFlow(base, token, order);
  await new Promise((r) => setTimeout(r, 500)); // the last order's after-response writes
  const ordered = outboxRows(state);
  if (before !== null && carted !== null && ordered !== null) {
    cart.queueMessages = carted - before;
    order.queueMessages = ordered - carted;
  }
  const queueSource =
    before !== null && carted !== null && ordered !== null
      ? "the outbox rows each flow added"
      : "Server-Timing only (the outbox count failed), so sends after the response are missing";
  return { perPage, view, cart: scale(cart, 1 / RUNS), order: scale(order, 1 / RUNS), queueSource };
}

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : String(Number(n.toFixed(2))));
const usd = (n) => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

/** Billed units of one flow's usage: queue messages become operations. */
const billed = (u) => ({
  workerRequests: u.workerRequests,
  kvReads: u.kvReads,
  kvWrites: u.kvWrites,
  d1RowsRead: u.d1RowsRead,
  d1RowsWritten: u.d1RowsWritten,
  queueOperations: u.queueMessages * QUEUE_OPS_PER_MESSAGE,
});

/** The KV and D1 writes (and reads) of each anonymous page view, first request and repeats. */
export function printPageWrites(perPage) {
  console.log("\nWrites per anonymous page view (no cookie; Server-Timing), first request and the average of the repeats:");
  console.table(
    perPage.map((p) => ({
      page: p.path,
      "KV writes (first)": p.cold.kvWrites,
      "D1 rows written (first)": p.cold.d1RowsWritten,
      "KV writes": fmt(p.warm.kvWrites),
      "D1 rows written": fmt(p.warm.d1RowsWritten),
      "KV reads": fmt(p.warm.kvReads),
      "D1 rows read": fmt(p.warm.d1RowsRead),
      "D1 trips": fmt(p.warm.d1Trips),
      "Set-Cookie": p.warm.setCookie ?? 0,
    })),
  );
}

export function printCosts({ perPage, view, cart, order, queueSource }) {
  printPageWrites(perPage);
  const flows = { "1,000 page views": view, "1,000 carts": cart, "1,000 orders": order };
  console.log("\nUsage per 1,000 (page view: the average of home, a collection and a product page, anonymous, repeated;");
  console.log("cart: anonymous token + add to cart + estimate totals; order: create checkout + email/address + create order):");
  console.table(
    Object.entries(flows).map(([name, u]) => ({
      per: name,
      "Worker requests": fmt(u.workerRequests * 1000),
      "KV reads": fmt(u.kvReads * 1000),
      "KV writes": fmt(u.kvWrites * 1000),
      "D1 rows read": fmt(u.d1RowsRead * 1000),
      "D1 rows written": fmt(u.d1RowsWritten * 1000),
      "Queue messages": fmt(u.queueMessages * 1000),
    })),
  );

  // One million shoppers, each SHOPPER.pageViews views, SHOPPER.carts carts and SHOPPER.orders orders.
  const million = 1_000_000;
  const counts = { pageViews: million * SHOPPER.pageViews, carts: million * SHOPPER.carts, orders: million * SHOPPER.orders };
  const units = {};
  for (const [flow, u] of [
    ["pageViews", view],
    ["carts", cart],
    ["orders", order],
  ]) {
    for (const [k, v] of Object.entries(billed(u))) units[k] = (units[k] ?? 0) + v * counts[flow];
  }
  console.log(
    `\nCost per million shoppers (each ${SHOPPER.pageViews} page views, ${SHOPPER.carts} carts, ${SHOPPER.orders} orders; SHOPPER="views,carts,orders"),` +
      "\nat the Workers paid plan's prices beyond its monthly allowance (the allowance and the $5 base not deducted):",
  );
  let sum = 0;
  const rows = Object.entries(PRICES).map(([k, p]) => {
    const cost = (units[k] / million) * p.perMillion;
    sum += cost;
    return { resource: k, units: fmt(units[k]), "$ per million": p.perMillion, cost: usd(cost) };
  });
  rows.push({ resource: "total", units: "", "$ per million": "", cost: usd(sum) });
  console.table(rows);
  console.log(`Queue messages: ${queueSource}.`);
  console.log("D1 rows read: D1's rows_read where it reports it, else rows returned (a lower bound).");
  console.log("Not counted: CPU time, storage, the queue consumer's and cron sweeps' own D1/KV work, the outbox flush's UPDATE after the response.");
}
