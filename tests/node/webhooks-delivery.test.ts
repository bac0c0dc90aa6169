import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AppStrategy, createClient } from "@wix/sdk";
import { abandonedCheckouts, currentCart } from "@wix/ecom";
import { products } from "@wix/stores";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER_KEY, startWorker, type RunningWorker } from "./worker";
import { waitFor } from "../wait";

/**
 * Outgoing webhooks from the built Worker to a real HTTP receiver on 127.0.0.1: the receiver verifies Standard
 * Webhooks signatures with the `standardwebhooks` package (not this server's code), answers 500 when told to so
 * the retries show, and receives wix-format deliveries that the unmodified Wix SDK (AppStrategy with the shop's
 * published public key) accepts. Retries here are 1 s apart, an attempt times out after 1 s, and one failed delivery
 * disables a subscription.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let worker: RunningWorker;
let server: Server;
let receiverUrl: string;
const received: Received[] = [];
/** Requests to "/held…" being answered right now, and the most at once. */
const inFlight = { now: 0, max: 0 };
/** Status codes the receiver answers per path, one per request (then 200). */
const script = new Map<string, number[]>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      // "/held…" paths answer after 300 ms, counting how many requests are in flight at once.
      if (path.startsWith("/held")) {
        inFlight.now += 1;
        inFlight.max = Math.max(inFlight.max, inFlight.now);
        setTimeout(() => {
          inFlight.now -= 1;
          res.writeHead(200).end("thanks");
        }, 300);
        return;
      }
      // "/slow" answers its first request only after 3 s, past the 1 s attempt timeout.
      if (path === "/slow" && at("/slow").length === 1) {
        setTimeout(() => res.writeHead(200).end("too late"), 3000);
        return;
      }
      const status = script.get(path)?.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status === 200 ? "thanks" : `receiver broke: ${"x".repeat(3000)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "der" }).toString("base64");
  worker = await startWorker({
    bindings: {
      WEBHOOK_SIGNING_KEY: signingKey,
      WEBHOOK_RETRY_SCHEDULE: "1,1",
      WEBHOOK_DISABLE_AFTER: "1",
      WEBHOOK_TIMEOUT_SECONDS: "1",
      OAUTH_CLIENT_ID: "node-webhooks-client",
    },
  });
});

afterAll(async () => {
  await worker?.dispose();
  await new Promise((resolve) => server?.close(resolve));
});

async function call(method: string, path: string, body?: unknown) {
  const res = await worker.fetch(path, {
    method,
    headers: { authorization: OWNER_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function subscribe(path: string, extra: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/v1/webhook-subscriptions", {
    url: `${receiverUrl}${path}`,
    eventTypes: ["com.wix.ecommerce.catalog.api.v1.ProductCreated"],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { subscription: { id: string }; secret?: string };
}

async function createProduct(name: string) {
  const res = await call("POST", "/stores/v1/products", { product: { name, priceData: { price: 19.5 } } });
  expect(res.status).toBe(200);
  return res.body.product as { id: string; name: string };
}

const at = (path: string) => received.filter((r) => r.path === path);

/** A new anonymous visitor (the anonymous grant) with `quantity` of a product in their cart, and calls as them. */
async function visitorWithCart(productId: string, quantity: number) {
  const token = await worker.fetch("/oauth2/token", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grantType: "anonymous", clientId: "node-webhooks-client" }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const as = (method: string, path: string, body: unknown) =>
    worker.fetch(path, { method, headers: { "content-type": "application/json", authorization: access_token }, body: JSON.stringify(body) });
  const added = await as("POST", "/ecom/v1/carts/current/add-to-cart", {
    lineItems: [{ catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: productId }, quantity }],
  });
  const { cart } = (await added.json()) as { cart: { id: string } };
  return { cart, as };
}

/** The unmodified Wix SDK as an app that trusts the shop's published webhook key. */
async function sdkApp<M extends Record<string, any>>(modules: M) {
  const { publicKey } = (await call("GET", "/api/v1/webhook-public-key")).body;
  return createClient({ auth: AppStrategy({ appId: "edge-storefront-test", publicKey }), modules });
}

describe("outgoing webhooks to a local receiver", () => {
  it("delivers a catalogue event signed the Standard Webhooks way, verified by the receiver", async () => {
    const { subscription, secret } = await subscribe("/standard");
    const product = await createProduct("Signed tee");
    const [request] = await waitFor(() => (at("/standard").length ? at("/standard") : null), "the delivery");
    const payload = new Webhook(secret!).verify(request.body, request.headers as Record<string, string>) as any;
    expect(payload.type).toBe("com.wix.ecommerce.catalog.api.v1.ProductCreated");
    expect(payload.data).toMatchObject({
      type: payload.type,
      entityId: product.id,
      actor: { type: "APP", id: "owner" },
      data: { productId: product.id, name: "Signed tee" },
    });
    expect(request.headers["webhook-id"]).toBe(payload.data.id);
    expect(request.headers["content-type"]).toBe("application/json");
    // A receiver holding another secret refuses it.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(request.body, request.headers as Record<string, string>),
    ).toThrow();

    const delivery = await waitFor(
      async () => (await call("GET", `/api/v1/webhook-subscriptions/${subscription.id}/deliveries?status=SUCCEEDED`)).body.deliveries[0],
      "SUCCEEDED",
    );
    expect(delivery.attempts).toMatchObject([{ attempt: 1, succeeded: true, responseStatus: 200, responseExcerpt: "thanks", error: null }]);
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("makes one event's deliveries to several receivers side by side, not one after another", async () => {
    const paths = ["/held-a", "/held-b", "/held-c"];
    const subs = await Promise.all(paths.map((p) => subscribe(p)));
    await createProduct("Fan-out tee");
    await waitFor(() => paths.every((p) => at(p).length > 0) || null, "a delivery to each receiver");
    expect(inFlight.max).toBeGreaterThanOrEqual(2);
    for (const { subscription } of subs) await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("signs with the old and new secret for a day after a rotation", async () => {
    const { subscription, secret: oldSecret } = await subscribe("/rotated");
    const rotated = await call("POST", `/api/v1/webhook-subscriptions/${subscription.id}/rotate-secret`);
    await createProduct("Rotated tee");
    const [request] = await waitFor(() => (at("/rotated").length ? at("/rotated") : null), "the delivery");
    expect(String(request.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [oldSecret!, rotated.body.secret])
      expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toBeTruthy();
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("retries after 500s with the same webhook-id and logs every attempt", async () => {
    script.set("/flaky", [500, 500]);
    const { subscription, secret } = await subscribe("/flaky");
    await createProduct("Flaky tee");
    const delivery = await waitFor(
      async () => (await call("GET", `/api/v1/webhook-subscriptions/${subscription.id}/deliveries?status=SUCCEEDED`)).body.deliveries[0],
      "SUCCEEDED after retries",
    );
    const requests = at("/flaky");
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of requests) expect(new Webhook(secret!).verify(r.body, r.headers as Record<string, string>)).toBeTruthy();
    expect(delivery.attemptCount).toBe(3);
    expect(delivery.attempts.map((a: any) => [a.attempt, a.responseStatus, a.succeeded])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 200, true],
    ]);
    // The response excerpt is cut at 1 KB.
    expect(delivery.attempts[0].responseExcerpt).toMatch(/^receiver broke: x+$/);
    expect(delivery.attempts[0].responseExcerpt.length).toBe(1024);
    expect(delivery.attempts[0].error).toBe("HTTP 500");
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("counts a receiver that does not answer in time as a failed attempt, and retries", async () => {
    const { subscription } = await subscribe("/slow");
    await createProduct("Slow tee");
    const delivery = await waitFor(
      async () => (await call("GET", `/api/v1/webhook-subscriptions/${subscription.id}/deliveries?status=SUCCEEDED`)).body.deliveries[0],
      "SUCCEEDED after a timeout",
    );
    expect(delivery.attempts.map((a: any) => [a.attempt, a.responseStatus, a.error])).toEqual([
      [1, null, "no response within 1 s"],
      [2, 200, null],
    ]);
    expect(delivery.attempts[0].latencyMs).toBeGreaterThanOrEqual(900);
    expect(delivery.attempts[0].latencyMs).toBeLessThan(2900);
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("fails the delivery after the last attempt, disables the subscription with a task, and redelivers by hand", async () => {
    script.set("/down", [500, 503, 502]);
    const { subscription } = await subscribe("/down");
    await createProduct("Unlucky tee");
    const sub = await waitFor(async () => {
      const s = (await call("GET", `/api/v1/webhook-subscriptions/${subscription.id}`)).body.subscription;
      return s.enabled ? null : s;
    }, "the subscription to be disabled");
    expect(sub.disabledReason).toMatch(/HTTP 502/);
    const [failed] = (await call("GET", `/api/v1/webhook-subscriptions/${subscription.id}/deliveries`)).body.deliveries;
    expect(failed).toMatchObject({ status: "FAILED", attemptCount: 3, lastError: "HTTP 502" });
    expect(failed.attempts.map((a: any) => a.responseStatus)).toEqual([500, 503, 502]);
    const tasks = (await call("GET", "/api/v1/tasks?kind=WEBHOOK_DISABLED&status=OPEN")).body.tasks;
    expect(tasks).toMatchObject([{ entityId: subscription.id, title: `Webhook to ${receiverUrl}/down was disabled` }]);
    expect(at("/down")).toHaveLength(3);

    // The receiver is fixed: the merchant enables the subscription and redelivers the failed delivery.
    expect((await call("PATCH", `/api/v1/webhook-subscriptions/${subscription.id}`, { enabled: true })).status).toBe(200);
    const redelivered = await call("POST", `/api/v1/webhook-deliveries/${failed.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    const done = await waitFor(async () => {
      const d = (await call("GET", `/api/v1/webhook-deliveries/${failed.id}`)).body.delivery;
      return d.status === "SUCCEEDED" ? d : null;
    }, "the redelivery");
    expect(done.attempts.map((a: any) => a.responseStatus)).toEqual([500, 503, 502, 200]);
    expect(at("/down")).toHaveLength(4);
    expect(at("/down")[3].headers["webhook-id"]).toBe(at("/down")[0].headers["webhook-id"]);
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("sends the wix format that the unmodified Wix SDK accepts with the shop's public key", async () => {
    const { subscription, secret } = await subscribe("/wix", { format: "wix" });
    expect(secret).toBeUndefined();
    const product = await createProduct("Wix-format tee");
    const [request] = await waitFor(() => (at("/wix").length ? at("/wix") : null), "the wix delivery");
    const { publicKey } = (await call("GET", "/api/v1/webhook-public-key")).body;

    const client = createClient({ auth: AppStrategy({ appId: "edge-storefront-test", publicKey }), modules: { products } });
    const seen: any[] = [];
    client.products.onProductCreated((event) => {
      seen.push(event);
    });
    const result = await client.webhooks.process(request.body);
    expect(result.eventType).toBe("com.wix.ecommerce.catalog.api.v1.ProductCreated");
    expect(result.instanceId).toBe(subscription.id);
    expect(seen).toHaveLength(1);
    expect(seen[0].data).toMatchObject({ productId: product.id, name: "Wix-format tee", price: { price: 19.5 } });
    expect(seen[0].metadata.identity).toEqual({ identityType: "APP", appId: "owner" });

    // The same token under another key, or tampered with, is refused by the SDK.
    const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const stranger = createClient({ auth: AppStrategy({ appId: "edge-storefront-test", publicKey: otherKey }), modules: { products } });
    await expect(stranger.webhooks.process(request.body)).rejects.toThrow();
    const [h, , s] = request.body.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ data: JSON.parse(Buffer.from(request.body.split(".")[1], "base64url").toString()).data.replace("Wix-format tee", "Forged tee") })).toString("base64url")}.${s}`;
    await expect(client.webhooks.process(forged)).rejects.toThrow();
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("sends abandoned-checkout events that the SDK's abandonedCheckouts.onAbandonedCheckoutCreated receives", async () => {
    const { subscription } = await subscribe("/wix-abandoned", { format: "wix", eventTypes: ["wix.ecom.v1.abandoned_checkout_created"] });
    const product = await createProduct("Abandoned tee");
    const { cart, as } = await visitorWithCart(product.id, 1);
    expect((await as("PATCH", "/ecom/v1/carts/current", { cartInfo: { buyerInfo: { email: "gone@example.test" } } })).status).toBe(200);
    // The shopper left two hours ago: the sweep finds the cart idle and the queue makes the record.
    await worker.db
      .prepare("UPDATE carts SET last_activity = ? WHERE id = ?")
      .bind(new Date(Date.now() - 2 * 3600_000).toISOString(), cart.id)
      .run();
    expect((await call("POST", "/api/v1/events/sweep")).body.automations.abandonedCarts).toBeGreaterThanOrEqual(1);
    const [request] = await waitFor(() => (at("/wix-abandoned").length ? at("/wix-abandoned") : null), "the abandoned-checkout delivery");

    const client = await sdkApp({ abandonedCheckouts });
    const seen: any[] = [];
    client.abandonedCheckouts.onAbandonedCheckoutCreated((event) => {
      seen.push(event);
    });
    await client.webhooks.process(request.body);
    expect(seen).toHaveLength(1);
    expect(seen[0].entity).toMatchObject({ cartId: cart.id, status: "ABANDONED", buyerInfo: { email: "gone@example.test" } });
    expect(seen[0].entity._createdDate).toBeInstanceOf(Date);
    expect(seen[0].entity.checkoutUrl).toMatch(/\/cart\/recover\/[A-Za-z0-9_-]+$/);
    expect(seen[0].metadata).toMatchObject({ entityId: seen[0].entity._id, instanceId: subscription.id });
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });

  it("sends cart events as Wix domain events that the SDK's currentCart.onCartCreated receives", async () => {
    const { subscription } = await subscribe("/wix-cart", { format: "wix", eventTypes: ["wix.ecom.v1.cart_created"] });
    const product = await createProduct("Cart event tee");
    const { cart } = await visitorWithCart(product.id, 2);
    const [request] = await waitFor(() => (at("/wix-cart").length ? at("/wix-cart") : null), "the cart delivery");

    const client = await sdkApp({ currentCart });
    const seen: any[] = [];
    client.currentCart.onCartCreated((event) => {
      seen.push(event);
    });
    await client.webhooks.process(request.body);
    expect(seen).toHaveLength(1);
    expect(seen[0].entity._id).toBe(cart.id);
    expect(seen[0].entity.lineItems[0]).toMatchObject({ quantity: 2, catalogReference: { catalogItemId: product.id } });
    expect(seen[0].metadata).toMatchObject({ entityId: cart.id, instanceId: subscription.id, identity: { identityType: "ANONYMOUS_VISITOR" } });
    expect(seen[0].metadata.eventTime).toBeInstanceOf(Date);
    await call("DELETE", `/api/v1/webhook-subscriptions/${subscription.id}`);
  });
});
