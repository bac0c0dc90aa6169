import type { LoadedOrder } from "./shapes";
import type { FulfillmentStatus, OrderStatus, PaymentStatus } from "./tables";

/**
 * Which changes an order allows, from its approval, payment and fulfilment states: the API refuses a change this
 * says no to (with the code given here) and the console offers only the ones it allows, so both always agree.
 */

export const ORDER_ACTIONS = ["fulfil", "cancel", "refund", "mark-paid"] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

/** What the decision reads of an order. */
export interface OrderState {
  id: string;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  fulfillmentStatus: FulfillmentStatus;
  total: number;
  /** Units per line: ordered, shipped, refunded. */
  lines: { quantity: number; fulfilledQuantity: number; refundedQuantity: number }[];
  /** What is left to refund (minor units): paid, less refunds made or under way. */
  refundable: number;
  /** A refund the provider has not settled yet. */
  refundPending: boolean;
}

/** A refusal: the spec's code and a sentence for the merchant. */
export interface Refusal {
  code: string;
  description: string;
}

export type ActionVerdicts = Record<OrderAction, Refusal | null>;

/** Units of a line still to ship: ordered, less shipped, less refunded. */
export const leftToShip = (l: OrderState["lines"][number]) => Math.max(0, l.quantity - l.fulfilledQuantity - l.refundedQuantity);

const REFUNDABLE_PAYMENTS: PaymentStatus[] = ["PAID", "PARTIALLY_PAID", "PARTIALLY_REFUNDED"];
const PAYABLE: PaymentStatus[] = ["NOT_PAID", "PENDING", "PARTIALLY_PAID"];

function fulfilVerdict(o: OrderState): Refusal | null {
  if (o.status === "CANCELED") return { code: "ORDER_STATUS_IS_NOT_SUPPORTED", description: `Order ${o.id} is canceled and cannot be fulfilled` };
  if (o.paymentStatus === "FULLY_REFUNDED")
    return { code: "PARTIALLY_OR_FULLY_REFUNDED", description: `Order ${o.id} was fully refunded, so nothing is left to ship` };
  if (o.fulfillmentStatus === "FULFILLED") return { code: "ORDER_STATUS_IS_NOT_SUPPORTED", description: `Order ${o.id} is already fulfilled` };
  if (!o.lines.some((l) => leftToShip(l) > 0))
    return { code: "PARTIALLY_OR_FULLY_REFUNDED", description: `Order ${o.id} has nothing left to ship: every unit not shipped was refunded` };
  return null;
}

function cancelVerdict(o: OrderState): Refusal | null {
  if (o.status === "CANCELED") return { code: "ORDER_STATUS_IS_NOT_SUPPORTED", description: `Order ${o.id} is already canceled` };
  if (o.fulfillmentStatus !== "NOT_FULFILLED") {
    const state = o.fulfillmentStatus.toLowerCase().replace("_", " ");
    return { code: "ORDER_STATUS_IS_NOT_SUPPORTED", description: `Order ${o.id} is ${state} and can no longer be canceled` };
  }
  return null;
}

function markPaidVerdict(o: OrderState): Refusal | null {
  if (o.paymentStatus === "PARTIALLY_REFUNDED" || o.paymentStatus === "FULLY_REFUNDED")
    return { code: "PARTIALLY_OR_FULLY_REFUNDED", description: `Order ${o.id} was refunded and cannot be marked as paid` };
  if (o.status === "CANCELED")
    return { code: "ORDER_STATUS_IS_NOT_SUPPORTED", description: `Order ${o.id} is canceled and cannot be marked as paid` };
  if (!PAYABLE.includes(o.paymentStatus))
    return { code: "ORDER_STATUS_IS_NOT_SUPPORTED", description: `Order ${o.id} is ${o.paymentStatus} and cannot be marked as paid` };
  return null;
}

/** Why a refund is not possible now (the spec's refund-blocking reasons), or null when it is. */
export function refundVerdict(o: OrderState): Refusal | null {
  const ps = o.paymentStatus;
  if (ps === "FULLY_REFUNDED") return { code: "ALREADY_REFUNDED", description: `Order ${o.id} is already fully refunded` };
  if (o.status === "PENDING" || o.status === "INITIALIZED") return { code: "ORDER_IS_PENDING", description: `Order ${o.id} is pending` };
  if (o.status === "REJECTED") return { code: "ORDER_IS_REJECTED", description: `Order ${o.id} was rejected` };
  if (ps === "PENDING") return { code: "PENDING_REFUND", description: `Order ${o.id} has a payment pending` };
  if (!REFUNDABLE_PAYMENTS.includes(ps)) return { code: "NOT_PAID", description: `Order ${o.id} is not paid (${ps}), so there is nothing to refund` };
  if (o.total === 0) return { code: "ZERO_PRICE", description: `Order ${o.id} cost nothing, so there is nothing to refund` };
  if (o.refundPending)
    return {
      code: "PENDING_REFUND",
      description: `A refund of order ${o.id} is still pending at the payment provider; try again once it has gone through`,
    };
  if (o.refundable <= 0) return { code: "ALREADY_REFUNDED", description: `Everything paid for order ${o.id} has been refunded` };
  return null;
}

/** Each action's verdict for the order as it stands: null when allowed, else why not. */
export function orderActionVerdicts(o: OrderState): ActionVerdicts {
  return { fulfil: fulfilVerdict(o), cancel: cancelVerdict(o), refund: refundVerdict(o), "mark-paid": markPaidVerdict(o) };
}

/** Refund rows that count against what was paid: made, pending at the provider, or being made. */
export const COUNTED_REFUNDS = ["STARTED", "PENDING", "SUCCEEDED"] as const;

/** What the buyer paid for the order (minor units): its approved payments, else its total when it is marked paid. */
export function paidAmount(o: LoadedOrder): number {
  const paid = o.transactions.filter((t) => t.status === "APPROVED").reduce((n, t) => n + t.amount, 0);
  return paid > 0 ? Math.min(paid, o.order.total) : o.order.total;
}

/** Refunded so far, counting refunds pending or under way (minor units). */
export function refundedAmount(o: LoadedOrder): number {
  return o.refunds.filter((r) => (COUNTED_REFUNDS as readonly string[]).includes(r.status)).reduce((n, r) => n + r.amount, 0);
}

/** The order's state as the action rules read it. */
export function orderState(o: LoadedOrder): OrderState {
  return {
    id: o.order.id,
    status: o.order.status,
    paymentStatus: o.order.paymentStatus,
    fulfillmentStatus: o.order.fulfillmentStatus,
    total: o.order.total,
    lines: o.lines,
    refundable: Math.max(0, paidAmount(o) - refundedAmount(o)),
    refundPending: o.refunds.some((r) => r.status === "PENDING"),
  };
}

/** A refunded line: which line and how many units. */
export type RefundLine = { lineItemId: string; quantity: number };

/** Which units a completed refund returns to stock (the refunded lines when asked; on a full refund, every unit not shipped). */
export function restockOf(o: LoadedOrder, refund: { lineItems: RefundLine[]; restock: boolean }, full: boolean): RefundLine[] {
  const canceledWithRestock = o.activities.some(
    (a) => a.type === "ORDER_CANCELED" && (a.details as { restockAllItems?: unknown } | null)?.restockAllItems,
  );
  if (canceledWithRestock) return [];
  const want = new Map<string, number>();
  if (refund.restock) for (const l of refund.lineItems) want.set(l.lineItemId, (want.get(l.lineItemId) ?? 0) + l.quantity);
  if (full) {
    for (const l of o.lines) {
      const unshipped = l.quantity - l.fulfilledQuantity - l.restockedQuantity;
      if (unshipped > (want.get(l.id) ?? 0)) want.set(l.id, unshipped);
    }
  }
  const out: RefundLine[] = [];
  for (const l of o.lines) {
    const n = Math.min(want.get(l.id) ?? 0, l.quantity - l.restockedQuantity);
    if (n > 0 && l.catalogItemId && l.variantId) out.push({ lineItemId: l.id, quantity: n });
  }
  return out;
}
