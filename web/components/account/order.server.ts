import { getOrder, listOwnOrders } from "#worker/orders";
import { unpaidExpiry, type OrderShape } from "#worker/orders";
import { httpHref } from "#worker/platform/urls";
import type { Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { countryName } from "../checkout/form.server";
import type { SummaryLine } from "../checkout/view";
import type { OrderListItem, OrderView } from "./order-view";
import { orderHolds, type Holding } from "./sections";

/** Orders as the confirmation and account pages show them (display strings), read through the orders service. */

const money = (m: unknown) => (m as { formattedAmount?: string } | undefined)?.formattedAmount ?? "";

function addressText(info: unknown): string[] {
  const { address, contactDetails } = (info ?? {}) as { address?: Record<string, string>; contactDetails?: Record<string, string> };
  if (!address && !contactDetails) return [];
  return [
    [contactDetails?.firstName, contactDetails?.lastName].filter(Boolean).join(" "),
    [address?.addressLine, address?.addressLine2].filter(Boolean).join(", "),
    [address?.postalCode, address?.city, address?.subdivision].filter(Boolean).join(" "),
    countryName(address?.country),
  ].filter(Boolean);
}

function describe(d: unknown): string | null {
  const line = d as { name?: { original?: string }; plainText?: { original?: string }; colorInfo?: { original?: string } };
  const value = line.plainText?.original ?? line.colorInfo?.original;
  return line.name?.original && value ? `${line.name.original}: ${value}` : null;
}

export function orderView(o: OrderShape): OrderView {
  const d = o as unknown as Record<string, any>;
  const lines: SummaryLine[] = (o.lineItems as Record<string, any>[]).map((l) => ({
    id: String(l.id),
    name: l.productName?.original ?? "Item",
    quantity: Number(l.quantity),
    options: ((l.descriptionLines ?? []) as unknown[]).map(describe).filter((x): x is string => !!x),
    image: l.image?.url ? { url: l.image.url, alt: l.image.altText ?? "" } : null,
    total: money(l.lineItemPrice),
    problem: null,
  }));
  const s = d.priceSummary ?? {};
  const coupon = ((d.appliedDiscounts ?? []) as { coupon?: { code: string } }[]).find((x) => x.coupon)?.coupon?.code ?? null;
  return {
    id: o.id,
    checkoutId: String(d.checkoutId ?? ""),
    number: o.number,
    placed: o.purchasedDate,
    email: d.buyerInfo?.email ?? "",
    status: o.status,
    canceledNote: canceledNote(o),
    paymentStatus: o.paymentStatus,
    fulfillmentStatus: o.fulfillmentStatus,
    offline: d.paymentOption === "FULL_PAYMENT_OFFLINE",
    shippingTitle: d.shippingInfo?.title ?? null,
    shipTo: addressText(d.shippingInfo?.logistics?.shippingDestination),
    billTo: addressText(d.billingInfo),
    lines,
    totals: {
      subtotal: money(s.subtotal),
      discount: Number(s.discount?.amount ?? 0) > 0 ? money(s.discount) : null,
      shipping: money(s.shipping),
      tax: money(s.tax),
      total: money(s.total),
    },
    coupon,
    buyerName: contactName(d.billingInfo) || contactName(d.shippingInfo?.logistics?.shippingDestination),
    shipments: (
      o.fulfillments as { id: string; createdDate: string; lineItems: { quantity: number }[]; trackingInfo?: Record<string, string> }[]
    ).map((f) => ({
      id: f.id,
      date: f.createdDate,
      carrier: f.trackingInfo?.shippingProvider ?? null,
      trackingNumber: f.trackingInfo?.trackingNumber ?? null,
      // Only a web link is ever a link (rows stored before http(s) was required may hold anything).
      trackingLink: httpHref(f.trackingInfo?.trackingLink),
      items: f.lineItems.reduce((n, l) => n + l.quantity, 0),
    })),
  };
}

/** Why the order was cancelled, in the shopper's words, when the shop cancelled it on its own (unpaid.ts). */
function canceledNote(o: OrderShape): string | null {
  if (o.status !== "CANCELED") return null;
  const expired = unpaidExpiry({ activities: o.activities.map((a) => ({ type: a.type, details: a as Record<string, unknown> })) });
  if (!expired) return null;
  return `This order was cancelled because its payment did not arrive within ${expired.holdHours} hours, and its items went back on sale. You have not been charged; to buy them, place a new order.`;
}

function contactName(info: unknown): string {
  const c = (info as { contactDetails?: { firstName?: string; lastName?: string } } | undefined)?.contactDetails;
  return [c?.firstName, c?.lastName].filter(Boolean).join(" ");
}

/** One of the caller's own orders, or null (not theirs, or no such order: the page answers 404 either way). */
export async function ownOrder(ctx: Ctx, id: string): Promise<OrderView | null> {
  if (ctx.auth.kind !== "visitor" && ctx.auth.kind !== "member") return null;
  try {
    const { order } = await getOrder(ctx, id);
    // Staff can read every order through the API; on the storefront a page shows only the shopper's own.
    const owner = (order as unknown as { buyerInfo?: { memberId?: string; visitorId?: string } }).buyerInfo;
    const a = ctx.auth;
    const mine = a.kind === "member" ? owner?.memberId === a.identityId || owner?.visitorId === a.visitorId : owner?.visitorId === a.visitorId;
    return mine ? orderView(order) : null;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 401)) return null;
    throw err;
  }
}

/** The member's orders, newest first; with `holding`, only those holding that kind of item. */
export async function ownOrders(ctx: Ctx, holding?: Holding): Promise<OrderListItem[]> {
  const orders = (await listOwnOrders(ctx, 50)).filter((o) => !holding || orderHolds(o, holding));
  return orders.map((o) => {
    const v = orderView(o);
    return {
      id: v.id,
      number: v.number,
      placed: v.placed,
      status: v.status,
      paymentStatus: v.paymentStatus,
      fulfillmentStatus: v.fulfillmentStatus,
      total: v.totals.total,
      items: v.lines.reduce((n, l) => n + l.quantity, 0),
    };
  });
}
