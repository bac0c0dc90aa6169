import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../entry/index";
import { cachedCatalogRead, catalogVersion, forgetHotCatalog, hashCsp, inlineScripts, pageCacheKey } from "#worker/catalog/cache";
import { getProductBySlug } from "#worker/catalog/product-pages";
import type { EventEnvelope } from "#worker/events/outbox";
import { EventType } from "#worker/events/types";
import type { Auth, Ctx } from "#worker/platform/context";
import { api, OWNER_KEY, outboxRows, serviceCtx, unique } from "../helpers";

/** Shoppers' catalogue reads are cached under a version that every catalogue change bumps through the event queue. */

const ctxAs = (auth: Auth): Ctx => serviceCtx(auth).ctx;

/**
 * The Worker with a queue that keeps what it is sent: no consumer purges the cache behind a test's back (every
 * merchant write's event would, at a moment no test controls); a test that wants an event's purge delivers it.
 */
const quiet = { ...env, EVENTS: { send: async () => {}, sendBatch: async () => {} } } as unknown as Env;
const call = (method: string, path: string, opts: Parameters<typeof api>[2] = {}) => api(method, path, { ...opts, env: quiet });
const asMerchant = (method: string, path: string, body?: unknown) => call(method, path, { body, key: OWNER_KEY });
async function createProduct(product: Record<string, unknown>) {
  const res = await asMerchant("POST", "/v1/products", { product: { priceData: { price: 10 }, ...product } });
  expect(res.status).toBe(200);
  return res.body.product;
}
const visitor = () => serviceCtx({ kind: "visitor", visitorId: crypto.randomUUID(), clientId: "storefront" });
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
  it("answers a repeated shopper read from the cache until a product change purges it, then reads live", async () => {
    const slug = `cached-${unique()}`;
    const product = await createProduct({ name: "Cached mug", slug, productType: "physical", priceData: { price: 12 } });
    const { ctx: shopper, settled } = visitor();
    let computed = 0;
    const read = () =>
      cachedCatalogRead(shopper, "getProductBySlug", slug, async () => {
        computed++;
        return getProductBySlug(shopper, slug);
      });

    expect((await read()).name).toBe("Cached mug");
    // The cache write runs after the answer (waitUntil): wait for it.
    await settled();
    expect((await read()).name).toBe("Cached mug");
    expect(computed).toBe(1);

    const patched = await asMerchant("PATCH", `/v1/products/${product.id}`, { product: { name: "Renamed mug" } });
    expect(patched.status).toBe(200);
    // The merchant's write purged the shoppers' cache at once (in the API host): the next read is live.
    expect((await read()).name).toBe("Renamed mug");
    expect(computed).toBe(2);
    await settled();
    expect((await read()).name).toBe("Renamed mug");
    expect(computed).toBe(2);

    // The change's event purges it again through the queue (every change made without a merchant's request, such as
    // stock sold at checkout, relies on that alone).
    const before = await catalogVersion(env);
    await process((await eventsOf(product.id)).filter((e) => e.type === EventType.productChanged));
    expect(await catalogVersion(env)).not.toBe(before);
    expect((await read()).name).toBe("Renamed mug");
    expect(computed).toBe(3);
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

  describe("API reads from the cache of serialised responses", () => {
    const trips = (h: Headers) => Number(/(\d+) round trips/.exec(h.get("server-timing") ?? "")?.[1] ?? NaN);
    const kvReads = (h: Headers) => Number(/(\d+) KV reads/.exec(h.get("server-timing") ?? "")?.[1] ?? NaN);

    it("a repeated product, collection or query read costs no D1 round trip and gives the same bytes and ETag; If-None-Match gets 304", async () => {
      const slug = `etag-${unique()}`;
      const product = await createProduct({ name: "ETag kettle", slug, productType: "physical", priceData: { price: 30 } });
      const collection = await asMerchant("POST", "/v1/collections", { collection: { name: `ETag shelf ${slug}`, slug: `shelf-${slug}` } });
      expect(collection.status).toBe(200);
      const query = { query: { filter: { slug }, paging: { limit: 5 } }, includeVariants: true };
      const reads: [string, string, unknown?][] = [
        ["GET", `/v1/products/${product.id}`],
        ["GET", `/stores-reader/v1/products/${product.id}`],
        ["GET", `/v3/products/${product.id}`],
        ["GET", `/v1/collections/slug/shelf-${slug}`],
        ["GET", `/v2/collections/${collection.body.collection.id}`],
        ["POST", "/v1/products/query-platformized", query],
      ];
      for (const [method, path, body] of reads) {
        const first = await call(method, path, { body });
        expect(first.status, path).toBe(200);
        // The gateway mount serves the same cached answer the Wix REST path just stored.
        if (path.startsWith("/stores-reader/")) expect(trips(first.headers), path).toBe(0);
        else expect(trips(first.headers), path).toBeGreaterThan(0);
        const etag = first.headers.get("etag");
        expect(etag, path).toMatch(/^"[0-9a-f]{32}"$/);
        expect(first.headers.get("cache-control"), path).toBe("no-cache");
        // api() answers once the cache write made after the response (waitUntil) has finished.
        const again = await call(method, path, { body });
        expect(again.status, path).toBe(200);
        expect(trips(again.headers), path).toBe(0);
        // The isolate kept the answer and the catalogue version it read: not even a KV read.
        expect(kvReads(again.headers), path).toBe(0);
        expect(again.headers.get("etag"), path).toBe(etag);
        expect(again.body, path).toEqual(first.body);
        if (method !== "GET") continue;
        const unchanged = await call("GET", path, { headers: { "if-none-match": etag! } });
        expect(unchanged.status, path).toBe(304);
        expect(unchanged.body, path).toBe("");
        expect(trips(unchanged.headers), path).toBe(0);
        const other = await call("GET", path, { headers: { "if-none-match": '"0000"' } });
        expect(other.status, path).toBe(200);
      }
    });

    it("after a change is processed, the old ETag no longer matches and the answer is the new one; the merchant reads live", async () => {
      const slug = `etag-change-${unique()}`;
      const product = await createProduct({ name: "Old kettle", slug, productType: "physical", priceData: { price: 30 } });
      const first = await call("GET", `/v1/products/${product.id}`);
      const etag = first.headers.get("etag")!;
      expect((await asMerchant("PATCH", `/v1/products/${product.id}`, { product: { name: "New kettle" } })).status).toBe(200);
      const live = await asMerchant("GET", `/v1/products/${product.id}`);
      expect(live.body.product.name).toBe("New kettle");
      expect(live.headers.get("etag")).toBeNull();
      await process((await eventsOf(product.id)).filter((e) => e.type === EventType.productChanged));
      const after = await call("GET", `/v1/products/${product.id}`, { headers: { "if-none-match": etag } });
      expect(after.status).toBe(200);
      expect(after.body.product.name).toBe("New kettle");
      expect(after.headers.get("etag")).not.toBe(etag);
    });

    it("an isolate that has not kept an answer gets it from the edge cache: the same bytes and ETag, no D1 round trip", async () => {
      const slug = `cold-isolate-${unique()}`;
      const product = await createProduct({ name: "Shared kettle", slug, productType: "physical", priceData: { price: 30 } });
      const first = await call("GET", `/v1/products/${product.id}`);
      expect(trips(first.headers)).toBeGreaterThan(0);
      // As another isolate would be: nothing in memory, the version read from KV again.
      forgetHotCatalog();
      const elsewhere = await call("GET", `/v1/products/${product.id}`);
      expect(elsewhere.status).toBe(200);
      expect(trips(elsewhere.headers)).toBe(0);
      expect(kvReads(elsewhere.headers)).toBe(1);
      expect(elsewhere.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(elsewhere.body).toEqual(first.body);
    });

    it("a cache write slower than any pause a test could take is still waited for: the next isolate reads no D1", async () => {
      // A busy machine, made certain: every write to the catalogue cache lands 300 ms after the answer.
      const open = caches.open.bind(caches);
      const slowPut = (cache: Cache): Cache =>
        new Proxy(cache, {
          get: (target, key) =>
            key === "put"
              ? async (...args: Parameters<Cache["put"]>) => {
                  await new Promise((r) => setTimeout(r, 300));
                  return target.put(...args);
                }
              : ((target as any)[key]?.bind?.(target) ?? (target as any)[key]),
        });
      Object.defineProperty(caches, "open", { configurable: true, value: async (name: string) => slowPut(await open(name)) });
      try {
        const slug = `slow-cache-${unique()}`;
        const product = await createProduct({ name: "Slow kettle", slug, productType: "physical", priceData: { price: 30 } });
        const first = await call("GET", `/v1/products/${product.id}`);
        expect(trips(first.headers)).toBeGreaterThan(0);
        forgetHotCatalog();
        const elsewhere = await call("GET", `/v1/products/${product.id}`);
        expect(trips(elsewhere.headers)).toBe(0);
        expect(elsewhere.body).toEqual(first.body);
      } finally {
        delete (caches as { open?: unknown }).open;
      }
    });

    it("a missing product is a 404 every time, never cached", async () => {
      for (let i = 0; i < 2; i++) {
        const res = await call("GET", `/v1/products/${crypto.randomUUID()}`);
        expect(res.status).toBe(404);
        expect(res.headers.get("etag")).toBeNull();
      }
    });
  });
});

describe("a cached page's script hashes", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const text = (b: Uint8Array) => new TextDecoder().decode(b);

  it("finds each inline script's body as the browser hashes it, and leaves out scripts with src", () => {
    const html = bytes(
      '<!DOCTYPE html><html><head><script>a("é<b>")</script><script type="module" src="/x.js"></script></head>' +
        '<body><p>&lt;script&gt; in text</p><scripts>not one</scripts><script nonce="n" async="">\nb()\n</script></body></html>',
    );
    expect(inlineScripts(html).map(text)).toEqual(['a("é<b>")', "\nb()\n"]);
  });

  it("allows exactly those scripts in the CSP, by their SHA-256 hashes", async () => {
    const csp = await hashCsp(bytes("<html><script>one()</script><script>one()</script><script>two()</script></html>"));
    const sha = async (s: string) => btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes(s)))));
    expect(csp).toBe(
      `script-src 'sha256-${await sha("one()")}' 'sha256-${await sha("two()")}' 'strict-dynamic'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'`,
    );
  });

  it("finds nothing past a script cut short", () => {
    expect(inlineScripts(bytes("<html><script>a()</script><script>b(")).map(text)).toEqual(["a()"]);
  });
});

describe("a page's cache key", () => {
  const page = (url: string) => new Request(url, { headers: { "user-agent": "Mozilla/5.0" } });

  it("names the build, so a deploy never serves a page naming scripts it no longer has", async () => {
    const a = await pageCacheKey(env, page("https://shop.example/products/tee"), "sid", false, "build-a");
    const again = await pageCacheKey(env, page("https://shop.example/products/tee"), "sid", false, "build-a");
    const b = await pageCacheKey(env, page("https://shop.example/products/tee"), "sid", false, "build-b");
    expect(a?.key.url).toBe(again?.key.url);
    expect(a?.key.url).not.toBe(b?.key.url);
  });
});
