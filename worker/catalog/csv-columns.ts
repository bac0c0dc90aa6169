/**
 * The CSV import and export's columns and limits: plain constants, shared by the catalogue's CSV code (csv-*.ts,
 * imports.ts) and the console's import page, which shows them (so the page's browser code needs nothing else).
 */

/** Product columns, in file order. */
export const PRODUCT_COLUMNS = [
  "Handle",
  "Name",
  "Description",
  "Brand",
  "Ribbon",
  "Visible",
  "Product type",
  "Price",
  "Discount",
  "SKU",
  "Weight",
  "Collections",
  "Track inventory",
] as const;

/** Variant columns, after the option pairs. */
export const VARIANT_COLUMNS = ["Variant price", "Variant cost", "Variant SKU", "Variant weight", "Variant visible", "Quantity", "In stock"] as const;

/** The columns a file must have; every other column is optional (absent = leave that field as it is). */
export const REQUIRED_COLUMNS = ["Handle", "Name", "Price"] as const;

/** A product has at most 6 options (productInputSchema); the export writes at least 3 pairs. */
export const MAX_OPTIONS = 6;

export const optionColumns = (i: number) => [`Option${i} name`, `Option${i} value`] as const;

/** Most rows one file may have (a 2,000-row file is the size the console is built for). */
export const MAX_ROWS = 5000;

/** Largest file the import takes (the console's multipart forms carry up to 11 MB). */
export const MAX_IMPORT_BYTES = 10 * 1_048_576;

/** Rows per queue chunk (a product with more variants than this is one chunk on its own). */
export const CHUNK_ROWS = 50;

/** The header of an export with `pairs` option column pairs. */
export function csvHeader(pairs: number): string[] {
  const options = Array.from({ length: pairs }, (_, i) => optionColumns(i + 1)).flat();
  return [...PRODUCT_COLUMNS, ...options, ...VARIANT_COLUMNS];
}
