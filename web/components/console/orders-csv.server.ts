import Papa from "papaparse";
import { requireMerchant, type Ctx } from "#worker/platform/context";
import { listConsoleOrders, type OrderFilters } from "./orders.server";

/** The orders CSV's columns, in order. */
export const ORDER_CSV_HEADER = ["Order", "Placed", "Buyer", "Email", "Status", "Payment", "Fulfillment", "Items", "Total"];

const csv = (rows: (string | number)[][]) => `${Papa.unparse(rows, { newline: "\r\n", escapeFormulae: true })}\r\n`;

/**
 * Every order the console list's filters match (its search, statuses, dates and sort), as CSV, streamed one list
 * page at a time through the same search the list uses. Any staff member may export, as any may read the list.
 */
export function exportOrdersCsv(ctx: Ctx, filters: OrderFilters): ReadableStream<Uint8Array> {
  requireMerchant(ctx);
  const encoder = new TextEncoder();
  let cursor: string | null | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (cursor === undefined) {
          controller.enqueue(encoder.encode(csv([ORDER_CSV_HEADER])));
          cursor = "";
          return;
        }
        if (cursor === null) {
          controller.close();
          return;
        }
        const page = await listConsoleOrders(ctx, { ...filters, cursor });
        const rows = page.rows.map((r) => [r.number, r.placed, r.buyer, r.email, r.status, r.paymentStatus, r.fulfillmentStatus, r.items, r.total]);
        if (rows.length) controller.enqueue(encoder.encode(csv(rows)));
        cursor = page.next;
      } catch (err) {
        controller.error(err);
      }
    },
  });
}
