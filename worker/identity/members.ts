import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { nowIso, type Ctx } from "#worker/platform/context";
import { isUniqueViolation } from "#worker/platform/batch";
import { newId } from "#worker/platform/ids";
import { checkHits, hitLimits, hitStatement, LIMITS, resetStatement, sweepStatement, type Limit } from "#worker/platform/rate-limit";
import { requireCaptcha } from "./captcha";
import { knownAddressSince, rememberAddress, slowStranger } from "./login-guard";
import { hashPassword, verifyPassword } from "./passwords";
import type { LoginRequest, RegisterRequest } from "./schemas";
import { identitySettingsQuery, settingsFrom } from "./settings";
import { identities } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import {
  byEmail,
  type ClientInfo,
  emailCode,
  emailExists,
  type IdentityRow,
  invalidCredentials,
  notUsable,
  type PendingReason,
  prepareSession,
  prepareVerification,
  requireVerification,
  resetRequired,
  type StateResult,
  toWireIdentity,
} from "./member-common";
export {
  ACTIVATION_TTL_SECONDS,
  type ClientInfo,
  IDENTITY_CODES,
  type IdentityRow,
  MAX_CODE_ATTEMPTS,
  RECOVERY_TTL_SECONDS,
  SESSION_TOKEN_TTL_SECONDS,
  type StateResult,
  toWireIdentity,
  VERIFICATION_TTL_SECONDS,
  type WireIdentity,
} from "./member-common";
export { changePassword, endSessions, FRESH_LOGIN_SECONDS, signOn, signOutEverywhere } from "./member-sessions";
export { resendCode, startVerification, verifyCode } from "./member-verification";
export { recover, recoveryLinkIsLive, sendActivationEmail, sendRecoveryEmail } from "./member-recovery";
export { approveMember, blockMember, getMember, listMembers, rejectMember, unblockMember } from "./member-admin";
export { getOwnIdentity, memberContactRead, OWN_PROFILE_FIELDS, updateOwnProfile } from "./member-profile";

/**
 * Members: registration, login and its state machine here; password changes and sign-on in
 * member-sessions.ts, email verification codes in member-verification.ts, recovery and activation links in
 * member-recovery.ts, the owner's approval in member-admin.ts, the member's own profile in member-profile.ts.
 * Business rules live there once; the API routes and the login pages both call them through this file.
 */

// ---------------------------------------------------------------------------------------------------------------
// Register, login, change password, sign-on

/** Registers a member (POST /v2/register): SUCCESS, REQUIRE_EMAIL_VERIFICATION or REQUIRE_OWNER_APPROVAL per the store's settings. */
export async function register(ctx: Ctx, req: RegisterRequest, client: ClientInfo = {}): Promise<StateResult> {
  if (client.ip) await hitLimits(ctx.db, [LIMITS.registerAddress(client.ip)]);
  const email = req.loginId.email;
  const [settingsRows, existing] = await runBatch(ctx.db, [identitySettingsQuery(ctx.db), byEmail(ctx.db, email)]);
  const settings = settingsFrom(ctx.env, settingsRows);
  if (settings.captcha) await requireCaptcha(ctx, req.captchaTokens, client.ip);
  if (existing.length) throw emailExists();

  const reasons: PendingReason[] = [];
  if (settings.requireEmailVerification) reasons.push("EMAIL_VERIFICATION_REQUIRED");
  if (settings.requireOwnerApproval) reasons.push("ADMIN_APPROVAL_REQUIRED");
  const now = nowIso();
  const row: IdentityRow = {
    id: newId(),
    email,
    passwordHash: await hashPassword(req.password),
    status: reasons.length ? "PENDING" : "ACTIVE",
    pendingReasons: reasons,
    role: "MEMBER",
    permissions: [],
    emailVerified: false,
    profile: (req.profile ?? {}) as Record<string, unknown>,
    passwordResetRequired: false,
    createdDate: now,
    updatedDate: now,
    lastLoginDate: null,
    sessionGeneration: 0,
  };
  const statements: BatchItem<"sqlite">[] = [ctx.db.insert(identities).values(row)];
  let result: StateResult;
  let code: string | undefined;
  if (reasons.includes("EMAIL_VERIFICATION_REQUIRED")) {
    const v = await prepareVerification(ctx.db, row.id);
    statements.push(...v.statements, hitStatement(ctx.db, LIMITS.codeEmails(row.id)));
    code = v.code;
    result = { state: "REQUIRE_EMAIL_VERIFICATION", stateToken: v.stateToken, identity: toWireIdentity(row) };
  } else if (reasons.length) {
    result = { state: "REQUIRE_OWNER_APPROVAL", identity: toWireIdentity(row) };
  } else {
    const session = await prepareSession(ctx.db, row.id);
    statements.push(session.statement);
    result = { state: "SUCCESS", sessionToken: session.token, identity: toWireIdentity(row) };
  }
  try {
    await runBatch(ctx.db, statements);
  } catch (err) {
    // Two registrations with one email at the same moment: the unique index refuses the second.
    if (isUniqueViolation(err, "identities.email")) throw emailExists();
    throw err;
  }
  if (code) await emailCode(ctx, row, code);
  return result;
}

/**
 * Logs a member in (POST /v2/login). A wrong password and an unknown email get the same answer (-19976), in the same
 * time, so accounts cannot be probed. Attempts are limited per account and client address, and per address; an
 * account guessed at from many addresses slows down only the addresses it never signed in from (login-guard.ts).
 */
export async function login(ctx: Ctx, req: LoginRequest, client: ClientInfo = {}): Promise<StateResult> {
  // Now and then, after the response, drop counters whose windows ended long ago.
  if (Math.random() < 0.01) ctx.waitUntil(sweepStatement(ctx.db).then(() => undefined));
  const email = req.loginId.email;
  const limits: Limit[] = [await LIMITS.loginAccount(email, client.ip)];
  if (client.ip) limits.push(LIMITS.loginAddress(client.ip));
  const wide = await LIMITS.loginAccountWide(email);
  const [results, knownAt] = await Promise.all([
    runBatch(ctx.db, [
      ...limits.map((l) => hitStatement(ctx.db, l)),
      hitStatement(ctx.db, wide),
      identitySettingsQuery(ctx.db),
      byEmail(ctx.db, email),
    ]),
    knownAddressSince(ctx.env, email, client.ip),
  ]);
  checkHits(limits, results.slice(0, limits.length) as { count: number; windowStart: number }[][]);
  const wideCount = (results[limits.length] as { count: number }[])[0]?.count ?? 0;
  const settings = settingsFrom(ctx.env, results[limits.length + 1] as { value: unknown }[]);
  const found = (results[limits.length + 2] as IdentityRow[])[0];
  if (settings.captcha) await requireCaptcha(ctx, req.captchaTokens, client.ip);
  else if (wideCount > wide.max && knownAt === null) await slowStranger(ctx, email, wide, wideCount, req.captchaTokens, client.ip);

  const row = found && found.status !== "DELETED" ? found : undefined;
  const ok = await verifyPassword(req.password, row?.passwordHash ?? null);
  if (!row || !ok) throw invalidCredentials();
  // The right password: this address is the account's own from now on.
  await rememberAddress(ctx.env, email, client.ip, knownAt);
  if (row.status === "BLOCKED" || row.status === "OFFLINE") throw notUsable(row);
  if (row.passwordResetRequired) throw resetRequired();

  if (row.status === "PENDING") {
    if (row.pendingReasons.includes("EMAIL_VERIFICATION_REQUIRED")) return requireVerification(ctx, row);
    return { state: "REQUIRE_OWNER_APPROVAL", identity: toWireIdentity(row) };
  }
  const session = await prepareSession(ctx.db, row.id);
  const now = nowIso();
  await runBatch(ctx.db, [
    session.statement,
    resetStatement(ctx.db, limits[0].key),
    ctx.db.update(identities).set({ lastLoginDate: now }).where(eq(identities.id, row.id)),
  ]);
  return { state: "SUCCESS", sessionToken: session.token, identity: toWireIdentity({ ...row, lastLoginDate: now }) };
}
