import type Stripe from "stripe";
import { desc, eq } from "drizzle-orm";
import { commit, outboxInsertIfChanged, type EventEnvelope } from "#worker/events";
import { nowIso, requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { readText, BodyTooLarge } from "#worker/platform/body";
import { stripeSettings, verifiedEvent } from "./stripe";
import { paymentEvents } from "./tables";

/**
 * `POST /webhooks/stripe`. The Stripe-Signature header is checked first (the package's verifier, 5 minutes'
 * tolerance); nothing is stored for a request that fails it (400, Stripe's convention). A verified event is recorded
 * under Stripe's event id and, for the types the shop acts on, written to the outbox in the same batch, so a repeat
 * of the event changes nothing and each effect runs once, in the orders' processor. An event for an order this shop
 * does not know is stored like any other and skipped by that processor (Stripe gets 200, so it stops retrying).
 */

/** The Stripe event types the shop acts on; each becomes an outbox event named `stripe.<type>`. */
export const STRIPE_EVENT_TYPES = [
  "checkout.session.completed",
  "checkout.session.expired",
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "charge.refunded",
  "refund.updated",
  "charge.dispute.created",
] as const;

/** The outbox event type of a Stripe event type. */
export const stripeEventType = (type: string) => `stripe.${type}`;

/** The outbox event types of the Stripe events the shop acts on. */
export const StripeEventTypes = STRIPE_EVENT_TYPES.map(stripeEventType);

/** What the shop keeps of a Stripe event: the ids and amounts it acts on, nothing about the buyer. */
export interface StripeEventData {
  stripeEventId: string;
  stripeType: string;
  orderId: string | null;
  objectId: string | null;
  paymentIntentId: string | null;
  chargeId: string | null;
  /** A session's payment_status is "paid" (or nothing was due). */
  paid: boolean;
  /** Minor units: the amount paid (sessions, payments), charged (charges) or disputed. */
  amount: number | null;
  /** A charge's amount refunded so far (Stripe's running total). */
  amountRefunded: number | null;
  currency: string | null;
  /** A dispute's reason, a failed payment's error code. */
  reason: string | null;
  /** The refunds the event shows (a refund event's own, a charge's when Stripe lists them), with our refund id. */
  refunds?: StripeRefundData[] | null;
}

/** A Stripe refund as an event shows it; `refundId` is ours (its metadata) when the shop made it. */
export interface StripeRefundData {
  id: string;
  amount: number;
  status: string;
  refundId: string | null;
}

const refundOf = (r: Record<string, any>): StripeRefundData => ({
  id: String(r.id),
  amount: Number(r.amount ?? 0),
  status: String(r.status ?? "pending"),
  refundId: typeof r.metadata?.refundId === "string" ? r.metadata.refundId : null,
});

const MAX_BODY_BYTES = 256_000;
const idOf = (v: unknown) => (typeof v === "string" ? v : v && typeof v === "object" && "id" in v ? String((v as { id: unknown }).id) : null);

/** The fields of a Stripe event the shop acts on. */
export function stripeEventData(event: Stripe.Event): StripeEventData {
  const o = event.data.object as unknown as Record<string, any>;
  const metadataOrder = typeof o.metadata?.orderId === "string" ? o.metadata.orderId : null;
  const base = {
    stripeEventId: event.id,
    stripeType: event.type,
    objectId: typeof o.id === "string" ? o.id : null,
    currency: o.currency?.toUpperCase?.() ?? null,
  };
  switch (event.object === "event" && event.type.split(".")[0]) {
    case "checkout":
      return {
        ...base,
        orderId: o.client_reference_id ?? metadataOrder,
        paymentIntentId: idOf(o.payment_intent),
        chargeId: null,
        paid: o.payment_status === "paid" || o.payment_status === "no_payment_required",
        amount: o.amount_total ?? null,
        amountRefunded: null,
        reason: null,
      };
    case "payment_intent":
      return {
        ...base,
        orderId: metadataOrder,
        paymentIntentId: o.id ?? null,
        chargeId: idOf(o.latest_charge),
        paid: o.status === "succeeded",
        amount: o.amount_received ?? o.amount ?? null,
        amountRefunded: null,
        reason: o.last_payment_error?.code ?? null,
      };
    case "refund":
      return {
        ...base,
        orderId: metadataOrder,
        paymentIntentId: idOf(o.payment_intent),
        chargeId: idOf(o.charge),
        paid: false,
        amount: o.amount ?? null,
        amountRefunded: null,
        reason: o.failure_reason ?? null,
        refunds: [refundOf(o)],
      };
    default: {
      const dispute = event.type.startsWith("charge.dispute.");
      return {
        ...base,
        orderId: metadataOrder,
        paymentIntentId: idOf(o.payment_intent),
        chargeId: dispute ? idOf(o.charge) : (o.id ?? null),
        paid: !dispute && o.paid === true,
        amount: o.amount ?? null,
        amountRefunded: dispute ? null : (o.amount_refunded ?? null),
        reason: dispute ? (o.reason ?? null) : null,
        refunds: !dispute && Array.isArray(o.refunds?.data) ? (o.refunds.data as Record<string, any>[]).map(refundOf) : null,
      };
    }
  }
}

function refused(description: string): ApiError {
  return new ApiError(400, "WEBHOOK_SIGNATURE_INVALID", description, { message: "Webhook refused" });
}

/** Verifies and records one Stripe webhook: RECORDED the first time, DUPLICATE after, IGNORED for types not acted on. */
export async function receiveStripeWebhook(ctx: Ctx, request: Request): Promise<{ id: string; status: "RECORDED" | "DUPLICATE" | "IGNORED" }> {
  const settings = stripeSettings(ctx.env);
  if (!settings) throw new ApiError(404, "PAYMENT_PROVIDER_NOT_CONFIGURED", "Stripe is not connected to this shop", { message: "Not found" });
  let body: string | null;
  try {
    body = await readText(request, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new ApiError(413, "PAYLOAD_TOO_LARGE", `Webhook bodies are limited to ${MAX_BODY_BYTES} bytes`);
    throw err;
  }
  const event = body === null ? null : await verifiedEvent(settings, body, request.headers.get("stripe-signature"));
  if (!event) throw refused("Stripe-Signature is missing, does not match the webhook secret, or is older than 5 minutes");
  const handled = (STRIPE_EVENT_TYPES as readonly string[]).includes(event.type);
  const data = stripeEventData(event);
  const envelope: EventEnvelope = {
    id: `stripe:${event.id}`,
    type: stripeEventType(event.type),
    entityId: data.orderId ?? data.objectId ?? "",
    eventTime: new Date(event.created * 1000).toISOString(),
    actor: { type: "APP", id: "stripe" },
    data: data as unknown as Record<string, unknown>,
  };
  const record = ctx.db
    .insert(paymentEvents)
    .values({
      id: event.id,
      provider: "stripe",
      type: event.type,
      status: handled ? "HANDLED" : "IGNORED",
      orderId: data.orderId,
      objectId: data.objectId,
      livemode: event.livemode ? "live" : "test",
      createdDate: envelope.eventTime,
      receivedDate: nowIso(),
    })
    .onConflictDoNothing();
  const [inserted] = await commit(ctx, handled ? [record, outboxInsertIfChanged(ctx.db, envelope)] : [record], (r) =>
    handled && r[0].meta.changes ? [envelope] : [],
  );
  if (!inserted.meta.changes) return { id: event.id, status: "DUPLICATE" };
  return { id: event.id, status: handled ? "RECORDED" : "IGNORED" };
}

/** What the console's Payments page shows: the connection, its mode, where Stripe should post, the last event. */
export async function paymentsOverview(ctx: Ctx, origin: string) {
  requirePermission(ctx, "settings.manage");
  const settings = stripeSettings(ctx.env);
  const [last] = await ctx.db
    .select({ type: paymentEvents.type, receivedDate: paymentEvents.receivedDate, livemode: paymentEvents.livemode })
    .from(paymentEvents)
    .where(eq(paymentEvents.provider, "stripe"))
    .orderBy(desc(paymentEvents.receivedDate))
    .limit(1);
  return {
    connected: !!settings,
    mode: settings ? (settings.live ? ("live" as const) : ("test" as const)) : null,
    publishableKey: settings?.publishableKey ?? null,
    webhookUrl: `${origin}/webhooks/stripe`,
    eventTypes: [...STRIPE_EVENT_TYPES],
    lastWebhook: last ?? null,
  };
}
