import { Hono } from "hono";
import { clearSession, readSessionCookie } from "../page-session";
import type { AppContext, AppEnv } from "#worker/platform/http";
import { continueAuthorization, endLogoutSession, logoutCaller, postLogoutTarget, revokeRefreshToken, type AuthorizeOutcome } from "../oauth";

/**
 * This request's path and query without the session token (where the login page sends the browser back to), keeping
 * only the parameters the endpoint reads (`reads`, the first value of each, as it reads them): padding in the URL never
 * makes the login redirect long.
 */
export function returnToWithoutSession(requestUrl: string, reads: readonly string[]): string {
  const url = new URL(requestUrl);
  const kept = new URLSearchParams();
  for (const [name, value] of url.searchParams) if (reads.includes(name) && !kept.has(name)) kept.set(name, value);
  url.search = kept.toString();
  return url.pathname + url.search;
}

/** JSON for an inline script: no `</script>` or line separators can break out of it. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** An exact web origin: what a postMessage target and a frame-ancestors source may be (never "*", no path). */
const EXACT_ORIGIN = /^https?:\/\/[^\s/;,*'"]+$/;

/**
 * Answers an authorization step: a 302 for query and fragment modes (and the login page), or for web_message a page
 * that posts `{code, state}` (or `{error, state}`) to the window that framed or opened it, as the SDK's hidden-iframe
 * login waits for, addressed only to the registered origins the outcome names, and frameable only by them.
 * Cross-Origin-Opener-Policy cuts the tie to any page that opened this one in a popup.
 */
export function sendAuthorizeOutcome(c: AppContext, outcome: AuthorizeOutcome): Response {
  c.header("cache-control", "no-store");
  c.header("cross-origin-opener-policy", "same-origin");
  if (outcome.kind === "redirect") return c.redirect(outcome.location, 302);
  const origins = outcome.targetOrigins;
  if (!origins.length || !origins.every((o) => EXACT_ORIGIN.test(o)))
    throw new Error(`web_message targets must be exact origins: ${JSON.stringify(origins)}`);
  const nonce = crypto.randomUUID().replace(/-/g, "");
  const script =
    `(function(){var m=${scriptJson(outcome.message)},os=${scriptJson(origins)};` +
    "function send(w){for(var i=0;i<os.length;i++){try{w.postMessage(m,os[i])}catch(e){}}}" +
    "try{if(window.parent&&window.parent!==window)send(window.parent)}catch(e){}" +
    "try{if(window.opener)send(window.opener)}catch(e){}})();";
  c.header("content-security-policy", `default-src 'none'; script-src 'nonce-${nonce}'; frame-ancestors ${origins.join(" ")}`);
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Signing in</title></head>` +
      `<body><script nonce="${nonce}">${script}</script></body></html>`,
  );
}

/** Whether a logout request comes from a browser (follow a redirect) rather than an API client (JSON). */
function fromBrowser(c: AppContext): boolean {
  if (c.req.query("logoutSession")) return true;
  if (!(c.req.header("authorization") ?? "").trim()) return true;
  return (c.req.header("accept") ?? "").includes("text/html");
}

/** The end of the login and logout flows: /v1/callback and /v1/logout (also under /_api/iam/authentication). */
export const sessionEndRoutes = new Hono<AppEnv>()
  .get("/v1/callback", async (c) => {
    const outcome = await continueAuthorization(
      c.get("ctx"),
      c.req.query("state"),
      c.req.query("sessionToken"),
      returnToWithoutSession(c.req.url, ["state"]),
    );
    return sendAuthorizeOutcome(c, outcome);
  })
  .get("/v1/logout", async (c) => {
    const ctx = c.get("ctx");
    const authorization = c.req.header("authorization");
    await logoutCaller(ctx, authorization);
    const key = c.req.query("logoutSession");
    const session = key ? await endLogoutSession(ctx, key) : null;
    if (!fromBrowser(c)) return c.json({});
    const target = session
      ? await postLogoutTarget(ctx, session.clientId, session.postFlowUrl)
      : await postLogoutTarget(ctx, c.req.query("clientId"), c.req.query("postLogoutRedirectUri"));
    // A browser is also logged out of the store's own pages: the session cookie's tokens end and the cookie goes.
    const cookie = readSessionCookie(c.req.raw);
    if (cookie) {
      await revokeRefreshToken(ctx, cookie.refreshToken);
      c.header("set-cookie", clearSession());
    }
    c.header("cache-control", "no-store");
    return c.redirect(target, 302);
  });
