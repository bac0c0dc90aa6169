import { eq } from "drizzle-orm";
import { isPermission, type Auth, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { sha256Hex } from "#worker/platform/ids";
import { endSessions, login, type ClientInfo } from "./members";
import { consumeOneTime, randomSecret } from "./one-time";
import type { LoginRequest } from "./schemas";
import { identities } from "./tables";
import { nowMs } from "#worker/platform/clock";

/**
 * Console sessions: the owner and staff sign in to /console with their email and password (the same login service,
 * rate limits and captcha as the storefront's), and get a session of their own, apart from any shopper session the
 * browser holds. The session is a random token in its own cookie; KV keeps only its SHA-256, with a fixed lifetime
 * (a merchant signs in again each working day), and logout deletes it. Who the session stands for — role, status,
 * permissions — is read from D1 on every request, so blocking someone or changing what they may do applies at once;
 * so is the identity's session generation, so a password change or reset and "sign out everywhere" end it too.
 */

/** How long a console session lasts from sign-in (not renewed by use: a stolen cookie stops working the same day). */
export const CONSOLE_SESSION_TTL_SECONDS = 12 * 60 * 60;

/** The client id console sessions carry in their Auth (they belong to no OAuth client). */
export const CONSOLE_CLIENT_ID = "console";

interface ConsoleSessionRecord {
  identityId: string;
  /** The identity's session generation at sign-in (absent: 0): raising it ends the session. */
  generation?: number;
  /** Epoch ms. */
  expiresAt: number;
}

const sessionKey = (hash: string) => `console:session:${hash}`;

function noConsoleAccess(): ApiError {
  return new ApiError(403, "NO_CONSOLE_ACCESS", "This account is not the store's owner or staff, so it cannot use the console", {
    message: "Forbidden",
  });
}

/**
 * Signs an owner or staff member in: checks the password through the members' login (so wrong passwords, blocked
 * accounts and rate limits answer as they do everywhere), and returns a new console session token. A shopper's
 * account gets 403 NO_CONSOLE_ACCESS.
 */
export async function startConsoleSession(ctx: Ctx, req: LoginRequest, client: ClientInfo = {}): Promise<{ token: string; expiresAt: number }> {
  const result = await login(ctx, req, client);
  if (result.state !== "SUCCESS") throw noConsoleAccess();
  // The login's one-time session token is for OAuth clients; the console does not need it, so it is used up now.
  await consumeOneTime(ctx.db, "session", result.sessionToken);
  const [row] = await ctx.db
    .select({ role: identities.role, generation: identities.sessionGeneration })
    .from(identities)
    .where(eq(identities.id, result.identity.id))
    .limit(1);
  if (!row || row.role === "MEMBER") throw noConsoleAccess();
  const token = `cs_${randomSecret(32)}`;
  const expiresAt = nowMs() + CONSOLE_SESSION_TTL_SECONDS * 1000;
  const record: ConsoleSessionRecord = { identityId: result.identity.id, generation: row.generation, expiresAt };
  await ctx.env.SESSIONS.put(sessionKey(await sha256Hex(token)), JSON.stringify(record), { expirationTtl: CONSOLE_SESSION_TTL_SECONDS });
  return { token, expiresAt };
}

/**
 * The owner or staff member a console session token stands for, with their email, or null (unknown, expired, ended,
 * blocked, no longer staff, or begun before their sessions were ended). One KV read and one D1 read.
 */
export async function consoleSessionAuth(env: Env, db: Db, token: string): Promise<{ auth: Auth; email: string } | null> {
  if (!/^cs_[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const record = await env.SESSIONS.get<ConsoleSessionRecord>(sessionKey(await sha256Hex(token)), "json");
  if (!record || record.expiresAt <= nowMs()) return null;
  const [row] = await db
    .select({
      email: identities.email,
      role: identities.role,
      status: identities.status,
      permissions: identities.permissions,
      generation: identities.sessionGeneration,
    })
    .from(identities)
    .where(eq(identities.id, record.identityId));
  if (!row || row.role === "MEMBER" || row.status === "BLOCKED" || row.status === "DELETED") return null;
  // Older than the identity's generation: ended. (Newer only when the row was read from a replica behind the write.)
  if ((record.generation ?? 0) < row.generation) return null;
  const { identityId } = record;
  const auth: Auth = { kind: "member", identityId, visitorId: identityId, clientId: CONSOLE_CLIENT_ID, role: row.role };
  if (row.role === "STAFF") auth.permissions = row.permissions.filter(isPermission);
  return { auth, email: row.email };
}

/** Ends a console session (logout): the token stops working at once. */
export async function endConsoleSession(env: Env, token: string): Promise<void> {
  if (!/^cs_[A-Za-z0-9_-]{20,100}$/.test(token)) return;
  await env.SESSIONS.delete(sessionKey(await sha256Hex(token)));
}

/**
 * Signs the owner or staff member out everywhere: every session of theirs ends (console sessions on other devices,
 * storefront and API tokens), this console session included.
 */
export async function endConsoleSessionsEverywhere(ctx: Ctx, token: string): Promise<void> {
  const session = await consoleSessionAuth(ctx.env, ctx.db, token);
  if (session?.auth.kind === "member") await endSessions(ctx.db, session.auth.identityId);
  await endConsoleSession(ctx.env, token);
}
