import { and, count, desc, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { conflict } from "#worker/platform/batch";
import { ApiError, forbidden } from "#worker/platform/errors";
import { identities, oneTimeTokens } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import { byId, type IdentityRow, memberNotFound, toWireIdentity, type WireIdentity, withoutReason } from "./member-common";

/** The owner's side of members: list, read, approve and block. */

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
  if (row?.role !== "MEMBER") throw memberNotFound(identityId);
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
      throw new ApiError(400, "MEMBER_NOT_PENDING", `Member ${row.id} is ${row.status}, not waiting for approval`, {
        message: "Member is not pending",
      });
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
