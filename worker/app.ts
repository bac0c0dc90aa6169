import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { isbot } from "isbot";
import { createRequestHandler, type RequestHandler } from "react-router";
import { isConsolePath, resolveConsoleSession } from "../web/console.server";
import { resolvePageSession, SESSION_COOKIE, withSessionCookie, type PageSession } from "../web/session.server";
import { currentCartRoutes } from "./cart/routes";
import { pricingRoutes } from "#worker/pricing";
import { catalogRead, catalogV3, catalogWrite, collectionsV2 } from "./catalog/routes";
import { inventoryRoutes } from "./catalog/inventory-routes";
import { orderRoutes } from "./orders/routes";
import { loadDemoCatalogue } from "./app/demo";
import { mediaApi, mediaFiles } from "./media/routes";
import { MAX_UPLOAD_FORM_BYTES } from "./media/store";
import { resolveAuth } from "./identity/api-keys";
import { authenticationRoutes } from "./identity/routes/authentication";
import { oauthRoutes } from "./identity/routes/oauth";
import { recoveryRoutes } from "./identity/routes/recovery";
import { redirectsRoutes } from "./identity/routes/redirects";
import { sessionEndRoutes } from "./identity/routes/session-end";
import { staffRoutes } from "./identity/routes/staff";
import { verificationRoutes } from "./identity/routes/verification";
import { automationRoutes } from "./automations/routes";
import { storeRoutes } from "./store/routes";
import { taskRoutes } from "./automations/task-routes";
import { eventRoutes } from "./events/routes";
import { incomingWebhookRoutes, webhookAdminRoutes } from "./events/webhooks/routes";
import { isMerchant, storeCurrency, type Ctx } from "./platform/context";
import { cachedPage, keepPage, pageCacheKey, purgeCatalogCache } from "./catalog/cache";
import { countingKv, countingQueue, openDb, type Db, type RoundTrips } from "./platform/db";
import { BodyTooLarge, finishBody, readBytes } from "./platform/body";
import { ApiError, badField, errorBody, systemErrorBody } from "./platform/errors";
import type { AppEnv } from "./platform/http";
import { armSweeper } from "./events/sweeper";
import { mergeVisitorCart } from "./cart/merge";
import { onSignIn } from "./identity/sign-in";

// A visitor who signs in as a member keeps their cart.
onSignIn(mergeVisitorCart);

// Whether this isolate has made sure the sweeper is ticking (an optimisation only: arming is idempotent).
let sweeperChecked = false;

/** Path prefixes the API owns; everything else is a page (DESIGN.md §5). */
const API_PREFIXES = ["/v1/", "/v2/", "/v3/", "/ecom/", "/stores/", "/stores-reader/", "/_api/", "/oauth2/", "/webhooks/", "/api/", "/back-in-stock-service/"];

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((p) => path.startsWith(p) || path === p.slice(0, -1));
}

/**
 * React Router's page handler. Given a function, React Router re-derives the whole route table (flattening and ranking
 * every route, a new static handler) on every request, which the dev server needs to pick up edits; a production build
 * never changes, so it is loaded once per isolate (lazily: API requests never load the pages' code).
 */
const handleSsr: RequestHandler = import.meta.env?.DEV
  ? createRequestHandler(() => import("virtual:react-router/server-build"), import.meta.env?.MODE)
  : (() => {
      let handler: Promise<RequestHandler> | undefined;
      return (request, context) => {
        handler ??= import("virtual:react-router/server-build").then((build) => createRequestHandler(build, import.meta.env?.MODE));
        return handler.then((handle) => handle(request, context));
      };
    })();

/** The build's id (React Router's manifest version): what the page cache keys by, with the catalogue's version. */
const buildVersion = (): Promise<string> => import("virtual:react-router/server-build").then((build) => build.assets.version);

export const app = new Hono<AppEnv>();

// Request id, round-trip count and baseline headers on every response, API or page.
app.use("*", async (c, next) => {
  const requestId = crypto.randomUUID();
  const trips: RoundTrips = { count: 0, ms: 0 };
  c.set("requestId", requestId);
  c.set("trips", trips);
  // Every service reaches KV and the queue through c.env, so their calls are counted for the Server-Timing header.
  c.env = { ...c.env, SESSIONS: countingKv(c.env.SESSIONS, trips), EVENTS: countingQueue(c.env.EVENTS, trips) };
  // A path whose percent-encoding is broken (`/products/%E0%A4%A`) names nothing: the API says so in its error
  // shape; a page renders as not found (pageRequest).
  if (isApiPath(c.req.path) && !decodablePath(new URL(c.req.url).pathname)) {
    c.res = c.json(errorBody(badField("path", "is not valid percent-encoded UTF-8", "FORMAT"), requestId), 400);
  } else {
    await next();
  }
  // A merchant's (or a signed webhook's) write may change what shoppers see: purge the shoppers' catalogue cache at
  // once, so the merchant's next anonymous read, page or API, already shows it (the queue's catalog-cache processor
  // purges too, for every other change; a KV write refused at one a second is left to it).
  const writer = c.get("ctx")?.auth;
  if (c.req.method !== "GET" && c.req.method !== "HEAD" && (trips.rowsWritten ?? 0) > 0 && ((writer && isMerchant(writer)) || c.req.path.startsWith("/webhooks/"))) {
    await purgeCatalogCache(c.env, new Date().toISOString()).catch((err) => console.error("catalogue cache purge failed; the queue will purge", err));
  }
  // Whatever the answer, the request's body is read to its end first (platform/body.ts says why).
  await finishBody(c.req.raw);
  let res = c.res;
  try {
    res.headers.set("x-wix-request-id", requestId);
  } catch {
    // Immutable headers (e.g. a fetched response): copy once.
    res = new Response(res.body, res);
    res.headers.set("x-wix-request-id", requestId);
  }
  res.headers.set(
    "server-timing",
    `d1;dur=${trips.ms};desc="${trips.count} round trips", d1-writes;desc="${trips.rowsWritten ?? 0} rows written", kv-writes;desc="${trips.kvWrites ?? 0} KV writes", kv-reads;desc="${trips.kvReads ?? 0} KV reads", d1-reads;desc="${trips.rowsRead ?? 0} rows read", queue;desc="${trips.queueSends ?? 0} messages"`,
  );
  carryD1Bookmark(c.req.raw, res, c.get("d1"), (trips.rowsWritten ?? 0) > 0);
  res.headers.set("x-content-type-options", "nosniff");
  res.headers.set("referrer-policy", "strict-origin-when-cross-origin");
  // Over https, browsers are told to keep to https (a header sent over plain http would be ignored anyway).
  if (new URL(c.req.url).protocol === "https:") res.headers.set("strict-transport-security", "max-age=31536000; includeSubDomains");
  // A page gets its own browsing context group: a site that opened it in a popup cannot script or message it.
  if (!isApiPath(c.req.path)) res.headers.set("cross-origin-opener-policy", "same-origin");
  // Hono's setter copies the response and merges headers: only needed when the headers were immutable above.
  if (res !== c.res) c.res = res;
});

// The service context: one D1 handle (counted) and the caller, resolved once per request.
app.use("*", async (c, next) => {
  // D1 read replication (Sessions API): a shopper's reads may go to the nearest replica, yet never behind the
  // shopper's own last write, whose bookmark they bring back (d1BookmarkOf). A write without a bookmark starts on
  // the primary. Locally there is only the primary, so this behaves exactly as a plain D1 handle.
  const bookmark = d1BookmarkOf(c.req.raw);
  const writing = c.req.method !== "GET" && c.req.method !== "HEAD";
  const d1 = c.env.DB.withSession(bookmark ?? (writing ? "first-primary" : "first-unconstrained"));
  c.set("d1", d1);
  const url = new URL(c.req.url);
  const executionCtx = c.executionCtx as ExecutionContext;
  // Opened on first use: a read answered from the cache never needs it.
  let db: Db | undefined;
  const ctx: Ctx = {
    get db() {
      return (db ??= openDb(d1 as unknown as D1Database, c.get("trips")));
    },
    env: c.env,
    auth: { kind: "anonymous" },
    currency: storeCurrency(c.env),
    origin: url.origin,
    waitUntil: (p) => executionCtx.waitUntil(p.catch((err) => console.error("background task failed", err))),
  };
  const authorization = c.req.header("authorization");
  if (authorization && isApiPath(url.pathname)) ctx.auth = await resolveAuth(c.env, ctx.db, authorization);
  c.set("ctx", ctx);
  if (!sweeperChecked) {
    sweeperChecked = true;
    ctx.waitUntil(armSweeper(c.env));
  }
  await next();
});

app.onError((err, c) => {
  const requestId = c.get("requestId") ?? crypto.randomUUID();
  if (err instanceof ApiError) return c.json(errorBody(err, requestId), err.status, err.headers);
  if (err instanceof HTTPException) {
    const wrapped = new ApiError(err.status as 400, err.status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", err.message || "Bad request");
    return c.json(errorBody(wrapped, requestId), err.status as 400);
  }
  console.error(`request ${requestId} failed:`, err);
  return c.json(systemErrorBody(requestId), 500);
});

// A bare JSON route: the benchmark's baseline, and a liveness check for deployments.
app.get("/api/health", (c) => c.json({ ok: true }));

// Merchant extension: load the demo catalogue into an empty store (npm start calls it with the owner key).
app.post("/api/v1/demo-catalogue", async (c) => c.json(await loadDemoCatalogue(c.get("ctx"))));

// Identity: tokens, redirect sessions, authentication, recovery, verification (spec paths and gateway paths).
app.route("/oauth2", oauthRoutes);
for (const base of ["/v1", "/_api/redirects-api/v1"]) app.route(base, redirectsRoutes);
for (const base of ["/", "/_api/iam/authentication"]) {
  app.route(base, authenticationRoutes);
  app.route(base, sessionEndRoutes);
}
for (const base of ["/v1", "/_api/iam/recovery/v1"]) app.route(base, recoveryRoutes);
for (const base of ["/v1", "/_api/iam/verification/v1"]) app.route(base, verificationRoutes);
// Merchant extensions: staff, API keys, member approval.
app.route("/api/v1", staffRoutes);
// The store's settings: name, logo, checkout header, email sender.
app.route("/api/v1", storeRoutes);

// Catalogue: spec paths and the Wix SDK's gateway paths, same handlers.
for (const base of ["/v1", "/stores-reader/v1"]) app.route(base, catalogRead);
for (const base of ["/v1", "/stores/v1"]) app.route(base, catalogWrite);
for (const base of ["/v3", "/stores/v3", "/stores-reader/v3"]) app.route(base, catalogV3);
app.route("/v2/collections", collectionsV2);
// Product media: uploaded images served from R2 (immutable, content-hashed names), and the API clients' upload.
app.route("/media", mediaFiles);
app.route("/api", mediaApi);

// Cart, pricing configuration and inventory.
for (const base of ["/v1/carts/current", "/ecom/v1/carts/current"]) app.route(base, currentCartRoutes);
app.route("/", pricingRoutes);
app.route("/", inventoryRoutes);
for (const base of ["/v1", "/ecom/v1"]) app.route(base, orderRoutes);

// Events: incoming webhooks, outgoing webhook subscriptions, failed events, merchant tasks, and the automations'
// calls (abandoned checkouts, back-in-stock requests).
app.route("/webhooks", incomingWebhookRoutes);
app.route("/api/v1", webhookAdminRoutes);
app.route("/api/v1", eventRoutes);
app.route("/api/v1", taskRoutes);
app.route("/", automationRoutes);

// An API path nobody serves: a 404 in the error shape, not a page.
app.all("*", async (c, next) => {
  if (!isApiPath(c.req.path)) return next();
  throw new ApiError(404, "NOT_FOUND", `No API call at ${c.req.method} ${c.req.path}`, { message: "Not found" });
});

// Everything else is a page: React Router with streamed SSR, given the same service context, whose caller comes
// from the session cookie (renewed, or a new visitor's when an action needs one).
app.all("*", async (c) => {
  // React Router's route discovery. The shop sends every route with the first page (react-router.config.ts,
  // routeDiscovery "initial"), so only a page of an earlier build asks: "reload the document" (what React Router
  // itself answers when the build changed) has it load the current one. It reads no session and sets no cookie.
  if (c.req.path === "/__manifest") return new Response(null, { status: 204, headers: { "X-Remix-Reload-Document": "true" } });
  const ctx = c.get("ctx");
  // Form posts must come from the shop's own pages (a cross-site POST could log a shopper into someone else's account).
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    if ((origin && origin !== new URL(c.req.url).origin) || (site && site !== "same-origin" && site !== "none")) {
      return c.text("Cross-site form posts are refused.", 403);
    }
  }
  let request = await pageRequest(c.req.raw);
  if (request instanceof Response) return request;
  // A catalogue page for a visitor without a session comes from the edge cache when it can (worker/catalog/cache.ts).
  const bot = isbot(c.req.header("user-agent") ?? "");
  const cacheable = await pageCacheKey(c.env, c.req.raw, SESSION_COOKIE, bot, await buildVersion());
  const pageKey = cacheable?.key ?? null;
  if (cacheable) {
    const hit = await cachedPage(cacheable.key);
    if (hit) return hit;
    const url = new URL(request.url);
    if (url.search !== cacheable.search) {
      url.search = cacheable.search;
      request = new Request(url, request);
    }
  }
  // The merchant console has its own cookie and never touches the shopper's session (web/console.server.ts).
  const consoleSession = isConsolePath(c.req.path) ? await resolveConsoleSession(c.env, ctx.db, c.req.raw) : null;
  const session = consoleSession
    ? { ...noSession, auth: consoleSession.auth }
    : await resolvePageSession(c.env, ctx.db, c.req.raw, { mint: startsSession(c.req.method, c.req.path, c.req.header("user-agent")) });
  ctx.auth = session.auth;
  const cspNonce = newCspNonce();
  const res = await handleSsr(request, {
    cloudflare: { env: c.env, ctx: c.executionCtx as ExecutionContext },
    services: ctx,
    cspNonce,
    consoleEmail: consoleSession?.email ?? null,
    wholePage: pageKey !== null,
  });
  res.headers.set("content-security-policy", pageCsp(cspNonce));
  res.headers.set("x-frame-options", "DENY");
  if (pageKey && !session.setCookie && session.auth.kind === "anonymous") return await keepPage(ctx, pageKey, res, pageCsp(cspNonce));
  return withSessionCookie(res, session);
});

/**
 * Whether a page request without a session starts one. Browsing (every GET: home, listings, search, product pages,
 * even an empty cart or the login form) writes nothing — no token in KV, no row in D1, no Set-Cookie — so a visit
 * from a search result or a shared link costs only reads, and such pages can be cached (issue 15). The session starts
 * on the first action that needs one: a form post (add to cart, log in, register, back-in-stock sign-up, checkout),
 * or following a cart-recovery link from an email, which restores a cart into the visitor's session. A post starts
 * one whatever the user agent (headless and assistive browsers are classed as bots, and their users still shop); only
 * a recovery link followed by a bot (a link preview) starts none.
 */
export function startsSession(method: string, path: string, userAgent: string | undefined): boolean {
  if (method !== "GET" && method !== "HEAD") return true;
  return path.startsWith("/cart/recover/") && !isbot(userAgent ?? "");
}

/** The cookie a browser carries its last write's D1 bookmark in, and the header API clients use for it. */
const D1_BOOKMARK_COOKIE = "__Host-d1";
const D1_BOOKMARK_HEADER = "x-d1-bookmark";
const BOOKMARK = /^[A-Za-z0-9_-]{1,200}$/;

/** The D1 bookmark a request brings (an API client's header, else a browser's cookie), or null; malformed ones are ignored. */
function d1BookmarkOf(request: Request): string | null {
  const header = request.headers.get(D1_BOOKMARK_HEADER)?.trim();
  if (header && BOOKMARK.test(header)) return header;
  for (const pair of (request.headers.get("cookie") ?? "").split(";")) {
    const eqAt = pair.indexOf("=");
    if (eqAt > 0 && pair.slice(0, eqAt).trim() === D1_BOOKMARK_COOKIE) {
      const value = pair.slice(eqAt + 1).trim();
      if (BOOKMARK.test(value)) return value;
    }
  }
  return null;
}

/**
 * Hands the session's bookmark back: to API clients always (the `x-d1-bookmark` header, to send with their next
 * request), and to a browser only after a request that wrote (a cookie, so its next page reads its own write even
 * from a replica). Browsing writes nothing, so it gets no cookie (and its pages stay cacheable).
 */
function carryD1Bookmark(request: Request, res: Response, d1: D1DatabaseSession | undefined, wrote: boolean) {
  const bookmark = d1?.getBookmark();
  if (!bookmark || !BOOKMARK.test(bookmark)) return;
  if (isApiPath(new URL(request.url).pathname)) {
    res.headers.set(D1_BOOKMARK_HEADER, bookmark);
  } else if (wrote) {
    res.headers.append("set-cookie", `${D1_BOOKMARK_COOKIE}=${bookmark}; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Lax`);
  }
}

/** Whether every percent-escape in the path decodes (to UTF-8). */
function decodablePath(pathname: string): boolean {
  try {
    decodeURI(pathname);
    return true;
  } catch {
    return false;
  }
}

/** The largest page form: a plain form, and a multipart one (a console media upload of up to 10 MB). */
const MAX_FORM_BYTES = 1_048_576;
const MAX_MULTIPART_BYTES = MAX_UPLOAD_FORM_BYTES;

/**
 * The request React Router gets, or the refusal it never sees. Page actions read `request.formData()`, so a body
 * that is not a form is refused here with 415 (not a FormData exception in an action), a form past its size limit
 * with 413 (read with a cap, never buffered whole), and a path with broken percent-encoding is passed on with its
 * `%` escaped, so the router looks it up literally and renders the not-found page.
 */
async function pageRequest(raw: Request): Promise<Request | Response> {
  const url = new URL(raw.url);
  let request = raw;
  if (!decodablePath(url.pathname)) {
    url.pathname = url.pathname.replace(/%/g, "%25");
    request = new Request(url, raw);
  }
  if (raw.method === "GET" || raw.method === "HEAD") return request;
  const type = (raw.headers.get("content-type") ?? "").trim();
  const multipart = /^multipart\/form-data\b/i.test(type);
  if (!multipart && !/^application\/x-www-form-urlencoded\b/i.test(type)) {
    // A post with no body and no type (a bare `curl -X POST /logout`) is an empty form.
    const empty = !type && (raw.headers.get("content-length") ?? "0") === "0" && !raw.headers.has("transfer-encoding");
    if (!empty) return pageRefusal(415, "Forms are sent as application/x-www-form-urlencoded or multipart/form-data.");
  }
  const limit = multipart ? MAX_MULTIPART_BYTES : MAX_FORM_BYTES;
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = await readBytes(raw, limit);
  } catch (err) {
    if (err instanceof BodyTooLarge) return pageRefusal(413, `This form is larger than the limit of ${limit / 1_048_576} MB.`);
    throw err;
  }
  const headers = new Headers(raw.headers);
  if (!type) headers.set("content-type", "application/x-www-form-urlencoded");
  const form = () => new Request(url, { method: raw.method, headers, body, signal: raw.signal });
  // A multipart body that does not parse (a wrong boundary, a truncated part) is the sender's mistake, not an
  // exception in the action: parse it once here (forms are small, and capped above).
  if (multipart) {
    try {
      await form().formData();
    } catch {
      return pageRefusal(400, "This form could not be read: the multipart body is malformed.");
    }
  }
  return form();
}

function pageRefusal(status: 400 | 413 | 415, message: string): Response {
  return new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
}

const noSession: PageSession = { auth: { kind: "anonymous" }, tokens: null, setCookie: null };

/** 128 random bits, base64: a page response's CSP nonce. */
function newCspNonce(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
}

/**
 * The pages' Content-Security-Policy: scripts run only with this response's nonce (and what those scripts load,
 * 'strict-dynamic'); no plugins; no <base> hijack; no framing; forms post only to this origin.
 */
function pageCsp(nonce: string): string {
  return [
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join("; ");
}
