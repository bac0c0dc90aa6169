import { and, eq, sql } from "drizzle-orm";
import type { Db } from "#worker/platform/db";
import { sha256Hex } from "#worker/platform/ids";
import { oneTimeTokens } from "./tables";
import { now, nowMs } from "#worker/platform/clock";

/**
 * One-time tokens in D1 (see oneTimeTokens): authorization codes, session tokens, recovery links and verification
 * states. `consumeOneTime` deletes and returns in one statement, so a token is used at most once even under races.
 */

type TableKind = (typeof oneTimeTokens.$inferSelect)["kind"];

/**
 * The table's kinds, plus the two redirect-session records of the OAuth flow: `auth_request` (a pending authorize
 * request, looked up by its state), `logout` (a logout session's URL) and `handover` (a redirect session's identity). The column is plain text (no CHECK), so the
 * extra kinds need no migration; tables.ts's enum should list them too.
 */
export type OneTimeKind = TableKind | "auth_request" | "logout" | "handover";

export function randomSecret(bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let bin = "";
  for (const b of buf) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The insert statement of a new one-time token (to batch with other writes) and the token itself. */
export async function prepareOneTime(
  db: Db,
  kind: OneTimeKind,
  ttlSeconds: number,
  identityId: string | null,
  data: Record<string, unknown> = {},
  token = randomSecret(),
) {
  const now = nowMs();
  const statement = db.insert(oneTimeTokens).values({
    tokenHash: await sha256Hex(`${kind}:${token}`),
    kind: kind as TableKind,
    identityId,
    data,
    expiresAt: new Date(now + ttlSeconds * 1000).toISOString(),
    createdDate: new Date(now).toISOString(),
  });
  return { token, statement };
}

/** Creates a one-time token and returns it. */
export async function createOneTime(db: Db, kind: OneTimeKind, ttlSeconds: number, identityId: string | null, data: Record<string, unknown> = {}) {
  const { token, statement } = await prepareOneTime(db, kind, ttlSeconds, identityId, data);
  await statement;
  return token;
}

/** Uses a one-time token: returns its record once, or null if unknown, used or expired. */
export async function consumeOneTime(db: Db, kind: OneTimeKind, token: string) {
  if (!token || token.length > 512) return null;
  const [row] = await db
    .delete(oneTimeTokens)
    .where(and(eq(oneTimeTokens.tokenHash, await sha256Hex(`${kind}:${token}`)), eq(oneTimeTokens.kind, kind as TableKind)))
    .returning();
  if (!row || row.expiresAt <= now().toISOString()) return null;
  return row;
}

/** Reads a one-time token without using it (e.g. a verification state that allows several code attempts). */
export async function peekOneTime(db: Db, kind: OneTimeKind, token: string) {
  if (!token || token.length > 512) return null;
  const [row] = await db
    .select()
    .from(oneTimeTokens)
    .where(and(eq(oneTimeTokens.tokenHash, await sha256Hex(`${kind}:${token}`)), sql`${oneTimeTokens.expiresAt} > ${now().toISOString()}`));
  return row ?? null;
}

/** Removes every open token of a kind for an identity (e.g. older recovery links when a new one is sent). */
export function revokeOneTimeFor(db: Db, kind: OneTimeKind, identityId: string) {
  return db.delete(oneTimeTokens).where(and(eq(oneTimeTokens.kind, kind as TableKind), eq(oneTimeTokens.identityId, identityId)));
}

/**
 * Writes a record under a key the caller chooses (a pending auth request under its state), replacing an older one
 * with the same key. The key is stored hashed like every other one-time token.
 */
export async function putOneTime(
  db: Db,
  kind: OneTimeKind,
  key: string,
  ttlSeconds: number,
  identityId: string | null,
  data: Record<string, unknown>,
) {
  const now = nowMs();
  const values = {
    tokenHash: await sha256Hex(`${kind}:${key}`),
    kind: kind as TableKind,
    identityId,
    data,
    expiresAt: new Date(now + ttlSeconds * 1000).toISOString(),
    createdDate: new Date(now).toISOString(),
  };
  const { tokenHash: _key, ...changes } = values;
  await db.insert(oneTimeTokens).values(values).onConflictDoUpdate({ target: oneTimeTokens.tokenHash, set: changes });
}

/**
 * The statement that removes a one-time record without reading it (to batch with other writes). Wrapped in an
 * object: a bare drizzle query is thenable, so returning it from an async function would run it.
 */
export async function discardOneTime(db: Db, kind: OneTimeKind, token: string) {
  return { statement: db.delete(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, await sha256Hex(`${kind}:${token}`))) };
}

/** The sweep's delete of one-time tokens expired by `now`. */
export function expiredOneTimeTokensDelete(db: Db, now: Date) {
  return db.delete(oneTimeTokens).where(sql`${oneTimeTokens.expiresAt} < ${now.toISOString()}`);
}
