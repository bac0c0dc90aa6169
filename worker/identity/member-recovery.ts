import { and, eq, gt, inArray, sql } from "drizzle-orm";
import { config } from "#worker/platform/config";
import { sendEmail } from "#worker/email";
import { nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import { assertPreviousChanged, clearAssertions, isAssertionFailure } from "#worker/platform/batch";
import { forbidden } from "#worker/platform/errors";
import { hitLimits, hitStatement, LIMITS, resetPrefixStatement } from "#worker/platform/rate-limit";
import { emailLinkOrigin, publicOrigin } from "#worker/platform/public-origin";
import { prepareOneTime, revokeOneTimeFor } from "./one-time";
import { hashPassword } from "./passwords";
import { identities, oauthClients, oneTimeTokens } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import {
  ACTIVATION_TTL_SECONDS,
  byEmail,
  byId,
  type ClientInfo,
  displayName,
  invalidRecoveryToken,
  memberNotFound,
  notUsable,
  prepareSession,
  RECOVERY_TTL_SECONDS,
  type StateResult,
  tokenHash,
  toWireIdentity,
  withoutReason,
} from "./member-common";

/** Password recovery and account activation links. */

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
  if (client.allowAnyRedirect && !config(ctx.env).production) return url.toString();
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
    .where(
      and(inArray(oneTimeTokens.tokenHash, hashes), inArray(oneTimeTokens.kind, ["recovery", "activation"]), gt(oneTimeTokens.expiresAt, nowIso())),
    );
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
    .where(
      and(inArray(oneTimeTokens.tokenHash, hashes), inArray(oneTimeTokens.kind, ["recovery", "activation"]), gt(oneTimeTokens.expiresAt, nowIso())),
    );
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
        .where(
          and(eq(oneTimeTokens.identityId, row.id), inArray(oneTimeTokens.kind, ["recovery", "activation", "verification", "session", "auth_code"])),
        ),
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
