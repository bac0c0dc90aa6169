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
  const optionPairs = Array.from({ length: MAX_OPTIONS }, (_, i) => optionColumns(i + 1)).filter(([n]) => has(n));
  return [...groupByHandle(rows, errors).entries()].map(([slug, group]) => {
    const cells = new ProductCells(group, has, errors);
    const p: FileProduct = { slug, rows: group, has, name: cells.product("Name") ?? "", options: [], variants: [] };
    readProductColumns(p, cells);
    readOptions(p, optionPairs, cells);
    readVariants(p, optionPairs, cells);
    return p;
  });
}

/** The rows of each Handle, in order of first appearance; a row without a Handle is an error. */
function groupByHandle(rows: CsvRow[], errors: CellError[]): Map<string, CsvRow[]> {
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
  return groups;
}

/** Reads the cells of one product's rows; a cell that cannot be read is recorded as an error on its row and column. */
class ProductCells {
  readonly first: CsvRow;

  constructor(
    readonly group: CsvRow[],
    readonly has: (column: string) => boolean,
    private readonly errors: CellError[],
  ) {
    this.first = group[0];
  }

  fail(row: number, column: string, message: string): void {
    this.errors.push({ row, column, message });
  }

  /** The product's value of a column: the first non-empty cell; another non-empty cell must agree. */
  product(column: string): string | undefined {
    if (!this.has(column)) return undefined;
    let value = "";
    let from = this.first.row;
    for (const r of this.group) {
      const v = r.cells[column];
      if (!v) continue;
      if (!value) {
        value = v;
        from = r.row;
      } else if (v !== value)
        this.fail(r.row, column, `differs from row ${from} of the same product ("${value}"): a product column holds one value per product`);
    }
    return value;
  }

  number(row: number, column: string, text: string, what: string): number | undefined {
    if (!/^\d+(\.\d+)?$/.test(text)) {
      this.fail(row, column, `must be ${what}, such as 19.99 (got "${text}")`);
      return undefined;
    }
    return Number(text);
  }

  boolean(row: number, column: string, text: string): boolean | undefined {
    const b = BOOLEAN[text.toLowerCase()];
    if (b === undefined) this.fail(row, column, `must be true or false (got "${text}")`);
    return b;
  }
}

/** The product columns after Name, each read once for the product. */
function readProductColumns(p: FileProduct, cells: ProductCells): void {
  const row = cells.first.row;
  p.description = cells.product("Description");
  p.brand = cells.product("Brand");
  p.ribbon = cells.product("Ribbon");
  p.sku = cells.product("SKU");
  const visible = cells.product("Visible");
  if (visible) p.visible = cells.boolean(row, "Visible", visible);
  const type = cells.product("Product type");
  if (type) p.productType = type.toLowerCase();
  const price = cells.product("Price");
  if (price) p.price = cells.number(row, "Price", price, "an amount");
  const discount = cells.product("Discount");
  if (discount !== undefined) readDiscount(p, discount, cells);
  const weight = cells.product("Weight");
  if (weight) p.weight = cells.number(row, "Weight", weight, "a number");
  const collections = cells.product("Collections");
  if (collections !== undefined)
    p.collections = [
      ...new Set(
        collections
          .split(/[,;]/)
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
  const track = cells.product("Track inventory");
  if (track) p.trackInventory = cells.boolean(row, "Track inventory", track);
}

/** The Discount cell: empty (no discount), a percentage ("10%") or an amount. */
function readDiscount(p: FileProduct, discount: string, cells: ProductCells): void {
  const row = cells.first.row;
  if (!discount) p.discount = { type: "NONE", value: 0 };
  else if (discount.endsWith("%")) {
    const v = cells.number(row, "Discount", discount.slice(0, -1).trim(), "a percentage or an amount");
    if (v !== undefined) p.discount = { type: "PERCENT", value: v };
  } else {
    const v = cells.number(row, "Discount", discount, "a percentage (10%) or an amount");
    if (v !== undefined) p.discount = { type: "AMOUNT", value: v };
  }
}

/** Options: named on the product's first row (another row may repeat the name, not change it). */
function readOptions(p: FileProduct, optionPairs: (readonly [string, string])[], cells: ProductCells): void {
  const first = cells.first;
  for (const [nameCol] of optionPairs) {
    const name = first.cells[nameCol];
    for (const r of cells.group.slice(1)) {
      if (r.cells[nameCol] && r.cells[nameCol] !== name) cells.fail(r.row, nameCol, `differs from row ${first.row} of the same product ("${name}")`);
    }
    if (name) p.options.push({ name, values: [] });
  }
}

/** One variant per row: a value for each option, no two rows with the same choices, then the variant columns. */
function readVariants(p: FileProduct, optionPairs: (readonly [string, string])[], cells: ProductCells): void {
  const seen = new Map<string, number>();
  for (const r of cells.group) {
    const choices = readChoices(p, r, optionPairs, cells);
    const key = choicesKey(choices);
    if (seen.has(key)) cells.fail(r.row, p.options.length ? optionColumns(1)[1] : "Handle", `repeats the variant of row ${seen.get(key)}`);
    seen.set(key, r.row);
    p.variants.push(readVariant(r, choices, cells));
  }
}

/** A row's choice for each option of the product; each new value is added to its option. */
function readChoices(p: FileProduct, r: CsvRow, optionPairs: (readonly [string, string])[], cells: ProductCells): Record<string, string> {
  const first = cells.first;
  const choices: Record<string, string> = {};
  for (const [nameCol, valueCol] of optionPairs) {
    const name = first.cells[nameCol];
    const value = r.cells[valueCol];
    if (!name) {
      if (value) cells.fail(r.row, nameCol, `is empty on row ${first.row}, the product's first row, but this row has a value for it`);
      continue;
    }
    if (!value) {
      cells.fail(r.row, valueCol, `is required: the product has the option "${name}"`);
      continue;
    }
    choices[name] = value;
    const option = p.options.find((o) => o.name === name)!;
    if (!option.values.includes(value)) option.values.push(value);
  }
  return choices;
}

/** The variant columns of one row (an absent column or empty cell: the product's value). */
function readVariant(r: CsvRow, choices: Record<string, string>, cells: ProductCells): FileVariant {
  const { has } = cells;
  const c = r.cells;
  const opt = (column: string, read: (text: string) => number | undefined) => (has(column) && c[column] ? (read(c[column]) ?? null) : null);
  return {
    row: r.row,
    choices,
    price: opt("Variant price", (t) => cells.number(r.row, "Variant price", t, "an amount")),
    cost: opt("Variant cost", (t) => cells.number(r.row, "Variant cost", t, "an amount")),
    weight: opt("Variant weight", (t) => cells.number(r.row, "Variant weight", t, "a number")),
    sku: has("Variant SKU") && c["Variant SKU"] ? c["Variant SKU"] : null,
    visible: has("Variant visible") && c["Variant visible"] ? (cells.boolean(r.row, "Variant visible", c["Variant visible"]) ?? true) : true,
    quantity:
      has("Quantity") && c.Quantity
        ? /^\d+$/.test(c.Quantity)
          ? Number(c.Quantity)
          : (cells.fail(r.row, "Quantity", `must be a whole number (got "${c.Quantity}")`), null)
        : null,
    inStock: has("In stock") && c["In stock"] ? (cells.boolean(r.row, "In stock", c["In stock"]) ?? null) : null,
  };
}
