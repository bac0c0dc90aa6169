import type { CellError, CsvRow } from "./csv-parse";
import { MAX_OPTIONS, optionColumns } from "./csv-columns";
import { choicesKey } from "./variants";

/**
 * From a file's rows to what it says about each product: rows grouped by Handle, each product column read once per
 * product, each variant column once per row. A cell that cannot be read is a CellError on its row and column.
 */

/** What a file says about one product (its rows grouped by Handle). */
export interface FileProduct {
  slug: string;
  rows: CsvRow[];
  has: (column: string) => boolean;
  name: string;
  description?: string;
  brand?: string;
  ribbon?: string;
  visible?: boolean;
  productType?: string;
  /** Major units, as the wire takes them. */
  price?: number;
  discount?: { type: "NONE" | "AMOUNT" | "PERCENT"; value: number };
  sku?: string;
  weight?: number;
  collections?: string[];
  trackInventory?: boolean;
  options: { name: string; values: string[] }[];
  variants: FileVariant[];
}

export interface FileVariant {
  row: number;
  choices: Record<string, string>;
  price: number | null;
  cost: number | null;
  sku: string | null;
  weight: number | null;
  visible: boolean;
  quantity: number | null;
  inStock: boolean | null;
}

const BOOLEAN: Record<string, boolean> = { true: true, yes: true, y: true, "1": true, false: false, no: false, n: false, "0": false };

/** Groups rows by Handle (in order of first appearance) and reads each product's cells; cell errors are collected. */
export function readProducts(rows: CsvRow[], columns: string[], errors: CellError[]): FileProduct[] {
  const has = (c: string) => columns.includes(c);
  const groups = new Map<string, CsvRow[]>();
  for (const r of rows) {
    const slug = r.cells.Handle;
    if (!slug) {
      errors.push({ row: r.row, column: "Handle", message: "is required: the product's URL name, such as linen-shirt" });
      continue;
    }
    const list = groups.get(slug) ?? [];
    list.push(r);
    groups.set(slug, list);
  }
  const optionPairs = Array.from({ length: MAX_OPTIONS }, (_, i) => optionColumns(i + 1)).filter(([n]) => has(n));
  return [...groups.entries()].map(([slug, group]) => {
    const first = group[0];
    const fail = (row: number, column: string, message: string) => errors.push({ row, column, message });
    /** The product's value of a column: the first non-empty cell; another non-empty cell must agree. */
    const productCell = (column: string): string | undefined => {
      if (!has(column)) return undefined;
      let value = "";
      let from = first.row;
      for (const r of group) {
        const v = r.cells[column];
        if (!v) continue;
        if (!value) {
          value = v;
          from = r.row;
        } else if (v !== value)
          fail(r.row, column, `differs from row ${from} of the same product ("${value}"): a product column holds one value per product`);
      }
      return value;
    };
    const number = (row: number, column: string, text: string, what: string): number | undefined => {
      if (!/^\d+(\.\d+)?$/.test(text)) {
        fail(row, column, `must be ${what}, such as 19.99 (got "${text}")`);
        return undefined;
      }
      return Number(text);
    };
    const boolean = (row: number, column: string, text: string): boolean | undefined => {
      const b = BOOLEAN[text.toLowerCase()];
      if (b === undefined) fail(row, column, `must be true or false (got "${text}")`);
      return b;
    };
    const p: FileProduct = { slug, rows: group, has, name: productCell("Name") ?? "", options: [], variants: [] };
    p.description = productCell("Description");
    p.brand = productCell("Brand");
    p.ribbon = productCell("Ribbon");
    p.sku = productCell("SKU");
    const visible = productCell("Visible");
    if (visible) p.visible = boolean(first.row, "Visible", visible);
    const type = productCell("Product type");
    if (type) p.productType = type.toLowerCase();
    const price = productCell("Price");
    if (price) p.price = number(first.row, "Price", price, "an amount");
    const discount = productCell("Discount");
    if (discount !== undefined) {
      if (!discount) p.discount = { type: "NONE", value: 0 };
      else if (discount.endsWith("%")) {
        const v = number(first.row, "Discount", discount.slice(0, -1).trim(), "a percentage or an amount");
        if (v !== undefined) p.discount = { type: "PERCENT", value: v };
      } else {
        const v = number(first.row, "Discount", discount, "a percentage (10%) or an amount");
        if (v !== undefined) p.discount = { type: "AMOUNT", value: v };
      }
    }
    const weight = productCell("Weight");
    if (weight) p.weight = number(first.row, "Weight", weight, "a number");
    const collections = productCell("Collections");
    if (collections !== undefined)
      p.collections = [
        ...new Set(
          collections
            .split(/[,;]/)
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ];
    const track = productCell("Track inventory");
    if (track) p.trackInventory = boolean(first.row, "Track inventory", track);

    // Options: named on the product's first row; every row gives a value for each.
    for (const [nameCol] of optionPairs) {
      const name = first.cells[nameCol];
      for (const r of group.slice(1)) {
        if (r.cells[nameCol] && r.cells[nameCol] !== name) fail(r.row, nameCol, `differs from row ${first.row} of the same product ("${name}")`);
      }
      if (name) p.options.push({ name, values: [] });
    }
    const seen = new Map<string, number>();
    for (const r of group) {
      const choices: Record<string, string> = {};
      optionPairs.forEach(([nameCol, valueCol], i) => {
        const name = first.cells[nameCol];
        const value = r.cells[valueCol];
        if (!name) {
          if (value) fail(r.row, nameCol, `is empty on row ${first.row}, the product's first row, but this row has a value for it`);
          return;
        }
        if (!value) return void fail(r.row, valueCol, `is required: the product has the option "${name}"`);
        choices[name] = value;
        const option = p.options.find((o) => o.name === name)!;
        if (!option.values.includes(value)) option.values.push(value);
        void i;
      });
      const key = choicesKey(choices);
      if (seen.has(key)) fail(r.row, p.options.length ? optionColumns(1)[1] : "Handle", `repeats the variant of row ${seen.get(key)}`);
      seen.set(key, r.row);
      const c = r.cells;
      const opt = (column: string, read: (text: string) => number | undefined) => (has(column) && c[column] ? (read(c[column]) ?? null) : null);
      p.variants.push({
        row: r.row,
        choices,
        price: opt("Variant price", (t) => number(r.row, "Variant price", t, "an amount")),
        cost: opt("Variant cost", (t) => number(r.row, "Variant cost", t, "an amount")),
        weight: opt("Variant weight", (t) => number(r.row, "Variant weight", t, "a number")),
        sku: has("Variant SKU") && c["Variant SKU"] ? c["Variant SKU"] : null,
        visible: has("Variant visible") && c["Variant visible"] ? (boolean(r.row, "Variant visible", c["Variant visible"]) ?? true) : true,
        quantity:
          has("Quantity") && c.Quantity
            ? /^\d+$/.test(c.Quantity)
              ? Number(c.Quantity)
              : (fail(r.row, "Quantity", `must be a whole number (got "${c.Quantity}")`), null)
            : null,
        inStock: has("In stock") && c["In stock"] ? (boolean(r.row, "In stock", c["In stock"]) ?? null) : null,
      });
    }
    return p;
  });
}
