import type { Context } from "hono";
import { LRUCache } from "lru-cache";
import type { Processor } from "#worker/events";
import type { AppEnv } from "#worker/platform/http";
import { EventType } from "#worker/events";
import { isMerchant, type Ctx } from "#worker/platform/context";
import { sha256Hex } from "#worker/platform/ids";

/**
 * The storefront's catalogue reads, cached at the edge (Cache API) under a catalogue version kept in KV. Any
 * catalogue or stock change bumps the version (the `catalog-cache` processor below, fed by the outbox), which
 * purges every cached answer at once, in every location: later reads look under the new version.
 *
 * Why a version and not `cache.delete`: the Cache API is per location, and a purge must reach them all; and a
 * listing cannot be found by product id. The version is read from KV with a 60 s edge cache, so a change reaches
 * shoppers within about a minute; the merchant's reads are never cached, and carts and checkouts always price from
 * D1, so a shopper can never buy at a stale price.
 *
 * In front of the Cache API, each isolate keeps its most used answers in memory (`hot`, by the same versioned
 * keys, so a new version misses them too), and the version it last read for a second: a repeated read then costs
 * no KV read, no Cache API lookup and no copy, which was most of what a cached read cost.
 * Nothing personal is kept there (the merchant's reads bypass all of it; pages are only kept for visitors without a
 * session), and nothing that must be exact: sessions, rate limits and carts never live in an isolate's memory.
 */

const VERSION_KEY = "catalog:version";
/** How long one cached answer lives, whatever happens (a safety net; purges normally come first). */
const MAX_AGE_SECONDS = 300;
/**
 * A version written this long after an event's time covers that event's change: the change commits in the same
 * request, right after the event is stamped.
 */
const COMMIT_MARGIN_MS = 2_000;
/** How long an isolate reuses the version it read (a purge made in this isolate replaces it at once). */
const VERSION_MEMO_MS = 1_000;

let versionMemo: { version: string; until: number } | null = null;

export async function catalogVersion(env: Env): Promise<string> {
  const now = Date.now();
  if (versionMemo && now < versionMemo.until) return versionMemo.version;
  const version = (await env.SESSIONS.get(VERSION_KEY, { cacheTtl: 60 })) ?? "0";
  versionMemo = { version, until: now + VERSION_MEMO_MS };
  return version;
}

/**
 * An answer kept in this isolate's memory and the headers that go with it: a read's JSON as text (to parse), a
 * response's JSON or a page's HTML as UTF-8 bytes (sent as they are: encoding 70 KB of text again for every
 * response cost a tenth of a cached read).
 */
type HotEntry = { body: string | Uint8Array<ArrayBuffer>; etag?: string; csp?: string };
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * The isolate's hot answers, at most 16 MB (a Worker isolate has 128 MB), least recently used out first; an entry
 * also expires with the Cache API copy's lifetime.
 */
const hot = new LRUCache<string, HotEntry>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (e) => Math.max(1, typeof e.body === "string" ? e.body.length * 2 : e.body.byteLength),
  ttl: MAX_AGE_SECONDS * 1000,
});

/** Forgets this isolate's hot answers and version (tests use it to act as a fresh isolate). */
export function forgetHotCatalog(): void {
  hot.clear();
  versionMemo = null;
}

/**
 * Where a read's answer is cached: under the current version, by name and arguments. `hot` is the key in this
 * isolate's memory (the arguments as they are: no digest to compute on a hit); `request()` the Cache API's key, a
 * digest of the same.
 */
async function cacheKey(ctx: Ctx, name: string, args: unknown): Promise<{ hot: string; request: () => Promise<Request> }> {
  const version = await catalogVersion(ctx.env);
  const what = JSON.stringify([name, args, ctx.currency, ctx.origin]);
  return {
    hot: `catalog ${version} ${what}`,
    request: async () => new Request(`https://catalog-cache.invalid/v${version}/${encodeURIComponent(name)}/${await sha256Hex(what)}`),
  };
}

/**
 * A shopper's catalogue read through the cache: `compute` runs on a miss, and its (JSON) answer is stored under
 * the current version. The merchant always reads live data (hidden products, costs, the console's own edits).
 */
export async function cachedCatalogRead<T>(ctx: Ctx, name: string, args: unknown, compute: () => Promise<T>): Promise<T> {
  if (isMerchant(ctx.auth)) return compute();
  const key = await cacheKey(ctx, name, args);
  const inMemory = hot.get(key.hot);
  if (typeof inMemory?.body === "string") return JSON.parse(inMemory.body) as T;
  const cache = await caches.open("catalog");
  const request = await key.request();
  const hit = await cache.match(request);
  if (hit) {
    const text = await hit.text();
    hot.set(key.hot, { body: text });
    return JSON.parse(text) as T;
  }
  const value = await compute();
  const text = JSON.stringify(value);
  hot.set(key.hot, { body: text });
  ctx.waitUntil(
    cache.put(request, new Response(text, { headers: { "content-type": "application/json", "cache-control": `max-age=${MAX_AGE_SECONDS}` } })),
  );
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
  let entry = hot.get(key.hot);
  if (!entry) {
    const cache = await caches.open("catalog");
    const request = await key.request();
    const stored = await cache.match(request);
    if (stored) {
      entry = { body: new Uint8Array(await stored.arrayBuffer()), etag: stored.headers.get("etag") ?? "" };
    } else {
      const body = utf8.encode(JSON.stringify(await compute()));
      const etag = `"${(await sha256Hex(body)).slice(0, 32)}"`;
      entry = { body, etag };
      ctx.waitUntil(
        cache.put(
          request,
          new Response(body, { headers: { "content-type": "application/json", etag, "cache-control": `max-age=${MAX_AGE_SECONDS}` } }),
        ),
      );
    }
    hot.set(key.hot, entry);
  }
  const etag = entry.etag ?? "";
  const headers = { "content-type": "application/json", etag, "cache-control": "no-cache", vary: "Authorization" };
  const method = c.req.method;
  if ((method === "GET" || method === "HEAD") && etagMatches(c.req.header("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(entry.body, { status: 200, headers });
}

/** Whether an If-None-Match header names this ETag (`*`, or a list; weak and strong compare alike, as RFC 9110 section 13.1.2 says). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header || !etag) return false;
  if (header.trim() === "*") return true;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => bare(t) === bare(etag));
}

// ---------------------------------------------------------------------------------------------------------------
// Anonymous pages at the edge

/** The Workers Cache API's default cache (the project's TypeScript lib types `caches` as the browser's, without it). */
const edgeCache = () => (caches as unknown as { default: Cache }).default;

/** The catalogue pages a visitor without a session may get from the edge cache (everything on them is the catalogue's). */
const CACHEABLE_PAGE = /^\/(?:|shop|search|collections\/[^/]+|products\/[^/]+|pages\/[^/]+)$/;
/** How long the edge keeps a page (a safety net: a catalogue change makes a new version first). */
const PAGE_MAX_AGE_SECONDS = 300;

/**
 * Query parameters that ads, newsletters and social sites add to links for their analytics (`utm_*`, click ids):
 * the page is the same with or without them, so they are left out of the cache key (and out of the page rendered
 * for it), and a visitor arriving from an ad gets the cached page. The browser's address bar keeps them, so the
 * analytics script still reads them.
 */
const TRACKING_PARAM =
  /^(?:utm_[a-z_]+|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|twclid|ttclid|igshid|li_fat_id|mc_cid|mc_eid|_ga|_gl|srsltid)$/i;

/**
 * The edge-cache key of a page view, or null when this view may not come from (or go into) the cache: only a GET of
 * a catalogue page (home, shop, a collection, search, a product; the document, not its `.data`) by a browser with no
 * session cookie at all. Such a visitor has no cart and is not signed in, so the page holds nothing of theirs: its
 * personal bits (the cart count, "Log in") read the same for every visitor without a session, and anyone with a
 * session (a cart, a login; even a dead cookie, which the page must clear) always gets a fresh render. The key is the
 * URL (host, path, and the query without tracking parameters, in a stable order), the catalogue version (so a
 * catalogue change is a new key everywhere at once), and the one request fact the HTML depends on: whether the caller
 * is a bot (bots get every deferred part inline). `search` is the query the page is rendered for on a miss (the
 * request's, without tracking parameters), so the copy that is kept holds no one's campaign in its links.
 */
export async function pageCacheKey(
  env: Env,
  request: Request,
  sessionCookieName: string,
  bot: boolean,
  build: string,
): Promise<{ key: Request; search: string } | null> {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (!CACHEABLE_PAGE.test(url.pathname)) return null;
  if ((request.headers.get("cookie") ?? "").includes(`${sessionCookieName}=`)) return null;
  const kept = [...url.searchParams].filter(([name]) => !TRACKING_PARAM.test(name));
  if (kept.length !== [...url.searchParams].length) {
    url.search = new URLSearchParams(kept).toString();
  }
  // Stable order (repeated names keep theirs): `?a=1&b=2` and `?b=2&a=1` are one page.
  const query = new URLSearchParams([...kept].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
  const version = await catalogVersion(env);
  return {
    // The build too: a page names its build's scripts, which the next deploy no longer serves.
    key: new Request(
      `https://page-cache.invalid/v${encodeURIComponent(version)}/${encodeURIComponent(build)}/${bot ? "bot" : "browser"}/${url.host}${url.pathname}${query ? `?${query}` : ""}`,
    ),
    search: url.search,
  };
}

/**
 * A cached page for this key, ready to send, or null. Its Content-Security-Policy allows exactly the inline scripts
 * the stored HTML holds, by their SHA-256 hashes (pageCsp's nonce cannot work here: a nonce is a per-response secret,
 * and a page served to many visitors would publish it to all of them).
 */
export async function cachedPage(key: Request): Promise<Response | null> {
  let entry = hot.get(key.url);
  if (!entry) {
    const stored = await edgeCache().match(key);
    if (!stored) return null;
    entry = { body: new Uint8Array(await stored.arrayBuffer()), csp: stored.headers.get("x-page-csp") ?? "" };
    hot.set(key.url, entry);
  }
  return new Response(entry.body, { status: 200, headers: anonymousPageHeaders(entry.csp ?? "", "hit") });
}

/**
 * Sends a freshly rendered anonymous page and keeps a copy at the edge. The page was rendered whole (the render
 * context's `wholePage`), so the visitor gets the bytes that are kept, in one piece with a Content-Length; after the
 * response, its inline scripts are hashed into the cached variant's CSP (hashCsp) and it is stored. Only a complete
 * 200 without cookies is kept.
 *
 * Why whole rather than streamed: only home has a deferred part, and measured against copying a stream (tee), the
 * whole page cost 9-16% less CPU per uncached page. Home's sale row waits for its read, for the first visitor after a
 * catalogue change only. Pages with a session still stream.
 */
export async function keepPage(ctx: Ctx, key: Request, res: Response, csp: string): Promise<Response> {
  if (res.status !== 200 || !res.body || res.headers.has("set-cookie")) return res;
  const bytes = new Uint8Array(await res.arrayBuffer());
  // A render cut short (an aborted request) does not end with </html>: never cache half a page.
  if (endsWithHtmlClose(bytes)) ctx.waitUntil(storePage(key, bytes));
  return new Response(bytes, { status: 200, headers: anonymousPageHeaders(csp, "miss", res.headers) });
}

/** Keeps a rendered page in this isolate and at the edge, under its key, with the CSP its inline scripts need. */
async function storePage(key: Request, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  // Hashed as the bytes that were sent: the scripts are found without decoding the page or encoding each again.
  const csp = await hashCsp(bytes);
  hot.set(key.url, { body: bytes, csp });
  const headers = { "content-type": "text/html; charset=utf-8", "cache-control": `public, max-age=${PAGE_MAX_AGE_SECONDS}`, "x-page-csp": csp };
  await edgeCache().put(key, new Response(bytes, { headers }));
}

/**
 * Headers of an anonymous catalogue page. Browsers may keep it but must ask again before using it (`no-cache`):
 * after adding to the cart the same URL must show the visitor's own count. `Vary: Cookie` tells any shared cache in
 * between that a request with a cookie is a different answer.
 */
function anonymousPageHeaders(csp: string, state: "hit" | "miss", from?: Headers): Headers {
  const headers = new Headers(from);
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("content-security-policy", csp);
  headers.set("x-frame-options", "DENY");
  headers.set("cache-control", "no-cache");
  headers.set("vary", "Cookie");
  headers.set("x-page-cache", state);
  return headers;
}

/** The cached variant's CSP: the page CSP with each inline script's SHA-256 hash in place of a nonce. */
export async function hashCsp(html: Uint8Array<ArrayBuffer>): Promise<string> {
  // Digested side by side, not one await after another (a page with streamed parts has a dozen scripts).
  const digests = await Promise.all(inlineScripts(html).map((body) => crypto.subtle.digest("SHA-256", body)));
  const hashes = new Set(digests.map((digest) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`));
  return [
    `script-src ${[...hashes].join(" ")} 'strict-dynamic'`.replace(/\s+/g, " "),
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
}

const SCRIPT_OPEN = utf8.encode("<script");
const SCRIPT_CLOSE = utf8.encode("</script>");
const HTML_CLOSE = utf8.encode("</html>");

/**
 * The bodies of the page's inline scripts (those without `src`), as the bytes the browser hashes. React and React
 * Router write their tags in lower case; a tag written otherwise would be left out of the CSP, so it would be
 * blocked, never allowed.
 */
export function inlineScripts(html: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer>[] {
  const bodies: Uint8Array<ArrayBuffer>[] = [];
  for (let at = indexOfBytes(html, SCRIPT_OPEN, 0); at >= 0; at = indexOfBytes(html, SCRIPT_OPEN, at + 1)) {
    const next = html[at + SCRIPT_OPEN.length];
    if (next !== 0x3e /* > */ && next !== 0x20 /* space */) continue; // <scripts…>, not a script tag
    const tagEnd = html.indexOf(0x3e, at);
    const close = tagEnd < 0 ? -1 : indexOfBytes(html, SCRIPT_CLOSE, tagEnd);
    if (close < 0) break;
    const attributes = utf8Decoder.decode(html.subarray(at + SCRIPT_OPEN.length, tagEnd));
    if (!/\bsrc\s*=/i.test(attributes)) bodies.push(html.subarray(tagEnd + 1, close));
    at = close;
  }
  return bodies;
}

/** Whether the page ends with </html> (and perhaps white space): a render cut short does not. */
function endsWithHtmlClose(html: Uint8Array): boolean {
  let end = html.length;
  while (end > 0 && (html[end - 1] === 0x20 || html[end - 1] === 0x0a || html[end - 1] === 0x0d || html[end - 1] === 0x09)) end--;
  return end >= HTML_CLOSE.length && indexOfBytes(html, HTML_CLOSE, end - HTML_CLOSE.length) === end - HTML_CLOSE.length;
}

/**
 * Where `needle` first occurs in `hay` at or after `from`, or -1: what the page cache looks for is ASCII, so it is found
 * in the bytes without decoding the page (the native indexOf finds each first byte).
 */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number): number {
  for (let i = hay.indexOf(needle[0], from); i >= 0 && i <= hay.length - needle.length; i = hay.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
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
  const version = String(Date.now());
  await env.SESSIONS.put(VERSION_KEY, version);
  versionMemo = { version, until: Date.now() + VERSION_MEMO_MS };
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
