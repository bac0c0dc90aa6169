// Stripe webhook storm: PAID orders paid on Stripe's page (checkout.session.completed and payment_intent.succeeded)
// and EXPIRED orders abandoned (checkout.session.expired), every event delivered 3 times, shuffled, CONCURRENCY at a
// time (default: all at once), each signed with the stripe package's generateTestHeaderString. Against the production
// build under wrangler dev with Stripe pointed at the local fake (tests/payments/stripe-fake.ts). Prints the ingest
// rate and latency, the time until every event was processed, and per order the payments, confirmation emails and
// stock moves, which must each be exactly one (docs/benchmarks.md).
//
//   npm run bench:stripe-storm
import { execFileSync } from "node:child_process";
import Stripe from "stripe";
import { startStripeFake } from "../tests/payments/stripe-fake.ts";
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET, fakeId, intentSucceeded, sessionCompleted, sessionExpired } from "../tests/payments/stripe-events.ts";
import { eachAtMost, percentile, shopClient } from "./shop.mjs";
import { startServer } from "./server.mjs";

const PAID = Number(process.env.PAID || 12);
const EXPIRED = Number(process.env.EXPIRED || 10);
const STATE = ".wrangler/bench-stripe-state";

const fake = await startStripeFake();
const server = await startServer({
  state: STATE,
  vars: { STRIPE_SECRET_KEY: FAKE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET, STRIPE_API_BASE: fake.origin },
});
const { base, stop } = server;
const { call, product, readyCheckout } = shopClient(server);
const stripe = new Stripe(FAKE_SECRET_KEY);

const d1 = (sql) =>
  JSON.parse(
    execFileSync("npx", ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", STATE, "--json", "--command", sql], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    }),
  )[0].results;

/** An order placed for ONLINE payment: 2 of a product of its own with 5 in stock. */
async function onlineOrder(i) {
  const p = await product(`Storm ${i} ${Date.now()}`, 5);
  const c = await readyCheckout(p, 2);
  const { res, body } = await call("POST", `/ecom/v1/checkouts/${c.checkoutId}/create-order`, { paymentOption: "ONLINE" }, c.token, c.address);
  if (res.status !== 200) throw new Error(`create-order: ${res.status} ${JSON.stringify(body)}`);
  const sessionId = body.paymentRedirectUrl.split("/pay/")[1];
  return { orderId: body.orderId, sessionId, total: fake.sessions.get(sessionId).amount_total, productId: p.id };
}

try {
  const paid = [];
  const abandoned = [];
  for (let i = 0; i < PAID + EXPIRED; i++) (i < PAID ? paid : abandoned).push(await onlineOrder(i));
  const events = [
    ...paid.flatMap((o) => {
      const pi = fakeId("pi");
      return [sessionCompleted(o, pi), intentSucceeded(o, pi)];
    }),
    ...abandoned.map(sessionExpired),
  ];
  const deliveries = [...events, ...events, ...events].map((e) => ({ e, k: Math.random() })).sort((a, b) => a.k - b.k);
  const concurrency = Number(process.env.CONCURRENCY || deliveries.length);

  const latencies = [];
  const answers = {};
  const started = performance.now();
  await eachAtMost(deliveries, concurrency, async ({ e }) => {
    const payload = JSON.stringify(e);
    // Stripe delivers again after an answer other than 2xx (here: up to 3 tries); each answer is counted.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: FAKE_WEBHOOK_SECRET });
      const t0 = performance.now();
      const res = await fetch(`${base}/webhooks/stripe`, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
      });
      const body = await res.json().catch(() => ({}));
      latencies.push(performance.now() - t0);
      const key = `${res.status} ${body.status ?? body.details?.applicationError?.code ?? ""}`.trim();
      answers[key] = (answers[key] ?? 0) + 1;
      if (res.ok) break;
    }
  });
  const ingestSeconds = (performance.now() - started) / 1000;

  // Until every event is processed by the orders' processor (up to 3 minutes).
  const ids = JSON.stringify(events.map((e) => `stripe:${e.id}`)).replaceAll("'", "''");
  const processedCount = () =>
    d1(
      `SELECT count(*) AS n FROM processed_events WHERE processor = 'orders:stripe-events' AND event_id IN (SELECT value FROM json_each('${ids}'))`,
    )[0].n;
  const deadline = Date.now() + 180_000;
  let done = processedCount();
  while (done < events.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    done = processedCount();
  }
  const settledSeconds = (performance.now() - started) / 1000;

  const orderIds = JSON.stringify([...paid, ...abandoned].map((o) => o.orderId));
  const rows = d1(`SELECT o.id, o.status, o.payment_status AS paymentStatus,
      (SELECT count(*) FROM transactions t WHERE t.order_id = o.id AND t.provider = 'stripe' AND t.status = 'APPROVED') AS payments,
      (SELECT count(*) FROM order_activities a WHERE a.order_id = o.id AND a.type = 'ORDER_PAID') AS paidActivities,
      (SELECT count(*) FROM order_activities a WHERE a.order_id = o.id AND a.type = 'ORDER_CANCELED') AS cancelActivities,
      (SELECT count(*) FROM emails e WHERE e.idempotency_key = 'order-confirmation:' || o.id) AS emails,
      (SELECT count(*) FROM inventory_changes i WHERE i.order_id = o.id AND i.cause = 'ORDER') AS reserved,
      (SELECT count(*) FROM inventory_changes i WHERE i.order_id = o.id AND i.cause = 'REVERT_INVENTORY_CHANGE') AS released
    FROM orders o WHERE o.id IN (SELECT value FROM json_each('${orderIds}'))`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const failures = d1(`SELECT count(*) AS n FROM event_failures WHERE id IN (SELECT value FROM json_each('${ids}'))`)[0].n;
  const wrong = [];
  const expect = (o, want) => {
    const r = byId.get(o.orderId);
    const bad = Object.entries(want).filter(([k, v]) => r?.[k] !== v);
    if (bad.length) wrong.push(`${o.orderId}: ${bad.map(([k, v]) => `${k} ${r?.[k]} (want ${v})`).join(", ")}`);
  };
  for (const o of paid)
    expect(o, {
      status: "APPROVED",
      paymentStatus: "PAID",
      payments: 1,
      paidActivities: 1,
      cancelActivities: 0,
      emails: 1,
      reserved: 1,
      released: 0,
    });
  for (const o of abandoned)
    expect(o, {
      status: "CANCELED",
      paymentStatus: "NOT_PAID",
      payments: 0,
      paidActivities: 0,
      cancelActivities: 1,
      emails: 0,
      reserved: 1,
      released: 1,
    });
  const sum = (list, k) => list.reduce((n, o) => n + (byId.get(o.orderId)?.[k] ?? 0), 0);

  console.log(`\nStripe webhook storm on the local server (wrangler dev, production build), ${new Date().toISOString()}`);
  console.log(
    `  ${deliveries.length} deliveries (${events.length} events × 3, shuffled), ${concurrency} at a time; ${PAID} orders paid, ${EXPIRED} expired`,
  );
  console.log(
    `  ingest        ${(deliveries.length / ingestSeconds).toFixed(1)} deliveries/s   p50 ${percentile(latencies, 50)} ms   p99 ${percentile(latencies, 99)} ms   answers ${JSON.stringify(answers)}`,
  );
  console.log(
    `  processed     ${done}/${events.length} events in ${settledSeconds.toFixed(1)} s from the first delivery; ${failures} failure records`,
  );
  console.log(
    `  paid orders   ${paid.length}: payments ${sum(paid, "payments")}, ORDER_PAID ${sum(paid, "paidActivities")}, confirmation emails ${sum(paid, "emails")}, stock reserved ${sum(paid, "reserved")}, released ${sum(paid, "released")}`,
  );
  console.log(
    `  expired       ${abandoned.length}: cancelled ${sum(abandoned, "cancelActivities")}, payments ${sum(abandoned, "payments")}, emails ${sum(abandoned, "emails")}, stock reserved ${sum(abandoned, "reserved")}, released ${sum(abandoned, "released")}`,
  );
  console.log(
    wrong.length
      ? `  NOT EXACTLY ONCE:\n    ${wrong.join("\n    ")}`
      : "  every order: exactly one payment or release, one confirmation per paid order",
  );
  process.exitCode = wrong.length || failures || done < events.length ? 1 : 0;
} finally {
  stop();
  await fake.close();
}
