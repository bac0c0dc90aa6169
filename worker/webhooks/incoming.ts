import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { BodyTooLarge, readText } from "#worker/platform/body";
import { nowIso, type Ctx } from "#worker/platform/context";
import { rawStatement } from "#worker/platform/db";
import { ApiError, badField, invalidArgument, notFound } from "#worker/platform/errors";
import { newId, sha256Hex } from "#worker/platform/ids";
import { violationsFrom } from "#worker/platform/validation";
import { commit, outboxInsertIfChanged, type EventEnvelope, webhookEvents, webhookSources } from "#worker/events";
import { importPublicKey, verifyJwt, verifyStandardSignature } from "./signing";
import { sourceAuthorityProblem, type KnownEvents } from "./authority";
import { incomingEventType } from "./event-types";
import { keyActive } from "./sources";
import { parseWixClaims } from "./wix-format";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * `POST /webhooks/{source}`: an event from an outside system. Nothing is stored before the request is verified
 * (401), of a type the source may send and within the rights of whoever configured it (403), well-formed (400 with
 * field violations) and small enough for a queue message (413). An accepted event is
 * recorded with the sender's webhook id and written to the outbox in one D1 batch, so it is never lost and a repeat
 * of the same webhook id changes nothing; the queue then hands it to its processors. A repeat and a refused request
 * are logged (without their body) beside the accepted ones, so the merchant sees what a sender tried and why it was
 * not taken; only the newest REFUSED_LOG_LIMIT of them are kept per source, so nobody can grow the table by posting.
 */

/** The Queue's message limit: a body larger than this could never be enqueued. */
export const MAX_WEBHOOK_BYTES = 128_000;
/** How far `webhook-timestamp` may be from now (Standard Webhooks' replay window). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export type ReceiveStatus = "ACCEPTED" | "DUPLICATE" | "UNHANDLED";

/** How many DUPLICATE and REFUSED log rows a source keeps (the newest). */
export const REFUSED_LOG_LIMIT = 100;

const standardBody = z
  .object({
    type: z.string().trim().min(1).max(200),
    timestamp: z.iso.datetime({ offset: true }),
    data: z.record(z.string(), z.unknown()),
  })
  .strict();

function tooLarge(): ApiError {
  return new ApiError(413, "PAYLOAD_TOO_LARGE", `Webhook bodies are limited to ${MAX_WEBHOOK_BYTES} bytes (a queue message)`, {
    data: { limitBytes: MAX_WEBHOOK_BYTES },
    message: "Payload too large",
  });
}

function rejected(description: string): ApiError {
  return new ApiError(401, "WEBHOOK_SIGNATURE_INVALID", description, { message: "Unauthenticated" });
}

/** Reads the body, refusing it as soon as it passes the limit (never buffering more). */
async function readLimited(request: Request): Promise<string> {
  let text: string | null;
  try {
    text = await readText(request, MAX_WEBHOOK_BYTES);
  } catch (err) {
    throw err instanceof BodyTooLarge ? tooLarge() : err;
  }
  if (text === null) throw badField("body", "is not UTF-8 text", "FORMAT");
  return text;
}

/** The entity an event is about, as far as its data says. */
function entityIdOf(data: Record<string, unknown>): string {
  for (const key of ["entityId", "id", "productId", "cartId", "orderId", "inventoryItemId"]) {
    if (typeof data[key] === "string" && data[key]) return data[key] as string;
  }
  return "";
}

/** Whether anything here handles this type: a payload schema or a processor that names it ("*" ones do not count). */
function isHandled(type: string, { payloadSchemas, processors }: KnownEvents): boolean {
  return type in payloadSchemas || processors.some((p) => p.types !== "*" && p.types.includes(type));
}

interface Verified {
  webhookId: string;
  type: string;
  eventTime: string;
  data: Record<string, unknown>;
}

async function verifyStandard(request: Request, keys: string[], body: string, nowSeconds: number): Promise<Verified> {
  const id = request.headers.get("webhook-id");
  const timestamp = request.headers.get("webhook-timestamp");
  const signature = request.headers.get("webhook-signature");
  if (!id || !timestamp || !signature) throw rejected("webhook-id, webhook-timestamp and webhook-signature headers are required");
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) {
    throw rejected("webhook-timestamp is not within 5 minutes of now");
  }
  if (!(await verifyStandardSignature(keys, id, timestamp, body, signature)))
    throw rejected("webhook-signature does not match any of the source's secrets");
  if (id.length > 256) throw badField("webhook-id", "must be at most 256 characters", "MAX_LENGTH");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    throw badField("body", `is not valid JSON: ${(err as Error).message}`, "FORMAT");
  }
  const parsed = standardBody.safeParse(json);
  if (!parsed.success) throw invalidArgument(violationsFrom(parsed.error, json));
  return { webhookId: id, type: parsed.data.type, eventTime: new Date(parsed.data.timestamp).toISOString(), data: parsed.data.data };
}

async function verifyWix(keys: string[], body: string, nowSeconds: number): Promise<Verified> {
  const publicKeys = (await Promise.all(keys.map(importPublicKey))).flatMap((k) => (k ? [k.key] : []));
  const check = await verifyJwt(body.trim(), publicKeys, nowSeconds, TIMESTAMP_TOLERANCE_SECONDS);
  if (!check.ok) throw rejected(check.reason);
  const envelope = parseWixClaims(check.claims);
  if (!envelope.ok) throw badField(envelope.field, envelope.description, envelope.field === "data.eventType" ? "REQUIRED_FIELD" : "FORMAT");
  const { payload } = envelope;
  // The Wix format has no webhook id of its own, and headers are not signed: the token's jti if given, else the
  // token itself, so a replayed token is recognised whatever headers come with it.
  const webhookId = typeof check.claims.jti === "string" && check.claims.jti ? `jti:${check.claims.jti}` : `jwt:${await sha256Hex(body.trim())}`;
  if (webhookId.length > 256) throw badField("webhook-id", "must be at most 256 characters", "MAX_LENGTH");
  const time =
    typeof payload.eventTime === "string" && !Number.isNaN(Date.parse(payload.eventTime))
      ? new Date(payload.eventTime)
      : typeof check.claims.iat === "number"
        ? new Date(check.claims.iat * 1000)
        : new Date();
  return { webhookId, type: envelope.eventType, eventTime: time.toISOString(), data: payload };
}

type SourceRow = typeof webhookSources.$inferSelect;

/**
 * 403 unless the source may send this type (its allowed types, and only types the shop takes from outside: never
 * one of its own events) and whoever configured it may still do what the type does.
 */
async function checkAllowed(ctx: Ctx, source: SourceRow, type: string): Promise<void> {
  if (!source.eventTypes.includes(type) || !incomingEventType(type)) {
    const allowed = source.eventTypes.filter((t) => incomingEventType(t));
    throw new ApiError(
      403,
      "WEBHOOK_EVENT_TYPE_NOT_ALLOWED",
      `This source may not send ${type.slice(0, 200)}: it may send ${allowed.join(", ") || "nothing"}`,
      {
        data: { type: type.slice(0, 200), allowed },
        message: "Permission denied",
      },
    );
  }
  const problem = await sourceAuthorityProblem(ctx.db, source, type);
  if (problem) throw new ApiError(403, "WEBHOOK_SOURCE_NOT_AUTHORISED", `Not applied: ${problem}`, { data: { type }, message: "Permission denied" });
}

/** The sender's webhook-id header, cut short: kept on a log row to help the merchant match it with the sender's log. */
const claimedId = (request: Request) => request.headers.get("webhook-id")?.slice(0, 100) || undefined;

/** Deletes a source's DUPLICATE and REFUSED log rows beyond the newest REFUSED_LOG_LIMIT. */
const trimLog = (ctx: Ctx, sourceId: string) =>
  rawStatement(
    ctx.db,
    sql`DELETE FROM webhook_events WHERE source_id = ${sourceId} AND status IN ('DUPLICATE', 'REFUSED') AND id NOT IN
      (SELECT id FROM webhook_events WHERE source_id = ${sourceId} AND status IN ('DUPLICATE', 'REFUSED') ORDER BY received_date DESC, id DESC LIMIT ${REFUSED_LOG_LIMIT})`,
  );

/** The reason a refused request is logged with: the answer's status and description, and its field violations. */
function refusalReason(err: ApiError): string {
  const fields = (err.fieldViolations ?? []).map((v) => `${v.field} ${v.description}`).join("; ");
  return `${err.status} ${err.description}${fields ? ` (${fields})` : ""}`.slice(0, 1000);
}

/** The type a refused request claimed, when it was refused for its type (verified by then), else "". */
const refusedType = (err: ApiError) => (err.code.startsWith("WEBHOOK_") && typeof err.data.type === "string" ? err.data.type : "");

/** Verifies, validates and stores one incoming webhook; a refusal is logged with its reason, then answered. */
export async function receiveWebhook(
  ctx: Ctx,
  known: KnownEvents,
  sourceName: string,
  request: Request,
): Promise<{ id: string; status: ReceiveStatus }> {
  const [source] = await ctx.db.select().from(webhookSources).where(eq(webhookSources.name, sourceName));
  if (!source) throw notFound("WEBHOOK_SOURCE_NOT_FOUND", "Webhook source", sourceName, "name");
  try {
    return await receiveFor(ctx, known, source, request);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const data = claimedId(request) ? { webhookId: claimedId(request) } : {};
    const id = newId();
    try {
      await runBatch(ctx.db, [
        ctx.db.insert(webhookEvents).values({
          id,
          sourceId: source.id,
          webhookId: `refused:${id}`,
          type: refusedType(err),
          status: "REFUSED",
          data,
          reason: refusalReason(err),
          receivedDate: nowIso(),
        }),
        trimLog(ctx, source.id),
      ]);
    } catch (logErr) {
      // The sender gets its answer whether or not the log could be written.
      console.error("webhooks: could not log a refused request", logErr);
    }
    throw err;
  }
}

async function receiveFor(ctx: Ctx, known: KnownEvents, source: SourceRow, request: Request): Promise<{ id: string; status: ReceiveStatus }> {
  if (!source.enabled)
    throw new ApiError(403, "WEBHOOK_SOURCE_DISABLED", "The webhook source is disabled by the merchant", { data: { name: source.name } });
  if (Number(request.headers.get("content-length") ?? "0") > MAX_WEBHOOK_BYTES) throw tooLarge();
  const body = await readLimited(request);
  const nowSeconds = Math.floor(Date.now() / 1000);
  // Keys past their rotation overlap no longer verify.
  const keys = source.keys.filter((k) => keyActive(k, Date.now())).map((k) => k.value);
  const verified = source.format === "wix" ? await verifyWix(keys, body, nowSeconds) : await verifyStandard(request, keys, body, nowSeconds);
  await checkAllowed(ctx, source, verified.type);

  const schema = known.payloadSchemas[verified.type];
  if (schema) {
    const parsed = schema.safeParse(verified.data);
    if (!parsed.success) throw invalidArgument(violationsFrom(parsed.error, verified.data, "data"));
  }
  const handled = isHandled(verified.type, known);
  const event: EventEnvelope = {
    id: newId(),
    type: verified.type,
    entityId: entityIdOf(verified.data),
    eventTime: verified.eventTime,
    actor: { type: "APP", id: source.name },
    data: verified.data,
  };
  if (new TextEncoder().encode(JSON.stringify(event)).byteLength > MAX_WEBHOOK_BYTES) throw tooLarge();

  const record = ctx.db
    .insert(webhookEvents)
    .values({
      id: event.id,
      sourceId: source.id,
      webhookId: verified.webhookId,
      type: event.type,
      status: handled ? "ACCEPTED" : "UNHANDLED",
      data: verified.data,
      receivedDate: nowIso(),
    })
    .onConflictDoNothing();
  const existing = ctx.db
    .select({ id: webhookEvents.id, status: webhookEvents.status })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.sourceId, source.id), eq(webhookEvents.webhookId, verified.webhookId)));
  // A repeat is logged as DUPLICATE: the record above inserted nothing, so no row has this request's event id.
  const repeatId = newId();
  const logRepeat = rawStatement(
    ctx.db,
    sql`INSERT INTO webhook_events (id, source_id, webhook_id, type, status, data, reason, received_date)
      SELECT ${repeatId}, ${source.id}, ${`duplicate:${repeatId}`}, ${event.type}, 'DUPLICATE', ${JSON.stringify({ webhookId: verified.webhookId.slice(0, 100) })},
        ${"Already received with this webhook id: acknowledged, not processed again"}, ${nowIso()}
      WHERE NOT EXISTS (SELECT 1 FROM webhook_events WHERE id = ${event.id})`,
  );
  // The outbox row is written only if this request recorded the webhook id (a repeat inserts neither).
  const results = handled
    ? await commit(ctx, [record, outboxInsertIfChanged(ctx.db, event), logRepeat, trimLog(ctx, source.id), existing], (r) =>
        r[0].meta.changes ? [event] : [],
      )
    : await runBatch(ctx.db, [record, logRepeat, trimLog(ctx, source.id), existing]);
  const [inserted] = results;
  const [stored] = results[results.length - 1] as { id: string }[];
  if (!inserted.meta.changes) return { id: stored?.id ?? event.id, status: "DUPLICATE" };
  if (!handled) return { id: event.id, status: "UNHANDLED" };
  return { id: event.id, status: "ACCEPTED" };
}
