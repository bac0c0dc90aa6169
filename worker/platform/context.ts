import { forbidden, unauthenticated } from "./errors";
import type { Db } from "./db";

/** Who is calling. Visitor, member and staff sessions join this union with the identity issue. */
export type Auth = { kind: "anonymous" } | { kind: "apiKey"; keyId: string; role: "OWNER" | "STAFF" };

/** Actor of an event (spec section 6): ANONYMOUS_VISITOR, MEMBER, SITE_USER (owner or staff) or APP. */
export interface Actor {
  type: "ANONYMOUS_VISITOR" | "MEMBER" | "SITE_USER" | "APP";
  id: string | null;
}

/** Everything a service needs for one request; built once by the API middleware or a web loader. */
export interface Ctx {
  db: Db;
  env: Env;
  auth: Auth;
  /** Store currency (ISO 4217). */
  currency: string;
  /** This server's origin, for absolute URLs in responses. */
  origin: string;
  waitUntil(promise: Promise<unknown>): void;
}

export function isMerchant(auth: Auth): boolean {
  return auth.kind === "apiKey";
}

/** Guard for merchant writes: an API key (or, later, a staff session). */
export function requireMerchant(ctx: Ctx): void {
  if (ctx.auth.kind === "anonymous") throw unauthenticated("This call needs the merchant's API key in the Authorization header");
  if (!isMerchant(ctx.auth)) throw forbidden("This call needs a merchant API key or a staff session");
}

export function actorOf(auth: Auth): Actor {
  if (auth.kind === "apiKey") return { type: "APP", id: auth.keyId };
  return { type: "ANONYMOUS_VISITOR", id: null };
}

/** Store currency from configuration (USD unless STORE_CURRENCY says otherwise). */
export function storeCurrency(env: Env): string {
  return (env as { STORE_CURRENCY?: string }).STORE_CURRENCY || "USD";
}

/** Current time as the ISO-8601 string every date column holds. */
export function nowIso(): string {
  return new Date().toISOString();
}
