import { httpHref } from "#worker/platform/urls";
import { OrderSummary } from "../checkout/summary";
import type { SummaryLine, Totals } from "../checkout/view";

/** An order as the confirmation and account pages show it (built on the server by order.server.ts). */
export interface OrderView {
  id: string;
  /** The checkout the order was placed from. */
  checkoutId: string;
  number: string;
  placed: string;
  email: string;
  status: string;
  /** Why the shop cancelled the order on its own (an offline payment that never came), or null. */
  canceledNote: string | null;
  paymentStatus: string;
  fulfillmentStatus: string;
  /** Paid later (offline), not online. */
  offline: boolean;
  shippingTitle: string | null;
  shipTo: string[];
  billTo: string[];
  lines: SummaryLine[];
  totals: Totals;
  coupon: string | null;
  /** The buyer's name as billed (or shipped to), "" when the order has none. */
  buyerName: string;
  /** What has left the store, with the carrier's tracking, oldest first. */
  shipments: Shipment[];
}

export interface Shipment {
  id: string;
  date: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingLink: string | null;
  /** Units in this shipment. */
  items: number;
}

export interface OrderListItem {
  id: string;
  number: string;
  placed: string;
  status: string;
  paymentStatus: string;
  fulfillmentStatus: string;
  total: string;
  items: number;
}

const WORDS: Record<string, string> = {
  APPROVED: "Confirmed",
  INITIALIZED: "Awaiting payment",
  PENDING: "Pending",
  CANCELED: "Cancelled",
  REJECTED: "Rejected",
  PAID: "Paid",
  NOT_PAID: "Not paid yet",
  PARTIALLY_PAID: "Partly paid",
  PARTIALLY_REFUNDED: "Partly refunded",
  FULLY_REFUNDED: "Refunded",
  NOT_FULFILLED: "Not shipped yet",
  PARTIALLY_FULFILLED: "Partly shipped",
  FULFILLED: "Shipped",
};

/** A status in words ("NOT_PAID" → "Not paid yet"). */
export function statusText(status: string): string {
  return WORDS[status] ?? status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, " ");
}

/** A date as the shopper reads it, fixed to UTC so the server and the browser print the same words. */
export function dateText(iso: string): string {
  return new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso));
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status.toLowerCase()}`}>{statusText(status)}</span>;
}

/** Everything about one order: statuses, addresses, items and totals. */
export function OrderDetails({ order, headingLevel = 2 }: { order: OrderView; headingLevel?: 2 | 3 }) {
  const H = headingLevel === 2 ? "h2" : "h3";
  return (
    <div className="order-details">
      <dl className="order-facts">
        <div>
          <dt>Order number</dt>
          <dd className="order-number">{order.number}</dd>
        </div>
        <div>
          <dt>Placed</dt>
          <dd>{dateText(order.placed)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={order.status} />
          </dd>
        </div>
        <div>
          <dt>Payment</dt>
          <dd>
            <StatusBadge status={order.paymentStatus} />
            {order.offline && order.paymentStatus !== "PAID" && <span className="muted"> (pay offline)</span>}
          </dd>
        </div>
        <div>
          <dt>Delivery</dt>
          <dd>
            <StatusBadge status={order.fulfillmentStatus} />
            {order.shippingTitle && <span className="muted"> · {order.shippingTitle}</span>}
          </dd>
        </div>
      </dl>
      {order.canceledNote && <p className="order-note">{order.canceledNote}</p>}
      <div className="order-addresses">
        <AddressBlock heading={H} title="Shipping to" lines={order.shipTo} />
        <AddressBlock heading={H} title="Billing address" lines={order.billTo} />
      </div>
      <Shipments heading={H} shipments={order.shipments} />
      <OrderSummary lines={order.lines} totals={order.totals} coupon={order.coupon} title="Items" headingLevel={headingLevel} />
    </div>
  );
}

/** Each parcel sent, with its tracking number (a link to the carrier's page when the store gave one). */
export function Shipments({ heading: H, shipments }: { heading: "h2" | "h3"; shipments: Shipment[] }) {
  if (shipments.length === 0) return null;
  return (
    <div className="order-shipments">
      <H>{shipments.length === 1 ? "Shipment" : "Shipments"}</H>
      <ul>
        {shipments.map((s) => (
          <li key={s.id}>
            {dateText(s.date)}: {s.items} {s.items === 1 ? "item" : "items"}
            {s.carrier && <> by {s.carrier}</>}
            {s.trackingNumber && (
              <>
                {", tracking number "}
                {s.trackingLink && httpHref(s.trackingLink) ? (
                  <a href={s.trackingLink} rel="noopener noreferrer" target="_blank">
                    {s.trackingNumber}
                  </a>
                ) : (
                  <span className="tracking-number">{s.trackingNumber}</span>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A postal address, one line per row; nothing when there is none (e.g. a digital order has no shipping address). */
export function AddressBlock({ heading: H, title, lines }: { heading: "h2" | "h3"; title: string; lines: string[] }) {
  if (lines.length === 0) return null;
  return (
    <div>
      <H>{title}</H>
      <address>
        {lines.map((l) => (
          <span key={l}>
            {l}
            <br />
          </span>
        ))}
      </address>
    </div>
  );
}
