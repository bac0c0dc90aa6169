import { and, eq, isNull } from "drizzle-orm";
import { isPermission, type Auth } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { unauthenticated } from "#worker/platform/errors";
import { sha256Hex } from "#worker/platform/ids";
import { identities, apiKeys } from "./tables";
import { readAccessToken, type TokenRecord } from "./tokens";
import { config } from "#worker/platform/config";

/** The id events and logs use for the owner key that comes from configuration (OWNER_API_KEY). */
export const OWNER_KEY_ID = "owner";

let ownerHash: { key: string; hash: string } | undefined;

async function ownerKeyHash(env: Env): Promise<string | null> {
  const key = config(env).ownerApiKey;
  if (!key) return null;
  if (ownerHash?.key !== key) ownerHash = { key, hash: await sha256Hex(key) };
  return ownerHash.hash;
}

/** An API key's auth, or null. */
async function apiKeyAuth(env: Env, db: Db, candidate: string): Promise<Auth | null> {
  if (candidate.length > 512) return null;
  const hash = await sha256Hex(candidate);
  const owner = await ownerKeyHash(env);
  if (owner && hash === owner) return { kind: "apiKey", keyId: OWNER_KEY_ID, role: "OWNER" };
  const [row] = await db
    .select({ id: apiKeys.id, role: apiKeys.role, permissions: apiKeys.permissions })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedDate)))
    .limit(1);
  if (!row) return null;
  // Read on every request, so a change of a key's permissions applies at once.
  return row.role === "OWNER"
    ? { kind: "apiKey", keyId: row.id, role: "OWNER" }
    : { kind: "apiKey", keyId: row.id, role: "STAFF", permissions: row.permissions.filter(isPermission) };
}

/** A visitor's or member's auth from an access token, or null. Staff roles are read from D1 so a demotion applies at once. */
export async function accessTokenAuth(env: Env, db: Db, token: string): Promise<Auth | null> {
  const record = await readAccessToken(env, token);
  return record ? tokenAuth(db, record) : null;
}

/**
 * Who a token record (access or refresh) stands for: a visitor, or a member with their current role. A blocked or
 * deleted member's tokens stand for no one, nor do tokens issued before the member's sessions were ended (password
 * change or reset, sign out everywhere).
 */
export async function tokenAuth(
  db: Db,
  record: Pick<TokenRecord, "role" | "identityId" | "visitorId" | "clientId" | "generation">,
): Promise<Auth | null> {
  if (record.role === "member" && record.identityId) {
    const [identity] = await db
      .select({ role: identities.role, status: identities.status, permissions: identities.permissions, generation: identities.sessionGeneration })
      .from(identities)
      .where(eq(identities.id, record.identityId));
    if (!identity || identity.status === "BLOCKED" || identity.status === "DELETED") return null;
    // Older than the identity's generation: ended. (Newer only when the row was read from a replica behind the write.)
    if ((record.generation ?? 0) < identity.generation) return null;
    const auth: Auth = { kind: "member", identityId: record.identityId, visitorId: record.visitorId, clientId: record.clientId, role: identity.role };
    if (identity.role === "STAFF") auth.permissions = identity.permissions.filter(isPermission);
    return auth;
  }
  return { kind: "visitor", visitorId: record.visitorId, clientId: record.clientId };
}

/**
 * Resolves the Authorization header (raw, `Bearer …`, or the SDK's `<access token>,<apiKey>`) to who is calling.
 * No header: anonymous. A header that matches nothing (unknown, expired or revoked): 401, never a silent downgrade.
 * With both a token and an API key, the API key decides (the SDK's external-login calls).
 */
export async function resolveAuth(env: Env, db: Db, header: string | undefined): Promise<Auth> {
  const raw = (header ?? "").trim().replace(/^Bearer\s+/i, "");
  if (!raw) return { kind: "anonymous" };
  const parts = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 2);
  for (const candidate of [...parts].reverse()) {
    const auth = candidate.startsWith("at_") ? await accessTokenAuth(env, db, candidate) : await apiKeyAuth(env, db, candidate);
    if (auth) return auth;
  }
  throw unauthenticated("The Authorization header holds no valid API key or access token (unknown, expired or revoked)");
}

/** The access token part of an Authorization header, if any (for calls that act on the caller's own session). */
export function accessTokenOf(header: string | undefined): string | null {
  const raw = (header ?? "").trim().replace(/^Bearer\s+/i, "");
  return (
    raw
      .split(",")
      .map((s) => s.trim())
      .find((p) => p.startsWith("at_")) ?? null
  );
}
