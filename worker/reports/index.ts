/** The merchant's reports: the dashboard. */
export { dashboardReport } from "./dashboard";
