import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { isbot } from "isbot";
import { createRequestHandler } from "react-router";
import { isConsolePath, resolveConsoleSession } from "../web/console.server";
import { resolvePageSession, withSessionCookie, type PageSession } from "../web/session.server";
import { currentCartRoutes } from "./cart/routes";
import { pricingRoutes } from "./cart/pricing-routes";
import { catalogRead, catalogV3, catalogWrite, collectionsV2 } from "./catalog/routes";
import { inventoryRoutes } from "./orders/inventory-routes";
import { orderRoutes } from "./orders/routes";
import { loadDemoCatalogue } from "./catalog/demo/load";
import { resolveAuth } from "./identity/api-keys";
import { authenticationRoutes } from "./identity/routes/authentication";
import { oauthRoutes } from "./identity/routes/oauth";
import { recoveryRoutes } from "./identity/routes/recovery";
import { redirectsRoutes } from "./identity/routes/redirects";
import { sessionEndRoutes } from "./identity/routes/session-end";
import { staffRoutes } from "./identity/routes/staff";
import { verificationRoutes } from "./identity/routes/verification";
import { automationRoutes } from "./automations/routes";
import { taskRoutes } from "./automations/task-routes";
import { eventRoutes } from "./events/routes";
import { incomingWebhookRoutes, webhookAdminRoutes } from "./events/webhooks/routes";
import { storeCurrency, type Ctx } from "./platform/context";
import { openDb, type RoundTrips } from "./platform/db";
import { ApiError, errorBody, systemErrorBody } from "./platform/errors";
import type { AppEnv } from "./platform/http";
import { armSweeper } from "./events/sweeper";

// Whether this isolate has made sure the sweeper is ticking (an optimisation only: arming is idempotent).
let sweeperChecked = false;

/** Path prefixes the API owns; everything else is a page (DESIGN.md §5). */
const API_PREFIXES = ["/v1/", "/v2/", "/v3/", "/ecom/", "/stores/", "/stores-reader/", "/_api/", "/oauth2/", "/webhooks/", "/api/", "/back-in-stock-service/"];

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((p) => path.startsWith(p) || path === p.slice(0, -1));
}

const handleSsr = createRequestHandler(() => import("virtual:react-router/server-build"), import.meta.env?.MODE);

export const app = new Hono<AppEnv>();

// Request id, round-trip count and baseline headers on every response, API or page.
app.use("*", async (c, next) => {
  const requestId = crypto.randomUUID();
  const trips: RoundTrips = { count: 0, ms: 0 };
  c.set("requestId", requestId);
  c.set("trips", trips);
  await next();
  let res = c.res;
  try {
    res.headers.set("x-wix-request-id", requestId);
  } catch {
    // Immutable headers (e.g. a fetched response): copy once.
    res = new Response(res.body, res);
    res.headers.set("x-wix-request-id", requestId);
  }
  res.headers.set("server-timing", `d1;dur=${trips.ms};desc="${trips.count} round trips"`);
  res.headers.set("x-content-type-options", "nosniff");
  res.headers.set("referrer-policy", "strict-origin-when-cross-origin");
  c.res = res;
});

// The service context: one D1 handle (counted) and the caller, resolved once per request.
app.use("*", async (c, next) => {
  const db = openDb(c.env.DB, c.get("trips"));
  const url = new URL(c.req.url);
  const auth = isApiPath(url.pathname) ? await resolveAuth(c.env, db, c.req.header("authorization")) : ({ kind: "anonymous" } as const);
  const executionCtx = c.executionCtx as ExecutionContext;
  const ctx: Ctx = {
    db,
    env: c.env,
    auth,
    currency: storeCurrency(c.env),
    origin: url.origin,
    waitUntil: (p) => executionCtx.waitUntil(p.catch((err) => console.error("background task failed", err))),
  };
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

// Catalogue: spec paths and the Wix SDK's gateway paths, same handlers.
for (const base of ["/v1", "/stores-reader/v1"]) app.route(base, catalogRead);
for (const base of ["/v1", "/stores/v1"]) app.route(base, catalogWrite);
for (const base of ["/v3", "/stores/v3", "/stores-reader/v3"]) app.route(base, catalogV3);
app.route("/v2/collections", collectionsV2);

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
// from the session cookie (renewed, or a new visitor's, as needed; bots get none).
app.all("*", async (c) => {
  const ctx = c.get("ctx");
  // Form posts must come from the shop's own pages (a cross-site POST could log a shopper into someone else's account).
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    if ((origin && origin !== new URL(c.req.url).origin) || (site && site !== "same-origin" && site !== "none")) {
      return c.text("Cross-site form posts are refused.", 403);
    }
  }
  // React Router's route discovery (/__manifest) needs no caller: it never reads or writes the session, so one still
  // in flight when the shopper logs in cannot answer with a stale cookie.
  // The merchant console has its own cookie and never touches the shopper's session (web/console.server.ts).
  const consoleSession = isConsolePath(c.req.path) ? await resolveConsoleSession(c.env, ctx.db, c.req.raw) : null;
  const session =
    c.req.path === "/__manifest"
      ? noSession
      : consoleSession
        ? { ...noSession, auth: consoleSession.auth }
        : await resolvePageSession(c.env, ctx.db, c.req.raw, { mint: !isbot(c.req.header("user-agent") ?? "") });
  ctx.auth = session.auth;
  const cspNonce = newCspNonce();
  const res = await handleSsr(c.req.raw, {
    cloudflare: { env: c.env, ctx: c.executionCtx as ExecutionContext },
    services: ctx,
    cspNonce,
    consoleEmail: consoleSession?.email ?? null,
  });
  res.headers.set("content-security-policy", pageCsp(cspNonce));
  res.headers.set("x-frame-options", "DENY");
  return withSessionCookie(res, session);
});

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
