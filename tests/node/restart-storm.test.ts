import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The dev server's Worker restarting in the middle of a storm (as it does when the build changes under
 * `npm start`): a warehouse's signed stock webhooks (some sent twice) and a burst of checkouts go out while the
 * runtime restarts, cutting the requests in flight and losing the local queue's messages. Senders retry what failed,
 * as a webhook sender and a shopper do. Afterwards, within a bounded time and with only the sweep's help, every
 * effect has happened exactly once: each adjustment moved stock once, each checkout made one order with one
 * confirmation email and one order webhook, and no event is left waiting or dead.
 */

const WEBHOOKS = 40;
const CHECKOUTS = 12;
const START_STOCK = 500;
const ADDRESS = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

let w: RunningWorker;
let receiver: Server;
let receiverUrl = "";
/** Order ids named by the outgoing order webhooks the receiver got, by webhook id (a redelivery repeats its id). */
const delivered = new Map<string, string>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      delivered.set(String(req.headers["webhook-id"]), body);
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Lost events are sent again after a second rather than five minutes, so the test ends in seconds.
  w = await startWorker({ bindings: { EVENT_RESEND_AFTER_SECONDS: "1", EVENT_RETRY_BASE_SECONDS: "0" } });
}, 180_000);

afterAll(async () => {
  await w?.dispose();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
});

/** Requests that failed because the runtime restarted under them (a cut connection or a 5xx), then were retried. */
let retried = 0;

interface Answer {
  status: number;
  body: Record<string, any>;
}

/** One JSON call; null when the restart cut it or the Worker answered 5xx. */
async function once(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer | null> {
  try {
    const res = await w.fetch(path, {
      method,
      headers: { "content-type": "application/json", "cf-connecting-ip": "198.18.3.7", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return res.status < 500 ? { status: res.status, body: text ? JSON.parse(text) : {} } : null;
  } catch {
    return null;
  }
}

/** Runs `attempt` until it answers (at most 30 s), as a sender facing a restart would. */
async function retrying(what: string, attempt: () => Promise<Answer | null>): Promise<Answer> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await attempt();
    if (answer) return answer;
    if (Date.now() > deadline) throw new Error(`${what} kept failing for 30 s`);
    retried++;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** One JSON call, retried until the Worker answers below 500. Only for calls that are safe to repeat. */
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  retrying(`${method} ${path}`, () => once(method, path, body, headers));

const owner = (method: string, path: string, body?: unknown) => call(method, path, body, { authorization: OWNER_KEY });
const scalar = async (sql: string, ...binds: unknown[]) =>
  Number(
    Object.values(
      (await w.db
        .prepare(sql)
        .bind(...binds)
        .first<Record<string, unknown>>())!,
    )[0],
  );

/** A warehouse's signed `inventory.updated` webhook adjusting the product's stock by `by`, under a fixed webhook id. */
function stockWebhook(source: string, secret: string, productId: string, by: number, id: string) {
  const body = JSON.stringify({ type: "inventory.updated", timestamp: new Date().toISOString(), data: { items: [{ productId, adjustBy: by }] } });
  const at = new Date();
  const headers = {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
  return call("POST", `/webhooks/${source}`, body, headers);
}

/** A visitor buys one of the product: cart, checkout, buyer details, order. Returns the order id. */
async function checkout(productId: string, n: number): Promise<string> {
  const token = (await call("POST", "/oauth2/token", { grantType: "anonymous", clientId: "storefront" })).body.access_token as string;
  const auth = { authorization: token };
  const line = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: productId }, quantity: 1 };
  // Adding is not safe to repeat: after a cut answer, the shopper looks at the cart before adding again.
  const added = await retrying("add to cart", async () => {
    const cart = await once("GET", "/ecom/v1/carts/current", undefined, auth);
    if (cart?.status === 200 && cart.body.cart?.lineItems?.length) return cart;
    return once("POST", "/ecom/v1/carts/current/add-to-cart", { lineItems: [line] }, auth);
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  const co = await call("POST", "/ecom/v1/carts/current/create-checkout", { channelType: "WEB" }, auth);
  expect(co.status, JSON.stringify(co.body)).toBe(200);
  const email = `storm-buyer-${n}@example.com`;
  const details = {
    checkout: {
      buyerInfo: { email },
      shippingInfo: { shippingDestination: { address: ADDRESS, contactDetails: { firstName: "Ada", lastName: "Storm" } } },
    },
  };
  const filled = await call("PATCH", `/ecom/v1/checkouts/${co.body.checkoutId}`, details, auth);
  // A retried PATCH after the order exists is refused as completed; the order call below answers that order.
  expect([200, 400], JSON.stringify(filled.body)).toContain(filled.status);
  const placed = await call("POST", `/ecom/v1/checkouts/${co.body.checkoutId}/create-order`, {}, auth);
  expect(placed.status, JSON.stringify(placed.body)).toBe(200);
  return placed.body.orderId as string;
}

describe("a dev server restart in the middle of a webhook storm and a checkout burst", () => {
  it("applies every effect exactly once, with nothing left waiting or dead", { timeout: 240_000 }, async () => {
    const created = await owner("POST", "/v1/products", {
      product: { name: "Storm Mug", priceData: { price: 12 }, stock: { trackInventory: true, quantity: START_STOCK } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const productId = created.body.product.id as string;
    const source = await owner("POST", "/api/v1/webhook-sources", { name: "storm-warehouse", eventTypes: ["inventory.updated"] });
    expect(source.status, JSON.stringify(source.body)).toBe(200);
    const subscription = await owner("POST", "/api/v1/webhook-subscriptions", {
      url: `${receiverUrl}/orders`,
      eventTypes: ["wix.ecom.v1.order_created"],
    });
    expect(subscription.status, JSON.stringify(subscription.body)).toBe(200);

    // The storm: adjustments of +1..+4 (every fourth sent twice under the same id) and the checkouts, all at once;
    // the runtime restarts once a third of them have been answered.
    const adjustments = Array.from({ length: WEBHOOKS }, (_, i) => ({ id: `msg_storm_${i}_${crypto.randomUUID()}`, by: (i % 4) + 1 }));
    let answered = 0;
    let restarted!: Promise<void>;
    const restartAt = Math.floor((WEBHOOKS + CHECKOUTS) / 3);
    const settle = <T>(p: Promise<T>) =>
      p.then((v) => {
        if (++answered === restartAt) restarted = w.restart();
        return v;
      });
    const hooks = adjustments.flatMap((a, i) => {
      const send = () => stockWebhook("storm-warehouse", source.body.secret, productId, a.by, a.id);
      return i % 4 === 0 ? [settle(send()), settle(send())] : [settle(send())];
    });
    const orders = Array.from({ length: CHECKOUTS }, (_, n) => settle(checkout(productId, n)));
    const hookAnswers = await Promise.all(hooks);
    const orderIds = await Promise.all(orders);
    await restarted;
    for (const a of hookAnswers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(new Set(orderIds).size).toBe(CHECKOUTS);

    // The sweep (every minute on its own; called here to keep the test short) sends again what the restart lost.
    const deadline = Date.now() + 120_000;
    for (;;) {
      await owner("POST", "/api/v1/events/sweep", {});
      const waiting = await scalar("SELECT COUNT(*) FROM outbox WHERE done_at IS NULL");
      const pendingDeliveries = await scalar("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'PENDING'");
      if (waiting === 0 && pendingDeliveries === 0 && delivered.size >= CHECKOUTS) break;
      if (Date.now() > deadline) throw new Error(`after 120 s: ${waiting} events waiting, ${pendingDeliveries} deliveries pending`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    console.info(`restart storm: ${retried} request(s) retried after the restart cut them`);

    // Stock: every adjustment once, every order once.
    const added = adjustments.reduce((sum, a) => sum + a.by, 0);
    expect(await scalar("SELECT quantity FROM variants WHERE product_id = ?", productId)).toBe(START_STOCK + added - CHECKOUTS);
    expect(await scalar("SELECT COUNT(*) FROM webhook_events WHERE status = 'ACCEPTED'")).toBe(WEBHOOKS);
    // Orders: one per checkout, each with one confirmation email and one order webhook delivered.
    expect(await scalar("SELECT COUNT(*) FROM orders")).toBe(CHECKOUTS);
    expect(await scalar("SELECT COUNT(*) FROM emails WHERE template = 'order-confirmation'")).toBe(CHECKOUTS);
    expect(await scalar("SELECT COUNT(DISTINCT \"to\") FROM emails WHERE template = 'order-confirmation'")).toBe(CHECKOUTS);
    expect(await scalar("SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'SUCCEEDED'")).toBe(CHECKOUTS);
    expect(delivered.size).toBe(CHECKOUTS);
    for (const id of orderIds) expect([...delivered.values()].filter((b) => b.includes(id))).toHaveLength(1);
    // Nothing waits, nothing died, and health is back to 200.
    expect(await scalar("SELECT COUNT(*) FROM event_failures WHERE state = 'DEAD'")).toBe(0);
    const health = await call("GET", "/api/health");
    expect(health.status).toBe(200);
    expect(health.body.events.waiting).toBe(0);
  });
});
