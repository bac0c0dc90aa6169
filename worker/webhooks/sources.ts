import { and, asc, count, desc, eq, getTableColumns, sql } from "drizzle-orm";
import { z } from "zod";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { ApiError, badField, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { webhookEvents, webhookSources, type WebhookKey } from "#worker/events";
import {
  authorityProblem,
  checkSourceEventTypes,
  configurerOf,
  configurerReads,
  requireSourcePermissions,
  type IdentityNow,
  type KeyNow,
  type KnownEvents,
} from "./authority";
import { DEFAULT_SOURCE_EVENT_TYPES } from "./event-types";
import { generateSecret, importPublicKey, secretKeyBytes } from "./signing";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Incoming webhook sources (merchant only): a system allowed to post events to `/webhooks/{name}`, verified with its
 * Standard Webhooks secrets or, in the Wix format, its RSA public keys. A generated secret is shown once, at creation
 * or when added; lists show only the keys' ids and dates. Two keys at once make a rotation: either add the new one,
 * switch the sender over and remove the old one, or rotate with an overlap window (`rotateSourceKey`): the old keys
 * get an expiry and stop verifying after it, without anyone having to come back and remove them.
 *
 * A source may send only the event types it is allowed (`eventTypes`, default `inventory.updated`), and acts for
 * whoever last created it, re-keyed it or set its types (authority.ts): doing so needs the permissions those types
 * need (inventory.write for stock), and each event is applied only while that person still holds them.
 */

type SourceRow = typeof webhookSources.$inferSelect;

const sourceName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be 1 to 63 lower-case letters, digits, '-' or '_' (it is the endpoint's path)");

// At least one: checked by the services (after the caller's permission), so a form with none ticked gets a 403 first.
const sourceEventTypes = z.array(z.string().trim().min(1).max(200)).max(50);

export const createSourceRequest = z
  .object({
    name: sourceName,
    description: z.string().trim().max(500).default(""),
    format: z.enum(["standard", "wix"]).default("standard"),
    /** standard: a `whsec_` secret to use instead of a generated one. */
    secret: z.string().trim().optional(),
    /** wix: the sender's RSA public key (PEM SPKI, or base64 of it). */
    publicKey: z.string().trim().optional(),
    /** The event types it may send: types the shop takes from outside (default inventory.updated). */
    eventTypes: sourceEventTypes.optional(),
  })
  .strict();

export const updateSourceRequest = z
  .object({
    name: sourceName.optional(),
    description: z.string().trim().max(500).optional(),
    enabled: z.boolean().optional(),
    eventTypes: sourceEventTypes.optional(),
  })
  .strict();

/** The longest overlap a rotation may give the old keys: 30 days. */
export const MAX_OVERLAP_MINUTES = 30 * 24 * 60;

export const rotateKeyRequest = z
  .object({
    secret: z.string().trim().optional(),
    publicKey: z.string().trim().optional(),
    /** How long the current keys keep verifying beside the new one (0: they stop now). */
    overlapMinutes: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_MINUTES)
      .default(24 * 60),
  })
  .strict();

/** Whether a key still verifies at `now` (keys without an expiry always do). */
export const keyActive = (key: WebhookKey, now: number) => !key.expiresAt || Date.parse(key.expiresAt) > now;

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
    keys: r.keys.map((k) => ({
      id: k.id,
      createdDate: k.createdDate,
      expiresDate: k.expiresAt ?? null,
      ...(r.format === "wix" ? { publicKey: k.value } : {}),
    })),
    enabled: r.enabled,
    eventTypes: r.eventTypes,
    /** Who its events act for (API_KEY or MEMBER, their id, the permissions they held then), or null. */
    configuredBy: r.configuredBy
      ? {
          type: r.configuredBy.kind === "apiKey" ? "API_KEY" : "MEMBER",
          id: r.configuredBy.id,
          role: r.configuredBy.role,
          permissions: r.configuredBy.permissions,
          date: r.configuredBy.date,
        }
      : null,
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
export async function createSource(ctx: Ctx, input: z.output<typeof createSourceRequest>, known: KnownEvents) {
  requirePermission(ctx, "automations.manage");
  const eventTypes = checkSourceEventTypes(input.eventTypes ?? [...DEFAULT_SOURCE_EVENT_TYPES], known);
  requireSourcePermissions(ctx, eventTypes, "create");
  const key = await newKey(input.format, input);
  await ensureNameFree(ctx, input.name);
  const now = nowIso();
  const row: SourceRow = {
    id: newId(),
    name: input.name,
    description: input.description,
    format: input.format,
    keys: [key],
    enabled: true,
    eventTypes,
    configuredBy: configurerOf(ctx.auth),
    createdDate: now,
    updatedDate: now,
  };
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
  const [[row], [identity], [key]] = await runBatch(ctx.db, [
    ctx.db.select().from(webhookSources).where(eq(webhookSources.id, id)),
    ...configurerReads(ctx.db, id),
  ]);
  if (!row) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return { source: { ...sourceShape(ctx, row), refusing: refusing(row, identity, key) } };
}

/** The allowed types whose events are refused now, and why (the configurer lost the permission, or none is recorded). */
function refusing(row: SourceRow, identity: IdentityNow | undefined, key: KeyNow | undefined) {
  return row.eventTypes.flatMap((type) => {
    const reason = authorityProblem(row.configuredBy, type, identity, key);
    return reason ? [{ type, reason }] : [];
  });
}

/**
 * Renames a source (its endpoint path changes with it), changes its description, disables / enables it, or sets
 * the event types it may send. Enabling needs the permissions its types need; setting the types makes the caller
 * the one its events act for.
 */
export async function updateSource(ctx: Ctx, id: string, input: z.output<typeof updateSourceRequest>, known: KnownEvents) {
  requirePermission(ctx, "automations.manage");
  const eventTypes = input.eventTypes === undefined ? undefined : checkSourceEventTypes(input.eventTypes, known);
  const row = await findSource(ctx, id);
  if (eventTypes) requireSourcePermissions(ctx, eventTypes, "allow");
  if (input.enabled === true && !row.enabled) requireSourcePermissions(ctx, eventTypes ?? row.eventTypes, "enable");
  if (input.name !== undefined) await ensureNameFree(ctx, input.name, id);
  const [updated] = await ctx.db
    .update(webhookSources)
    .set({
      name: input.name ?? row.name,
      description: input.description ?? row.description,
      enabled: input.enabled ?? row.enabled,
      ...(eventTypes ? { eventTypes, configuredBy: configurerOf(ctx.auth) } : {}),
      updatedDate: nowIso(),
    })
    .where(eq(webhookSources.id, id))
    .returning();
  if (!updated) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return { source: sourceShape(ctx, updated) };
}

/** Adds a key (a rotation's new secret or public key); both keys verify until the old one is removed. */
export async function addSourceKey(ctx: Ctx, id: string, input: z.output<typeof addKeyRequest>) {
  requirePermission(ctx, "automations.manage");
  const row = await findSource(ctx, id);
  requireSourcePermissions(ctx, row.eventTypes, "add a key to");
  if (row.keys.length >= 5)
    throw new ApiError(409, "WEBHOOK_SOURCE_TOO_MANY_KEYS", "A source holds at most 5 keys: remove an old one first", { data: { id } });
  const key = await newKey(row.format, input);
  const keys = [...row.keys, key];
  const [updated] = await ctx.db
    .update(webhookSources)
    .set({ keys, configuredBy: configurerOf(ctx.auth), updatedDate: nowIso() })
    .where(eq(webhookSources.id, id))
    .returning();
  if (!updated) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return { source: sourceShape(ctx, updated), keyId: key.id, ...shownOnce(row.format, key) };
}

/**
 * Rotates with an overlap window: a new key (a generated secret, or the given secret / public key), and every
 * current key keeps verifying until `overlapMinutes` from now (an earlier expiry stays). Keys already expired are
 * dropped. The new secret is in the answer and never again.
 */
export async function rotateSourceKey(ctx: Ctx, id: string, input: z.output<typeof rotateKeyRequest>) {
  requirePermission(ctx, "automations.manage");
  const row = await findSource(ctx, id);
  requireSourcePermissions(ctx, row.eventTypes, "rotate the key of");
  const key = await newKey(row.format, input);
  const now = Date.now();
  const until = new Date(now + input.overlapMinutes * 60_000).toISOString();
  const kept = row.keys.filter((k) => keyActive(k, now)).map((k) => ({ ...k, expiresAt: k.expiresAt && k.expiresAt < until ? k.expiresAt : until }));
  if (kept.length >= 5)
    throw new ApiError(409, "WEBHOOK_SOURCE_TOO_MANY_KEYS", "A source holds at most 5 keys: remove an old one first", { data: { id } });
  // Only if nobody changed the keys meanwhile: a concurrent rotation must not be lost.
  const [updated] = await ctx.db
    .update(webhookSources)
    .set({ keys: [...kept, key], configuredBy: configurerOf(ctx.auth), updatedDate: nowIso() })
    .where(and(eq(webhookSources.id, id), eq(webhookSources.updatedDate, row.updatedDate)))
    .returning();
  if (!updated)
    throw new ApiError(409, "WEBHOOK_SOURCE_CHANGED", "The source was changed by another request at the same time; try again", { data: { id } });
  return { source: sourceShape(ctx, updated), keyId: key.id, ...shownOnce(row.format, key) };
}

/** Removes a key (the end of a rotation); a source keeps at least one. */
export async function removeSourceKey(ctx: Ctx, id: string, keyId: string) {
  requirePermission(ctx, "automations.manage");
  const row = await findSource(ctx, id);
  if (!row.keys.some((k) => k.id === keyId)) throw notFound("WEBHOOK_KEY_NOT_FOUND", "Webhook source key", keyId);
  if (row.keys.length === 1)
    throw new ApiError(409, "WEBHOOK_SOURCE_LAST_KEY", "A source needs at least one key: add the new one before removing this one", {
      data: { id, keyId },
    });
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

export type SourceEventStatus = (typeof webhookEvents.$inferSelect)["status"];

/**
 * What a source sent, newest first: ACCEPTED events (queued to their processors), UNHANDLED ones (stored only),
 * DUPLICATE repeats and REFUSED requests with the reason.
 */
export async function listSourceEvents(ctx: Ctx, id: string, opts: { status?: SourceEventStatus; limit: number; offset: number }) {
  requireMerchant(ctx);
  const where = and(eq(webhookEvents.sourceId, id), opts.status ? eq(webhookEvents.status, opts.status) : undefined);
  // How an accepted event fared in its processors: the state of its failure record (keyed by the event id, or
  // "id#processor" for one processor's failure), if any; none means it went through.
  // Plain SQL with the outer table named: inside a subquery drizzle would leave the outer column unqualified.
  const failure = sql<"RETRYING" | "DEAD" | "REPLAYED" | null>`(SELECT f.state FROM event_failures f
    WHERE f.id = "webhook_events"."id" OR substr(f.id, 1, length("webhook_events"."id") + 1) = "webhook_events"."id" || '#'
    ORDER BY CASE f.state WHEN 'DEAD' THEN 0 WHEN 'RETRYING' THEN 1 ELSE 2 END LIMIT 1)`;
  // The source with its page of events, in one round trip.
  const [[source], rows, [{ total }], [identity], [key]] = await runBatch(ctx.db, [
    ctx.db.select().from(webhookSources).where(eq(webhookSources.id, id)),
    ctx.db
      .select({ ...getTableColumns(webhookEvents), failure })
      .from(webhookEvents)
      .where(where)
      .orderBy(desc(webhookEvents.receivedDate), desc(webhookEvents.id))
      .limit(opts.limit)
      .offset(opts.offset),
    ctx.db.select({ total: count() }).from(webhookEvents).where(where),
    ...configurerReads(ctx.db, id),
  ]);
  const events = rows.map((r) => ({
    id: r.id,
    // DUPLICATE and REFUSED rows carry an internal key; the sender's id (if it gave one) is in their data.
    webhookId: r.status === "DUPLICATE" || r.status === "REFUSED" ? ((r.data.webhookId as string | undefined) ?? null) : r.webhookId,
    type: r.type,
    status: r.status,
    reason: r.reason,
    /** ACCEPTED only: RETRYING or DEAD while a processor fails, REPLAYED after a replay, null when it went through. */
    processing: r.status === "ACCEPTED" ? r.failure : null,
    receivedDate: r.receivedDate,
    data: r.data,
  }));
  if (!source) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", id);
  return {
    source: { ...sourceShape(ctx, source), refusing: refusing(source, identity, key) },
    events,
    metadata: { count: rows.length, offset: opts.offset, total },
  };
}
