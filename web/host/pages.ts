import type { Context } from "hono";
import { isbot } from "isbot";
import { createRequestHandler, type RequestHandler } from "react-router";
import { decodablePath } from "#worker/app";
import { cachedPage, keepPage, pageCacheKey } from "#worker/catalog";
import { MAX_UPLOAD_FORM_BYTES } from "#worker/media";
import { BodyTooLarge, readBytes } from "#worker/platform/body";
import type { AppEnv } from "#worker/platform/http";
import { isConsolePath, resolveConsoleSession } from "#web/console.server";
import { consoleUpload, isConsoleUpload } from "./console-upload";
import { resolvePageSession, SESSION_COOKIE, withSessionCookie, type PageSession } from "#web/session.server";

/**
 * The page host: what the Worker entry hands every path the API does not own. It runs after the API host's
 * middleware (request id, baseline headers, the service context), so a page gets the same context as an API call.
 */

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

/**
 * Every path the API does not own is a page: React Router with streamed SSR, given the same service context, whose
 * caller comes from the session cookie (renewed, or a new visitor's when an action needs one).
 */
export async function servePage(c: Context<AppEnv>): Promise<Response> {
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
  if (isConsoleUpload(c.req.method, c.req.path)) return consoleUpload(c);
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
}

/**
 * Whether a page request without a session starts one. Browsing (every GET: home, listings, search, product pages,
 * even an empty cart or the login form) writes nothing — no token in KV, no row in D1, no Set-Cookie — so a visit
 * from a search result or a shared link costs only reads, and such pages can be cached. The session starts
 * on the first action that needs one: a form post (add to cart, log in, register, back-in-stock sign-up, checkout),
 * or following a cart-recovery link from an email, which restores a cart into the visitor's session. A post starts
 * one whatever the user agent (headless and assistive browsers are classed as bots, and their users still shop); only
 * a recovery link followed by a bot (a link preview) starts none.
 */
export function startsSession(method: string, path: string, userAgent: string | undefined): boolean {
  if (method !== "GET" && method !== "HEAD") return true;
  return path.startsWith("/cart/recover/") && !isbot(userAgent ?? "");
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
