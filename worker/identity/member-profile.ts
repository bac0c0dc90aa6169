import { and, eq } from "drizzle-orm";
import { nowIso, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { conflict } from "#worker/platform/batch";
import { forbidden, unauthenticated } from "#worker/platform/errors";
import { identities } from "./tables";
import { invalidArgument } from "#worker/platform/errors";
import { violationsFrom } from "#worker/platform/validation";
import { profileSchema } from "./schemas";
import { runBatch } from "#worker/platform/unit-of-work";
import { byId, memberNotFound, toWireIdentity, type WireIdentity } from "./member-common";

/** The member's own identity and profile (account pages), and the contact other domains read. */

// ---------------------------------------------------------------------------------------------------------------
// The member's own profile (account pages)

export function requireMemberCaller(ctx: Ctx): string {
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
