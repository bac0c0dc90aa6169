import type { Context } from "hono";
import type { Processor } from "../events/consumer";
import type { AppEnv } from "../platform/http";
import { EventType } from "../events/types";
import { isMerchant, type Ctx } from "../platform/context";
import { sha256Hex } from "../platform/ids";

/**
 * The storefront's catalogue reads, cached at the edge (Cache API) under a catalogue version kept in KV. Any
 * catalogue or stock change bumps the version (the `catalog-cache` processor below, fed by the outbox), which
 * purges every cached answer at once, in every location: later reads look under the new version.
 *
 * Why a version and not `cache.delete`: the Cache API is per location, and a purge must reach them all; and a
 * listing cannot be found by product id. The version is read from KV with a 60 s edge cache, so a change reaches
 * shoppers within about a minute; the merchant's reads are never cached, and carts and checkouts always price from
 * D1, so a shopper can never buy at a stale price.
 */

const VERSION_KEY = "catalog:version";
/** How long one cached answer lives, whatever happens (a safety net; purges normally come first). */
const MAX_AGE_SECONDS = 300;
/**
 * A version written this long after an event's time covers that event's change: the change commits in the same
 * request, right after the event is stamped.
 */
const COMMIT_MARGIN_MS = 2_000;

export async function catalogVersion(env: Env): Promise<string> {
  return (await env.SESSIONS.get(VERSION_KEY, { cacheTtl: 60 })) ?? "0";
}

/** Where a read's answer is cached: under the current version, by name and a digest of its arguments. */
async function cacheKey(ctx: Ctx, name: string, args: unknown): Promise<Request> {
  const version = await catalogVersion(ctx.env);
  const digest = await sha256Hex(JSON.stringify([name, args, ctx.currency, ctx.origin]));
  return new Request(`https://catalog-cache.invalid/v${version}/${encodeURIComponent(name)}/${digest}`);
}

/**
 * A shopper's catalogue read through the cache: `compute` runs on a miss, and its (JSON) answer is stored under
 * the current version. The merchant always reads live data (hidden products, costs, the console's own edits).
 */
export async function cachedCatalogRead<T>(ctx: Ctx, name: string, args: unknown, compute: () => Promise<T>): Promise<T> {
  if (isMerchant(ctx.auth)) return compute();
  const key = await cacheKey(ctx, name, args);
  const cache = await caches.open("catalog");
  const hit = await cache.match(key);
  if (hit) return (await hit.json()) as T;
  const value = await compute();
  const body = new Response(JSON.stringify(value), { headers: { "content-type": "application/json", "cache-control": `max-age=${MAX_AGE_SECONDS}` } });
  ctx.waitUntil(cache.put(key, body));
  return value;
}

/**
 * An API catalogue read answered from the cache of serialised responses: on a hit the stored bytes go out as they
 * are (no D1 round trip, no JSON.stringify); on a miss `compute` runs once and its JSON is stored with an ETag (a
 * digest of the bytes, so it survives a version bump that changed nothing). A GET whose `If-None-Match` names the
 * ETag gets 304 without a body. `Cache-Control: no-cache` lets clients keep the answer and revalidate it; the answer
 * varies with `Authorization` (the merchant's reads are live and carry merchant-only fields, so they bypass all this).
 */
export async function catalogJson(c: Context<AppEnv>, name: string, args: unknown, compute: () => Promise<unknown>): Promise<Response> {
  const ctx = c.get("ctx");
  if (isMerchant(ctx.auth)) return c.json(await compute());
  const key = await cacheKey(ctx, `response:${name}`, args);
  const cache = await caches.open("catalog");
  let stored = await cache.match(key);
  if (!stored) {
    const body = JSON.stringify(await compute());
    const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`;
    stored = new Response(body, { headers: { "content-type": "application/json", etag, "cache-control": `max-age=${MAX_AGE_SECONDS}` } });
    ctx.waitUntil(cache.put(key, stored.clone()));
  }
  const etag = stored.headers.get("etag") ?? "";
  const headers = { "content-type": "application/json", etag, "cache-control": "no-cache", vary: "Authorization" };
  const method = c.req.method;
  if ((method === "GET" || method === "HEAD") && etagMatches(c.req.header("if-none-match"), etag)) {
    await stored.body?.cancel();
    return new Response(null, { status: 304, headers });
  }
  return new Response(stored.body, { status: 200, headers });
}

/** Whether an If-None-Match header names this ETag (`*`, or a list; weak and strong compare alike, RFC 9110 §13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header || !etag) return false;
  if (header.trim() === "*") return true;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => bare(t) === bare(etag));
}

/**
 * Purges the cached catalogue for a change made at `changedAt` (ISO time) by writing a new version (the time of
 * writing). An event that an already written version covers (written after its change committed) writes nothing,
 * so a burst of events mostly shares one write. KV allows about one write per second per key: a write refused for
 * that throws, the consumer retries the event later, and by then a newer version covers it.
 */
export async function purgeCatalogCache(env: Env, changedAt: string): Promise<boolean> {
  const writtenAt = Number(await env.SESSIONS.get(VERSION_KEY));
  if (Number.isFinite(writtenAt) && writtenAt >= Date.parse(changedAt) + COMMIT_MARGIN_MS) return false;
  await env.SESSIONS.put(VERSION_KEY, String(Date.now()));
  return true;
}

/** Every event that changes what a shopper sees in the catalogue. */
export const CATALOG_CHANGE_EVENTS = [
  EventType.productCreated,
  EventType.productChanged,
  EventType.productDeleted,
  EventType.variantsChanged,
  EventType.collectionCreated,
  EventType.collectionChanged,
  EventType.collectionDeleted,
  EventType.inventoryItemChanged,
  EventType.inventoryVariantsChanged,
  EventType.inventoryStockStatusUpdated,
];

export const catalogCacheProcessors: Processor[] = [
  {
    name: "catalog-cache",
    types: CATALOG_CHANGE_EVENTS,
    async run(event, _data, p) {
      await purgeCatalogCache(p.env, event.eventTime);
    },
  },
];
