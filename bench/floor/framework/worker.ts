// The framework-mode floor (bench/floor/start.mjs builds and starts it): a bare React Router app in framework mode,
// as the shop is (route manifest, turbo-stream hydration data, <Meta>, <Links>, <Scripts>).
//
// - PUT /page/:name?bytes=N prepares a page of exactly N bytes (product cards, then ASCII padding); answers
//   { bytes, cards }.
// - GET /page/:name renders it; an unknown path (GET /json/none, which start.mjs waits for) answers 404.
// - GET /kept/page/:name is the same page through the edge cache, as the shop stores its anonymous pages: a Cache API
//   lookup, and on a miss the render stored after the response. Under wrangler dev those lookups cost CPU time that
//   in production is I/O, so the bench prints this variant to show that share.
import { createRequestHandler } from "react-router";
import * as build from "virtual:react-router/server-build";
import { pages, type Item } from "./app/pages";

// Made once: given a function instead, React Router rebuilds its route table on every request.
const handle = createRequestHandler(build, import.meta.env.MODE);

const item = (i: number): Item => ({
  id: `p${i}`,
  name: `Product ${i + 1}`,
  href: `/products/product-${i + 1}`,
  price: `$${(10 + i * 1.5).toFixed(2)}`,
  image: `/media/${"0".repeat(60)}${String(i).padStart(4, "0")}.webp`,
});

async function prepare(url: URL, name: string): Promise<Response> {
  const target = Number(url.searchParams.get("bytes"));
  const probe = new URL(`/page/${encodeURIComponent(name)}`, url);
  const size = async (items: Item[], padding: string) => {
    pages.set(name, { items, padding });
    return (await (await handle(new Request(probe))).arrayBuffer()).byteLength;
  };
  // An estimate from the size of an empty page and of two cards, then a card more or less until the most that fit:
  // cards grow a little as their numbers do, and the first one also brings the hydration data its keys.
  const empty = await size([], "");
  const perCard = ((await size([item(0), item(1)], "")) - empty) / 2;
  const items = Array.from({ length: Math.max(0, Math.floor((target - empty) / perCard)) }, (_, i) => item(i));
  let unpadded = await size(items, "");
  while (unpadded > target && items.length > 0) {
    items.pop();
    unpadded = await size(items, "");
  }
  for (;;) {
    const more = await size([...items, item(items.length)], "");
    if (more > target) break;
    items.push(item(items.length));
    unpadded = more;
  }
  const bytes = await size(items, "x".repeat(Math.max(0, target - unpadded)));
  return Response.json({ bytes, cards: items.length });
}

/** The Workers Cache API's default cache (TypeScript's DOM lib types `caches` without it). */
const edgeCache = () => (caches as unknown as { default: Cache }).default;

async function kept(request: Request, url: URL, ctx: { waitUntil(promise: Promise<unknown>): void }): Promise<Response> {
  const key = new Request(url.href);
  const hit = await edgeCache().match(key);
  if (hit) return hit;
  const page = new URL(url);
  page.pathname = page.pathname.slice("/kept".length);
  const res = await handle(new Request(page, request));
  if (res.status !== 200 || !res.body) return res;
  const bytes = await res.arrayBuffer();
  ctx.waitUntil(
    edgeCache().put(key, new Response(bytes, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=300" } })),
  );
  return new Response(bytes, res);
}

export default {
  fetch(request: Request, _env: unknown, ctx: { waitUntil(promise: Promise<unknown>): void }): Promise<Response> {
    const url = new URL(request.url);
    const name = /^\/page\/([^/]+)$/.exec(url.pathname)?.[1];
    if (request.method === "PUT" && name !== undefined) return prepare(url, decodeURIComponent(name));
    if (request.method === "GET" && url.pathname.startsWith("/kept/page/")) return kept(request, url, ctx);
    return handle(request);
  },
};
