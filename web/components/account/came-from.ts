import { safeReturnTo } from "#web/auth.server";

const AUTH_PAGES = ["/login", "/register", "/verify", "/forgot-password", "/reset-password", "/logout"];

/**
 * The shop page a shopper followed a "Log in" or "Create account" link from (the Referer, when it is this site and
 * not another login page), so signing in takes them back there. Null otherwise: they go home.
 */
export function cameFrom(request: Request): string | null {
  const referer = request.headers.get("referer");
  if (!referer) return null;
  try {
    const from = new URL(referer);
    if (from.origin !== new URL(request.url).origin || AUTH_PAGES.includes(from.pathname)) return null;
    return safeReturnTo(from.pathname + from.search);
  } catch {
    return null;
  }
}
