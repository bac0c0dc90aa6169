import { eq } from "drizzle-orm";
import { nowIso, type Ctx } from "#worker/platform/context";
import { newId } from "#worker/platform/ids";
import { hashPassword, PASSWORD_MIN_LENGTH } from "./passwords";
import { identities } from "./tables";
import { config } from "#worker/platform/config";

/**
 * The store owner's account: an identity with role OWNER, created on first start from OWNER_EMAIL and
 * OWNER_PASSWORD (.dev.vars locally, `wrangler secret put` in production). The store has one owner.
 */

/** OWNER_EMAIL (lower-cased) and OWNER_PASSWORD, or null when either is unset. */
export function ownerCredentials(env: Env): { email: string; password: string } | null {
  const { ownerEmail: email, ownerPassword: password } = config(env);
  if (!email || !password) return null;
  return { email: email.toLowerCase(), password };
}

/**
 * Inserts an ACTIVE, verified account with a hashed password unless the email is taken (never overwrites).
 * Returns whether it was inserted.
 */
async function insertReadyIdentity(
  ctx: Ctx,
  email: string,
  password: string,
  role: "OWNER" | "MEMBER",
  profile: Record<string, unknown>,
): Promise<boolean> {
  const now = nowIso();
  const result = await ctx.db
    .insert(identities)
    .values({
      id: newId(),
      email,
      passwordHash: await hashPassword(password),
      status: "ACTIVE",
      pendingReasons: [],
      role,
      emailVerified: true,
      profile,
      createdDate: now,
      updatedDate: now,
    })
    .onConflictDoNothing({ target: identities.email });
  return result.meta.changes === 1;
}

export interface EnsureOwnerResult {
  /** Whether this call created the account. */
  created: boolean;
  /** The owner's login email (the existing owner's when there is one), or null when there is none. */
  email: string | null;
  /** Why nothing was created, when that is not simply "the owner already exists". */
  reason?: string;
}

/**
 * Creates the owner's account (ACTIVE, email verified, role OWNER, password hashed) if the store has no owner yet.
 * Idempotent: an existing owner is never touched — in particular its password is never overwritten, so changing
 * OWNER_PASSWORD later changes nothing (the owner changes it by logging in or through recovery). An existing
 * account with OWNER_EMAIL that is not the owner's is never promoted.
 */
export async function ensureOwner(ctx: Ctx): Promise<EnsureOwnerResult> {
  const [owner] = await ctx.db.select({ email: identities.email }).from(identities).where(eq(identities.role, "OWNER")).limit(1);
  if (owner) return { created: false, email: owner.email };
  const credentials = ownerCredentials(ctx.env);
  if (!credentials) return { created: false, email: null, reason: "OWNER_EMAIL and OWNER_PASSWORD are not set" };
  const { email, password } = credentials;
  if (password.length < PASSWORD_MIN_LENGTH) {
    return { created: false, email: null, reason: `OWNER_PASSWORD is shorter than ${PASSWORD_MIN_LENGTH} characters` };
  }
  if (await insertReadyIdentity(ctx, email, password, "OWNER", {})) return { created: true, email };
  // The email is taken: by an owner created concurrently, or by someone else's account, which stays theirs.
  const [existing] = await ctx.db.select({ role: identities.role }).from(identities).where(eq(identities.email, email)).limit(1);
  if (existing?.role === "OWNER") return { created: false, email };
  return { created: false, email: null, reason: `an account with the email ${email} already exists and is not the owner's; it was left as it is` };
}

/**
 * Local development only: a ready shopper account (DEMO_SHOPPER_EMAIL / DEMO_SHOPPER_PASSWORD in .dev.vars), so the
 * member pages can be tried without reading a verification code. Never in production; never overwrites an account.
 */
export async function ensureDemoShopper(ctx: Ctx): Promise<{ created: boolean; email: string | null }> {
  const { demoShopperEmail, demoShopperPassword: password, production } = config(ctx.env);
  const email = demoShopperEmail?.toLowerCase();
  if (production || !email || !password || password.length < PASSWORD_MIN_LENGTH) return { created: false, email: null };
  return { created: await insertReadyIdentity(ctx, email, password, "MEMBER", { firstName: "Demo", lastName: "Shopper" }), email };
}
