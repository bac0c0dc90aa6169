import { Hono, type Context, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { mergeVisitorCart } from "#worker/cart";
import { currentCartRoutes } from "#worker/cart";
import { pricingRoutes } from "#worker/pricing";
import { catalogRead, catalogV3, catalogWrite, collectionsV2 } from "#worker/catalog";
import { inventoryRoutes } from "#worker/catalog";
import { orderRoutes } from "#worker/orders";
import { customerRoutes } from "#worker/customers";
import { reportRoutes } from "#worker/reports";
import { downloadFiles, downloadsApi } from "#worker/downloads";
import { loadDemoCatalogue } from "./demo";
import { demoPricingStatements } from "#worker/pricing";
import { mediaApi, mediaFiles } from "#worker/media";
import {
  onSignIn,
  resolveAuth,
  authenticationRoutes,
  clientRoutes,
  oauthRoutes,
  recoveryRoutes,
  redirectsRoutes,
  sessionEndRoutes,
  staffRoutes,
  verificationRoutes,
} from "#worker/identity";
import { automationRoutes } from "#worker/automations";
import { storeRoutes } from "#worker/store";
import { taskRoutes } from "#worker/tasks";
import { cmsRoutes, demoContentStatements } from "#worker/cms";
import { recommendationRoutes } from "#worker/recommendations";
import { eventRoutes } from "./event-routes";
import { incomingWebhookRoutes, webhookAdminRoutes } from "#worker/webhooks";
import { stripeWebhookRoutes } from "#worker/payments";
import { eventRegistry } from "./registry";
import { isMerchant, storeCurrency, type Ctx } from "#worker/platform/context";
import { purgeCatalogCache } from "#worker/catalog";
import { countingKv, countingQueue, openDb, type Db, type RoundTrips } from "#worker/platform/db";
import { finishBody } from "#worker/platform/body";
import { ApiError, badField, errorBody, systemErrorBody } from "#worker/platform/errors";
import type { AppEnv } from "#worker/platform/http";
import { armSweeper } from "./sweeper";
import { queueLag } from "#worker/events";
import { config } from "#worker/platform/config";
import { now as clockNow } from "#worker/platform/clock";

// A visitor who signs in as a member keeps their cart.
onSignIn(mergeVisitorCart);

// Whether this isolate has made sure the sweeper is ticking (an optimisation only: arming is idempotent).
let sweeperChecked = false;

/** Path prefixes the API owns; everything else is a page. */
const API_PREFIXES = [
  "/v1/",
  "/v2/",
  "/v3/",
  "/ecom/",
  "/stores/",
  "/stores-reader/",
  "/_api/",
  "/oauth2/",
  "/webhooks/",
  "/api/",
  "/back-in-stock-service/",
  "/wix-data/",
];

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((p) => path.startsWith(p) || path === p.slice(0, -1));
}

/** What serves every path the API does not own: the page host, joined by the Worker entry. */
export type PageHandler = (c: Context<AppEnv>) => Response | Promise<Response>;

/**
 * The API host: baseline headers, the service context, and every API route. A path the API does not own goes to
 * `pages` (the Worker entry hands in the page host); without it, Hono's plain not-found.
 */
export function apiHost(pages?: PageHandler): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use("*", baseline);
  app.use("*", serviceContext);

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

  // The uptime check: also how far behind the event queue is (one indexed read). Past the configured lag it answers
  // 503, so a monitor alerts when events stop being processed.
  app.get("/api/health", async (c) => {
    const lag = await queueLag(c.get("ctx").db, clockNow());
    const alertAfterSeconds = config(c.env).eventLagAlertSeconds;
    const ok = lag.oldestWaitingSeconds <= alertAfterSeconds;
    return c.json({ ok, events: { ...lag, alertAfterSeconds } }, ok ? 200 : 503);
  });

  // Merchant extension: load the demo catalogue into an empty store (npm start calls it with the owner key).
  // With a coupon and shipping options (delivery and pickup), so the demo's checkout has something to choose.
  app.post("/api/v1/demo-catalogue", async (c) =>
    c.json(await loadDemoCatalogue(c.get("ctx"), (ctx) => [...demoPricingStatements(ctx), ...demoContentStatements(ctx)])),
  );

  // Identity: tokens, redirect sessions, authentication, recovery, verification (Wix REST paths and gateway paths).
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
  // OAuth clients: headless sites' redirect URIs and their servers' visitor-token budgets.
  app.route("/api/v1", clientRoutes);
  // The store's settings: name, logo, checkout header, email sender.
  app.route("/api/v1", storeRoutes);

  // Catalogue: spec paths and the Wix SDK's gateway paths, same handlers.
  for (const base of ["/v1", "/stores-reader/v1"]) app.route(base, catalogRead);
  for (const base of ["/v1", "/stores/v1"]) app.route(base, catalogWrite);
  for (const base of ["/v3", "/stores/v3", "/stores-reader/v3"]) app.route(base, catalogV3);
  for (const base of ["/v2/collections", "/stores-reader/v2/collections"]) app.route(base, collectionsV2);
  // Product media: uploaded images served from R2 (immutable, content-hashed names), and the API clients' upload.
  app.route("/media", mediaFiles);
  app.route("/api", mediaApi);

  // Cart, pricing configuration and inventory.
  for (const base of ["/v1/carts/current", "/ecom/v1/carts/current"]) app.route(base, currentCartRoutes);
  app.route("/", pricingRoutes);
  app.route("/", inventoryRoutes);
  for (const base of ["/v1", "/ecom/v1"]) app.route(base, orderRoutes);
  app.route("/api/v1", customerRoutes);
  // The console's search across products, orders, customers and collections.
  app.route("/api/v1", reportRoutes);
  // Recommendations: products to suggest besides others (the Wix eCommerce Recommendations API).
  for (const base of ["/v1/recommendations", "/ecom/v1/recommendations"]) app.route(base, recommendationRoutes);
  // Digital products' files (merchant uploads) and buyers' downloads through signed links (private R2 bucket).
  app.route("/api/v1", downloadsApi);
  app.route("/downloads", downloadFiles);

  // Events: incoming webhooks, outgoing webhook subscriptions, failed events, merchant tasks, and the automations'
  // calls (abandoned checkouts, back-in-stock requests).
  // Stripe's endpoint first: its signature scheme is its own, not a configured webhook source.
  app.route("/webhooks", stripeWebhookRoutes);
  app.route("/webhooks", incomingWebhookRoutes(eventRegistry));
  app.route("/api/v1", webhookAdminRoutes(eventRegistry));
  app.route("/api/v1", eventRoutes);
  app.route("/api/v1", taskRoutes);
  app.route("/", automationRoutes);
  // The CMS: Wix Data items (menus and pages), at the Wix SDK's gateway path.
  app.route("/wix-data/v2", cmsRoutes);

  // An API path nobody serves: a 404 in the error shape, not a page.
  app.all("*", async (c, next) => {
    if (!isApiPath(c.req.path)) return next();
    throw new ApiError(404, "NOT_FOUND", `No API call at ${c.req.method} ${c.req.path}`, { message: "Not found" });
  });

  if (pages) app.all("*", pages);
  return app;
}

/** Request id, round-trip count and baseline headers on every response, API or page. */
const baseline: MiddlewareHandler<AppEnv> = async (c, next) => {
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
  if (
    c.req.method !== "GET" &&
    c.req.method !== "HEAD" &&
    (trips.rowsWritten ?? 0) > 0 &&
    ((writer && isMerchant(writer)) || c.req.path.startsWith("/webhooks/"))
  ) {
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
};

/** The service context: one D1 handle (counted) and the caller, resolved once per request. */
const serviceContext: MiddlewareHandler<AppEnv> = async (c, next) => {
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
};

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
export function decodablePath(pathname: string): boolean {
  try {
    decodeURI(pathname);
    return true;
  } catch {
    return false;
  }
}
