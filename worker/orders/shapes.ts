import type { checkouts, StoredAddress, StoredContactDetails } from "#worker/cart";
import type { orderActivities, orderFulfillments, orderLineItems, orderRefunds, orders, transactions } from "./tables";

/** Wire shapes of checkouts and orders (Wix ecom Checkout and Order; ecom money as decimal strings). */

export type CheckoutRow = typeof checkouts.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type OrderLineRow = typeof orderLineItems.$inferSelect;
export type ActivityRow = typeof orderActivities.$inferSelect;
export type FulfillmentRow = typeof orderFulfillments.$inferSelect;
export type TransactionRow = typeof transactions.$inferSelect;
export type RefundRow = typeof orderRefunds.$inferSelect;

export interface LoadedOrder {
  order: OrderRow;
  lines: OrderLineRow[];
  activities: ActivityRow[];
  fulfillments: FulfillmentRow[];
  transactions: TransactionRow[];
  refunds: RefundRow[];
}

/** Order event types (domain events, as Wix names them). */
export const OrderEventType = {
  created: "wix.ecom.v1.order_created",
  updated: "wix.ecom.v1.order_updated",
  canceled: "wix.ecom.v1.order_canceled",
  paymentStatusUpdated: "wix.ecom.v1.order_payment_status_updated",
  fulfilled: "wix.ecom.v1.order_fulfilled",
} as const;

export function contactInfo(address: StoredAddress | null | undefined, contactDetails: StoredContactDetails | null | undefined) {
  return { ...(address ? { address } : {}), ...(contactDetails ? { contactDetails } : {}) };
}

/** The order in the Wix shape. */
export function orderShape(o: LoadedOrder) {
  const { order } = o;
  const d = order.details as Record<string, unknown>;
  return {
    id: order.id,
    number: String(order.number),
    checkoutId: order.checkoutId,
    createdDate: order.createdDate,
    updatedDate: order.updatedDate,
    purchasedDate: order.purchasedDate,
    ...d,
    lineItems: o.lines.map((l) => ({ ...(l.details as Record<string, unknown>), id: l.id, quantity: l.quantity })),
    currency: order.currency,
    status: order.status,
    paymentStatus: order.paymentStatus,
    fulfillmentStatus: order.fulfillmentStatus,
    activities: o.activities.map((a) => ({ id: a.id, type: a.type, createdDate: a.createdDate, ...(a.details ?? {}) })),
    fulfillments: o.fulfillments.map((f) => ({
      id: f.id,
      lineItems: f.lineItems,
      ...(f.trackingInfo ? { trackingInfo: f.trackingInfo } : {}),
      createdDate: f.createdDate,
    })),
    transactions: o.transactions.map((t) => ({
      id: t.id,
      amount: t.amount,
      currency: t.currency,
      status: t.status,
      provider: t.provider,
      createdDate: t.createdDate,
    })),
    channelInfo: { type: order.channelType },
    archived: false,
    seenByAHuman: false,
  };
}

export type OrderShape = ReturnType<typeof orderShape>;

/** Domain-event data for an order. */
export function orderEventData(
  kind: "created" | "updated",
  order: OrderShape | (Record<string, unknown> & { id: string }),
  extra: Record<string, unknown> = {},
) {
  const base = { entityId: order.id, entityFqdn: "wix.ecom.v1.order", slug: kind, ...extra };
  return kind === "created" ? { ...base, createdEvent: { entity: order } } : { ...base, updatedEvent: { currentEntity: order } };
}

/** The reason an ORDER_CANCELED activity gives when the unpaid-order sweep (unpaid.ts) cancelled the order. */
export const UNPAID_CANCEL_REASON = "NOT_PAID_IN_TIME";

/** When the unpaid-order sweep cancelled this order: the hold it was given, in hours; else null. */
export function unpaidExpiry(o: { activities: { type: string; details?: Record<string, unknown> | null }[] }): { holdHours: number } | null {
  const a = o.activities.find((x) => x.type === "ORDER_CANCELED" && (x.details as { reason?: unknown } | null)?.reason === UNPAID_CANCEL_REASON);
  return a ? { holdHours: Number((a.details as { holdHours?: unknown }).holdHours) || 0 } : null;
}
