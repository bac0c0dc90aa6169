import { reportCsv } from "#worker/reports";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/export";

/**
 * GET /console/reports/export.csv?report=&from=&to=: the whole report for the period as CSV, streamed a page at a
 * time, with a totals line. Any staff member may download it, as any may read the report.
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const p = new URL(request.url).searchParams;
  const csv = await reportCsv(context.services, p.get("report") || "products", { from: p.get("from") ?? "", to: p.get("to") ?? "" });
  return new Response(csv.body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${csv.fileName}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
});
