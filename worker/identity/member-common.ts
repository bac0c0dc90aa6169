import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { sendEmail } from "#worker/email";
import type { Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, notFound } from "#worker/platform/errors";
import { sha256Hex } from "#worker/platform/ids";
import { hitLimits, LIMITS } from "#worker/platform/rate-limit";
import { prepareOneTime, randomSecret, revokeOneTimeFor } from "./one-time";
import type { StoredProfile } from "./schemas";
import { identities } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/** What the member services share: the identity row and its wire shape, constants, errors, and the session and code helpers. */

export type IdentityRow = typeof identities.$inferSelect;
export type PendingReason = "EMAIL_VERIFICATION_REQUIRED" | "ADMIN_APPROVAL_REQUIRED";

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

/** Identity error codes the Wix SDK compares as strings. */
export const IDENTITY_CODES = {
  emailExists: "-19995",
  invalidPassword: "-19976",
  resetPassword: "-19973",
  missingCaptcha: "-19971",
  invalidCaptcha: "-19970",
} as const;

export const invalidCredentials = () =>
  new ApiError(401, IDENTITY_CODES.invalidPassword, "The email or password is incorrect", { message: "Invalid email or password" });

export const emailExists = () =>
  new ApiError(409, IDENTITY_CODES.emailExists, "An account with this email already exists; log in or reset the password", {
    message: "Email already exists",
  });

export const resetRequired = () =>
  new ApiError(400, IDENTITY_CODES.resetPassword, "This account needs a new password: use the password recovery email to set one", {
    message: "Password reset required",
  });

export function notUsable(row: IdentityRow): ApiError {
  if (row.status === "BLOCKED")
    return new ApiError(403, "MEMBER_BLOCKED", "This account is blocked; contact the store", { message: "Account blocked" });
  if (row.status === "OFFLINE") {
    return new ApiError(403, "MEMBER_NOT_ACTIVATED", "This account is not activated yet; use the activation or password recovery email", {
      message: "Account not activated",
    });
  }
  return new ApiError(403, "MEMBER_DELETED", "This account was deleted", { message: "Account deleted" });
}

export const invalidStateToken = () =>
  new ApiError(400, "INVALID_STATE_TOKEN", "The verification is unknown, expired, already used or out of attempts; log in again to get a new code", {
    message: "Invalid or expired verification",
  });

export const invalidRecoveryToken = () =>
  new ApiError(400, "INVALID_RECOVERY_TOKEN", "This link is invalid, expired or was already used; ask for a new one", {
    message: "Invalid or expired link",
  });

export const memberNotFound = (id: string) => notFound("MEMBER_NOT_FOUND", "Member", id, "identityId");

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

export const byEmail = (db: Db, email: string) => db.select().from(identities).where(eq(identities.email, email)).limit(1);
export const byId = (db: Db, id: string) => db.select().from(identities).where(eq(identities.id, id)).limit(1);

export function displayName(row: IdentityRow): string | undefined {
  const p = (row.profile ?? {}) as StoredProfile;
  return p.firstName || p.nickname || undefined;
}

/** A 6-digit code, uniform over 000000..999999. */
export function newCode(): string {
  const buf = new Uint32Array(1);
  let x: number;
  do {
    crypto.getRandomValues(buf);
    x = buf[0];
  } while (x >= 4_294_000_000);
  return String(x % 1_000_000).padStart(6, "0");
}

export const codeHash = (stateToken: string, code: string) => sha256Hex(`code:${stateToken}:${code}`);
export const tokenHash = (kind: string, token: string) => sha256Hex(`${kind}:${token}`);

export function withoutReason(reasons: string[], reason: PendingReason): string[] {
  return reasons.filter((r) => r !== reason);
}

/** The session token insert for a member who reached SUCCESS (batchable), and the token. */
export function prepareSession(db: Db, identityId: string) {
  return prepareOneTime(db, "session", SESSION_TOKEN_TTL_SECONDS, identityId, {});
}

/**
 * A new verification state for an identity: a state token the client keeps and a code emailed to the member. Older
 * states of the identity are revoked in the same batch, so only the newest code works.
 */
export async function prepareVerification(db: Db, identityId: string, target: "EMAIL" | "AUTH_ONLY" = "EMAIL") {
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

export function emailCode(ctx: Ctx, row: IdentityRow, code: string) {
  return sendEmail(ctx, row.email, "verification-code", { code, name: displayName(row) });
}

/** Creates a verification state, emails its code (counted against the per-account email limit) and answers REQUIRE_EMAIL_VERIFICATION. */
export async function requireVerification(ctx: Ctx, row: IdentityRow): Promise<StateResult> {
  await hitLimits(ctx.db, [LIMITS.codeEmails(row.id)]);
  const v = await prepareVerification(ctx.db, row.id);
  await runBatch(ctx.db, v.statements);
  await emailCode(ctx, row, v.code);
  return { state: "REQUIRE_EMAIL_VERIFICATION", stateToken: v.stateToken, identity: toWireIdentity(row) };
}
