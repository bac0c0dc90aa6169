import { eq, sql } from "drizzle-orm";
import { nowMs } from "#worker/platform/clock";
import type { BatchItem } from "drizzle-orm/batch";
import { nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { conflict, isUniqueViolation } from "#worker/platform/batch";
import { ApiError, forbidden, unauthenticated } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { checkHits, hitStatement, LIMITS } from "#worker/platform/rate-limit";
import { revokeOneTimeFor } from "./one-time";
import { hashPassword, verifyPassword } from "./passwords";
import type { SignOnRequest } from "./schemas";
import { identities } from "./tables";
import { carrySessionOver, readCallerSession, type CallerTokens } from "./tokens";
import { runBatch } from "#worker/platform/unit-of-work";
import { byEmail, byId, type IdentityRow, memberNotFound, notUsable, prepareSession, toWireIdentity, type WireIdentity } from "./member-common";
import { requireMemberCaller } from "./member-profile";

/** A member's sessions: password changes, signing out everywhere, and sign-on from a trusted identity provider. */

/** A login this recent stands in for the current password when a member changes it (the Wix SDK sends none). */
export const FRESH_LOGIN_SECONDS = 5 * 60;

const currentPasswordWrong = () =>
  new ApiError(403, "CURRENT_PASSWORD_INCORRECT", "The current password is incorrect", { message: "Incorrect current password" });

const reauthenticationRequired = () =>
  new ApiError(
    403,
    "REAUTHENTICATION_REQUIRED",
    `Changing the password needs the current password (currentPassword), or a login within the last ${FRESH_LOGIN_SECONDS / 60} minutes`,
    { message: "Current password required" },
  );

/** Revokes an identity's logins still under way (session tokens, authorization codes): they would begin new sessions. */
function pendingLoginsRevoked(db: Db, identityId: string): BatchItem<"sqlite">[] {
  return [revokeOneTimeFor(db, "session", identityId), revokeOneTimeFor(db, "auth_code", identityId)];
}

/**
 * Ends every session of an identity: raises its session generation and revokes its logins under way. Returns the
 * new generation, or null when there is no such identity.
 */
export async function endSessions(db: Db, identityId: string): Promise<number | null> {
  const [bumped] = await runBatch(db, [
    db
      .update(identities)
      .set({ sessionGeneration: sql`${identities.sessionGeneration} + 1` })
      .where(eq(identities.id, identityId))
      .returning({ generation: identities.sessionGeneration }),
    ...pendingLoginsRevoked(db, identityId),
  ]);
  return bumped[0]?.generation ?? null;
}

/**
 * Changes the calling member's password (POST /v2/change-password) with proof it is them: the current password, or
 * a session that began with a login in the last few minutes. Every other session of theirs ends (the caller's own,
 * `tokens`, goes on), and so do open recovery links.
 */
export async function changePassword(
  ctx: Ctx,
  req: { newPassword: string; currentPassword?: string },
  tokens: CallerTokens = {},
): Promise<Record<string, never>> {
  if (ctx.auth.kind !== "member") {
    if (ctx.auth.kind === "anonymous") throw unauthenticated("Changing the password needs the member's access token in the Authorization header");
    throw forbidden("Only a logged-in member can change their password");
  }
  const identityId = ctx.auth.identityId;
  if (req.currentPassword !== undefined) {
    const [[hits], [row]] = await runBatch(ctx.db, [hitStatement(ctx.db, LIMITS.passwordCheck(identityId)), byId(ctx.db, identityId)]);
    checkHits([LIMITS.passwordCheck(identityId)], [[hits]]);
    if (!row || row.status === "DELETED") throw memberNotFound(identityId);
    if (!(await verifyPassword(req.currentPassword, row.passwordHash))) throw currentPasswordWrong();
  } else {
    const session = await readCallerSession(ctx.env, tokens);
    const fresh = session?.identityId === identityId && session.authTime !== undefined && nowMs() - session.authTime <= FRESH_LOGIN_SECONDS * 1000;
    if (!fresh) throw reauthenticationRequired();
  }
  const passwordHash = await hashPassword(req.newPassword);
  const [updated] = await runBatch(ctx.db, [
    ctx.db
      .update(identities)
      .set({ passwordHash, passwordResetRequired: false, updatedDate: nowIso(), sessionGeneration: sql`${identities.sessionGeneration} + 1` })
      .where(eq(identities.id, identityId))
      .returning({ id: identities.id, generation: identities.sessionGeneration }),
    revokeOneTimeFor(ctx.db, "recovery", identityId),
    ...pendingLoginsRevoked(ctx.db, identityId),
  ]);
  if (!updated.length) throw memberNotFound(identityId);
  await carrySessionOver(ctx.env, identityId, tokens, updated[0].generation);
  return {};
}

/** Ends every session of the calling member but the caller's own (`tokens`): other devices are signed out. */
export async function signOutEverywhere(ctx: Ctx, tokens: CallerTokens = {}): Promise<Record<string, never>> {
  const identityId = requireMemberCaller(ctx);
  const generation = await endSessions(ctx.db, identityId);
  if (generation === null) throw memberNotFound(identityId);
  await carrySessionOver(ctx.env, identityId, tokens, generation);
  return {};
}

/**
 * Signs a member on for a trusted external login (POST /v2/sign-on; an API key or staff holding members.impersonate):
 * finds the member by email or creates an active one, and answers a session token. Owner and staff accounts cannot be
 * reached this way.
 */
export async function signOn(ctx: Ctx, req: SignOnRequest): Promise<{ sessionToken: string; identity: WireIdentity }> {
  if (ctx.auth.kind === "anonymous") throw unauthenticated("Sign-on needs the store's API key in the Authorization header");
  requirePermission(ctx, "members.impersonate");
  const email = req.loginId.email;
  const [existing] = await byEmail(ctx.db, email);
  const now = nowIso();
  if (existing) {
    if (existing.role !== "MEMBER") throw forbidden("Sign-on cannot open a session for the store's owner or staff");
    if (existing.status !== "ACTIVE" && existing.status !== "PENDING") throw notUsable(existing);
    const session = await prepareSession(ctx.db, existing.id);
    const patch = {
      status: "ACTIVE" as const,
      pendingReasons: [] as string[],
      emailVerified: existing.emailVerified || Boolean(req.verifyEmail),
      profile: req.profile ? { ...existing.profile, ...req.profile } : existing.profile,
      updatedDate: now,
      lastLoginDate: now,
    };
    await runBatch(ctx.db, [ctx.db.update(identities).set(patch).where(eq(identities.id, existing.id)), session.statement]);
    return { sessionToken: session.token, identity: toWireIdentity({ ...existing, ...patch }) };
  }
  const row: IdentityRow = {
    id: newId(),
    email,
    passwordHash: null,
    status: "ACTIVE",
    pendingReasons: [],
    role: "MEMBER",
    permissions: [],
    emailVerified: Boolean(req.verifyEmail),
    profile: (req.profile ?? {}) as Record<string, unknown>,
    passwordResetRequired: false,
    createdDate: now,
    updatedDate: now,
    lastLoginDate: now,
    sessionGeneration: 0,
  };
  const session = await prepareSession(ctx.db, row.id);
  try {
    await runBatch(ctx.db, [ctx.db.insert(identities).values(row), session.statement]);
  } catch (err) {
    if (isUniqueViolation(err, "identities.email")) throw conflict("This member");
    throw err;
  }
  return { sessionToken: session.token, identity: toWireIdentity(row) };
}
