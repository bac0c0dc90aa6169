import { and, asc, count, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "../../platform/context";
import { ApiError, badField, notFound } from "../../platform/errors";
import { newId } from "../../platform/ids";
import { webhookEvents, webhookSources, type WebhookKey } from "../tables";
import { generateSecret, importPublicKey, secretKeyBytes } from "./signing";

/**
 * Incoming webhook sources (merchant only): a system allowed to post events to `/webhooks/{name}`, verified with its
 * Standard Webhooks secrets or, in the Wix format, its RSA public keys. A generated secret is shown once, at creation
 * or when added; lists show only the keys' ids and dates. Two keys at once make a rotation: add the new one, switch
 * the sender over, remove the old one.
 */

type SourceRow = typeof webhookSources.$inferSelect;

const sourceName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be 1 to 63 lower-case letters, digits, '-' or '_' (it is the endpoint's path)");

export const createSourceRequest = z
  .object({
    name: sourceName,
    description: z.string().trim().max(500).default(""),
    format: z.enum(["standard", "wix"]).default("standard"),
    /** standard: a `whsec_` secret to use instead of a generated one. */
    secret: z.string().trim().optional(),
    /** wix: the sender's RSA public key (PEM SPKI, or base64 of it). */
    publicKey: z.string().trim().optional(),
  })
  .strict();

export const updateSourceRequest = z.object({ name: sourceName.optional(), description: z.string().trim().max(500).optional() }).strict();

export const addKeyRequest = z.object({ secret: z.string().trim().optional(), publicKey: z.string().trim().optional() }).strict();

/** The endpoint a source posts to. */
export const sourceUrl = (ctx: Ctx, name: string) => `${ctx.origin}/webhooks/${name}`;

function sourceShape(ctx: Ctx, r: SourceRow) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    format: r.format,
    url: sourceUrl(ctx, r.name),
    // Secrets are shown once; a public key is public.
    keys: r.keys.map((k) => ({ id: k.id, createdDate: k.createdDate, ...(r.format === "wix" ? { publicKey: k.value } : {}) })),
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
  };
}

/** A key for a source of this format from the request: a checked secret or public key, or a new secret. */
async function newKey(format: SourceRow["format"], input: { secret?: string; publicKey?: string }): Promise<WebhookKey> {
  const createdDate = nowIso();
  if (format === "wix") {
    if (input.secret !== undefined) throw badField("secret", "is not used by the wix format (give publicKey)", "FIELD_NOT_ALLOWED");
    if (!input.publicKey) throw badField("publicKey", "is required for the wix format", "REQUIRED_FIELD");
    const imported = await importPublicKey(input.publicKey);
    if (!imported) throw badField("publicKey", "must be an RSA public key: PEM (SPKI) or that PEM in base64", "FORMAT");
    return { id: newId(), value: imported.pem, createdDate };
  }
  if (input.publicKey !== undefined) throw badField("publicKey", "is not used by the standard format (give secret)", "FIELD_NOT_ALLOWED");
  const secret = input.secret ?? generateSecret();
  if (!secretKeyBytes(secret)) throw badField("secret", "must be whsec_ followed by 24 to 64 bytes in base64", "FORMAT");
  return { id: newId(), value: secret, createdDate };
}

/** The secret to show once (standard format), or nothing. */
const shownOnce = (format: SourceRow["format"], key: WebhookKey) => (format === "standard" ? { secret: key.value } : {});

async function findSource(ctx: Ctx, id: string): Promise<SourceRow> {
  const [row] = await ctx.db.select().from(webhookSources).where(eq(webhookSources.id, id));
  if (!row) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return row;
}

function nameTaken(name: string): ApiError {
  return new ApiError(409, "WEBHOOK_SOURCE_NAME_TAKEN", `A webhook source named "${name}" already exists`, { data: { name } });
}

async function ensureNameFree(ctx: Ctx, name: string, exceptId?: string) {
  const [other] = await ctx.db.select({ id: webhookSources.id }).from(webhookSources).where(eq(webhookSources.name, name));
  if (other && other.id !== exceptId) throw nameTaken(name);
}

/** Creates a source; its generated (or given) secret is in the answer and never again. */
export async function createSource(ctx: Ctx, input: z.output<typeof createSourceRequest>) {
  requirePermission(ctx, "automations.manage");
  const key = await newKey(input.format, input);
  await ensureNameFree(ctx, input.name);
  const now = nowIso();
  const row: SourceRow = { id: newId(), name: input.name, description: input.description, format: input.format, keys: [key], createdDate: now, updatedDate: now };
  const [inserted] = await ctx.db.insert(webhookSources).values(row).onConflictDoNothing().returning();
  if (!inserted) throw nameTaken(input.name);
  return { source: sourceShape(ctx, row), ...shownOnce(row.format, key) };
}

export async function listSources(ctx: Ctx) {
  requireMerchant(ctx);
  const rows = await ctx.db.select().from(webhookSources).orderBy(asc(webhookSources.createdDate), asc(webhookSources.id));
  return { sources: rows.map((r) => sourceShape(ctx, r)) };
}

export async function getSource(ctx: Ctx, id: string) {
  requireMerchant(ctx);
  return { source: sourceShape(ctx, await findSource(ctx, id)) };
}

/** Renames a source (its endpoint path changes with it) or changes its description. */
export async function updateSource(ctx: Ctx, id: string, input: z.output<typeof updateSourceRequest>) {
  requirePermission(ctx, "automations.manage");
  const row = await findSource(ctx, id);
  if (input.name !== undefined) await ensureNameFree(ctx, input.name, id);
  const [updated] = await ctx.db
    .update(webhookSources)
    .set({ name: input.name ?? row.name, description: input.description ?? row.description, updatedDate: nowIso() })
    .where(eq(webhookSources.id, id))
    .returning();
  if (!updated) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return { source: sourceShape(ctx, updated) };
}

/** Adds a key (a rotation's new secret or public key); both keys verify until the old one is removed. */
export async function addSourceKey(ctx: Ctx, id: string, input: z.output<typeof addKeyRequest>) {
  requirePermission(ctx, "automations.manage");
  const row = await findSource(ctx, id);
  if (row.keys.length >= 5) throw new ApiError(409, "WEBHOOK_SOURCE_TOO_MANY_KEYS", "A source holds at most 5 keys: remove an old one first", { data: { id } });
  const key = await newKey(row.format, input);
  const keys = [...row.keys, key];
  const [updated] = await ctx.db.update(webhookSources).set({ keys, updatedDate: nowIso() }).where(eq(webhookSources.id, id)).returning();
  if (!updated) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return { source: sourceShape(ctx, updated), keyId: key.id, ...shownOnce(row.format, key) };
}

/** Removes a key (the end of a rotation); a source keeps at least one. */
export async function removeSourceKey(ctx: Ctx, id: string, keyId: string) {
  requirePermission(ctx, "automations.manage");
  const row = await findSource(ctx, id);
  if (!row.keys.some((k) => k.id === keyId)) throw notFound("WEBHOOK_KEY_NOT_FOUND", "Webhook source key", keyId);
  if (row.keys.length === 1) throw new ApiError(409, "WEBHOOK_SOURCE_LAST_KEY", "A source needs at least one key: add the new one before removing this one", { data: { id, keyId } });
  const [updated] = await ctx.db
    .update(webhookSources)
    .set({ keys: row.keys.filter((k) => k.id !== keyId), updatedDate: nowIso() })
    .where(eq(webhookSources.id, id))
    .returning();
  return { source: sourceShape(ctx, updated ?? row) };
}

/** Deletes a source: its endpoint answers 404 from then on (events it sent stay processed). */
export async function deleteSource(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  const [row] = await ctx.db.delete(webhookSources).where(eq(webhookSources.id, id)).returning();
  if (!row) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return {};
}

/** What a source sent, newest first: ACCEPTED events (queued to their processors) and UNHANDLED ones (stored only). */
export async function listSourceEvents(ctx: Ctx, id: string, opts: { status?: "ACCEPTED" | "UNHANDLED"; limit: number; offset: number }) {
  requireMerchant(ctx);
  await findSource(ctx, id);
  const where = and(eq(webhookEvents.sourceId, id), opts.status ? eq(webhookEvents.status, opts.status) : undefined);
  const [rows, [{ total }]] = await ctx.db.batch([
    ctx.db.select().from(webhookEvents).where(where).orderBy(desc(webhookEvents.receivedDate), desc(webhookEvents.id)).limit(opts.limit).offset(opts.offset),
    ctx.db.select({ total: count() }).from(webhookEvents).where(where),
  ]);
  const events = rows.map((r) => ({ id: r.id, webhookId: r.webhookId, type: r.type, status: r.status, receivedDate: r.receivedDate, data: r.data }));
  return { events, metadata: { count: rows.length, offset: opts.offset, total } };
}
