import { Link } from "react-router";
import { listCustomers } from "#worker/customers";
import { dateText } from "#web/components/account/order-view";
import { customerPath } from "#web/components/console/customers/panels";
import { FilterBar, SearchField } from "#web/components/console/filter-bar";
import { consoleMeta } from "#web/components/console/title";
import { EmptyState, PageHead } from "#web/components/ui/page";
import { DataTable } from "#web/components/ui/table";
import { consoleHeaders, staffOnly } from "#web/console.server";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Customers — Console");

export const headers = () => consoleHeaders;

/** One page of customers (members and guests by email) in email order, with their figures: one D1 round trip. */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const p = new URL(request.url).searchParams;
  const q = (p.get("q") ?? "").trim().slice(0, 254);
  const cursor = (p.get("cursor") ?? "").slice(0, 254);
  return { q, cursor, ...(await listCustomers(context.services, { q, cursor })) };
});

type Row = Route.ComponentProps["loaderData"]["customers"][number];

export default function ConsoleCustomers({ loaderData }: Route.ComponentProps) {
  const { q, cursor, customers, next } = loaderData;
  const pageLink = (to: string) => `?${new URLSearchParams({ ...(q ? { q } : {}), cursor: to })}`;
  const exportLink = `/console/customers/export.csv${q ? `?${new URLSearchParams({ q })}` : ""}`;
  return (
    <>
      <PageHead
        title="Customers"
        actions={
          <a href={exportLink} className="console-button" download>
            Export CSV
          </a>
        }
      />
      <FilterBar label="Find customers" search submit="Show customers" clearTo={q ? "/console/customers" : null}>
        <SearchField id="customers-q" className="customers-search" defaultValue={q} placeholder="Email or its start" maxLength={254} />
      </FilterBar>
      {customers.length === 0 ? (
        <EmptyState>{q ? "No customer’s email starts with that." : "No customers yet. Shoppers appear here when they order or sign up."}</EmptyState>
      ) : (
        <DataTable<Row>
          caption={q ? "Customers matching the search" : "Customers"}
          className="customers-table"
          rows={customers}
          rowKey={(c) => c.email}
          columns={[
            {
              header: "Customer",
              rowHeader: true,
              cell: (c) => (
                <>
                  <Link to={customerPath(c.email)}>{c.name || c.email}</Link>
                  {c.name && <div className="console-muted">{c.email}</div>}
                </>
              ),
            },
            { header: "Kind", cell: (c) => (c.memberId ? "Member" : "Guest") },
            { header: "Orders", num: true, cell: (c) => c.orders },
            { header: "Lifetime spend", num: true, cell: (c) => c.formatted.spent },
            { header: "Average order", num: true, cell: (c) => c.formatted.averageOrder },
            { header: "Last order", cell: (c) => (c.lastOrder ? dateText(c.lastOrder) : "—") },
          ]}
        />
      )}
      {(cursor || next) && (
        <nav className="console-pager" aria-label="Pages of customers">
          {cursor ? <Link to={q ? `?${new URLSearchParams({ q })}` : "/console/customers"}>← First page</Link> : <span />}
          {next && <Link to={pageLink(next)}>Next page →</Link>}
        </nav>
      )}
    </>
  );
}
