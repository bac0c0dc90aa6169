import { exportOrdersCsv } from "#web/components/console/orders-csv.server";
import { readOrderFilters } from "#web/components/console/orders.server";
import { csvDownload } from "#web/components/console/csv-response.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/export";

/**
 * GET /console/orders/export.csv?<the orders list's filters>: every order the filters match, as CSV (one row per
 * order), streamed a list page at a time.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { filters } = readOrderFilters(new URL(request.url));
  return csvDownload(exportOrdersCsv(context.services, { ...filters, cursor: "" }), "orders");
});
