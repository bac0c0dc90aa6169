import { redirect, type AppLoadContext } from "react-router";
import { consoleSessionAuth, CONSOLE_SESSION_TTL_SECONDS } from "#worker/identity";
import { hasPermission, isMerchant, PERMISSIONS, type Auth, type Permission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { isConsolePath } from "#web/components/console/paths";
import { MAX_RETURN_PATH, signInPath } from "./auth.server";

/**
 * The merchant console's session and guards. The console has a cookie of its own (`__Host-console`), apart from the
 * shopper's session cookie, so an owner can test the shop as a shopper in the same browser without mixing the two.
 * The page host resolves it for every /console page and hands loaders the caller as
 * `context.services.auth`; the services themselves enforce roles and permissions, and the pages only
 * hide what the caller may not do.
 */

/** `__Host-`: this origin only, path /, Secure (browsers accept Secure cookies on http://localhost). */
export const CONSOLE_COOKIE = "__Host-console";

export { isConsolePath };

/** The console session token in a request's cookie, or null. */
export function readConsoleToken(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const pair of header.split(";")) {
    const eqAt = pair.indexOf("=");
    if (eqAt >= 0 && pair.slice(0, eqAt).trim() === CONSOLE_COOKIE) return pair.slice(eqAt + 1).trim() || null;
  }
  return null;
}

/** The caller of a console page: the signed-in owner or staff member (and their email), or anonymous. */
export async function resolveConsoleSession(env: Env, db: Db, request: Request): Promise<{ auth: Auth; email: string | null }> {
  const token = readConsoleToken(request);
  const session = token ? await consoleSessionAuth(env, db, token) : null;
  return session ?? { auth: { kind: "anonymous" }, email: null };
}

/** SameSite=Strict: no other site can make a merchant's browser send it, not even with a top-level link. */
export function consoleCookie(token: string): string {
  return `${CONSOLE_COOKIE}=${token}; Path=/; Max-Age=${CONSOLE_SESSION_TTL_SECONDS}; HttpOnly; Secure; SameSite=Strict`;
}

export function clearConsoleCookie(): string {
  return `${CONSOLE_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}

/** Who is signed in to the console, as the pages show it. */
export interface ConsoleUser {
  identityId: string;
  email: string;
  role: "OWNER" | "STAFF";
  permissions: Permission[];
}

/**
 * The first line of every console loader and action: the signed-in owner or staff member, or a redirect to the
 * console's sign-in page (which comes back here afterwards).
 */
export function requireStaff(context: AppLoadContext, request: Request): ConsoleUser {
  const auth = context.services.auth;
  if (auth.kind !== "member" || !isMerchant(auth)) {
    throw redirect(signInPath("/console/login", request));
  }
  return {
    identityId: auth.identityId,
    email: context.consoleEmail ?? "",
    role: auth.role === "OWNER" ? "OWNER" : "STAFF",
    permissions: PERMISSIONS.filter((p) => hasPermission(auth, p)),
  };
}

/** A safe place to return to after sign-in: a console path only. */
export function consoleReturnTo(raw: FormDataEntryValue | string | null | undefined): string {
  // One too long to redirect to goes back to its page without the query.
  const value = typeof raw === "string" && raw.length > MAX_RETURN_PATH ? raw.split(/[?#]/)[0] : raw;
  if (typeof value !== "string" || !isConsolePath(value.split(/[?#]/)[0]) || value.startsWith("//") || value.length > 2000) return "/console";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return "/console";
  return value.startsWith("/console/login") ? "/console" : value;
}

/** Console pages are per person and change with every edit: never stored by a browser or a CDN. */
export const consoleHeaders = { "Cache-Control": "no-store" };

/**
 * The status of a failed console action: the service's own (400 bad input, 403 not permitted, 404 gone, 409
 * conflict), so a form answers as the API would. Anything that is not an ApiError is rethrown to the error boundary.
 */
export function actionStatus(err: unknown): number {
  if (!(err instanceof ApiError)) throw err;
  return err.status;
}

/** A console loader or action that runs only for signed-in staff: requireStaff first, then `fn`. */
export function staffOnly<A extends { context: AppLoadContext; request: Request }, R>(fn: (args: A) => R): (args: A) => R {
  return (args) => {
    requireStaff(args.context, args.request);
    return fn(args);
  };
}
