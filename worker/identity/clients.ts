import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { nowIso, requireMerchant, requireOwner, requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { publicOrigin } from "#worker/platform/public-origin";
import { parseWith } from "#worker/platform/validation";
import { oauthClients } from "./tables";
import { config } from "#worker/platform/config";

/**
 * OAuth clients: the store's own storefront client (its id is `OAUTH_CLIENT_ID`, so a headless site can use it too)
 * and clients the owner adds, each with the redirect URIs it may send members back to.
 */

export interface OAuthClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** Any redirect URI is accepted: development only, never when ENVIRONMENT is production. */
  allowAnyRedirect: boolean;
  /** Visitor tokens it may mint per client address and 10 minutes (a headless site's server); null: the default. */
  visitorTokenBudget: number | null;
}

const isProduction = (env: Env) => config(env).production;

/** Used when OAUTH_CLIENT_ID is not configured, so the store's own storefront always has a client. */
export const BUILT_IN_CLIENT_ID = "storefront";

/** The store's default client id: OAUTH_CLIENT_ID, or the built-in one. */
export function defaultClientId(env: Env): string {
  return config(env).oauthClientId ?? BUILT_IN_CLIENT_ID;
}

function fromRow(env: Env, row: typeof oauthClients.$inferSelect): OAuthClient {
  return {
    id: row.id,
    name: row.name,
    redirectUris: row.redirectUris,
    allowAnyRedirect: row.allowAnyRedirect && !isProduction(env),
    visitorTokenBudget: row.visitorTokenBudget ?? null,
  };
}

/** The client with this id, or null. The default client's row is created on first use (idempotent). */
export async function getOAuthClient(ctx: Ctx, clientId: string | undefined | null): Promise<OAuthClient | null> {
  if (!clientId || clientId.length > 200) return null;
  const [row] = await ctx.db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).limit(1);
  if (row) return fromRow(ctx.env, row);
  if (clientId !== defaultClientId(ctx.env)) return null;
  const created = {
    id: clientId,
    name: "Storefront",
    redirectUris: [],
    allowAnyRedirect: !isProduction(ctx.env),
    visitorTokenBudget: null,
    createdDate: nowIso(),
  };
  await ctx.db.insert(oauthClients).values(created).onConflictDoNothing();
  return fromRow(ctx.env, created);
}

/** The client, or 400 INVALID_CLIENT (unknown clients are refused, never auto-created). */
export async function requireOAuthClient(ctx: Ctx, clientId: string | undefined | null): Promise<OAuthClient> {
  const client = await getOAuthClient(ctx, clientId);
  if (!client) {
    throw new ApiError(400, "INVALID_CLIENT", `Unknown OAuth client "${clientId ?? ""}"`, {
      data: { clientId: clientId ?? null },
      message: "Invalid client",
    });
  }
  return client;
}

/** Schemes that must never be a redirect target, whatever the client allows. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:"]);

/** Why a URI cannot be a redirect target at all (not absolute, a script scheme, a fragment), or null. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2048) return "must be at most 2048 characters";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "must be an absolute URI";
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (uri.includes("#")) return "must not contain a fragment";
  return null;
}

/**
 * Whether the client may send a browser to this URI: one of its listed URIs (exact match), a page on this store's
 * own origin, or anything when the client allows any (development only).
 */
export function isRedirectAllowed(ctx: Ctx, client: OAuthClient, uri: string): boolean {
  if (redirectUriProblem(uri)) return false;
  if (client.allowAnyRedirect || client.redirectUris.includes(uri)) return true;
  return new URL(uri).origin === publicOrigin(ctx);
}

/** Whether a text is exactly a web origin (`https://host[:port]`, no path), as `Origin` headers and postMessage use them. */
export function isWebOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === text;
  } catch {
    return false;
  }
}

/** The origins registered for a client: those of its http(s) redirect URIs, and the shop's own. */
export function registeredOrigins(ctx: Ctx, client: OAuthClient): string[] {
  const origins = new Set<string>([publicOrigin(ctx)]);
  for (const uri of client.redirectUris) {
    if (redirectUriProblem(uri)) continue;
    const origin = new URL(uri).origin;
    if (isWebOrigin(origin)) origins.add(origin);
  }
  return [...origins];
}

/** Whether the client may receive an answer posted to this origin: a registered one, or any when it allows any (development only). */
export function isOriginAllowed(ctx: Ctx, client: OAuthClient, origin: string): boolean {
  if (!isWebOrigin(origin)) return false;
  return client.allowAnyRedirect || registeredOrigins(ctx, client).includes(origin);
}

const createClientInput = z.object({
  name: z.string().trim().min(1).max(100),
  redirectUris: z
    .array(
      z
        .string()
        .trim()
        .refine((u) => redirectUriProblem(u) === null, { message: "must be an absolute URI without a fragment, not a script scheme" }),
    )
    .max(50)
    .default([]),
});

/** Creates an OAuth client for a headless site (owner only); its id is what the site passes as clientId. */
export async function createOAuthClient(ctx: Ctx, input: { name: string; redirectUris?: string[] }): Promise<OAuthClient & { createdDate: string }> {
  requireOwner(ctx);
  const parsed = parseWith(createClientInput, input, "client");
  const row = {
    id: newId(),
    name: parsed.name,
    redirectUris: [...new Set(parsed.redirectUris)],
    allowAnyRedirect: false,
    visitorTokenBudget: null,
    createdDate: nowIso(),
  };
  await ctx.db.insert(oauthClients).values(row);
  return { ...fromRow(ctx.env, row), createdDate: row.createdDate };
}

/** Every OAuth client (the store's own first, once it exists), for the merchant; the default client is made on first use. */
export async function listOAuthClients(ctx: Ctx): Promise<(OAuthClient & { createdDate: string; isDefault: boolean })[]> {
  requireMerchant(ctx);
  const rows = await ctx.db.select().from(oauthClients).orderBy(asc(oauthClients.createdDate), asc(oauthClients.id)).limit(200);
  const defaultId = defaultClientId(ctx.env);
  // A read writes nothing: the shop's own client is shown as it will be created on its first use.
  if (defaultId && !rows.some((r) => r.id === defaultId)) {
    rows.unshift({
      id: defaultId,
      name: "Storefront",
      redirectUris: [],
      allowAnyRedirect: !isProduction(ctx.env),
      visitorTokenBudget: null,
      createdDate: nowIso(),
    });
  }
  return rows
    .map((row) => ({ ...fromRow(ctx.env, row), createdDate: row.createdDate, isDefault: row.id === defaultId }))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
}

/** The most visitor tokens a budget may allow per address and window: a ceiling even a large site stays under. */
export const MAX_VISITOR_TOKEN_BUDGET = 100_000;

export const updateClientRequest = z.object({
  client: z.object({
    visitorTokenBudget: z.number().int().min(1).max(MAX_VISITOR_TOKEN_BUDGET).nullable(),
  }),
});

/** Sets a client's visitor-token budget (null: back to the default); settings.manage. */
export async function updateOAuthClient(ctx: Ctx, clientId: string, input: z.output<typeof updateClientRequest>): Promise<OAuthClient> {
  requirePermission(ctx, "settings.manage");
  // The shop's own client is listed before its first use; changing it creates it first.
  if (clientId === defaultClientId(ctx.env)) await getOAuthClient(ctx, clientId);
  const [row] = await ctx.db
    .update(oauthClients)
    .set({ visitorTokenBudget: input.client.visitorTokenBudget })
    .where(eq(oauthClients.id, clientId))
    .returning();
  if (!row) throw notFound("OAUTH_CLIENT_NOT_FOUND", "OAuth client", clientId, "clientId");
  return fromRow(ctx.env, row);
}
