import Papa from "papaparse";
import { csvHeader, MAX_OPTIONS, MAX_ROWS, optionColumns, REQUIRED_COLUMNS } from "./csv-columns";

/**
 * Reading an uploaded CSV file into rows of cells (papaparse does the CSV itself): the header must name the required
 * columns, option columns come in pairs, and the file must fit the row limit. What the cells say is csv-products.ts's.
 */

/** One data row: its number as a spreadsheet shows it (the header is row 1), its cells by column, its errors. */
export interface CsvRow {
  row: number;
  cells: Record<string, string>;
}

export interface CellError {
  row: number;
  column: string;
  message: string;
}

export type ParsedFile = { ok: true; columns: string[]; ignored: string[]; rows: CsvRow[]; errors: CellError[] } | { ok: false; message: string };

/** Parses the text of an uploaded file: a header row naming the columns, then one row per variant. */
export function parseCsv(text: string): ParsedFile {
  if (!text.trim()) return { ok: false, message: "The file is empty." };
  if (text.includes("\u0000"))
    return { ok: false, message: "This is not a CSV file (it holds binary data). Export a CSV from the console or a spreadsheet." };
  const result = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: "greedy",
    transformHeader: (h) => h.trim(),
  });
  const columns = (result.meta.fields ?? []).filter((c) => c !== "");
  const known = new Set<string>([...csvHeader(MAX_OPTIONS)]);
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
  if (missing.length) {
    return {
      ok: false,
      message: `The file has no ${missing.map((m) => `"${m}"`).join(", ")} column${missing.length > 1 ? "s" : ""}. The first row must name the columns, as an export does.`,
    };
  }
  const duplicate = columns.find((c, i) => columns.indexOf(c) !== i);
  if (duplicate) return { ok: false, message: `The column "${duplicate}" appears twice.` };
  for (let i = 1; i <= MAX_OPTIONS; i++) {
    const [name, value] = optionColumns(i);
    if (columns.includes(name) !== columns.includes(value))
      return { ok: false, message: `"${name}" and "${value}" come as a pair: the file has only one of them.` };
  }
  if (result.data.length > MAX_ROWS)
    return {
      ok: false,
      message: `The file has ${result.data.length} rows; at most ${MAX_ROWS} can be imported at once. Split it into smaller files.`,
    };
  if (!result.data.length) return { ok: false, message: "The file has a header but no rows." };
  const errors: CellError[] = [];
  for (const e of result.errors) {
    // A wrong field count is reported on its row; other errors (unclosed quotes) also name the row they start on.
    if (e.code === "UndetectableDelimiter") continue;
    errors.push({
      row: (e.row ?? 0) + 2,
      column: "",
      message:
        e.code === "TooManyFields"
          ? "has more cells than the header has columns"
          : e.code === "TooFewFields"
            ? "has fewer cells than the header has columns"
            : e.message,
    });
  }
  const rows = result.data.map((record, i) => {
    const cells: Record<string, string> = {};
    for (const c of columns) cells[c] = cell(record[c]);
    return { row: i + 2, cells };
  });
  return { ok: true, columns, ignored: columns.filter((c) => !known.has(c)), rows, errors };
}

/** A cell's text, trimmed, without the apostrophe the export puts before formula-like text. */
function cell(value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  return /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
}
