import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { cachedCatalogRead, catalogVersion } from "../../worker/catalog/cache";
import { getProductBySlug } from "../../worker/catalog/products";
import type { EventEnvelope } from "../../worker/events/outbox";
import { EventType } from "../../worker/events/types";
import type { Auth, Ctx } from "../../worker/platform/context";
import { createProduct, merchant, outboxRows, serviceCtx, unique } from "../helpers";

/** Shoppers' catalogue reads are cached under a version that every catalogue change bumps through the event queue. */

const ctxAs = (auth: Auth): Ctx => serviceCtx(auth).ctx;
const visitor = () => ctxAs({ kind: "visitor", visitorId: crypto.randomUUID(), clientId: "storefront" });
const owner = () => ctxAs({ kind: "apiKey", keyId: "owner", role: "OWNER" });

/** Delivers events to the worker's queue handler, as the EVENTS queue would. */
async function process(events: EventEnvelope[]) {
  const batch = createMessageBatch(
    "edge-storefront-events",
    events.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages).toEqual([]);
}

/** The outbox rows of an entity as the envelopes the queue carries. */
async function eventsOf(entityId: string): Promise<EventEnvelope[]> {
  return (await outboxRows(entityId)).map((r: any) => ({
    id: r.id,
    type: r.type,
    entityId: r.entity_id,
    eventTime: r.event_time,
    actor: { type: r.actor_type, id: r.actor_id },
    data: r.data,
  }));
}

describe("catalogue cache", () => {
  it("answers a repeated shopper read from the cache until a product change is processed, then reads live", async () => {
    const slug = `cached-${unique()}`;
    const product = await createProduct({ name: "Cached mug", slug, productType: "physical", priceData: { price: 12 } });
    const shopper = visitor();
    let computed = 0;
    const read = () =>
      cachedCatalogRead(shopper, "getProductBySlug", slug, async () => {
        computed++;
        return getProductBySlug(shopper, slug);
      });

    expect((await read()).name).toBe("Cached mug");
    // Let the cache write (a waitUntil in production) land.
    await new Promise((r) => setTimeout(r, 50));
    expect((await read()).name).toBe("Cached mug");
    expect(computed).toBe(1);

    const patched = await merchant("PATCH", `/v1/products/${product.id}`, { product: { name: "Renamed mug" } });
    expect(patched.status).toBe(200);
    // Until the change event is processed, the shopper still gets the cached answer.
    expect((await read()).name).toBe("Cached mug");

    const before = await catalogVersion(env);
    await process((await eventsOf(product.id)).filter((e) => e.type === EventType.productChanged));
    expect(await catalogVersion(env)).not.toBe(before);
    expect((await read()).name).toBe("Renamed mug");
    expect(computed).toBe(2);
  });

  it("never caches the merchant's reads", async () => {
    let computed = 0;
    const merchantCtx = owner();
    for (let i = 0; i < 2; i++) await cachedCatalogRead(merchantCtx, "anything", i, async () => ++computed);
    await cachedCatalogRead(merchantCtx, "same", 1, async () => ++computed);
    await cachedCatalogRead(merchantCtx, "same", 1, async () => ++computed);
    expect(computed).toBe(4);
  });

  it("bumps the version once for a burst of changes it already covers", async () => {
    const e = (eventTime: string): EventEnvelope => ({
      id: crypto.randomUUID(),
      type: EventType.productChanged,
      entityId: crypto.randomUUID(),
      eventTime,
      actor: { type: "APP", id: "owner" },
      data: { productId: "x", changedFields: ["name"] },
    });
    // A change from a minute ago: the version written now covers it and any change before it.
    const minuteAgo = new Date(Date.now() - 60_000).toISOString();
    await process([e(minuteAgo)]);
    const version = await catalogVersion(env);
    await process([e(new Date(Date.now() - 90_000).toISOString()), e(minuteAgo)]);
    expect(await catalogVersion(env)).toBe(version);
    // A change made just now is not covered yet: it writes a new version.
    await new Promise((r) => setTimeout(r, 5));
    await process([e(new Date().toISOString())]);
    expect(await catalogVersion(env)).not.toBe(version);
  });
});
