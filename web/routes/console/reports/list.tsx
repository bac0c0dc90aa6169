import { Link } from "react-router";
import { reportCell, reportPage, REPORTS, type ReportKind, type ReportRow } from "#worker/reports";
import { ApiError } from "#worker/platform/errors";
import { DateRange, FilterBar } from "#web/components/console/filter-bar";
import { consoleMeta } from "#web/components/console/title";
import { Select } from "#web/components/ui/form";
import { EmptyState, PageHead } from "#web/components/ui/page";
import { DataTable } from "#web/components/ui/table";
import { consoleHeaders, staffOnly } from "#web/console.server";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Reports — Console");

export const headers = () => consoleHeaders;

/** The reports a merchant picks from, in the select's order. */
const REPORT_LABELS: Record<ReportKind, string> = {
  products: "Sales by product",
  collections: "Sales by collection",
  customers: "Sales by customer",
  refunds: "Refunds",
  taxes: "Taxes",
  discounts: "Discounts",
};

/**
 * One page of the chosen report for the period in the URL (default: the last 30 days), with the period's totals:
 * one D1 round trip. A date that is not one, or a period that ends before it starts, shows its error on the field
 * and the default period instead.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const p = new URL(request.url).searchParams;
  const kind = (REPORTS as readonly string[]).includes(p.get("report") ?? "") ? (p.get("report") as ReportKind) : "products";
  const query = { from: p.get("from") ?? "", to: p.get("to") ?? "", page: Number(p.get("page")) || 1 };
  try {
    return { fields: {}, report: await reportPage(context.services, kind, query) };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
    const fields = Object.fromEntries((err.fieldViolations ?? []).map((v) => [v.field, v.description])) as { from?: string; to?: string };
    return { fields, report: await reportPage(context.services, kind, {}) };
  }
});

type Row = { key: string; total: boolean; values: ReportRow };

export default function ConsoleReports({ loaderData }: Route.ComponentProps) {
  const { fields, report } = loaderData;
  const period = { report: report.report, from: report.from, to: report.to };
  const link = (extra: Record<string, string> = {}) => `?${new URLSearchParams({ ...period, ...extra })}`;
  const [first, ...rest] = report.columns;
  const rows: Row[] = report.rows.map((values, i) => ({ key: String(i), total: false, values }));
  if (rows.length) rows.push({ key: "total", total: true, values: { ...report.totals, [first.key]: "Total" } });
  return (
    <>
      <PageHead
        title="Reports"
        actions={
          <a href={`/console/reports/export.csv${link()}`} className="console-button" download>
            Download CSV
          </a>
        }
      />
      <FilterBar label="Choose a report" className="reports-filters" submit="Show report">
        <Select id="reports-report" name="report" label="Report" defaultValue={report.report} options={Object.entries(REPORT_LABELS)} />
        <DateRange prefix="reports" label="From" from={report.from} to={report.to} errors={fields} />
      </FilterBar>
      <p className="console-muted" id="reports-period">
        {`${report.title}, ${report.from} to ${report.to} (${report.timeZone}). Paid orders only; refunds come off the sales they refund.`}
      </p>
      {rows.length === 0 ? (
        <EmptyState>Nothing to report for this period.</EmptyState>
      ) : (
        <DataTable<Row>
          caption={`${report.title}, ${report.from} to ${report.to}`}
          className="reports-table"
          rows={rows}
          rowKey={(r) => r.key}
          rowClass={(r) => (r.total ? "reports-total" : undefined)}
          columns={[first, ...rest].map((c, i) => ({
            header: c.label,
            rowHeader: i === 0,
            num: c.kind !== "text",
            cell: (r: Row) => (r.total && i === 0 ? <strong>Total</strong> : reportCell(c, r.values[c.key], report.currency)),
          }))}
        />
      )}
      {(report.page > 1 || report.hasMore) && (
        <nav className="console-pager" aria-label="Pages of the report">
          {report.page > 1 ? <Link to={link({ page: String(report.page - 1) })}>← Previous page</Link> : <span />}
          {report.hasMore && <Link to={link({ page: String(report.page + 1) })}>Next page →</Link>}
        </nav>
      )}
    </>
  );
}
