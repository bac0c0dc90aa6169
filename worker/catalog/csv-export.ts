import Papa from "papaparse";
import { toDecimalString } from "#worker/platform/money";
import { v1Description, type LoadedProduct } from "./shapes";

/**
 * Writing the catalogue as CSV (the export): one row per variant, in the column order of csvHeader (csv-columns.ts).
 * Product columns repeat on every row of the product; variant columns describe that row's variant.
 */

const bool = (b: boolean) => (b ? "true" : "false");

/** The rows of one product, in the column order of csvHeader(pairs). */
export function productCsvRows(p: LoadedProduct, pairs: number, currency: string, collectionSlugs: Map<string, string>): string[][] {
  const { row } = p;
  const money = (minor: number | null) => (minor === null ? "" : toDecimalString(minor, currency));
  const discount = row.discountType === "PERCENT" ? `${row.discountValue}%` : row.discountType === "AMOUNT" ? String(row.discountValue) : "";
  const product = [
    row.slug,
    row.name,
    v1Description(row),
    row.brand ?? "",
    row.ribbon ?? "",
    bool(row.visible),
    row.productType,
    money(row.price),
    discount,
    row.sku ?? "",
    row.weight === null ? "" : String(row.weight),
    p.collectionIds
      .map((id) => collectionSlugs.get(id))
      .filter((s): s is string => !!s)
      .sort()
      .join(", "),
    bool(row.trackInventory),
  ];
  return p.variants.map((v) => {
    const options = Array.from({ length: pairs }, (_, i) => {
      const option = row.productOptions[i];
      return option ? [option.name, v.choices[option.name] ?? ""] : ["", ""];
    }).flat();
    return [
      ...product,
      ...options,
      money(v.price),
      money(v.cost),
      v.sku ?? "",
      v.weight === null ? "" : String(v.weight),
      bool(v.visible),
      row.trackInventory ? String(v.quantity ?? 0) : "",
      bool(row.trackInventory ? (v.quantity ?? 0) > 0 : v.inStock),
    ];
  });
}

/**
 * CSV text of rows (RFC 4180, CRLF, a final line break). Cells that a spreadsheet would run as a formula (=, +, -, @)
 * get a leading apostrophe (papaparse's escapeFormulae); the import takes it off again (`cell` in csv-parse.ts).
 */
export function toCsv(rows: string[][]): string {
  if (!rows.length) return "";
  return `${Papa.unparse(rows, { newline: "\r\n", escapeFormulae: true })}\r\n`;
}
