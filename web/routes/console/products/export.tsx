import { exportProductsCsv } from "#worker/catalog";
import { consoleProductQuery, readProductFilters } from "#web/components/console/products.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/export";

/**
 * GET /console/products/export.csv?<the products table's filters>: every product the filters match, hidden ones
 * included, as CSV (one row per variant), streamed 100 products at a time. Any staff member may export.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { filters } = readProductFilters(new URL(request.url));
  const body = exportProductsCsv(context.services, consoleProductQuery(filters));
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="products-${day}.csv"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
