import { data } from "react-router";
import { ApiError } from "#worker/platform/errors";
import { shopSettings } from "#worker/store";
import { dateText } from "#web/components/account/order-view";
import { consoleOrder } from "#web/components/console/orders.server";
import { consoleMeta } from "#web/components/console/title";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-print.css";
import type { Route } from "./+types/print";

/** The two printable documents of an order: what goes in the parcel, and the bill. */
const DOCUMENTS = { "packing-slip": "Packing slip", invoice: "Invoice" } as const;

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.order ? `${DOCUMENTS[d.kind]} #${d.order.number} — Console` : "Order — Console",
);

export const headers = () => consoleHeaders;

/** An order's packing slip or invoice, as a page to print (the console's frame is hidden on paper). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const kind = params.kind as keyof typeof DOCUMENTS;
  if (!Object.hasOwn(DOCUMENTS, kind)) throw data("No such document.", { status: 404 });
  try {
    const [order, store] = await Promise.all([consoleOrder(context.services, params.orderId), shopSettings(context.services)]);
    return { kind, order, store: { name: store.name, email: store.contactEmail } };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such order.", { status: 404 });
    throw err;
  }
});

export default function PrintOrder({ loaderData }: Route.ComponentProps) {
  const { kind, order, store } = loaderData;
  const invoice = kind === "invoice";
  const toShip = order.fulfilLines.filter((l) => l.quantity - l.refunded > 0);
  return (
    <article className="print-document" aria-labelledby="print-title">
      <p className="print-hide">
        <a href={`/console/orders/${order.id}`}>{`← Order #${order.number}`}</a>{" "}
        <button type="button" className="console-button primary" onClick={() => window.print()}>
          Print
        </button>
      </p>
      <header className="print-head">
        <div>
          <strong>{store.name}</strong>
          {store.email && <div>{store.email}</div>}
        </div>
        <div>
          <h1 id="print-title">{`${DOCUMENTS[kind]} #${order.number}`}</h1>
          <div>{`Placed ${dateText(order.placed)}`}</div>
        </div>
      </header>
      <div className="print-addresses">
        <section>
          <h2>Ship to</h2>
          <address>
            {order.shipTo.length ? order.shipTo.map((line) => <div key={line}>{line}</div>) : <div>{order.buyerName || order.email}</div>}
          </address>
          {order.shippingTitle && <p>{order.shippingTitle}</p>}
        </section>
        {invoice && (
          <section>
            <h2>Bill to</h2>
            <address>
              {(order.billTo.length ? order.billTo : [order.buyerName]).filter(Boolean).map((line) => (
                <div key={line}>{line}</div>
              ))}
              <div>{order.email}</div>
            </address>
          </section>
        )}
      </div>
      <table className="print-lines">
        <caption className="visually-hidden">{invoice ? "Items billed" : "Items in the parcel"}</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">SKU</th>
            <th scope="col" className="num">
              Quantity
            </th>
            {invoice && (
              <>
                <th scope="col" className="num">
                  Unit price
                </th>
                <th scope="col" className="num">
                  Total
                </th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {(invoice ? order.fulfilLines : toShip).map((l, i) => (
            <tr key={l.id}>
              <th scope="row">{[l.name, ...l.options].join(" — ")}</th>
              <td>{l.sku ?? ""}</td>
              <td className="num">{invoice ? l.quantity : l.quantity - l.refunded}</td>
              {invoice && (
                <>
                  <td className="num">{l.unitPrice || "—"}</td>
                  <td className="num">{order.lines[i]?.total ?? ""}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {invoice && (
        <table className="print-totals">
          <caption className="visually-hidden">Totals</caption>
          <tbody>
            {(
              [
                ["Subtotal", order.totals.subtotal],
                ["Discount", order.totals.discount],
                ["Shipping", order.totals.shipping],
                ["Tax", order.totals.tax],
                ["Total", order.totals.total],
              ] as const
            )
              .filter(([, v]) => v)
              .map(([label, value]) => (
                <tr key={label} className={label === "Total" ? "total" : undefined}>
                  <th scope="row">{label}</th>
                  <td className="num">{value}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
