import { and, eq, isNull } from "drizzle-orm";
import type { Auth } from "../platform/context";
import type { Db } from "../platform/db";
import { unauthenticated } from "../platform/errors";
import { sha256Hex } from "../platform/ids";
import { apiKeys } from "./tables";

/** The id events and logs use for the owner key that comes from configuration (OWNER_API_KEY). */
export const OWNER_KEY_ID = "owner";

let ownerHash: { key: string; hash: string } | undefined;

async function ownerKeyHash(env: Env): Promise<string | null> {
  if (!env.OWNER_API_KEY) return null;
  if (ownerHash?.key !== env.OWNER_API_KEY) ownerHash = { key: env.OWNER_API_KEY, hash: await sha256Hex(env.OWNER_API_KEY) };
  return ownerHash.hash;
}

/**
 * Resolves the Authorization header (raw, `Bearer …`, or the SDK's `<token>,<apiKey>`) to who is calling.
 * No header: anonymous. A header that matches nothing: 401, never a silent downgrade.
 */
export async function resolveAuth(env: Env, db: Db, header: string | undefined): Promise<Auth> {
  const raw = (header ?? "").trim().replace(/^Bearer\s+/i, "");
  if (!raw) return { kind: "anonymous" };
  const candidates = raw.split(",").map((s) => s.trim()).filter(Boolean).slice(0, 2);
  const owner = await ownerKeyHash(env);
  for (const candidate of candidates.reverse()) {
    if (candidate.length > 512) break;
    const hash = await sha256Hex(candidate);
    if (owner && hash === owner) return { kind: "apiKey", keyId: OWNER_KEY_ID, role: "OWNER" };
    const [row] = await db
      .select({ id: apiKeys.id, role: apiKeys.role })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedDate)))
      .limit(1);
    if (row) return { kind: "apiKey", keyId: row.id, role: row.role };
  }
  throw unauthenticated("The Authorization header holds no valid API key or token");
}
