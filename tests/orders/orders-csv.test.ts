import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { exportOrdersCsv, ORDER_CSV_HEADER } from "#web/components/console/orders-csv.server";
import { readOrderFilters } from "#web/components/console/orders.server";
import { createProduct, serviceCtx, unique } from "../helpers";
import { placedOrder } from "./order-fixtures";

/** The console's orders CSV: the list's filters, every page of them, streamed; staff only. */
const csvOf = async (stream: ReadableStream<Uint8Array>) => Papa.parse<string[]>(await new Response(stream).text(), { skipEmptyLines: true }).data;

describe("orders CSV export", () => {
  it("exports every order the list's filters match, past the list's page size, newest first", async () => {
    const tag = unique();
    const product = await createProduct({ name: `CSV mug ${tag}`, priceData: { price: 7 } });
    const email = `csv-${tag}@example.com`;
    const placed = [];
    for (let i = 0; i < 27; i++) placed.push(await placedOrder(product.id, 1, email));
    await placedOrder(product.id, 1, `other-${tag}@example.com`);
    const { ctx } = serviceCtx();
    const { filters } = readOrderFilters(new URL(`https://shop.test/console/orders?q=${encodeURIComponent(email)}&cursor=ignored`));
    const rows = await csvOf(exportOrdersCsv(ctx, { ...filters, cursor: "" }));
    expect(rows[0]).toEqual(ORDER_CSV_HEADER);
    expect(rows).toHaveLength(28);
    expect(new Set(rows.slice(1).map((r) => r[3]))).toEqual(new Set([email]));
    const numbers = rows.slice(1).map((r) => Number(r[0].replace("#", "")));
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
  }, 120_000);

  it("is refused to a caller who is not staff", () => {
    const { ctx } = serviceCtx({ kind: "anonymous" });
    const { filters } = readOrderFilters(new URL("https://shop.test/console/orders"));
    expect(() => exportOrdersCsv(ctx, filters)).toThrow();
  });
});
