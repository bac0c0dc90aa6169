import type { ReactNode } from "react";
import { Link } from "react-router";
import { itemsCount, notSentReason } from "./abandoned-carts";
import { dateTimeText } from "./automation-lists";

/** The abandoned cart page's story and items: what happened to the cart in order, and what was in it. */

/** The abandoned cart as its page reads it (the service's shape, the parts these pieces use). */
export interface CartView {
  status: string;
  abandonTime: string;
  checkoutRecoveredDate?: string | null;
  recoveredOrderId?: string | null;
  recoveredRevenue?: { formattedAmount: string } | null;
  totalPrice: { formattedAmount: string };
  subtotalPrice: { formattedAmount: string };
  lineItems: Record<string, unknown>[];
  activities: Activity[];
}

interface Activity {
  type: string;
  createdDate: string;
  reason?: string | null;
  details?: unknown;
  actor?: { type: string } | null;
}

/** A recovery email as the timeline links it. */
export interface SentEmail {
  emailId?: string | null;
  subject?: string | null;
  to?: string | null;
}

interface TimelineEntry {
  at: string;
  title: string;
  body?: ReactNode;
}

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** The cart's story in order: abandoned, each activity, recovered with its revenue. */
function timelineOf(cart: CartView, emails: readonly SentEmail[]): TimelineEntry[] {
  const subjectOf = new Map(emails.filter((e) => e.emailId).map((e) => [e.emailId!, e]));
  const emailLink = (emailId: string) => {
    const sent = subjectOf.get(emailId);
    return (
      <p>
        {sent?.subject && (
          <>
            Subject: &ldquo;{sent.subject}&rdquo;
            {sent.to ? ` to ${sent.to}` : ""}.{" "}
          </>
        )}
        <Link to={`/console/automations/emails/${emailId}`}>View the email</Link>
      </p>
    );
  };
  const entry = (a: Activity): TimelineEntry => {
    const d = (a.details ?? {}) as Record<string, unknown>;
    const step = str(d.step);
    switch (a.type) {
      case "SCHEDULED":
        return { at: a.createdDate, title: `Email ${step} ${d.rescheduled ? "rescheduled" : "scheduled"} for ${dateTimeText(str(d.dueDate))}` };
      case "EMAIL_SENT":
        return {
          at: a.createdDate,
          title: `Email ${step} sent${d.to ? ` to ${str(d.to)}` : ""}`,
          body: d.emailId ? emailLink(str(d.emailId)) : undefined,
        };
      case "EMAIL_NOT_SENT":
        return {
          at: a.createdDate,
          title: `Email ${step} not sent: ${notSentReason(a.reason)}`,
          body: (
            <>
              {d.error ? <p className="automation-error">{str(d.error)}</p> : null}
              {d.emailId ? emailLink(str(d.emailId)) : null}
            </>
          ),
        };
      case "TASK_CREATED":
        return { at: a.createdDate, title: "High-value cart: a task was opened", body: <Link to="/console/automations/tasks">See the tasks</Link> };
      case "NOTIFICATION_SENT":
        return { at: a.createdDate, title: "Notification sent" };
      default:
        return {
          at: a.createdDate,
          title: str(d.title) || "Custom activity",
          body: (
            <>
              {d.description ? <p className="carts-activity-text">{str(d.description)}</p> : null}
              <p className="console-muted">
                {a.actor?.type === "ADMIN" ? "Added by staff" : a.actor ? `Added by ${a.actor.type.toLowerCase()}` : "Added"}
              </p>
            </>
          ),
        };
    }
  };
  const entries: TimelineEntry[] = [
    { at: cart.abandonTime, title: `Cart abandoned with ${cart.totalPrice.formattedAmount}` },
    ...cart.activities.map(entry),
  ];
  if (cart.status === "RECOVERED" && cart.checkoutRecoveredDate) {
    entries.push({
      at: cart.checkoutRecoveredDate,
      title: `Recovered: bought for ${cart.recoveredRevenue?.formattedAmount ?? cart.totalPrice.formattedAmount}`,
      body: cart.recoveredOrderId ? <Link to={`/console/orders/${cart.recoveredOrderId}`}>See the order</Link> : undefined,
    });
  }
  // Stable: entries of the same moment keep the order they were recorded in.
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i))
    .map((x) => x.e);
}

interface Line {
  id?: string;
  quantity?: number;
  productName?: { original?: string };
  price?: { formattedAmount?: string };
  lineItemPrice?: { formattedAmount?: string };
  descriptionLines?: { name?: { original?: string }; plainText?: { original?: string }; colorInfo?: { original?: string } }[];
}

/** The cart's timeline: abandoned, each activity (emails with a link to them), recovered. */
export function CartTimeline({ cart, emails }: { cart: CartView; emails: readonly SentEmail[] }) {
  return (
    <ol className="carts-timeline">
      {timelineOf(cart, emails).map((e, i) => (
        <li key={i}>
          <p className="carts-timeline-head">
            <strong>{e.title}</strong> <span className="console-muted">{dateTimeText(e.at)}</span>
          </p>
          {e.body}
        </li>
      ))}
    </ol>
  );
}

/** The cart's items with its subtotal and total. */
export function CartItems({ cart }: { cart: CartView }) {
  const lines = cart.lineItems as Line[];
  return (
    <div className="console-scroll">
      <table className="console-table">
        <caption className="visually-hidden">Items in the cart</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" className="num">
              Price
            </th>
            <th scope="col" className="num">
              Quantity
            </th>
            <th scope="col" className="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => {
            const options = (l.descriptionLines ?? [])
              .map((d) => `${d.name?.original}: ${d.plainText?.original ?? d.colorInfo?.original}`)
              .join(", ");
            return (
              <tr key={l.id ?? i}>
                <th scope="row">
                  {l.productName?.original ?? "Item"}
                  {options && <div className="console-muted">{options}</div>}
                </th>
                <td className="num">{l.price?.formattedAmount ?? "—"}</td>
                <td className="num">{l.quantity ?? 1}</td>
                <td className="num">{l.lineItemPrice?.formattedAmount ?? "—"}</td>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Subtotal
            </th>
            <td className="num">{itemsCount(cart.lineItems)}</td>
            <td className="num">{cart.subtotalPrice.formattedAmount}</td>
          </tr>
          <tr>
            <th scope="row" colSpan={3}>
              Total
            </th>
            <td className="num">
              <strong>{cart.totalPrice.formattedAmount}</strong>
            </td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
