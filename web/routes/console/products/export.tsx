import { exportProductsCsv } from "#worker/catalog";
import { consoleProductQuery, readProductFilters } from "#web/components/console/products.server";
import { csvDownload } from "#web/components/console/csv-response.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/export";

/**
 * GET /console/products/export.csv?<the products table's filters>: every product the filters match, hidden ones
 * included, as CSV (one row per variant), streamed 100 products at a time. Any staff member may export.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { filters } = readProductFilters(new URL(request.url));
  return csvDownload(exportProductsCsv(context.services, consoleProductQuery(filters)), "products");
});
