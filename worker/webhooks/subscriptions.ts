import { and, count, desc, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { actorOf, nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { type EventEnvelope, webhookAttempts, webhookDeliveries, webhookSubscriptions } from "#worker/events";
import { ApiError, badField, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { httpUrl } from "#worker/platform/validation";
import { enqueueDeliveries } from "./outgoing";
import { targetUrlProblem } from "./addresses";
import { generateSecret, shopKey } from "./signing";
import { config } from "#worker/platform/config";
import { nowMs } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Outgoing webhook subscriptions (merchant only): which events go to which URL, in which format. A standard
 * subscription's secret is shown once, at creation and at each rotation; after a rotation the old secret keeps
 * signing beside the new one for a day, so the receiver can switch over without losing a delivery.
 */

type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** How long the previous secret keeps signing after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 3600_000;

/** Checks a target URL (addresses.ts targetUrlProblem) and returns it without its fragment; a refusal is a 400 on `field`. */
export function checkTargetUrl(env: Env, raw: string, field = "url"): string {
  const problem = targetUrlProblem(env, raw);
  if (problem) throw badField(field, problem, "FORMAT");
  const url = new URL(raw);
  url.hash = "";
  return url.toString();
}

const eventTypes = z
  .union([z.literal("*"), z.array(z.string().trim().min(1).max(200)).min(1).max(100)])
  .transform((v) => (v === "*" ? ["*"] : [...new Set(v)]));

export const createSubscriptionRequest = z
  .object({
    url: httpUrl({ max: 2000 }),
    eventTypes,
    format: z.enum(["standard", "wix"]).default("standard"),
    description: z.string().trim().max(500).default(""),
    enabled: z.boolean().default(true),
  })
  .strict();

export const updateSubscriptionRequest = z
  .object({
    url: httpUrl({ max: 2000 }).optional(),
    eventTypes: eventTypes.optional(),
    description: z.string().trim().max(500).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export function subscriptionShape(r: SubscriptionRow) {
  return {
    id: r.id,
    url: r.url,
    eventTypes: r.eventTypes,
    format: r.format,
    description: r.description,
    enabled: r.enabled,
    disabledReason: r.disabledReason,
    consecutiveFailures: r.consecutiveFailures,
    /** After a rotation: until when the old secret still signs beside the new one (never the secret itself). */
    previousSecretExpiresDate: r.previousSecret ? r.previousSecretExpiresAt : null,
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
  };
}

export function deliveryShape(r: DeliveryRow, attempts: (typeof webhookAttempts.$inferSelect)[] = []) {
  return {
    id: r.id,
    subscriptionId: r.subscriptionId,
    eventId: r.eventId,
    eventType: r.eventType,
    status: r.status,
    attemptCount: r.attempts,
    nextAttemptDate: r.status === "PENDING" ? r.nextAttemptAt : null,
    lastError: r.lastError,
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
    event: r.event,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedDate: a.startedDate,
      succeeded: a.succeeded,
      responseStatus: a.responseStatus,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
    })),
  };
}

async function findSubscription(ctx: Ctx, id: string): Promise<SubscriptionRow> {
  const [row] = await ctx.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id));
  if (!row) throw notFound("WEBHOOK_SUBSCRIPTION_NOT_FOUND", "Webhook subscription", id);
  return row;
}

/** The wix format signs with the shop's RSA key, so it needs one configured. */
async function requireSigningKey(env: Env) {
  const configured = config(env).webhookSigningKey;
  if (!configured)
    throw badField("format", "wix needs the shop's RSA signing key (the WEBHOOK_SIGNING_KEY secret), which is not configured", "VALIDATION");
  return shopKey(configured);
}

/** Creates a subscription; a standard one's secret is in the answer and never again. */
export async function createSubscription(ctx: Ctx, input: z.output<typeof createSubscriptionRequest>) {
  requirePermission(ctx, "automations.manage");
  const url = checkTargetUrl(ctx.env, input.url);
  if (input.format === "wix") await requireSigningKey(ctx.env);
  const now = nowIso();
  const row: SubscriptionRow = {
    id: newId(),
    url,
    description: input.description,
    eventTypes: input.eventTypes,
    format: input.format,
    secret: generateSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    enabled: input.enabled,
    disabledReason: null,
    consecutiveFailures: 0,
    createdDate: now,
    updatedDate: now,
  };
  await ctx.db.insert(webhookSubscriptions).values(row);
  return { subscription: subscriptionShape(row), ...(row.format === "standard" ? { secret: row.secret } : {}) };
}

/** Every subscription, with how many of its deliveries failed every attempt (what needs the merchant's attention). */
export async function listSubscriptions(ctx: Ctx) {
  requireMerchant(ctx);
  // Plain SQL with the outer table named: inside a subquery drizzle would leave the outer column unqualified.
  const failedDeliveries = sql<number>`(SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = "webhook_subscriptions"."id" AND d.status = 'FAILED')`;
  const rows = await ctx.db
    .select({ ...getTableColumns(webhookSubscriptions), failedDeliveries })
    .from(webhookSubscriptions)
    .orderBy(webhookSubscriptions.createdDate, webhookSubscriptions.id);
  return { subscriptions: rows.map((r) => ({ ...subscriptionShape(r), failedDeliveries: Number(r.failedDeliveries) })) };
}

export async function getSubscription(ctx: Ctx, id: string) {
  requireMerchant(ctx);
  return { subscription: subscriptionShape(await findSubscription(ctx, id)) };
}

/** Changes the URL, event types, description, or enables / disables it (enabling clears the failure count). */
export async function updateSubscription(ctx: Ctx, id: string, input: z.output<typeof updateSubscriptionRequest>) {
  requirePermission(ctx, "automations.manage");
  const url = input.url === undefined ? undefined : checkTargetUrl(ctx.env, input.url);
  const row = await findSubscription(ctx, id);
  const enabling = input.enabled === true && !row.enabled;
  // A URL saved before the target rules tightened must be changed before the subscription sends again.
  if (enabling && url === undefined) checkTargetUrl(ctx.env, row.url);
  const [updated] = await ctx.db
    .update(webhookSubscriptions)
    .set({
      url: url ?? row.url,
      eventTypes: input.eventTypes ?? row.eventTypes,
      description: input.description ?? row.description,
      enabled: input.enabled ?? row.enabled,
      ...(enabling ? { disabledReason: null, consecutiveFailures: 0 } : {}),
      ...(input.enabled === false && row.enabled ? { disabledReason: "Disabled by the merchant" } : {}),
      updatedDate: nowIso(),
    })
    .where(eq(webhookSubscriptions.id, id))
    .returning();
  if (!updated) throw notFound("WEBHOOK_SUBSCRIPTION_NOT_FOUND", "Webhook subscription", id);
  return { subscription: subscriptionShape(updated) };
}

/** Deletes a subscription with its deliveries and their attempt log. */
export async function deleteSubscription(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  const [row] = await ctx.db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).returning();
  if (!row) throw notFound("WEBHOOK_SUBSCRIPTION_NOT_FOUND", "Webhook subscription", id);
  return {};
}

/** A new secret, shown once; the old one keeps signing beside it for a day. */
export async function rotateSubscriptionSecret(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  const row = await findSubscription(ctx, id);
  if (row.format !== "standard")
    throw new ApiError(409, "WEBHOOK_SUBSCRIPTION_NO_SECRET", "Wix-format subscriptions are signed with the shop's RSA key, not a secret", {
      data: { id },
    });
  const secret = generateSecret();
  const [updated] = await ctx.db
    .update(webhookSubscriptions)
    .set({
      secret,
      previousSecret: row.secret,
      previousSecretExpiresAt: new Date(nowMs() + ROTATION_OVERLAP_MS).toISOString(),
      updatedDate: nowIso(),
    })
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.secret, row.secret)))
    .returning();
  if (!updated)
    throw new ApiError(409, "WEBHOOK_SECRET_CHANGED", "The secret was rotated by another request at the same time; try again", { data: { id } });
  return { subscription: subscriptionShape(updated), secret };
}

async function attemptsOf(ctx: Ctx, deliveryIds: string[]) {
  if (deliveryIds.length === 0) return new Map<string, (typeof webhookAttempts.$inferSelect)[]>();
  const rows = await ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds)).orderBy(webhookAttempts.attempt);
  const byDelivery = new Map<string, (typeof webhookAttempts.$inferSelect)[]>();
  for (const r of rows) byDelivery.set(r.deliveryId, [...(byDelivery.get(r.deliveryId) ?? []), r]);
  return byDelivery;
}

/**
 * A subscription's deliveries, newest first, each with its attempt log, and the subscription itself: one round trip
 * (the attempts are those of the same page of deliveries, chosen by a subquery).
 */
export async function listDeliveries(ctx: Ctx, subscriptionId: string, opts: { status?: DeliveryRow["status"]; limit: number; offset: number }) {
  requireMerchant(ctx);
  const where = and(eq(webhookDeliveries.subscriptionId, subscriptionId), opts.status ? eq(webhookDeliveries.status, opts.status) : undefined);
  const page = ctx.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(where)
    .orderBy(desc(webhookDeliveries.createdDate), desc(webhookDeliveries.id))
    .limit(opts.limit)
    .offset(opts.offset);
  const [[subscription], rows, [{ total }], attemptRows] = await runBatch(ctx.db, [
    ctx.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, subscriptionId)),
    ctx.db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdDate), desc(webhookDeliveries.id))
      .limit(opts.limit)
      .offset(opts.offset),
    ctx.db.select({ total: count() }).from(webhookDeliveries).where(where),
    ctx.db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, page)).orderBy(webhookAttempts.attempt),
  ]);
  if (!subscription) throw notFound("WEBHOOK_SUBSCRIPTION_NOT_FOUND", "Webhook subscription", subscriptionId);
  const attempts = new Map<string, (typeof webhookAttempts.$inferSelect)[]>();
  for (const a of attemptRows) attempts.set(a.deliveryId, [...(attempts.get(a.deliveryId) ?? []), a]);
  return {
    subscription: subscriptionShape(subscription),
    deliveries: rows.map((r) => deliveryShape(r, attempts.get(r.id))),
    metadata: { count: rows.length, offset: opts.offset, total },
  };
}

export async function getDelivery(ctx: Ctx, id: string) {
  requireMerchant(ctx);
  const [row] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  if (!row) throw notFound("WEBHOOK_DELIVERY_NOT_FOUND", "Webhook delivery", id);
  return { delivery: deliveryShape(row, (await attemptsOf(ctx, [id])).get(id)) };
}

/** The type of the event "Send a test event" sends (it is never emitted otherwise, so nobody subscribes to it). */
export const TEST_EVENT_TYPE = "webhook.test";

/**
 * Sends a test event to one subscription through the normal delivery path: a delivery row for this subscription
 * alone (not through the outbox, which would fan it out to every "*" subscription), then the delivery job, which
 * signs, sends, logs the attempt and retries like any other. The subscription must be enabled.
 */
export async function sendTestEvent(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  const subscription = await findSubscription(ctx, id);
  if (!subscription.enabled) {
    throw new ApiError(409, "WEBHOOK_SUBSCRIPTION_DISABLED", "The subscription is disabled: enable it before sending a test event", { data: { id } });
  }
  const now = nowIso();
  const eventId = newId();
  const event: EventEnvelope = {
    id: eventId,
    type: TEST_EVENT_TYPE,
    entityId: subscription.id,
    eventTime: now,
    actor: actorOf(ctx.auth),
    data: { subscriptionId: subscription.id, message: "A test event sent from the merchant console or API. It changes nothing." },
  };
  const row: DeliveryRow = {
    id: newId(),
    subscriptionId: subscription.id,
    eventId,
    eventType: TEST_EVENT_TYPE,
    event: event as unknown as Record<string, unknown>,
    status: "PENDING",
    attempts: 0,
    scheduleAttempts: 0,
    nextAttemptAt: now,
    lastError: null,
    createdDate: now,
    updatedDate: now,
  };
  await ctx.db.insert(webhookDeliveries).values(row);
  // If this send fails the delivery is overdue PENDING, and the sweep enqueues it.
  ctx.waitUntil(enqueueDeliveries(ctx.env, [row.id]));
  return { delivery: deliveryShape(row) };
}

/**
 * Sends a delivery again now, whatever its state, with a fresh retry schedule (the attempt log continues). The
 * subscription must be enabled.
 */
export async function redeliver(ctx: Ctx, id: string) {
  requirePermission(ctx, "automations.manage");
  const [row] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  if (!row) throw notFound("WEBHOOK_DELIVERY_NOT_FOUND", "Webhook delivery", id);
  const subscription = await findSubscription(ctx, row.subscriptionId);
  if (!subscription.enabled) {
    throw new ApiError(409, "WEBHOOK_SUBSCRIPTION_DISABLED", "The subscription is disabled: enable it before redelivering", {
      data: { id, subscriptionId: subscription.id },
    });
  }
  const now = nowIso();
  const [updated] = await ctx.db
    .update(webhookDeliveries)
    .set({ status: "PENDING", scheduleAttempts: 0, nextAttemptAt: now, updatedDate: now })
    .where(eq(webhookDeliveries.id, id))
    .returning();
  if (!updated) throw notFound("WEBHOOK_DELIVERY_NOT_FOUND", "Webhook delivery", id);
  // If this send fails the delivery is overdue PENDING, and the sweep enqueues it.
  ctx.waitUntil(enqueueDeliveries(ctx.env, [id]));
  return { delivery: deliveryShape(updated, (await attemptsOf(ctx, [id])).get(id)) };
}

/** The shop's public key for verifying wix-format deliveries (PEM SPKI), as the Wix SDK's AppStrategy takes it. */
export async function webhookPublicKey(env: Env) {
  const configured = config(env).webhookSigningKey;
  if (!configured)
    throw new ApiError(404, "WEBHOOK_SIGNING_KEY_NOT_CONFIGURED", "No RSA signing key is configured (the WEBHOOK_SIGNING_KEY secret)", {
      message: "Not found",
    });
  return { publicKey: (await shopKey(configured)).publicKeyPem, algorithm: "RS256" };
}
