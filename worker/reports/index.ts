/** The merchant's reports: the dashboard, and the console's search across products, orders, customers and collections. */
export { dashboardReport } from "./dashboard";
export { reportRoutes } from "./routes";
export { consoleSearch, consoleSearchSql, SEARCH_LIMIT } from "./search";
export type { SearchHit, SearchKind, SearchResults } from "./search";
