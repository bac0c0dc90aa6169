import { emailStatement } from "#worker/email";
import type { Processor } from "#worker/events";
import { shopSettings } from "#worker/store";
import type { Ctx } from "#worker/platform/context";
import { toDecimalString } from "#worker/platform/money";
import { runBatch } from "#worker/platform/unit-of-work";
import { loadOrders } from "./orders";
import { OrderEventType, UNPAID_CANCEL_REASON, type LoadedOrder } from "./shapes";

/**
 * The buyer's emails about their order after it was placed: a shipping confirmation for each shipment (its lines,
 * carrier and tracking link) and one when the order is canceled. Each is keyed, so a redelivered event or a second
 * copy of it records and sends nothing more; the emails and the event's processed record commit in one batch.
 */

const PAID = new Set(["PAID", "PARTIALLY_REFUNDED", "FULLY_REFUNDED", "PARTIALLY_PAID"]);

const firstName = (o: LoadedOrder) => {
  const d = o.order.details as {
    recipientInfo?: { contactDetails?: { firstName?: string } };
    billingInfo?: { contactDetails?: { firstName?: string } };
  };
  return d.recipientInfo?.contactDetails?.firstName ?? d.billingInfo?.contactDetails?.firstName ?? undefined;
};

const httpLink = (link: string | null | undefined) => (link && /^https?:\/\//i.test(link) ? link : null);

/** The shipping confirmations of the order's shipments (one each, keyed by the shipment). */
function shippedEmails(ctx: Ctx, o: LoadedOrder, shop: Awaited<ReturnType<typeof shopSettings>>) {
  const names = new Map(o.lines.map((l) => [l.id, l.name]));
  const shippedSoFar = o.lines.every((l) => l.fulfilledQuantity >= l.quantity);
  return o.fulfillments.map((f, n) =>
    emailStatement(
      ctx,
      o.order.buyerEmail!,
      "order-shipped",
      {
        orderNumber: String(o.order.number),
        orderId: o.order.id,
        name: firstName(o),
        lines: f.lineItems.map((l) => ({ name: names.get(l.id) ?? "Item", quantity: l.quantity })),
        carrier: f.trackingInfo?.shippingProvider ?? null,
        trackingNumber: f.trackingInfo?.trackingNumber ?? null,
        trackingLink: httpLink(f.trackingInfo?.trackingLink),
        partial: !(shippedSoFar && n === o.fulfillments.length - 1),
      },
      { shop, idempotencyKey: `order-shipped:${f.id}` },
    ),
  );
}

/** The cancellation email, unless the merchant asked for none when canceling. */
function canceledEmail(ctx: Ctx, o: LoadedOrder, shop: Awaited<ReturnType<typeof shopSettings>>, data: Record<string, unknown>) {
  const body = (data.actionEvent as { body?: { sendOrderCanceledEmail?: unknown } } | undefined)?.body;
  const canceled = o.activities.find((a) => a.type === "ORDER_CANCELED");
  const details = (canceled?.details ?? {}) as { reason?: string };
  if (o.order.status !== "CANCELED" || body?.sendOrderCanceledEmail === false) return [];
  return [
    emailStatement(
      ctx,
      o.order.buyerEmail!,
      "order-canceled",
      {
        orderNumber: String(o.order.number),
        orderId: o.order.id,
        name: firstName(o),
        lines: o.lines.map((l) => ({ name: l.name, quantity: l.quantity })),
        total: toDecimalString(o.order.total, o.order.currency),
        currency: o.order.currency,
        unpaid: details.reason === UNPAID_CANCEL_REASON,
        paid: PAID.has(o.order.paymentStatus),
      },
      { shop, idempotencyKey: `order-canceled:${o.order.id}` },
    ),
  ];
}

/** Sends the buyer the shipping confirmations and the cancellation email their order's changes call for. */
export const buyerEmailProcessor: Processor = {
  name: "orders:buyer-emails",
  types: [OrderEventType.canceled, OrderEventType.updated],
  async run(event, data, p) {
    const [o] = await loadOrders(p.ctx, [event.entityId]);
    if (!o?.order.buyerEmail) return;
    const shop = await shopSettings(p.ctx);
    const emails = event.type === OrderEventType.canceled ? canceledEmail(p.ctx, o, shop, data) : shippedEmails(p.ctx, o, shop);
    if (!emails.length) return;
    const results = await runBatch(p.db, [...emails.map((e) => e.statement), p.done()]);
    emails.forEach((e, n) => e.deliver(results[n]));
  },
};
