import { Form, Link, useNavigation, useSearchParams } from "react-router";
import { ApiError } from "#worker/platform/errors";
import { dateText, statusText } from "#web/components/account/order-view";
import { Select } from "#web/components/ui/form";
import { DateRange, useSlashToSearch } from "#web/components/console/filter-bar";
import { FULFILLMENT_FILTERS, OrderBadge, PAYMENT_FILTERS, SORT_LABELS } from "#web/components/console/orders";
import { listConsoleOrders, readOrderFilters } from "#web/components/console/orders.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-orders.css";
import type { Route } from "./+types/list";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Orders — Console") }];
}

export const headers = () => consoleHeaders;

/** One page of orders for the filters in the URL (the orders service's search, as the API answers it). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const { filters, fields } = readOrderFilters(new URL(request.url));
  try {
    return { filters, fields, ...(await listConsoleOrders(context.services, filters)) };
  } catch (err) {
    // A page link edited by hand (a cursor the search did not make): start again from the first page.
    if (!(err instanceof ApiError) || err.status !== 400 || !filters.cursor) throw err;
    const first = { ...filters, cursor: "" };
    return { filters: first, fields, ...(await listConsoleOrders(context.services, first)) };
  }
}

export default function ConsoleOrders({ loaderData }: Route.ComponentProps) {
  const { filters, fields, rows, next, prev } = loaderData;
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const search = useSlashToSearch();
  const pageLink = (cursor: string) => {
    const p = new URLSearchParams(params);
    p.set("cursor", cursor);
    return `?${p}`;
  };
  const filtered = !!(filters.q || filters.payment || filters.fulfillment || filters.from || filters.to);
  return (
    <>
      <h1>Orders</h1>
      <Form method="get" className="console-toolbar orders-filters" role="search" aria-label="Find orders">
        <div className="console-field orders-search">
          <label htmlFor="orders-q">Search</label>
          <input
            id="orders-q"
            ref={search}
            type="search"
            name="q"
            defaultValue={filters.q}
            placeholder="Order number, email or name"
            aria-keyshortcuts="/"
            maxLength={100}
          />
        </div>
        <Select
          id="orders-payment"
          name="payment"
          label="Payment"
          defaultValue={filters.payment}
          placeholder="Any"
          options={PAYMENT_FILTERS.map((s) => [s, statusText(s)] as const)}
        />
        <Select
          id="orders-fulfillment"
          name="fulfillment"
          label="Delivery"
          defaultValue={filters.fulfillment}
          placeholder="Any"
          options={FULFILLMENT_FILTERS.map((s) => [s, statusText(s)] as const)}
        />
        <DateRange prefix="orders" label="Placed from" from={params.get("from") ?? ""} to={params.get("to") ?? ""} errors={fields} />
        <Select id="orders-sort" name="sort" label="Sort" defaultValue={filters.sort} options={Object.entries(SORT_LABELS)} />
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={navigation.state === "loading"}>
            Show orders
          </button>
          {filtered && (
            <Link to="/console/orders" className="console-button">
              Clear
            </Link>
          )}
        </div>
      </Form>

      {rows.length === 0 ? (
        <p className="console-muted" role="status">
          {filtered ? "No orders match these filters." : "No orders yet. They appear here as soon as a shopper checks out."}
        </p>
      ) : (
        <div className="console-scroll">
          <table className="console-table orders-table">
            <caption className="visually-hidden">Orders{filtered ? " matching the filters" : ""}</caption>
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Placed</th>
                <th scope="col">Buyer</th>
                <th scope="col">Payment</th>
                <th scope="col">Delivery</th>
                <th scope="col" className="num">
                  Items
                </th>
                <th scope="col" className="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((o) => (
                <tr key={o.id} className={o.status === "CANCELED" ? "orders-canceled" : undefined}>
                  <th scope="row">
                    <Link to={`/console/orders/${o.id}`} prefetch="intent">
                      {`#${o.number}`}
                    </Link>
                    {o.status === "CANCELED" && (
                      <>
                        {" "}
                        <OrderBadge status="CANCELED" />
                      </>
                    )}
                  </th>
                  <td>{dateText(o.placed)}</td>
                  <td>
                    {o.buyer || <span className="console-muted">—</span>}
                    <div className="console-muted">{o.email}</div>
                  </td>
                  <td>
                    <OrderBadge status={o.paymentStatus} />
                  </td>
                  <td>
                    <OrderBadge status={o.fulfillmentStatus} />
                  </td>
                  <td className="num">{o.items}</td>
                  <td className="num">{o.total}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(prev || next) && (
        <nav className="console-pager" aria-label="Pages of orders">
          {prev ? <Link to={pageLink(prev)}>← Previous page</Link> : <span />}
          {next && <Link to={pageLink(next)}>Next page →</Link>}
        </nav>
      )}
    </>
  );
}
