import { Form, Link, useLocation, useNavigation } from "react-router";
import type { CustomerDetail } from "#worker/customers";
import { dateText } from "#web/components/account/order-view";
import { OrderBadge } from "#web/components/console/orders";
import { type Problem, TextArea } from "#web/components/ui/form";
import { EmptyState } from "#web/components/ui/page";
import { DataTable } from "#web/components/ui/table";

/** The customer page's sections: figures, orders, contact and consent, carts, and staff notes. */

/** The page of a customer, by email. */
export const customerPath = (email: string) => `/console/customers/${encodeURIComponent(email)}`;

/** When something happened, to the minute (UTC). */
const timeText = (iso: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(new Date(iso));

/** Lifetime spend, orders, average order, refunds, first and last order. */
export function CustomerFigures({ customer: c }: { customer: CustomerDetail }) {
  const figures: [string, string, string][] = [
    ["customer-spent", "Lifetime spend", c.formatted.spent],
    ["customer-orders", "Orders", String(c.orders)],
    ["customer-average", "Average order", c.formatted.averageOrder],
    ["customer-refunded", "Refunded", c.formatted.refunded],
    ["customer-first", "First order", c.firstOrder ? dateText(c.firstOrder) : "—"],
    ["customer-last", "Last order", c.lastOrder ? dateText(c.lastOrder) : "—"],
  ];
  return (
    <dl className="customer-figures">
      {figures.map(([id, label, value]) => (
        <div key={id}>
          <dt>{label}</dt>
          <dd id={id}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

type OrderRow = CustomerDetail["orderList"][number];
type CartRow = CustomerDetail["carts"][number];

/** The customer's newest orders, each linking to its page. */
export function CustomerOrders({ customer }: { customer: CustomerDetail }) {
  return (
    <section aria-labelledby="customer-orders-heading">
      <h2 id="customer-orders-heading">Orders</h2>
      {customer.orderList.length === 0 ? (
        <EmptyState>No orders yet.</EmptyState>
      ) : (
        <DataTable<OrderRow>
          caption="The customer’s orders"
          rows={customer.orderList}
          rowKey={(o) => o.id}
          columns={[
            { header: "Order", rowHeader: true, cell: (o) => <Link to={`/console/orders/${o.id}`}>{`#${o.number}`}</Link> },
            { header: "Placed", cell: (o) => dateText(o.placed) },
            { header: "Payment", cell: (o) => <OrderBadge status={o.paymentStatus} /> },
            { header: "Delivery", cell: (o) => <OrderBadge status={o.fulfillmentStatus} /> },
            { header: "Total", num: true, cell: (o) => o.total },
            { header: "Refunded", num: true, cell: (o) => o.refunded },
          ]}
        />
      )}
    </section>
  );
}

/** Whether the customer is a member, phones, addresses (profile and orders) and marketing consent. */
export function CustomerContact({ customer: c }: { customer: CustomerDetail }) {
  return (
    <section aria-labelledby="customer-contact-heading">
      <h2 id="customer-contact-heading">Contact</h2>
      <p>{c.memberId ? `Member (${(c.status ?? "").toLowerCase()})` : "Guest: ordered without an account"}</p>
      <p>
        <a href={`mailto:${c.email}`}>{c.email}</a>
      </p>
      {c.phones.map((p) => (
        <p key={p}>{p}</p>
      ))}
      <h3>Addresses</h3>
      {c.addresses.length ? (
        <ul className="customer-addresses">
          {c.addresses.map((a) => (
            <li key={a}>{a}</li>
          ))}
        </ul>
      ) : (
        <p className="console-muted">None given.</p>
      )}
      <h3>Marketing emails</h3>
      <p id="customer-consent">
        {c.marketing.consent ? "Receives marketing emails" : `Unsubscribed on ${dateText(c.marketing.unsubscribedDate ?? "")}`}
      </p>
    </section>
  );
}

/** The customer's carts: the current one and those their orders came from. */
export function CustomerCarts({ customer }: { customer: CustomerDetail }) {
  return (
    <section aria-labelledby="customer-carts-heading">
      <h2 id="customer-carts-heading">Carts</h2>
      {customer.carts.length === 0 ? (
        <p className="console-muted">No carts.</p>
      ) : (
        <DataTable<CartRow>
          caption="The customer’s carts"
          rows={customer.carts}
          rowKey={(c) => c.id}
          columns={[
            { header: "Cart", rowHeader: true, cell: (c) => ({ ACTIVE: "Open", COMPLETED: "Ordered", CLOSED: "Merged" })[c.status] ?? c.status },
            { header: "Items", num: true, cell: (c) => c.items },
            { header: "Last change", cell: (c) => timeText(c.updated) },
          ]}
        />
      )}
    </section>
  );
}

/** Staff notes, newest first, and the form to add one (for those who may). */
export function CustomerNotes({ customer, canWrite, problem }: { customer: CustomerDetail; canWrite: boolean; problem: Problem | null }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "note";
  // The page's own address as typed (an email's "@" may be encoded or not), so posting the note is not leaving the page.
  const { pathname } = useLocation();
  return (
    <section aria-labelledby="customer-notes-heading">
      <h2 id="customer-notes-heading">Notes</h2>
      {customer.notes.length === 0 && <p className="console-muted">No notes yet.</p>}
      <ul className="customer-notes">
        {customer.notes.map((n) => (
          <li key={n.id}>
            <p>{n.body}</p>
            <p className="console-muted">{`${n.author} · ${timeText(n.created)}`}</p>
          </li>
        ))}
      </ul>
      {canWrite && (
        <Form method="post" action={pathname} className="console-form" aria-label="Add a note" key={customer.notes.length}>
          <TextArea name="body" label="Add a note" rows={3} maxLength={2000} problem={problem} />
          <button type="submit" name="intent" value="note" className="console-button" disabled={busy}>
            {busy ? "Saving…" : "Add note"}
          </button>
        </Form>
      )}
    </section>
  );
}
