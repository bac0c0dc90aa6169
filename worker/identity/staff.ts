import { and, asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { sendEmail } from "#worker/email";
import { isPermission, nowIso, PERMISSIONS, requireMerchant, requireOwner, type Ctx, type Permission } from "#worker/platform/context";
import { ApiError, forbidden, notFound } from "#worker/platform/errors";
import { newId, sha256Hex } from "#worker/platform/ids";
import { emailLinkOrigin } from "#worker/platform/public-origin";
import { prepareOneTime, randomSecret, revokeOneTimeFor } from "./one-time";
import { apiKeys, identities } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The store's staff and API keys (a merchant extension, not a Wix call): the owner invites staff, who set their
 * own password through an activation link, and creates API keys, shown once and stored as their SHA-256. A staff
 * member or a STAFF key may do the merchant work its permissions name, and never manage staff or keys.
 */

/** How long a staff invitation's activation link works. */
export const ACTIVATION_TTL_SECONDS = 7 * 24 * 60 * 60;

const name = (max: number) => z.string().trim().min(1).max(max);

/** The permissions a staff member holds: any of PERMISSIONS, each at most once. */
const permissionList = z
  .array(z.enum(PERMISSIONS))
  .max(PERMISSIONS.length)
  .transform((list) => [...new Set(list)]);

export const inviteStaffRequest = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: "must be an email address" }).max(254)),
  firstName: name(100).optional(),
  lastName: name(100).optional(),
  /** What the new staff member may do (none by default: they can look, not change). */
  permissions: permissionList.optional(),
});

export const updateStaffRequest = z.object({ permissions: permissionList });

export const createApiKeyRequest = z.object({
  name: name(100),
  role: z.enum(["OWNER", "STAFF"]),
  /** What a STAFF key may do (none by default: it can read, not change); an OWNER key holds every permission. */
  permissions: permissionList.optional(),
});

export const updateApiKeyRequest = z.object({ permissions: permissionList });

type IdentityRow = typeof identities.$inferSelect;
type ApiKeyRow = typeof apiKeys.$inferSelect;

/** A staff member (or the owner) on the wire. */
export interface StaffMember {
  id: string;
  email: string;
  role: "OWNER" | "STAFF";
  /** What the owner lets this staff member do; the owner holds every permission. */
  permissions: Permission[];
  /** PENDING until they set their password through the activation link; BLOCKED once removed. */
  status: IdentityRow["status"];
  firstName?: string;
  lastName?: string;
  createdDate: string;
  updatedDate: string;
  lastLoginDate?: string;
}

/** An API key on the wire: never the key itself. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  role: "OWNER" | "STAFF";
  /** What the key may do; an OWNER key holds every permission. */
  permissions: Permission[];
  /** The key's first characters (`sk_` + 6), to tell keys apart; absent for keys made before it was kept. */
  prefix?: string;
  createdDate: string;
  revokedDate?: string;
}

function toStaff(row: IdentityRow): StaffMember {
  const profile = row.profile as { firstName?: unknown; lastName?: unknown };
  return {
    id: row.id,
    email: row.email,
    role: row.role === "OWNER" ? "OWNER" : "STAFF",
    permissions: row.role === "OWNER" ? [...PERMISSIONS] : row.permissions.filter(isPermission),
    status: row.status,
    ...(typeof profile.firstName === "string" ? { firstName: profile.firstName } : {}),
    ...(typeof profile.lastName === "string" ? { lastName: profile.lastName } : {}),
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    ...(row.lastLoginDate ? { lastLoginDate: row.lastLoginDate } : {}),
  };
}

function toApiKey(row: Pick<ApiKeyRow, "id" | "name" | "role" | "permissions" | "keyPrefix" | "createdDate" | "revokedDate">): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    permissions: row.role === "OWNER" ? [...PERMISSIONS] : row.permissions.filter(isPermission),
    ...(row.keyPrefix ? { prefix: row.keyPrefix } : {}),
    createdDate: row.createdDate,
    ...(row.revokedDate ? { revokedDate: row.revokedDate } : {}),
  };
}

/** The columns an API key is shown with (never the hash). */
const apiKeyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  role: apiKeys.role,
  permissions: apiKeys.permissions,
  keyPrefix: apiKeys.keyPrefix,
  createdDate: apiKeys.createdDate,
  revokedDate: apiKeys.revokedDate,
};

/** How many characters of a key are kept in plain: `sk_` and 6 of its 43 random ones (too few to guess the rest). */
const KEY_PREFIX_LENGTH = 9;

/** Where a staff member goes once their activation link set their password: the console's sign-in. */
export const STAFF_LANDING = "/console/login";

/** The page where an invited staff member sets their password (the reset page, in activation mode), on the shop's public origin. */
export function activationUrl(origin: string, token: string): string {
  return `${origin}/reset-password?token=${encodeURIComponent(token)}&activation=1`;
}

async function emailActivation(ctx: Ctx, origin: string, row: Pick<IdentityRow, "id" | "email" | "profile">, token: string) {
  const firstName = (row.profile as { firstName?: unknown }).firstName;
  await sendEmail(ctx, row.email, "activation-link", {
    url: activationUrl(origin, token),
    ...(typeof firstName === "string" ? { name: firstName } : {}),
    expiresInDays: ACTIVATION_TTL_SECONDS / 86400,
  });
}

const isUniqueViolation = (err: unknown) => /UNIQUE constraint failed: identities\.email/.test(String((err as { cause?: unknown })?.cause ?? err));

function emailTaken(email: string): ApiError {
  return new ApiError(409, "ALREADY_EXISTS", `An account with the email ${email} already exists`, { data: { email }, message: "Already exists" });
}

/** Invites a staff member: a PENDING STAFF identity and an emailed one-time activation link (7 days). Owner only. */
export async function inviteStaff(ctx: Ctx, input: z.output<typeof inviteStaffRequest>): Promise<StaffMember> {
  requireOwner(ctx);
  const origin = emailLinkOrigin(ctx);
  const now = nowIso();
  const profile: Record<string, unknown> = {};
  if (input.firstName) profile.firstName = input.firstName;
  if (input.lastName) profile.lastName = input.lastName;
  const row: IdentityRow = {
    id: newId(),
    email: input.email,
    passwordHash: null,
    status: "PENDING",
    pendingReasons: [],
    role: "STAFF",
    permissions: input.permissions ?? [],
    emailVerified: false,
    profile,
    passwordResetRequired: false,
    createdDate: now,
    updatedDate: now,
    lastLoginDate: null,
    sessionGeneration: 0,
  };
  const activation = await prepareOneTime(ctx.db, "activation", ACTIVATION_TTL_SECONDS, row.id, { redirectUrl: STAFF_LANDING });
  try {
    // An existing account (a member, or staff already invited) keeps its email: inviting never takes it over.
    await runBatch(ctx.db, [ctx.db.insert(identities).values(row), activation.statement]);
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken(input.email);
    throw err;
  }
  await emailActivation(ctx, origin, row, activation.token);
  return toStaff(row);
}

async function staffRow(ctx: Ctx, id: string): Promise<IdentityRow> {
  const [row] = await ctx.db
    .select()
    .from(identities)
    .where(and(eq(identities.id, id), inArray(identities.role, ["OWNER", "STAFF"])))
    .limit(1);
  if (!row) throw notFound("STAFF_MEMBER_NOT_FOUND", "Staff member", id);
  return row;
}

/** Sends a new activation link to a staff member who has not set a password yet (older links stop working). Owner only. */
export async function resendActivation(ctx: Ctx, id: string): Promise<StaffMember> {
  requireOwner(ctx);
  const origin = emailLinkOrigin(ctx);
  const row = await staffRow(ctx, id);
  if (row.role !== "STAFF" || row.status !== "PENDING") {
    throw new ApiError(400, "STAFF_MEMBER_NOT_PENDING", `Staff member ${id} is ${row.status}, not waiting for activation`, {
      data: { id, status: row.status },
    });
  }
  const activation = await prepareOneTime(ctx.db, "activation", ACTIVATION_TTL_SECONDS, row.id, { redirectUrl: STAFF_LANDING });
  await runBatch(ctx.db, [revokeOneTimeFor(ctx.db, "activation", row.id), activation.statement]);
  await emailActivation(ctx, origin, row, activation.token);
  return toStaff(row);
}

/** The owner and staff, oldest first. Any merchant may read it. */
export async function listStaff(ctx: Ctx): Promise<StaffMember[]> {
  requireMerchant(ctx);
  const rows = await ctx.db
    .select()
    .from(identities)
    .where(inArray(identities.role, ["OWNER", "STAFF"]))
    .orderBy(asc(identities.createdDate), asc(identities.id));
  return rows.map(toStaff);
}

/**
 * Removes a staff member: BLOCKED, with their open activation links revoked. Their tokens stop working on the next
 * request (every token check reads the identity's status). The owner cannot be removed. Owner only; idempotent.
 */
export async function blockStaff(ctx: Ctx, id: string): Promise<StaffMember> {
  requireOwner(ctx);
  const row = await staffRow(ctx, id);
  if (row.role === "OWNER") throw forbidden("The store owner cannot be removed");
  if (row.status === "BLOCKED") return toStaff(row);
  const updatedDate = nowIso();
  await runBatch(ctx.db, [
    ctx.db.update(identities).set({ status: "BLOCKED", updatedDate }).where(eq(identities.id, id)),
    revokeOneTimeFor(ctx.db, "activation", id),
  ]);
  return toStaff({ ...row, status: "BLOCKED", updatedDate });
}

/**
 * Lets a removed staff member back in: ACTIVE again when they had set a password, else PENDING (the owner sends a
 * new invitation). They sign in afresh; what they may do is as before. Owner only; idempotent.
 */
export async function unblockStaff(ctx: Ctx, id: string): Promise<StaffMember> {
  requireOwner(ctx);
  const row = await staffRow(ctx, id);
  if (row.status !== "BLOCKED") return toStaff(row);
  const status = row.passwordHash ? "ACTIVE" : "PENDING";
  const updatedDate = nowIso();
  await ctx.db
    .update(identities)
    .set({ status, updatedDate })
    .where(and(eq(identities.id, id), eq(identities.status, "BLOCKED")));
  return toStaff({ ...row, status, updatedDate });
}

/** Sets what a staff member may do; it applies from their next request (every token check reads it). Owner only. */
export async function updateStaffPermissions(ctx: Ctx, id: string, input: z.output<typeof updateStaffRequest>): Promise<StaffMember> {
  requireOwner(ctx);
  const row = await staffRow(ctx, id);
  if (row.role === "OWNER") throw forbidden("The store owner holds every permission");
  const updatedDate = nowIso();
  await ctx.db.update(identities).set({ permissions: input.permissions, updatedDate }).where(eq(identities.id, id));
  return toStaff({ ...row, permissions: input.permissions, updatedDate });
}

/** Creates an API key: the key (`sk_…`) is returned here once and only its SHA-256 is kept. Owner only. */
export async function createApiKey(ctx: Ctx, input: z.output<typeof createApiKeyRequest>): Promise<{ apiKey: ApiKeyInfo; key: string }> {
  requireOwner(ctx);
  const key = `sk_${randomSecret(32)}`;
  const permissions = input.role === "OWNER" ? [] : (input.permissions ?? []);
  const row = {
    id: newId(),
    name: input.name,
    keyHash: await sha256Hex(key),
    keyPrefix: key.slice(0, KEY_PREFIX_LENGTH),
    role: input.role,
    permissions,
    createdDate: nowIso(),
    revokedDate: null,
  };
  await ctx.db.insert(apiKeys).values(row);
  return { apiKey: toApiKey(row), key };
}

/** Sets what a STAFF key may do; it applies from the key's next request (every request reads it). Owner only. */
export async function updateApiKeyPermissions(ctx: Ctx, id: string, input: z.output<typeof updateApiKeyRequest>): Promise<ApiKeyInfo> {
  requireOwner(ctx);
  const [row] = await ctx.db.select(apiKeyColumns).from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
  if (!row) throw notFound("API_KEY_NOT_FOUND", "API key", id);
  if (row.role === "OWNER") throw forbidden("An owner key holds every permission");
  if (row.revokedDate) throw new ApiError(400, "API_KEY_REVOKED", `API key ${id} is revoked`, { data: { id }, message: "API key revoked" });
  await ctx.db.update(apiKeys).set({ permissions: input.permissions }).where(eq(apiKeys.id, id));
  return toApiKey({ ...row, permissions: input.permissions });
}

/** Every API key created in the console, revoked ones included, oldest first; never the keys. Any merchant may read it. */
export async function listApiKeys(ctx: Ctx): Promise<ApiKeyInfo[]> {
  requireMerchant(ctx);
  const rows = await ctx.db.select(apiKeyColumns).from(apiKeys).orderBy(asc(apiKeys.createdDate), asc(apiKeys.id));
  return rows.map(toApiKey);
}

/** Revokes an API key: from the next request on, it gets 401. Owner only; revoking twice keeps the first date. */
export async function revokeApiKey(ctx: Ctx, id: string): Promise<ApiKeyInfo> {
  requireOwner(ctx);
  const [row] = await ctx.db.select(apiKeyColumns).from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
  if (!row) throw notFound("API_KEY_NOT_FOUND", "API key", id);
  if (row.revokedDate) return toApiKey(row);
  const revokedDate = nowIso();
  await ctx.db.update(apiKeys).set({ revokedDate }).where(eq(apiKeys.id, id));
  return toApiKey({ ...row, revokedDate });
}
