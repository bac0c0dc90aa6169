import { forbidden, unauthenticated } from "./errors";
import type { Db } from "./db";
import { config } from "./config";
import { now } from "./clock";

/**
 * Who is calling, resolved once per request from the Authorization header (API) or the session cookie (pages):
 * nobody, a merchant API key, a visitor's anonymous tokens, or a member's tokens (members include the store's
 * owner and staff, by role).
 */
export type Auth =
  | { kind: "anonymous" }
  | {
      kind: "apiKey";
      keyId: string;
      role: "OWNER" | "STAFF";
      /** What the owner lets this key do (STAFF keys; an OWNER key may do everything). */
      permissions?: readonly Permission[];
    }
  | { kind: "visitor"; visitorId: string; clientId: string }
  | {
      kind: "member";
      identityId: string;
      visitorId: string;
      clientId: string;
      role: "MEMBER" | "OWNER" | "STAFF";
      /** What the owner lets this staff member do (STAFF only; the owner may do everything). */
      permissions?: readonly Permission[];
    };

/**
 * The named permissions the owner grants each staff member and each STAFF API key. Reads of merchant data need only
 * a staff role; every merchant write needs one of these (the owner and OWNER keys hold all of them).
 */
export const PERMISSIONS = [
  "catalog.write",
  "inventory.write",
  "orders.write",
  "automations.manage",
  "settings.manage",
  "members.impersonate",
  "cms.write",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each permission lets a staff member do, in the owner's words (the console's staff page shows these). */
export const PERMISSION_LABELS: Record<Permission, string> = {
  "catalog.write": "Edit products, collections and media",
  "inventory.write": "Change stock",
  "orders.write": "Mark orders paid, fulfil, cancel and refund",
  "automations.manage": "Manage automations, tasks, webhooks and events",
  "settings.manage": "Change pricing, store and member settings",
  "members.impersonate": "Sign members in and act as them (sign-on, member tokens)",
  "cms.write": "Edit content pages and menus",
};

/** Whether a value names one of PERMISSIONS. */
export function isPermission(value: unknown): value is Permission {
  return typeof value === "string" && (PERMISSIONS as readonly string[]).includes(value);
}

/** Actor of an event: ANONYMOUS_VISITOR, MEMBER, SITE_USER (owner or staff) or APP. */
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

/** The store's owner or staff: an API key, or a member token of an owner or staff identity. */
export function isMerchant(auth: Auth): boolean {
  return auth.kind === "apiKey" || (auth.kind === "member" && auth.role !== "MEMBER");
}

/** Guard for merchant calls: 401 without credentials, 403 for a visitor or member. */
export function requireMerchant(ctx: Ctx): void {
  if (ctx.auth.kind === "anonymous") throw unauthenticated("This call needs the merchant's API key or a staff token in the Authorization header");
  if (!isMerchant(ctx.auth)) throw forbidden("This call needs a merchant API key or a staff session");
}

/** Whether the caller may do merchant work of this kind: the owner and OWNER keys always; staff and STAFF keys when granted. */
export function hasPermission(auth: Auth, permission: Permission): boolean {
  if (auth.kind !== "apiKey" && (auth.kind !== "member" || auth.role === "MEMBER")) return false;
  return auth.role === "OWNER" || (auth.permissions ?? []).includes(permission);
}

/** Guard for merchant writes: 401 without credentials, 403 for shoppers and for staff without this permission. */
export function requirePermission(ctx: Ctx, permission: Permission): void {
  requireMerchant(ctx);
  if (!hasPermission(ctx.auth, permission)) throw forbidden(`This needs the ${permission} permission, which the store owner has not granted you`);
}

/** Guard for the store owner only (creating staff and API keys). */
export function requireOwner(ctx: Ctx): void {
  requireMerchant(ctx);
  if (ctx.auth.kind !== "member" && ctx.auth.kind !== "apiKey") return;
  if (ctx.auth.role !== "OWNER") throw forbidden("Only the store owner can do this");
}

export function actorOf(auth: Auth): Actor {
  switch (auth.kind) {
    case "apiKey":
      return { type: "APP", id: auth.keyId };
    case "member":
      return auth.role === "MEMBER" ? { type: "MEMBER", id: auth.identityId } : { type: "SITE_USER", id: auth.identityId };
    case "visitor":
      return { type: "ANONYMOUS_VISITOR", id: auth.visitorId };
    default:
      return { type: "ANONYMOUS_VISITOR", id: null };
  }
}

/**
 * The context of work the shop does on its own, outside any request (queue processors, sweeps): it acts with the
 * owner's rights as an APP actor named after the job (e.g. "events:abandoned-carts"), and builds absolute URLs from
 * PUBLIC_URL (the shop's public origin; http://localhost:8787 when unset, as under `npm start`).
 */
export function systemCtx(env: Env, db: Db, job: string, waitUntil: (p: Promise<unknown>) => void): Ctx {
  const { publicUrl } = config(env);
  return {
    db,
    env,
    auth: { kind: "apiKey", keyId: job, role: "OWNER" },
    currency: storeCurrency(env),
    origin: publicUrl || "http://localhost:8787",
    waitUntil: (p) => waitUntil(p.catch((err) => console.error(`${job}: background task failed`, err))),
  };
}

/** Store currency from configuration (USD unless STORE_CURRENCY says otherwise). */
export function storeCurrency(env: Env): string {
  return config(env).storeCurrency;
}

/** Current time as the ISO-8601 string every date column holds. */
export function nowIso(): string {
  return now().toISOString();
}
