import { and, eq, gt, sql } from "drizzle-orm";
import { nowMs } from "#worker/platform/clock";
import { isMerchant, nowIso, requirePermission, type Ctx } from "#worker/platform/context";
import { assertPreviousChanged, clearAssertions, isAssertionFailure } from "#worker/platform/batch";
import { ApiError, forbidden, unauthenticated } from "#worker/platform/errors";
import { hitLimits, LIMITS } from "#worker/platform/rate-limit";
import { revokeOneTimeFor } from "./one-time";
import { identities, oneTimeTokens } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import {
  byId,
  type ClientInfo,
  codeHash,
  emailCode,
  invalidStateToken,
  MAX_CODE_ATTEMPTS,
  memberNotFound,
  newCode,
  notUsable,
  prepareSession,
  prepareVerification,
  type StateResult,
  tokenHash,
  toWireIdentity,
  VERIFICATION_TTL_SECONDS,
  withoutReason,
} from "./member-common";

/** Email verification codes: start, check and resend. */

// ---------------------------------------------------------------------------------------------------------------
// Verification codes

/**
 * Starts an email verification (POST /v1/start): a member for themselves, or for any member a merchant holding
 * members.impersonate (the code signs the member in). Emails a code and answers the state token to verify it with
 * (also as verificationId).
 */
export async function startVerification(
  ctx: Ctx,
  req: { identityId: string; target: "EMAIL" | "AUTH_ONLY" },
): Promise<{ verificationId: string; stateToken: string }> {
  const self = ctx.auth.kind === "member" && ctx.auth.identityId === req.identityId;
  if (!self) {
    if (ctx.auth.kind === "anonymous") throw unauthenticated("Starting a verification needs the member's access token or the store's API key");
    if (!isMerchant(ctx.auth)) throw forbidden("A member can start a verification only for themselves");
    requirePermission(ctx, "members.impersonate");
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
      ctx.db
        .update(identities)
        .set(success ? { ...patch, lastLoginDate: now } : patch)
        .where(eq(identities.id, row.id)),
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
  const expiresAt = new Date(nowMs() + VERIFICATION_TTL_SECONDS * 1000).toISOString();
  const [updated] = await ctx.db
    .update(oneTimeTokens)
    .set({ data, expiresAt })
    .where(eq(oneTimeTokens.tokenHash, hash))
    .returning({ tokenHash: oneTimeTokens.tokenHash });
  if (!updated) throw invalidStateToken();
  await emailCode(ctx, row, code);
  return {};
}
