import { sql, type SQL } from "drizzle-orm";
import { requireMerchant, type Ctx } from "#worker/platform/context";
import { rawStatement } from "#worker/platform/db";
import { now as clockNow } from "#worker/platform/clock";
import { notFound } from "#worker/platform/errors";
import { currencyDigits, formatMoney, toDecimalString } from "#worker/platform/money";
import { runBatch } from "#worker/platform/unit-of-work";
import { shopSettings } from "#worker/store";
import { periodOf, type Period } from "./period";

/**
 * The reports a merchant reconciles: sales by product, by collection and by customer, the refunds, the taxes and the
 * discounts of a period. Each page is SQL aggregates in ONE D1 batch (its rows and its totals), every table reached
 * through an index (the period's orders through orders_purchased_idx, their lines, refunds and collections by key).
 *
 * A sale is a paid order (paid, partly paid or refunded since) placed in the period, in the store's currency and not
 * canceled, as the customers' lifetime spend counts it; an unpaid order is not a sale yet. Its refunds are the
 * settled ones in order_refunds (a fully refunded order: its whole total), whenever they were made, so a row's net is
 * what the store kept of that period's sales. The refunds report lists instead the refunds made in the period, as the
 * dashboard dates them. Product and collection figures are line values (unit price after catalogue discounts, times
 * units) before order discounts, tax and shipping; a line's refund is its refunded units at that price.
 */

export const REPORTS = ["products", "collections", "customers", "refunds", "taxes", "discounts"] as const;
export type ReportKind = (typeof REPORTS)[number];

/** Rows of a report page (the CSV reads larger pages). */
export const REPORT_PAGE_SIZE = 50;
const CSV_PAGE_SIZE = 500;

export interface ReportColumn {
  key: string;
  label: string;
  /** money: minor units; count: a whole number; text: as it is. */
  kind: "text" | "count" | "money";
}

export type ReportRow = Record<string, string | number>;

export interface ReportPage {
  report: ReportKind;
  title: string;
  from: string;
  to: string;
  timeZone: string;
  currency: string;
  columns: ReportColumn[];
  rows: ReportRow[];
  /** The whole period's totals (every page's), for each count and money column; `rows` counts the report's rows. */
  totals: Record<string, number>;
  page: number;
  pageSize: number;
  hasMore: boolean;
}

/** Whether a string names a report. */
export function isReportKind(value: string): value is ReportKind {
  return (REPORTS as readonly string[]).includes(value);
}

const PLACED = sql.raw("o.status NOT IN ('CANCELED', 'REJECTED', 'INITIALIZED')");
const PAID = sql.raw("o.payment_status IN ('PAID', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED', 'FULLY_REFUNDED')");
/** An order's settled refunds, at most its total (a fully refunded order: its total), through order_refunds_order_idx. */
const REFUNDED = sql.raw(
  "CASE WHEN o.payment_status = 'FULLY_REFUNDED' THEN o.total ELSE min(o.total, (SELECT coalesce(sum(r.amount), 0) FROM order_refunds r WHERE r.order_id = o.id AND r.status = 'SUCCEEDED')) END",
);

/** The period's sales: paid orders placed in it, through orders_purchased_idx. */
const sales = (p: Period, currency: string) =>
  sql`o.purchased_date >= ${p.start} AND o.purchased_date < ${p.end} AND o.currency = ${currency} AND ${PLACED} AND ${PAID}`;

/** A wire amount in an order's JSON (a decimal string, "$.…amount") in minor units. */
const minorOf = (json: SQL, path: string, currency: string) =>
  sql`CAST(round(coalesce(CAST(json_extract(${json}, ${path}) AS REAL), 0) * ${10 ** currencyDigits(currency)}) AS INTEGER)`;

interface ReportSql {
  title: string;
  columns: ReportColumn[];
  /** The grouped rows, best first; the page's LIMIT and OFFSET are added. */
  rows: SQL;
}

const LINE_FIGURES = sql.raw(`count(DISTINCT o.id) AS orders, sum(li.quantity) AS units, sum(li.quantity * li.price) AS gross,
  sum(li.refunded_quantity) AS refunded_units, sum(li.refunded_quantity * li.price) AS refunds,
  sum((li.quantity - li.refunded_quantity) * li.price) AS net`);
const LINE_COLUMNS: ReportColumn[] = [
  { key: "orders", label: "Orders", kind: "count" },
  { key: "units", label: "Units sold", kind: "count" },
  { key: "gross", label: "Gross sales", kind: "money" },
  { key: "refunded_units", label: "Units refunded", kind: "count" },
  { key: "refunds", label: "Refunds", kind: "money" },
  { key: "net", label: "Net sales", kind: "money" },
];
const ORDER_COLUMNS: ReportColumn[] = [
  { key: "orders", label: "Orders", kind: "count" },
  { key: "gross", label: "Gross sales", kind: "money" },
  { key: "refunds", label: "Refunds", kind: "money" },
  { key: "net", label: "Net sales", kind: "money" },
];

/** Each report's columns and grouped query. CROSS JOIN keeps SQLite's join order: the period's orders first. */
function reportSql(kind: ReportKind, p: Period, currency: string): ReportSql {
  const sale = sales(p, currency);
  switch (kind) {
    case "products":
      return {
        title: "Sales by product",
        columns: [{ key: "name", label: "Product", kind: "text" }, ...LINE_COLUMNS],
        rows: sql`SELECT coalesce(li.catalog_item_id, '') AS id, max(li.name) AS name, ${LINE_FIGURES}
          FROM orders o CROSS JOIN order_line_items li ON li.order_id = o.id
          WHERE ${sale} GROUP BY li.catalog_item_id ORDER BY net DESC, id`,
      };
    case "collections":
      return {
        title: "Sales by collection",
        columns: [{ key: "name", label: "Collection", kind: "text" }, ...LINE_COLUMNS],
        rows: sql`SELECT c.id AS id, max(c.name) AS name, ${LINE_FIGURES}
          FROM orders o CROSS JOIN order_line_items li ON li.order_id = o.id
            CROSS JOIN collection_products cp ON cp.product_id = li.catalog_item_id
            CROSS JOIN collections c ON c.id = cp.collection_id
          WHERE ${sale} GROUP BY c.id ORDER BY net DESC, id`,
      };
    case "customers":
      return {
        title: "Sales by customer",
        columns: [{ key: "email", label: "Customer", kind: "text" }, ...ORDER_COLUMNS],
        rows: sql`SELECT coalesce(o.buyer_email, '') AS email, count(*) AS orders, sum(o.total) AS gross, sum(${REFUNDED}) AS refunds,
            sum(o.total - ${REFUNDED}) AS net
          FROM orders o WHERE ${sale} GROUP BY o.buyer_email ORDER BY net DESC, email`,
      };
    case "refunds":
      return {
        title: "Refunds",
        columns: [
          { key: "date", label: "Refunded", kind: "text" },
          { key: "order", label: "Order", kind: "text" },
          { key: "email", label: "Customer", kind: "text" },
          { key: "lines", label: "Lines", kind: "count" },
          { key: "amount", label: "Amount", kind: "money" },
        ],
        rows: sql`SELECT r.id AS id, r.created_date AS date, '#' || o.number AS "order", coalesce(o.buyer_email, '') AS email,
            json_array_length(r.line_items) AS lines, r.amount AS amount
          FROM order_refunds r CROSS JOIN orders o ON o.id = r.order_id
          WHERE r.status = 'SUCCEEDED' AND r.created_date >= ${p.start} AND r.created_date < ${p.end} AND r.currency = ${currency}
            AND o.status NOT IN ('CANCELED', 'REJECTED')
          ORDER BY r.created_date, r.id`,
      };
    case "taxes": {
      const region = sql`coalesce(json_extract(o.details, '$.taxSummary.region.name'), 'No tax region')`;
      return {
        title: "Taxes",
        columns: [
          { key: "region", label: "Tax region", kind: "text" },
          { key: "orders", label: "Orders", kind: "count" },
          { key: "taxable", label: "Taxable amount", kind: "money" },
          { key: "tax", label: "Tax collected", kind: "money" },
        ],
        rows: sql`SELECT ${region} AS region, count(*) AS orders,
            sum(${minorOf(sql`o.details`, "$.taxSummary.taxableAmount.amount", currency)}) AS taxable,
            sum(${minorOf(sql`o.details`, "$.priceSummary.tax.amount", currency)}) AS tax
          FROM orders o WHERE ${sale} GROUP BY ${region} ORDER BY tax DESC, region`,
      };
    }
    case "discounts": {
      const name = sql`coalesce(json_extract(d.value, '$.coupon.code'), json_extract(d.value, '$.discountRule.name.original'), 'Merchant discount')`;
      const type = sql`CASE WHEN json_extract(d.value, '$.coupon') IS NOT NULL THEN 'Coupon'
        WHEN json_extract(d.value, '$.discountRule') IS NOT NULL THEN 'Automatic discount' ELSE 'Merchant discount' END`;
      const amount = sql`coalesce(json_extract(d.value, '$.coupon.amount.amount'), json_extract(d.value, '$.discountRule.amount.amount'),
        json_extract(d.value, '$.merchantDiscount.amount.amount'))`;
      return {
        title: "Discounts",
        columns: [
          { key: "name", label: "Discount", kind: "text" },
          { key: "type", label: "Type", kind: "text" },
          { key: "orders", label: "Orders", kind: "count" },
          { key: "amount", label: "Amount given", kind: "money" },
        ],
        rows: sql`SELECT ${name} AS name, ${type} AS type, count(DISTINCT o.id) AS orders,
            sum(CAST(round(coalesce(CAST(${amount} AS REAL), 0) * ${10 ** currencyDigits(currency)}) AS INTEGER)) AS amount
          FROM orders o CROSS JOIN json_each(o.details, '$.appliedDiscounts') d
          WHERE ${sale} GROUP BY ${name}, ${type} ORDER BY amount DESC, name`,
      };
    }
  }
}

/** A report page's two statements: its rows (one more than the page, to know whether another follows) and its totals. */
export function reportPageSql(kind: ReportKind, p: Period, currency: string, page: number, pageSize: number) {
  const r = reportSql(kind, p, currency);
  const summed = r.columns.filter((c) => c.kind !== "text").map((c) => sql.raw(`coalesce(sum(g."${c.key}"), 0) AS "${c.key}"`));
  return {
    ...r,
    rowsSql: sql`${r.rows} LIMIT ${pageSize + 1} OFFSET ${(page - 1) * pageSize}`,
    totalsSql: sql`SELECT count(*) AS rows, ${sql.join(summed, sql`, `)} FROM (${r.rows}) g`,
  };
}

const rowsOf = (result: unknown) => ((result as { results?: ReportRow[] }).results ?? []) as ReportRow[];

export interface ReportQuery {
  from?: string;
  to?: string;
  page?: number;
}

/** The store's time zone (its settings' copy in KV, no D1 round trip), else UTC. */
async function zoneOf(ctx: Ctx): Promise<string> {
  const zone = (await shopSettings(ctx).catch(() => null))?.timeZone;
  return zone || "UTC";
}

/** The report and period asked for, checked: 404 for no such report, 400 for a bad period. */
async function resolve(ctx: Ctx, kind: string, query: ReportQuery, now: Date): Promise<{ report: ReportKind; period: Period }> {
  requireMerchant(ctx);
  if (!isReportKind(kind)) throw notFound("REPORT_NOT_FOUND", "Report", kind, "report");
  return { report: kind, period: periodOf(query, await zoneOf(ctx), now) };
}

/** One page of a report (any staff member), for the period asked for. `now` is the clock (tests may move it). */
export async function reportPage(ctx: Ctx, kind: string, query: ReportQuery = {}, now: Date = clockNow()): Promise<ReportPage> {
  const { report, period } = await resolve(ctx, kind, query, now);
  return readPage(ctx, report, period, Math.max(1, Math.floor(query.page ?? 1) || 1), REPORT_PAGE_SIZE);
}

async function readPage(ctx: Ctx, kind: ReportKind, period: Period, page: number, pageSize: number): Promise<ReportPage> {
  const q = reportPageSql(kind, period, ctx.currency, page, pageSize);
  const [rowsResult, totalsResult] = await runBatch(ctx.db, [rawStatement(ctx.db, q.rowsSql), rawStatement(ctx.db, q.totalsSql)]);
  const rows = rowsOf(rowsResult);
  const totals = Object.fromEntries(Object.entries(rowsOf(totalsResult)[0] ?? {}).map(([k, v]) => [k, Number(v ?? 0)]));
  return {
    report: kind,
    title: q.title,
    from: period.from,
    to: period.to,
    timeZone: period.timeZone,
    currency: ctx.currency,
    columns: q.columns,
    rows: rows.slice(0, pageSize),
    totals,
    page,
    pageSize,
    hasMore: rows.length > pageSize,
  };
}

/** A cell as the console shows it: money formatted in the store's currency, counts as numbers. */
export function reportCell(column: ReportColumn, value: unknown, currency: string): string {
  if (column.kind === "money") return formatMoney(Number(value ?? 0), currency);
  return String(value ?? "");
}

/** The CSV's file name for a report and period. */
export const reportFileName = (kind: ReportKind, from: string, to: string) => `${kind}-${from}-to-${to}.csv`;

/**
 * A whole report as CSV (any staff member): a header, the rows read CSV_PAGE_SIZE at a time (one batch each), then
 * a totals line. Money as decimal amounts in the store's currency, named in the last column.
 */
export async function reportCsv(
  ctx: Ctx,
  kind: string,
  query: ReportQuery = {},
  now: Date = clockNow(),
): Promise<{ fileName: string; body: ReadableStream<Uint8Array> }> {
  const { report, period } = await resolve(ctx, kind, query, now);
  const columns = reportSql(report, period, ctx.currency).columns;
  const encoder = new TextEncoder();
  const cell = (c: ReportColumn, v: unknown) =>
    c.kind === "money" ? toDecimalString(Number(v ?? 0), ctx.currency) : c.kind === "count" ? String(v ?? 0) : text(v);
  const line = (row: ReportRow) => csvLine([...columns.map((c) => cell(c, row[c.key])), ctx.currency]);
  let page = 1;
  let done = false;
  return {
    fileName: reportFileName(report, period.from, period.to),
    body: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(csvLine([...columns.map((c) => c.key), "currency"])));
      },
      async pull(controller) {
        if (done) return controller.close();
        const current = await readPage(ctx, report, period, page, CSV_PAGE_SIZE);
        let chunk = current.rows.map(line).join("");
        page += 1;
        if (!current.hasMore) {
          chunk += line({ ...current.totals, [columns[0].key]: "Total" });
          done = true;
        }
        controller.enqueue(encoder.encode(chunk));
      },
    }),
  };
}

/** A text cell; one a spreadsheet would run as a formula gets a leading apostrophe. */
const text = (v: unknown) => {
  const s = String(v ?? "");
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
};

/** One CSV line (RFC 4180, CRLF). */
function csvLine(cells: string[]): string {
  return `${cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replaceAll('"', '""')}"` : c)).join(",")}\r\n`;
}
