import { describe, expect, it } from "vitest";
import { csvHeader, MAX_OPTIONS, MAX_ROWS, optionColumns, PRODUCT_COLUMNS, REQUIRED_COLUMNS, VARIANT_COLUMNS } from "#worker/catalog/csv-columns";
import { toCsv } from "#worker/catalog/csv-export";
import { parseCsv, type CellError } from "#worker/catalog/csv-parse";
import { readProducts } from "#worker/catalog/csv-products";

// The CSV columns and the reading of a file, without a database (the import and export runs are in tests/catalog).
const lines = (...rows: string[]) => rows.join("\r\n");

describe("CSV columns", () => {
  it("puts product columns, option pairs, then variant columns", () => {
    expect(csvHeader(0)).toEqual([...PRODUCT_COLUMNS, ...VARIANT_COLUMNS]);
    expect(csvHeader(2)).toEqual([...PRODUCT_COLUMNS, "Option1 name", "Option1 value", "Option2 name", "Option2 value", ...VARIANT_COLUMNS]);
    expect(optionColumns(MAX_OPTIONS)).toEqual([`Option${MAX_OPTIONS} name`, `Option${MAX_OPTIONS} value`]);
    for (const c of REQUIRED_COLUMNS) expect(PRODUCT_COLUMNS).toContain(c);
  });
});

describe("toCsv", () => {
  it("writes RFC 4180 with CRLF, quotes where needed and defuses formulas", () => {
    expect(toCsv([])).toBe("");
    expect(
      toCsv([
        ["Handle", "Name"],
        ["a", 'Say "hi", twice'],
        ["b", "=SUM(A1)"],
      ]),
    ).toBe('Handle,Name\r\na,"Say ""hi"", twice"\r\nb,"\'=SUM(A1)"\r\n');
  });
});

describe("parseCsv", () => {
  it("reads the header and the rows, trimming cells and undoing the formula apostrophe", () => {
    const parsed = parseCsv(lines(" Handle ,Name,Price,Colour", "tee, Tee ,12.50,red", "", "mug,'=Mug,3,blue", ""));
    expect(parsed).toEqual({
      ok: true,
      columns: ["Handle", "Name", "Price", "Colour"],
      ignored: ["Colour"],
      rows: [
        { row: 2, cells: { Handle: "tee", Name: "Tee", Price: "12.50", Colour: "red" } },
        { row: 3, cells: { Handle: "mug", Name: "=Mug", Price: "3", Colour: "blue" } },
      ],
      errors: [],
    });
  });

  it("round-trips what toCsv writes", () => {
    const parsed = parseCsv(
      toCsv([
        ["Handle", "Name", "Price"],
        ["a", '-minus, and "quotes"', "1"],
      ]),
    );
    expect(parsed.ok && parsed.rows[0]!.cells.Name).toBe('-minus, and "quotes"');
  });

  it("reports a row with the wrong number of cells on that row", () => {
    const parsed = parseCsv(lines("Handle,Name,Price", "a,A,1,extra", "b,B"));
    expect(parsed.ok && parsed.errors).toEqual([
      { row: 2, column: "", message: "has more cells than the header has columns" },
      { row: 3, column: "", message: "has fewer cells than the header has columns" },
    ]);
  });

  it("refuses files it cannot import, saying why", () => {
    const message = (text: string) => {
      const parsed = parseCsv(text);
      return parsed.ok ? null : parsed.message;
    };
    expect(message("  \n")).toBe("The file is empty.");
    expect(message("Handle\u0000")).toMatch(/^This is not a CSV file/);
    expect(message("Handle,Title\na,b")).toBe('The file has no "Name", "Price" columns. The first row must name the columns, as an export does.');
    expect(message("Handle,Name,Price,Option1 name\na,b,1,Size")).toBe(
      '"Option1 name" and "Option1 value" come as a pair: the file has only one of them.',
    );
    expect(message("Handle,Name,Price\n")).toBe("The file has a header but no rows.");
    expect(message(["Handle,Name,Price", ...Array.from({ length: MAX_ROWS + 1 }, (_, i) => `p${i},P,1`)].join("\n"))).toBe(
      `The file has ${MAX_ROWS + 1} rows; at most ${MAX_ROWS} can be imported at once. Split it into smaller files.`,
    );
  });
});

describe("readProducts", () => {
  it("groups rows by Handle in order of first appearance and reads options and variants", () => {
    const parsed = parseCsv(
      lines(
        "Handle,Name,Price,Visible,Option1 name,Option1 value,Variant price,Quantity",
        "tee,Tee,10,yes,Size,S,,3",
        "mug,Mug,4,no,,,,",
        "tee,Tee,10,yes,Size,M,12,",
      ),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const errors: CellError[] = [];
    const products = readProducts(parsed.rows, parsed.columns, errors);
    expect(errors).toEqual([]);
    expect(products.map((p) => p.slug)).toEqual(["tee", "mug"]);
    const [tee, mug] = products;
    expect(tee).toMatchObject({ name: "Tee", price: 10, visible: true, options: [{ name: "Size", values: ["S", "M"] }] });
    expect(tee!.variants.map((v) => [v.row, v.choices, v.price, v.quantity])).toEqual([
      [2, { Size: "S" }, null, 3],
      [4, { Size: "M" }, 12, null],
    ]);
    expect(mug).toMatchObject({ name: "Mug", price: 4, visible: false, options: [] });
  });

  it("collects a row without a Handle as a cell error", () => {
    const parsed = parseCsv(lines("Handle,Name,Price", ",Nameless,1", "ok,Ok,1"));
    if (!parsed.ok) throw new Error(parsed.message);
    const errors: CellError[] = [];
    expect(readProducts(parsed.rows, parsed.columns, errors).map((p) => p.slug)).toEqual(["ok"]);
    expect(errors).toEqual([{ row: 2, column: "Handle", message: "is required: the product's URL name, such as linen-shirt" }]);
  });
});
