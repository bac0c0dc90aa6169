import { exportOrdersCsv } from "#web/components/console/orders-csv.server";
import { readOrderFilters } from "#web/components/console/orders.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/export";

/**
 * GET /console/orders/export.csv?<the orders list's filters>: every order the filters match, as CSV (one row per
 * order), streamed a list page at a time.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { filters } = readOrderFilters(new URL(request.url));
  const body = exportOrdersCsv(context.services, { ...filters, cursor: "" });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="orders-${day}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
