import { AddressBlock, Shipments } from "../account/order-view";
import { DataTable } from "../ui/table";
import type { ConsoleOrder, ConsoleOrderLine } from "./orders.server";

/** The panels of the console's order page that show the order: its items and totals, shipments, history, buyer. */

/** The items (ordered, shipped, total of each) and the order's totals. */
export function OrderItems({ order }: { order: ConsoleOrder }) {
  const totals: [string, string | null | undefined][] = [
    ["Subtotal", order.totals.subtotal],
    [`Discount${order.coupon ? ` (${order.coupon})` : ""}`, order.totals.discount && `−${order.totals.discount}`],
    [`Shipping${order.shippingTitle ? ` (${order.shippingTitle})` : ""}`, order.totals.shipping],
    ["Fees", order.fees],
    ["Tax", order.totals.tax],
  ];
  const lineTotal = new Map(order.fulfilLines.map((l, i) => [l.id, order.lines[i]?.total]));
  return (
    <section className="order-panel" aria-labelledby="order-items">
      <h2 id="order-items">Items</h2>
      <DataTable<ConsoleOrderLine>
        caption="Items"
        rows={order.fulfilLines}
        rowKey={(l) => l.id}
        columns={[
          {
            header: "Item",
            cell: (l) => (
              <>
                {l.name}
                {l.options.length > 0 && <div className="console-muted">{l.options.join(" · ")}</div>}
              </>
            ),
          },
          { header: "SKU", cell: (l) => l.sku ?? "—" },
          { header: "Ordered", num: true, cell: (l) => l.quantity },
          { header: "Shipped", num: true, cell: (l) => l.shipped },
          { header: "Total", num: true, cell: (l) => lineTotal.get(l.id) },
        ]}
      />
      <table className="order-totals" aria-label="Totals">
        <tbody>
          {totals.map(
            ([label, value]) =>
              value && (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  <td>{value}</td>
                </tr>
              ),
          )}
          <tr className="total">
            <th scope="row">Total</th>
            <td>{order.totals.total}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}

/** The shipments (when there are any) and the order's history, oldest first. */
export function OrderHistory({ order }: { order: ConsoleOrder }) {
  return (
    <>
      {order.shipments.length > 0 && (
        <section className="order-panel">
          <Shipments heading="h2" shipments={order.shipments} />
        </section>
      )}
      <section className="order-panel" aria-labelledby="order-history">
        <h2 id="order-history">History</h2>
        <ol className="order-activities">
          {order.activities.map((a) => (
            <li key={a.id}>
              <time dateTime={a.date}>{new Date(a.date).toISOString().slice(0, 16).replace("T", " ")} UTC</time>
              {a.text}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

/** Who bought, how they pay, and where the order goes. */
export function OrderBuyer({ order }: { order: ConsoleOrder }) {
  return (
    <section className="order-panel" aria-labelledby="order-buyer">
      <h2 id="order-buyer">Buyer</h2>
      <dl>
        <dt>Name</dt>
        <dd>{order.buyerName || "—"}</dd>
        <dt>Email</dt>
        <dd>{order.email ? <a href={`mailto:${order.email}`}>{order.email}</a> : "—"}</dd>
        {order.phone && (
          <>
            <dt>Phone</dt>
            <dd>{order.phone}</dd>
          </>
        )}
        <dt>Account</dt>
        <dd>{order.memberId ? "Member" : "Guest"}</dd>
        <dt>Payment</dt>
        <dd>{order.offline ? "Offline (pay later)" : "Online"}</dd>
      </dl>
      <AddressBlock heading="h3" title="Ship to" lines={order.shipTo} />
      <AddressBlock heading="h3" title="Bill to" lines={order.billTo} />
    </section>
  );
}
