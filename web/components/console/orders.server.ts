import { orderWithRefunds, searchOrders, type ActionVerdicts, type RefundShape } from "#worker/orders";
import { UNPAID_CANCEL_REASON, type OrderShape } from "#worker/orders";
import type { Ctx } from "#worker/platform/context";
import { formatMoney } from "#worker/platform/money";
import { orderView } from "../account/order.server";
import type { OrderView } from "../account/order-view";
import { oneOf, readDateRange } from "./filter-bar.server";
import { FULFILLMENT_FILTERS, PAYMENT_FILTERS, SORTS } from "./orders";

/**
 * The console's order pages, read through the orders service (the same search the API answers): the list's filters
 * come from the URL and become one filter of the query language, so the Worker reads one page of orders, never the
 * whole table.
 */

export const PAGE_SIZE = 25;

/** The list's filters as the URL holds them. Anything unknown is dropped; a bad date is reported next to its field. */
export interface OrderFilters {
  q: string;
  payment: string;
  fulfillment: string;
  from: string;
  to: string;
  sort: keyof typeof SORTS;
  cursor: string;
}

/** The order list's filters from the URL, and the date errors to show at their fields. */
export function readOrderFilters(url: URL): { filters: OrderFilters; fields: Record<string, string> } {
  const p = url.searchParams;
  const { from, to, fields } = readDateRange(p);
  const filters: OrderFilters = {
    q: (p.get("q") ?? "").trim().slice(0, 100),
    payment: oneOf(p.get("payment"), PAYMENT_FILTERS),
    fulfillment: oneOf(p.get("fulfillment"), FULFILLMENT_FILTERS),
    from,
    to,
    sort: (oneOf(p.get("sort"), Object.keys(SORTS) as (keyof typeof SORTS)[]) || "newest") as keyof typeof SORTS,
    cursor: (p.get("cursor") ?? "").slice(0, 500),
  };
  return { filters, fields };
}

/**
 * The search box: an order number ("1042" or "#1042"), an email (or its start), or a name ("Ada", "Ada Love").
 * Names match the start of the first or last name, as a merchant types them.
 */
function searchFilter(q: string): Record<string, unknown> | null {
  if (!q) return null;
  const number = /^#?(\d{1,15})$/.exec(q);
  if (number) return { number: { $eq: Number(number[1]) } };
  if (q.includes("@")) return { "buyerInfo.email": { $startsWith: q } };
  const words = q.split(/\s+/);
  const first = "billingInfo.contactDetails.firstName";
  const last = "billingInfo.contactDetails.lastName";
  if (words.length > 1) return { $and: [{ [first]: { $startsWith: words[0] } }, { [last]: { $startsWith: words.slice(1).join(" ") } }] };
  return { $or: [{ [first]: { $startsWith: q } }, { [last]: { $startsWith: q } }, { "buyerInfo.email": { $startsWith: q } }] };
}

export function orderFilter(f: OrderFilters): Record<string, unknown> {
  const parts: Record<string, unknown>[] = [];
  const search = searchFilter(f.q);
  if (search) parts.push(search);
  if (f.payment) parts.push({ paymentStatus: f.payment });
  if (f.fulfillment) parts.push({ fulfillmentStatus: f.fulfillment });
  // Dates are whole days in UTC: "to" includes the day it names.
  if (f.from) parts.push({ purchasedDate: { $gte: `${f.from}T00:00:00.000Z` } });
  if (f.to) parts.push({ purchasedDate: { $lt: new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000).toISOString() } });
  return parts.length ? { $and: parts } : {};
}

export interface ConsoleOrderRow {
  id: string;
  number: string;
  placed: string;
  buyer: string;
  email: string;
  status: string;
  paymentStatus: string;
  fulfillmentStatus: string;
  items: number;
  total: string;
}

/** One page of orders matching the filters (two D1 round trips: the ids, then the orders). */
export async function listConsoleOrders(ctx: Ctx, f: OrderFilters) {
  const sort = Object.entries(SORTS[f.sort]).map(([fieldName, order]) => ({ fieldName, order }));
  const { orders, metadata } = await searchOrders(ctx, {
    search: { filter: orderFilter(f), sort, cursorPaging: { limit: PAGE_SIZE, cursor: f.cursor || null } },
  });
  const rows: ConsoleOrderRow[] = orders.map((o) => {
    const v = orderView(o);
    return {
      id: v.id,
      number: v.number,
      placed: v.placed,
      buyer: v.buyerName,
      email: v.email,
      status: v.status,
      paymentStatus: v.paymentStatus,
      fulfillmentStatus: v.fulfillmentStatus,
      items: v.lines.reduce((n, l) => n + l.quantity, 0),
      total: v.totals.total,
    };
  });
  return { rows, next: metadata.cursors.next ?? null, prev: metadata.cursors.prev ?? null };
}

/** A line as the console's fulfil form needs it: what was ordered and what is left to ship. */
export interface ConsoleOrderLine {
  id: string;
  name: string;
  options: string[];
  sku: string | null;
  quantity: number;
  shipped: number;
  /** Units refunded (they no longer ship). */
  refunded: number;
  /** Unit price, formatted. */
  unitPrice: string;
}

/** A refund as the order page lists it. */
export interface ConsoleRefund {
  id: string;
  date: string;
  amount: string;
  status: string;
  lines: string[];
  restocked: boolean;
}

export interface ConsoleOrder extends OrderView {
  fulfilLines: ConsoleOrderLine[];
  activities: { id: string; type: string; date: string; text: string }[];
  phone: string | null;
  memberId: string | null;
  /** Additional fees charged, formatted, or null when none. */
  fees: string | null;
  /** Which actions the order's state allows (null) or refuses (why): the rules the API enforces. */
  actions: Record<keyof ActionVerdicts, string | null>;
  refunds: ConsoleRefund[];
  /** What is left to refund: the decimal amount and as shown. */
  refundable: { amount: string; formattedAmount: string };
}

/** What happened to the order, as a merchant reads it. */
function activityText(a: Record<string, any>): string {
  switch (a.type) {
    case "ORDER_PLACED":
      return "Order placed";
    case "ORDER_PAID":
      return "Payment received";
    case "ORDER_FULFILLED":
      return "Shipped (everything)";
    case "ORDER_PARTIALLY_FULFILLED":
      return `Shipped ${((a.lineItems ?? []) as { quantity: number }[]).reduce((n, l) => n + l.quantity, 0)} item(s)`;
    case "TRACKING_NUMBER_ADDED":
      return `Tracking number ${a.trackingInfo?.trackingNumber ?? ""}${a.trackingInfo?.shippingProvider ? ` (${a.trackingInfo.shippingProvider})` : ""}`;
    case "ORDER_CANCELED":
      if (a.reason === UNPAID_CANCEL_REASON) return `Cancelled automatically: not paid within ${a.holdHours} hours; items restocked`;
      return a.restockAllItems ? "Cancelled, items restocked" : "Cancelled";
    case "ORDER_REFUNDED":
      return a.refundId ? `Refunded ${refundedText(a)}; fully refunded now` : "Refunded in full (outside the store)";
    case "ORDER_PARTIALLY_REFUNDED":
      return a.refundId ? `Refunded ${refundedText(a)}` : "Partly refunded (outside the store)";
    case "REFUND_PENDING":
      return "Refund waiting for the payment provider";
    case "MERCHANT_COMMENT":
      return `Note by ${a.author || "staff"}: ${a.merchantComment?.message ?? ""}`;
    default:
      return (
        String(a.type ?? "").charAt(0) +
        String(a.type ?? "")
          .slice(1)
          .toLowerCase()
          .replace(/_/g, " ")
      );
  }
}

/** A refund activity's amount, items and who made it, as the history shows it. */
function refundedText(a: Record<string, any>): string {
  const items = ((a.lineItems ?? []) as { quantity: number }[]).reduce((n, l) => n + l.quantity, 0);
  const currency = String(a.currency ?? "");
  const amount = currency ? formatMoney(Number(a.amount ?? 0), currency) : String(a.amount ?? "");
  const restocked = ((a.restockedLineItems ?? []) as unknown[]).length > 0;
  return `${amount}${items ? ` for ${items} item(s)` : ""}${restocked ? ", back in stock" : ""}${a.provider === "stripe" ? " through Stripe" : ""}`;
}

const REFUND_STATUS_TEXT: Record<string, string> = { STARTED: "Being made", PENDING: "Pending", SUCCEEDED: "Refunded", FAILED: "Failed" };

export async function consoleOrder(ctx: Ctx, id: string): Promise<ConsoleOrder> {
  const { order, refunds, actions, refundable, lines } = await orderWithRefunds(ctx, id);
  const view = consoleOrderOf(order, new Map(lines.map((l) => [l.id, l])));
  const names = new Map(view.fulfilLines.map((l) => [l.id, l.name]));
  return {
    ...view,
    actions: Object.fromEntries(Object.entries(actions).map(([k, v]) => [k, v?.description ?? null])) as ConsoleOrder["actions"],
    refundable,
    refunds: refunds.map((r: RefundShape) => ({
      id: r.id,
      date: r.createdDate,
      amount: r.amount.formattedAmount,
      status: r.status === "FAILED" && r.failureReason ? `Failed: ${r.failureReason}` : (REFUND_STATUS_TEXT[r.status] ?? r.status),
      lines: r.lineItems.map((l) => `${l.quantity} × ${names.get(l.lineItemId) ?? "Item"}`),
      restocked: r.restockedLineItems.length > 0,
    })),
  };
}

export function consoleOrderOf(
  order: OrderShape,
  refundLines: Map<string, { refunded: number; unitPrice: string }> = new Map(),
): Omit<ConsoleOrder, "actions" | "refunds" | "refundable"> {
  const d = order as unknown as Record<string, any>;
  const shipped = new Map<string, number>();
  for (const f of order.fulfillments)
    for (const l of f.lineItems as { id: string; quantity: number }[]) shipped.set(l.id, (shipped.get(l.id) ?? 0) + l.quantity);
  const v = orderView(order);
  return {
    ...v,
    fulfilLines: (order.lineItems as Record<string, any>[]).map((l, i) => ({
      id: String(l.id),
      name: v.lines[i]?.name ?? "Item",
      options: v.lines[i]?.options ?? [],
      sku: l.physicalProperties?.sku ?? null,
      quantity: Number(l.quantity),
      shipped: shipped.get(String(l.id)) ?? 0,
      refunded: refundLines.get(String(l.id))?.refunded ?? 0,
      unitPrice: refundLines.get(String(l.id))?.unitPrice ?? "",
    })),
    activities: order.activities.map((a) => ({ id: a.id, type: a.type, date: a.createdDate, text: activityText(a) })),
    phone: d.billingInfo?.contactDetails?.phone ?? d.shippingInfo?.logistics?.shippingDestination?.contactDetails?.phone ?? null,
    memberId: d.buyerInfo?.memberId ?? null,
    fees: Number(d.priceSummary?.additionalFees?.amount ?? 0) > 0 ? (d.priceSummary.additionalFees.formattedAmount ?? null) : null,
  };
}
