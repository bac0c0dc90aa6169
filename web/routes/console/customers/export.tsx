import { exportCustomersCsv } from "#worker/customers";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/export";

/**
 * GET /console/customers/export.csv?q=: every customer (or those whose email starts with q) as CSV, streamed 100
 * customers at a time. Any staff member may export, as any may read orders.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const q = (new URL(request.url).searchParams.get("q") ?? "").trim().slice(0, 254);
  const day = new Date().toISOString().slice(0, 10);
  return new Response(exportCustomersCsv(context.services, q), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="customers-${day}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
