import { Link, useSearchParams } from "react-router";
import { ApiError } from "#worker/platform/errors";
import { dateText, statusText } from "#web/components/account/order-view";
import { DateRange, FilterBar, SearchField } from "#web/components/console/filter-bar";
import { FULFILLMENT_FILTERS, OrderBadge, PAYMENT_FILTERS, SORT_LABELS } from "#web/components/console/orders";
import { listConsoleOrders, readOrderFilters } from "#web/components/console/orders.server";
import { consoleMeta } from "#web/components/console/title";
import { Select } from "#web/components/ui/form";
import { EmptyState, PageHead } from "#web/components/ui/page";
import { DataTable } from "#web/components/ui/table";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-orders.css";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Orders — Console");

export const headers = () => consoleHeaders;

/** One page of orders for the filters in the URL (the orders service's search, as the API answers it). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { filters, fields } = readOrderFilters(new URL(request.url));
  try {
    return { filters, fields, ...(await listConsoleOrders(context.services, filters)) };
  } catch (err) {
    // A page link edited by hand (a cursor the search did not make): start again from the first page.
    if (!(err instanceof ApiError) || err.status !== 400 || !filters.cursor) throw err;
    const first = { ...filters, cursor: "" };
    return { filters: first, fields, ...(await listConsoleOrders(context.services, first)) };
  }
});

type Row = Route.ComponentProps["loaderData"]["rows"][number];

/** The export's query: the list's filters and sort, without its page. */
function exportQuery(params: URLSearchParams): string {
  const p = new URLSearchParams(params);
  p.delete("cursor");
  const q = p.toString();
  return q ? `?${q}` : "";
}

export default function ConsoleOrders({ loaderData }: Route.ComponentProps) {
  const { filters, fields, rows, next, prev } = loaderData;
  const [params] = useSearchParams();
  const pageLink = (cursor: string) => {
    const p = new URLSearchParams(params);
    p.set("cursor", cursor);
    return `?${p}`;
  };
  const filtered = !!(filters.q || filters.payment || filters.fulfillment || filters.from || filters.to);
  return (
    <>
      <PageHead
        title="Orders"
        actions={
          <a href={`/console/orders/export.csv${exportQuery(params)}`} className="console-button" download>
            Export CSV
          </a>
        }
      />
      <FilterBar label="Find orders" search className="orders-filters" submit="Show orders" clearTo={filtered ? "/console/orders" : null}>
        <SearchField id="orders-q" className="orders-search" defaultValue={filters.q} placeholder="Order number, email or name" maxLength={100} />
        {(
          [
            ["payment", "Payment", PAYMENT_FILTERS],
            ["fulfillment", "Delivery", FULFILLMENT_FILTERS],
          ] as const
        ).map(([name, label, statuses]) => (
          <Select
            key={name}
            id={`orders-${name}`}
            name={name}
            label={label}
            defaultValue={filters[name]}
            placeholder="Any"
            options={statuses.map((s) => [s, statusText(s)] as const)}
          />
        ))}
        <DateRange prefix="orders" label="Placed from" from={params.get("from") ?? ""} to={params.get("to") ?? ""} errors={fields} />
        <Select id="orders-sort" name="sort" label="Sort" defaultValue={filters.sort} options={Object.entries(SORT_LABELS)} />
      </FilterBar>

      {rows.length === 0 ? (
        <EmptyState>{filtered ? "No orders match these filters." : "No orders yet. They appear here as soon as a shopper checks out."}</EmptyState>
      ) : (
        <DataTable<Row>
          caption={`Orders${filtered ? " matching the filters" : ""}`}
          className="orders-table"
          rows={rows}
          rowKey={(o) => o.id}
          rowClass={(o) => (o.status === "CANCELED" ? "orders-canceled" : undefined)}
          columns={[
            {
              header: "Order",
              rowHeader: true,
              cell: (o) => (
                <>
                  <Link to={`/console/orders/${o.id}`} prefetch="intent">
                    {`#${o.number}`}
                  </Link>
                  {o.status === "CANCELED" && (
                    <>
                      {" "}
                      <OrderBadge status="CANCELED" />
                    </>
                  )}
                </>
              ),
            },
            { header: "Placed", cell: (o) => dateText(o.placed) },
            {
              header: "Buyer",
              cell: (o) => (
                <>
                  {o.buyer || <span className="console-muted">—</span>}
                  <div className="console-muted">{o.email}</div>
                </>
              ),
            },
            { header: "Payment", cell: (o) => <OrderBadge status={o.paymentStatus} /> },
            { header: "Delivery", cell: (o) => <OrderBadge status={o.fulfillmentStatus} /> },
            { header: "Items", num: true, cell: (o) => o.items },
            { header: "Total", num: true, cell: (o) => o.total },
          ]}
        />
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
