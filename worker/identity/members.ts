import { and, count, desc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { sendEmail } from "../email/send";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "../platform/context";
import type { Db } from "../platform/db";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure, isUniqueViolation } from "../platform/batch";
import { ApiError, forbidden, notFound, unauthenticated } from "../platform/errors";
import { newId, sha256Hex } from "../platform/ids";
import { checkHits, hitLimits, hitStatement, LIMITS, resetPrefixStatement, resetStatement, sweepStatement, type Limit } from "../platform/rate-limit";
import { emailLinkOrigin, publicOrigin } from "../platform/public-origin";
import { requireCaptcha } from "./captcha";
import { knownAddressSince, rememberAddress, slowStranger } from "./login-guard";
import { prepareOneTime, randomSecret, revokeOneTimeFor } from "./one-time";
import { hashPassword, verifyPassword } from "./passwords";
import type { LoginRequest, RegisterRequest, SignOnRequest, StoredProfile } from "./schemas";
import { identitySettingsQuery, settingsFrom } from "./settings";
import { identities, oauthClients, oneTimeTokens } from "./tables";
import { carrySessionOver, readCallerSession, type CallerTokens } from "./tokens";
// The member's own profile (updateOwnProfile, at the end of this file).
import { invalidArgument } from "../platform/errors";
import { violationsFrom } from "../platform/validation";
import { profileSchema } from "./schemas";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Members: registration, login and its state machine (spec section 4, wire doc §3), password changes, sign-on,
 * email verification codes, password recovery and activation links, and the owner's approval. Business rules live
 * here once; the API routes and the login pages both call these functions.
 */

export type IdentityRow = typeof identities.$inferSelect;
type PendingReason = "EMAIL_VERIFICATION_REQUIRED" | "ADMIN_APPROVAL_REQUIRED";

/** Who is asking, beyond the auth context: the client address Cloudflare reports, for per-address limits. */
export interface ClientInfo {
  ip?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Constants and errors

/** A session token (exchanged at /oauth2/authorize for an authorization code) lives 10 minutes. */
export const SESSION_TOKEN_TTL_SECONDS = 600;
export const VERIFICATION_TTL_SECONDS = 15 * 60;
export const RECOVERY_TTL_SECONDS = 60 * 60;
export const ACTIVATION_TTL_SECONDS = 7 * 24 * 60 * 60;
/** Wrong codes a verification state token survives; the fifth wrong one ends it. */
export const MAX_CODE_ATTEMPTS = 5;

/** Identity error codes the Wix SDK compares as strings (wire doc §1.6). */
export const IDENTITY_CODES = {
  emailExists: "-19995",
  invalidPassword: "-19976",
  resetPassword: "-19973",
  missingCaptcha: "-19971",
  invalidCaptcha: "-19970",
} as const;

const invalidCredentials = () =>
  new ApiError(401, IDENTITY_CODES.invalidPassword, "The email or password is incorrect", { message: "Invalid email or password" });

const emailExists = () =>
  new ApiError(409, IDENTITY_CODES.emailExists, "An account with this email already exists; log in or reset the password", { message: "Email already exists" });

const resetRequired = () =>
  new ApiError(400, IDENTITY_CODES.resetPassword, "This account needs a new password: use the password recovery email to set one", {
    message: "Password reset required",
  });

function notUsable(row: IdentityRow): ApiError {
  if (row.status === "BLOCKED") return new ApiError(403, "MEMBER_BLOCKED", "This account is blocked; contact the store", { message: "Account blocked" });
  if (row.status === "OFFLINE") {
    return new ApiError(403, "MEMBER_NOT_ACTIVATED", "This account is not activated yet; use the activation or password recovery email", {
      message: "Account not activated",
    });
  }
  return new ApiError(403, "MEMBER_DELETED", "This account was deleted", { message: "Account deleted" });
}

const invalidStateToken = () =>
  new ApiError(400, "INVALID_STATE_TOKEN", "The verification is unknown, expired, already used or out of attempts; log in again to get a new code", {
    message: "Invalid or expired verification",
  });

const invalidRecoveryToken = () =>
  new ApiError(400, "INVALID_RECOVERY_TOKEN", "This link is invalid, expired or was already used; ask for a new one", { message: "Invalid or expired link" });

const memberNotFound = (id: string) => notFound("MEMBER_NOT_FOUND", "Member", id, "identityId");

// ---------------------------------------------------------------------------------------------------------------
// The wire shape

/** An identity as the API returns it (register, login, verify, recover, sign-on, the console). */
export function toWireIdentity(row: IdentityRow) {
  const p = (row.profile ?? {}) as StoredProfile;
  const { emails = [], phones = [], addresses = [], customFields = [], ...scalars } = p;
  return {
    id: row.id,
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    status: { name: row.status, reasons: (row.pendingReasons ?? []).map((r) => `PENDING_${r}`) },
    identityProfile: {
      ...scalars,
      emails,
      phones,
      addresses,
      customFields,
      // The same lists under the names the Wix SDK's types use.
      secondaryEmails: emails,
      phonesV2: phones,
    },
    factors: row.passwordHash ? [{ type: "PASSWORD", status: "ENABLED" }] : [],
    email: { address: row.email, isVerified: row.emailVerified },
  };
}

export type WireIdentity = ReturnType<typeof toWireIdentity>;

/** The login state machine's answer (register, login, verify, recover). */
export type StateResult =
  | { state: "SUCCESS"; sessionToken: string; identity: WireIdentity }
  | { state: "REQUIRE_EMAIL_VERIFICATION"; stateToken: string; identity: WireIdentity }
  | { state: "REQUIRE_OWNER_APPROVAL"; identity: WireIdentity };

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const byEmail = (db: Db, email: string) => db.select().from(identities).where(eq(identities.email, email)).limit(1);
const byId = (db: Db, id: string) => db.select().from(identities).where(eq(identities.id, id)).limit(1);

function displayName(row: IdentityRow): string | undefined {
  const p = (row.profile ?? {}) as StoredProfile;
  return p.firstName || p.nickname || undefined;
}

/** A 6-digit code, uniform over 000000..999999. */
function newCode(): string {
  const buf = new Uint32Array(1);
  let x: number;
  do {
    crypto.getRandomValues(buf);
    x = buf[0];
  } while (x >= 4_294_000_000);
  return String(x % 1_000_000).padStart(6, "0");
}

const codeHash = (stateToken: string, code: string) => sha256Hex(`code:${stateToken}:${code}`);
const tokenHash = (kind: string, token: string) => sha256Hex(`${kind}:${token}`);

function withoutReason(reasons: string[], reason: PendingReason): string[] {
  return reasons.filter((r) => r !== reason);
}

/** The session token insert for a member who reached SUCCESS (batchable), and the token. */
function prepareSession(db: Db, identityId: string) {
  return prepareOneTime(db, "session", SESSION_TOKEN_TTL_SECONDS, identityId, {});
}

/**
 * A new verification state for an identity: a state token the client keeps and a code emailed to the member. Older
 * states of the identity are revoked in the same batch, so only the newest code works.
 */
async function prepareVerification(db: Db, identityId: string, target: "EMAIL" | "AUTH_ONLY" = "EMAIL") {
  const stateToken = randomSecret();
  const code = newCode();
  const { statement } = await prepareOneTime(
    db,
    "verification",
    VERIFICATION_TTL_SECONDS,
    identityId,
    { codeHash: await codeHash(stateToken, code), attempts: 0, target },
    stateToken,
  );
  return { stateToken, code, statements: [revokeOneTimeFor(db, "verification", identityId), statement] as BatchItem<"sqlite">[] };
}

function emailCode(ctx: Ctx, row: IdentityRow, code: string) {
  return sendEmail(ctx, row.email, "verification-code", { code, name: displayName(row) });
}

/** Creates a verification state, emails its code (counted against the per-account email limit) and answers REQUIRE_EMAIL_VERIFICATION. */
async function requireVerification(ctx: Ctx, row: IdentityRow): Promise<StateResult> {
  await hitLimits(ctx.db, [LIMITS.codeEmails(row.id)]);
  const v = await prepareVerification(ctx.db, row.id);
  await runBatch(ctx.db, v.statements);
  await emailCode(ctx, row, v.code);
  return { state: "REQUIRE_EMAIL_VERIFICATION", stateToken: v.stateToken, identity: toWireIdentity(row) };
}

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
    runBatch(ctx.db, [...limits.map((l) => hitStatement(ctx.db, l)), hitStatement(ctx.db, wide), identitySettingsQuery(ctx.db), byEmail(ctx.db, email)]),
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
export async function changePassword(ctx: Ctx, req: { newPassword: string; currentPassword?: string }, tokens: CallerTokens = {}): Promise<Record<string, never>> {
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
    const fresh = session?.identityId === identityId && session.authTime !== undefined && Date.now() - session.authTime <= FRESH_LOGIN_SECONDS * 1000;
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

// ---------------------------------------------------------------------------------------------------------------
// Verification codes

/**
 * Starts an email verification (POST /v1/start): the store's API key for any member, or a member for themselves.
 * Emails a code and answers the state token to verify it with (also as verificationId).
 */
export async function startVerification(
  ctx: Ctx,
  req: { identityId: string; target: "EMAIL" | "AUTH_ONLY" },
): Promise<{ verificationId: string; stateToken: string }> {
  const self = ctx.auth.kind === "member" && ctx.auth.identityId === req.identityId;
  if (ctx.auth.kind !== "apiKey" && !self) {
    if (ctx.auth.kind === "anonymous") throw unauthenticated("Starting a verification needs the member's access token or the store's API key");
    throw forbidden("A member can start a verification only for themselves");
  }
  const [row] = await byId(ctx.db, req.identityId);
  if (!row) throw memberNotFound(req.identityId);
  if (row.status !== "ACTIVE" && row.status !== "PENDING") throw notUsable(row);
  await hitLimits(ctx.db, [LIMITS.codeEmails(row.id)]);
  const v = await prepareVerification(ctx.db, row.id, req.target);
  await runBatch(ctx.db, v.statements);
  await emailCode(ctx, row, v.code);
  return { verificationId: v.stateToken, stateToken: v.stateToken };
}

/**
 * Checks a verification code (POST /v1/auth/verify, /v2/email/verify). Each check first claims one of the state
 * token's attempts in a single statement, so even parallel guesses get at most MAX_CODE_ATTEMPTS. A right code
 * verifies the email and moves the member on: SUCCESS with a session token, or REQUIRE_OWNER_APPROVAL.
 */
export async function verifyCode(ctx: Ctx, req: { stateToken: string; code: string }, client: ClientInfo = {}): Promise<StateResult> {
  if (client.ip) await hitLimits(ctx.db, [LIMITS.verifyAddress(client.ip)]);
  const hash = await tokenHash("verification", req.stateToken);
  const attempts = sql`coalesce(json_extract(${oneTimeTokens.data}, '$.attempts'), 0)`;
  const [claimed, rows] = await runBatch(ctx.db, [
    ctx.db
      .update(oneTimeTokens)
      .set({ data: sql`json_set(${oneTimeTokens.data}, '$.attempts', ${attempts} + 1)` as unknown as Record<string, unknown> })
      .where(
        and(
          eq(oneTimeTokens.tokenHash, hash),
          eq(oneTimeTokens.kind, "verification"),
          gt(oneTimeTokens.expiresAt, nowIso()),
          sql`${attempts} < ${MAX_CODE_ATTEMPTS}`,
        ),
      )
      .returning(),
    ctx.db
      .select()
      .from(identities)
      .where(sql`${identities.id} = (SELECT ${oneTimeTokens.identityId} FROM ${oneTimeTokens} WHERE ${oneTimeTokens.tokenHash} = ${hash})`),
  ]);
  const token = claimed[0];
  const row = rows[0];
  if (!token || !row) throw invalidStateToken();
  const data = token.data as { codeHash?: string; attempts?: number };
  const expected = data.codeHash ?? "";
  const actual = await codeHash(req.stateToken, req.code.replace(/\s+/g, ""));
  if (actual.length !== expected.length || !timingSafeEqualHex(actual, expected)) {
    const used = Number(data.attempts ?? MAX_CODE_ATTEMPTS);
    const left = Math.max(0, MAX_CODE_ATTEMPTS - used);
    if (left === 0) {
      await ctx.db.delete(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, hash));
      throw new ApiError(400, "VERIFICATION_ATTEMPTS_EXCEEDED", "Too many wrong codes; log in again to get a new code", {
        message: "Too many wrong codes",
      });
    }
    throw new ApiError(400, "INVALID_VERIFICATION_CODE", `The code is wrong; ${left} ${left === 1 ? "attempt" : "attempts"} left`, {
      data: { attemptsLeft: left },
      message: "Wrong verification code",
    });
  }
  if (row.status !== "ACTIVE" && row.status !== "PENDING") throw notUsable(row);

  const reasons = withoutReason(row.pendingReasons, "EMAIL_VERIFICATION_REQUIRED");
  const status = row.status === "PENDING" && reasons.length === 0 ? "ACTIVE" : row.status;
  const now = nowIso();
  const patch = { status, pendingReasons: reasons, emailVerified: true, updatedDate: now };
  const success = status === "ACTIVE";
  const session = success ? await prepareSession(ctx.db, row.id) : null;
  try {
    await runBatch(ctx.db, [
      // The state token is used once: the batch stops unless this request is the one that removed it.
      ctx.db.delete(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, hash)),
      assertPreviousChanged(ctx.db),
      ctx.db.update(identities).set(success ? { ...patch, lastLoginDate: now } : patch).where(eq(identities.id, row.id)),
      revokeOneTimeFor(ctx.db, "verification", row.id),
      ...(session ? [session.statement] : []),
      clearAssertions(ctx.db),
    ]);
  } catch (err) {
    if (isAssertionFailure(err)) throw invalidStateToken();
    throw err;
  }
  const identity = toWireIdentity({ ...row, ...patch });
  return session ? { state: "SUCCESS", sessionToken: session.token, identity } : { state: "REQUIRE_OWNER_APPROVAL", identity };
}

function timingSafeEqualHex(a: string, b: string): boolean {
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Emails a new code for a verification in progress (POST /v1/auth/resend); the previous code stops working. */
export async function resendCode(ctx: Ctx, req: { stateToken: string }): Promise<Record<string, never>> {
  const hash = await tokenHash("verification", req.stateToken);
  const [found] = await ctx.db
    .select({ token: oneTimeTokens, identity: identities })
    .from(oneTimeTokens)
    .innerJoin(identities, eq(identities.id, oneTimeTokens.identityId))
    .where(and(eq(oneTimeTokens.tokenHash, hash), eq(oneTimeTokens.kind, "verification"), gt(oneTimeTokens.expiresAt, nowIso())));
  if (!found) throw invalidStateToken();
  const row = found.identity;
  if (row.status !== "ACTIVE" && row.status !== "PENDING") throw notUsable(row);
  await hitLimits(ctx.db, [LIMITS.codeEmails(row.id)]);
  const code = newCode();
  const data = { ...(found.token.data as Record<string, unknown>), codeHash: await codeHash(req.stateToken, code), attempts: 0 };
  const expiresAt = new Date(Date.now() + VERIFICATION_TTL_SECONDS * 1000).toISOString();
  const [updated] = await ctx.db
    .update(oneTimeTokens)
    .set({ data, expiresAt })
    .where(eq(oneTimeTokens.tokenHash, hash))
    .returning({ tokenHash: oneTimeTokens.tokenHash });
  if (!updated) throw invalidStateToken();
  await emailCode(ctx, row, code);
  return {};
}

// ---------------------------------------------------------------------------------------------------------------
// Recovery and activation links

/**
 * Where a recovery link may send the member after the new password is set: this store's own origin, or a redirect
 * URI registered for the given OAuth client. Anything else is dropped (no open redirect through our emails).
 */
async function allowedRedirect(ctx: Ctx, redirect: { url?: string; clientId?: string } | null | undefined): Promise<string | undefined> {
  if (!redirect?.url) return undefined;
  let url: URL;
  try {
    url = new URL(redirect.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (url.origin === publicOrigin(ctx)) return url.toString();
  if (!redirect.clientId) return undefined;
  const [client] = await ctx.db.select().from(oauthClients).where(eq(oauthClients.id, redirect.clientId));
  if (!client) return undefined;
  if (client.allowAnyRedirect && ctx.env.ENVIRONMENT !== "production") return url.toString();
  return client.redirectUris.some((allowed) => allowed === url.toString() || allowed === redirect.url) ? url.toString() : undefined;
}

/**
 * Emails a password recovery link (POST /v1/send-email). Always answers `{}`, whether or not the email has an account,
 * so addresses cannot be probed; a new link revokes the older ones. At most a few emails per address per hour.
 */
export async function sendRecoveryEmail(
  ctx: Ctx,
  req: { email: string; redirect?: { url?: string; clientId?: string } | null },
  client: ClientInfo = {},
): Promise<Record<string, never>> {
  const origin = emailLinkOrigin(ctx);
  if (client.ip) await hitLimits(ctx.db, [LIMITS.recoveryAddress(client.ip)]);
  const perEmail = await LIMITS.recoveryEmail(req.email);
  const [hits, rows] = await runBatch(ctx.db, [hitStatement(ctx.db, perEmail), byEmail(ctx.db, req.email)]);
  const row = rows[0];
  // Over the per-address limit, or no usable account: the same empty answer, and no email.
  if (!row || (hits[0]?.count ?? 0) > perEmail.max || row.status === "BLOCKED" || row.status === "DELETED") return {};
  const redirectUrl = await allowedRedirect(ctx, req.redirect);
  const { token, statement } = await prepareOneTime(ctx.db, "recovery", RECOVERY_TTL_SECONDS, row.id, redirectUrl ? { redirectUrl } : {});
  await runBatch(ctx.db, [revokeOneTimeFor(ctx.db, "recovery", row.id), statement]);
  const url = `${origin}/reset-password?token=${encodeURIComponent(token)}`;
  await sendEmail(ctx, row.email, "recovery-link", { url, name: displayName(row) });
  return {};
}

/**
 * Emails a member an activation link that sets a password and activates the account (POST /v1/activation-email;
 * settings.manage). Owner and staff accounts are invited from the staff page, never here.
 */
export async function sendActivationEmail(
  ctx: Ctx,
  req: { identityId: string; emailOptions?: { redirect?: { url?: string; clientId?: string } | null } | null },
): Promise<Record<string, never>> {
  requirePermission(ctx, "settings.manage");
  const origin = emailLinkOrigin(ctx);
  const [row] = await byId(ctx.db, req.identityId);
  if (!row || row.status === "DELETED") throw memberNotFound(req.identityId);
  if (row.role !== "MEMBER") throw forbidden("Owner and staff accounts are managed on the staff page, not here");
  if (row.status === "BLOCKED") throw notUsable(row);
  const redirectUrl = await allowedRedirect(ctx, req.emailOptions?.redirect);
  const { token, statement } = await prepareOneTime(ctx.db, "activation", ACTIVATION_TTL_SECONDS, row.id, redirectUrl ? { redirectUrl } : {});
  await runBatch(ctx.db, [revokeOneTimeFor(ctx.db, "activation", row.id), statement]);
  const url = `${origin}/reset-password?token=${encodeURIComponent(token)}&activation=1`;
  await sendEmail(ctx, row.email, "activation-link", { url, name: displayName(row) });
  return {};
}

/** Whether a recovery or activation link's token is still usable (the reset page says so before asking for a password). */
export async function recoveryLinkIsLive(ctx: Ctx, token: string): Promise<boolean> {
  if (!token || token.length > 512) return false;
  const hashes = await Promise.all([tokenHash("recovery", token), tokenHash("activation", token)]);
  const [row] = await ctx.db
    .select({ hash: oneTimeTokens.tokenHash })
    .from(oneTimeTokens)
    .where(and(inArray(oneTimeTokens.tokenHash, hashes), inArray(oneTimeTokens.kind, ["recovery", "activation"]), gt(oneTimeTokens.expiresAt, nowIso())));
  return Boolean(row);
}

/**
 * Sets a new password with a recovery or activation link's token (POST /v1/recover). The token works once. The email
 * counts as verified (the member read it) and a required reset is cleared; the answer is the login state machine's.
 */
export async function recover(ctx: Ctx, req: { recoveryToken: string; password: string }): Promise<StateResult & { redirectUrl?: string }> {
  const hashes = await Promise.all([tokenHash("recovery", req.recoveryToken), tokenHash("activation", req.recoveryToken)]);
  const [found] = await ctx.db
    .select({ token: oneTimeTokens, identity: identities })
    .from(oneTimeTokens)
    .innerJoin(identities, eq(identities.id, oneTimeTokens.identityId))
    .where(and(inArray(oneTimeTokens.tokenHash, hashes), inArray(oneTimeTokens.kind, ["recovery", "activation"]), gt(oneTimeTokens.expiresAt, nowIso())));
  if (!found) throw invalidRecoveryToken();
  const row = found.identity;
  if (row.status === "BLOCKED" || row.status === "DELETED") throw notUsable(row);

  const passwordHash = await hashPassword(req.password);
  const reasons = withoutReason(row.pendingReasons, "EMAIL_VERIFICATION_REQUIRED");
  const status = reasons.length ? "PENDING" : "ACTIVE";
  const now = nowIso();
  const patch = { passwordHash, passwordResetRequired: false, emailVerified: true, pendingReasons: reasons, status, updatedDate: now } as const;
  const session = status === "ACTIVE" ? await prepareSession(ctx.db, row.id) : null;
  try {
    await runBatch(ctx.db, [
      ctx.db.delete(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, found.token.tokenHash)),
      assertPreviousChanged(ctx.db),
      // A new password ends every session begun with the old one (the new session below is begun after it).
      ctx.db
        .update(identities)
        .set({ ...(session ? { ...patch, lastLoginDate: now } : patch), sessionGeneration: sql`${identities.sessionGeneration} + 1` })
        .where(eq(identities.id, row.id)),
      ctx.db
        .delete(oneTimeTokens)
        .where(and(eq(oneTimeTokens.identityId, row.id), inArray(oneTimeTokens.kind, ["recovery", "activation", "verification", "session", "auth_code"]))),
      resetPrefixStatement(ctx.db, (await LIMITS.loginAccount(row.email)).key),
      ...(session ? [session.statement] : []),
      clearAssertions(ctx.db),
    ]);
  } catch (err) {
    if (isAssertionFailure(err)) throw invalidRecoveryToken();
    throw err;
  }
  const identity = toWireIdentity({ ...row, ...patch, pendingReasons: [...reasons] });
  const redirectUrl = (found.token.data as { redirectUrl?: string }).redirectUrl;
  const extra = redirectUrl ? { redirectUrl } : {};
  return session ? { state: "SUCCESS", sessionToken: session.token, identity, ...extra } : { state: "REQUIRE_OWNER_APPROVAL", identity, ...extra };
}

// ---------------------------------------------------------------------------------------------------------------
// The owner's side: list, approve, block

/** `%text%` for LIKE, with the text's own wildcards (and the escape character "!") escaped: ESCAPE '!'. */
const likeText = (text: string) => `%${text.replace(/[!%_]/g, (ch) => `!${ch}`)}%`;

/**
 * Members for the console, newest first, optionally by status and by a search `q` (part of the email, first or last
 * name, case-insensitive) (merchant only). One D1 round trip: the page and the count in one batch.
 */
export async function listMembers(
  ctx: Ctx,
  req: { status?: IdentityRow["status"]; q?: string; limit?: number; offset?: number } = {},
): Promise<{ members: WireIdentity[]; metadata: { count: number; offset: number; total: number } }> {
  requireMerchant(ctx);
  const limit = Math.min(Math.max(req.limit ?? 50, 1), 100);
  const offset = Math.max(req.offset ?? 0, 0);
  const q = req.q?.trim().toLowerCase().slice(0, 100);
  const conditions: SQL[] = [eq(identities.role, "MEMBER")];
  if (req.status) conditions.push(eq(identities.status, req.status));
  if (q) {
    const pattern = likeText(q);
    conditions.push(
      sql`(${identities.email} LIKE ${pattern} ESCAPE '!' OR lower(coalesce(json_extract(${identities.profile}, '$.firstName'), '')) LIKE ${pattern} ESCAPE '!' OR lower(coalesce(json_extract(${identities.profile}, '$.lastName'), '')) LIKE ${pattern} ESCAPE '!')`,
    );
  }
  const where = and(...conditions);
  const [rows, [total]] = await runBatch(ctx.db, [
    ctx.db.select().from(identities).where(where).orderBy(desc(identities.createdDate), identities.id).limit(limit).offset(offset),
    ctx.db.select({ n: count() }).from(identities).where(where),
  ]);
  return { members: rows.map(toWireIdentity), metadata: { count: rows.length, offset, total: total?.n ?? 0 } };
}

/** One member (merchant only). */
export async function getMember(ctx: Ctx, identityId: string): Promise<{ identity: WireIdentity }> {
  requireMerchant(ctx);
  const [row] = await byId(ctx.db, identityId);
  if (!row || row.role !== "MEMBER") throw memberNotFound(identityId);
  return { identity: toWireIdentity(row) };
}

/** Applies a status change to a member, guarded against a concurrent change (the row must still be as read). */
async function changeMember(
  ctx: Ctx,
  identityId: string,
  decide: (row: IdentityRow) => Partial<Pick<IdentityRow, "status" | "pendingReasons">> | null,
): Promise<{ identity: WireIdentity }> {
  requirePermission(ctx, "settings.manage");
  const [row] = await byId(ctx.db, identityId);
  if (!row || row.status === "DELETED") throw memberNotFound(identityId);
  if (row.role !== "MEMBER") throw forbidden("Owner and staff accounts are managed on the staff page, not here");
  const patch = decide(row);
  if (!patch) return { identity: toWireIdentity(row) };
  const next = { ...patch, updatedDate: nowIso() };
  const statements: BatchItem<"sqlite">[] = [
    ctx.db
      .update(identities)
      .set(next)
      .where(and(eq(identities.id, row.id), eq(identities.updatedDate, row.updatedDate)))
      .returning({ id: identities.id }),
  ];
  // A blocked member's open links, codes and session tokens die with the block.
  if (next.status === "BLOCKED") statements.push(ctx.db.delete(oneTimeTokens).where(eq(oneTimeTokens.identityId, row.id)));
  const [changed] = (await runBatch(ctx.db, statements)) as [{ id: string }[]];
  if (!changed.length) throw conflict("This member");
  return { identity: toWireIdentity({ ...row, ...next }) };
}

/** Approves a member waiting for the owner (PENDING, ADMIN_APPROVAL_REQUIRED): ACTIVE once nothing else is pending. */
export function approveMember(ctx: Ctx, identityId: string) {
  return changeMember(ctx, identityId, (row) => {
    if (row.status === "ACTIVE") return null;
    if (row.status !== "PENDING") {
      throw new ApiError(400, "MEMBER_NOT_PENDING", `Member ${row.id} is ${row.status}, not waiting for approval`, { message: "Member is not pending" });
    }
    const reasons = withoutReason(row.pendingReasons, "ADMIN_APPROVAL_REQUIRED");
    return { pendingReasons: reasons, status: reasons.length ? "PENDING" : "ACTIVE" };
  });
}

/** Blocks a member (also how the owner rejects a pending one): they can no longer log in, and their tokens stop working. */
export function blockMember(ctx: Ctx, identityId: string) {
  return changeMember(ctx, identityId, (row) => (row.status === "BLOCKED" ? null : { status: "BLOCKED" }));
}

/** Rejects a member waiting for approval: blocks them. */
export const rejectMember = blockMember;

/** Lifts a block: the member is ACTIVE again (or PENDING, if something is still pending). */
export function unblockMember(ctx: Ctx, identityId: string) {
  return changeMember(ctx, identityId, (row) => {
    if (row.status !== "BLOCKED") return null;
    return { status: row.pendingReasons.length ? "PENDING" : "ACTIVE" };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The member's own profile (account pages)

function requireMemberCaller(ctx: Ctx): string {
  if (ctx.auth.kind === "member") return ctx.auth.identityId;
  if (ctx.auth.kind === "anonymous") throw unauthenticated("Reading or changing your profile needs the member's access token");
  throw forbidden("Only a logged-in member has a profile");
}

/** The calling member's own identity (profile, email). */
export async function getOwnIdentity(ctx: Ctx): Promise<{ identity: WireIdentity }> {
  const identityId = requireMemberCaller(ctx);
  const [row] = await byId(ctx.db, identityId);
  if (!row || row.status === "DELETED") throw memberNotFound(identityId);
  return { identity: toWireIdentity(row) };
}

/** The profile fields a member may change themselves: names, phones and addresses (the login email is not one). */
export const OWN_PROFILE_FIELDS = ["firstName", "lastName", "nickname", "phones", "addresses"] as const;

/**
 * Changes the calling member's own profile: each of OWN_PROFILE_FIELDS given replaces the stored one (null or an
 * empty value clears it); other profile fields stay. Validated with the same profile schema as registration; a
 * concurrent change of the same identity makes this one fail with 409, changing nothing.
 */
export async function updateOwnProfile(ctx: Ctx, patch: Record<string, unknown>): Promise<{ identity: WireIdentity }> {
  const identityId = requireMemberCaller(ctx);
  const given = Object.fromEntries(Object.entries(patch).filter(([k]) => (OWN_PROFILE_FIELDS as readonly string[]).includes(k)));
  const parsed = parseProfile(given);
  const [row] = await byId(ctx.db, identityId);
  if (!row || row.status === "DELETED") throw memberNotFound(identityId);
  const profile: Record<string, unknown> = { ...(row.profile ?? {}) };
  for (const key of Object.keys(given)) {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete profile[key];
    else profile[key] = value;
  }
  const updatedDate = nowIso();
  const [changed] = await runBatch(ctx.db, [
    ctx.db
      .update(identities)
      .set({ profile, updatedDate })
      .where(and(eq(identities.id, row.id), eq(identities.updatedDate, row.updatedDate)))
      .returning({ id: identities.id }),
  ]);
  if (!changed.length) throw conflict("Your profile");
  return { identity: toWireIdentity({ ...row, profile, updatedDate }) };
}

function parseProfile(input: Record<string, unknown>) {
  const result = profileSchema.safeParse(input);
  if (result.success) return result.data;
  throw invalidArgument(violationsFrom(result.error, input, "profile"));
}

/** The read of a member's email and profile, for another domain's batch (e.g. whom an abandoned-cart email greets). */
export function memberContactRead(db: Db, identityId: string) {
  return db.select({ email: identities.email, profile: identities.profile }).from(identities).where(eq(identities.id, identityId));
}
