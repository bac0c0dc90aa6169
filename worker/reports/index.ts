/**
 * The merchant's reports: the dashboard, the sales reports (by product, collection and customer; refunds, taxes and
 * discounts), and the console's search across products, orders, customers and collections.
 */
export { dashboardReport } from "./dashboard";
export { reportRoutes } from "./routes";
export { consoleSearch, consoleSearchSql, SEARCH_LIMIT } from "./search";
export type { SearchHit, SearchKind, SearchResults } from "./search";
export type { Period } from "./period";
export { isReportKind, REPORT_PAGE_SIZE, REPORTS, reportCell, reportCsv, reportFileName, reportPage, reportPageSql } from "./sales";
export type { ReportColumn, ReportKind, ReportPage, ReportRow } from "./sales";
