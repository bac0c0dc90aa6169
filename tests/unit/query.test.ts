import { sql, type SQL } from "drizzle-orm";
import { integer, sqliteTable, SQLiteSyncDialect, text } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { ApiError } from "#worker/platform/errors";
import { compileQuery, DEFAULT_LIMIT, encodeDotR, MAX_LIMIT, type FieldMap, type QueryInput } from "#worker/platform/query";

// The compiler without a database: the SQL it builds, printed by Drizzle's SQLite dialect.
const items = sqliteTable("items", {
  id: text("id").primaryKey(),
  name: text("name"),
  price: integer("price"),
  visible: integer("visible"),
  createdDate: text("created_date"),
});

const fields: FieldMap = {
  name: { sql: items.name, type: "string", sortable: true },
  price: { sql: items.price, type: "money", sortable: true },
  visible: { sql: items.visible, type: "boolean" },
  createdDate: { sql: items.createdDate, type: "date", sortable: true },
  tags: {
    kind: "set",
    hasSome: (values) => sql`tags_some(${JSON.stringify(values)})`,
    hasAll: (values) => sql`tags_all(${JSON.stringify(values)})`,
  },
};

const dialect = new SQLiteSyncDialect();
function print(s: SQL | undefined) {
  if (!s) return undefined;
  const { sql: text, params } = dialect.sqlToQuery(s);
  return { sql: text, params };
}
const compile = (input: QueryInput | undefined, extra: Partial<Parameters<typeof compileQuery>[2]> = {}) =>
  compileQuery(input, fields, { currency: "USD", tieBreaker: items.id, ...extra });

/** The field violations a query is refused with. */
function violations(input: QueryInput) {
  try {
    compile(input);
  } catch (err) {
    if (err instanceof ApiError) return err.fieldViolations!.map((v) => [v.field, v.violatedRule]);
    throw err;
  }
  throw new Error("expected the query to be refused");
}

describe("query compiler", () => {
  it("defaults to no filter, the tie-breaker order and the default page", () => {
    const q = compile(undefined);
    expect(q.where).toBeUndefined();
    expect(q.orderBy.map((o) => print(o)!.sql)).toEqual(['"items"."id" ASC']);
    expect([q.limit, q.offset]).toEqual([DEFAULT_LIMIT, 0]);
    const sorted = compile({}, { defaultSort: [sql`${items.createdDate} DESC`] });
    expect(sorted.orderBy.map((o) => print(o)!.sql)).toEqual(['"items"."created_date" DESC', '"items"."id" ASC']);
  });

  it("compiles bare values, operators and money into parameterised SQL", () => {
    expect(print(compile({ filter: { name: "Tee" } }).where)).toEqual({ sql: '"items"."name" = ?', params: ["Tee"] });
    expect(print(compile({ filter: { price: { $gte: 12.5 } } }).where)).toEqual({ sql: '"items"."price" >= ?', params: [1250] });
    expect(print(compile({ filter: { visible: true } }).where)).toEqual({ sql: '"items"."visible" = ?', params: [1] });
    expect(print(compile({ filter: { name: null } }).where)!.sql).toBe('"items"."name" IS NULL');
    expect(print(compile({ filter: { createdDate: { $lt: { $date: "2026-01-02T03:04:05Z" } } } }).where)!.params).toEqual([
      "2026-01-02T03:04:05.000Z",
    ]);
    expect(print(compile({ filter: { name: { $startsWith: "Te%" } } }).where)).toEqual({
      sql: 'substr("items"."name", 1, ?) = ? COLLATE NOCASE',
      params: [3, "Te%"],
    });
  });

  it("sends a list as one JSON parameter, however long", () => {
    const ids = Array.from({ length: 500 }, (_, i) => `n${i}`);
    const printed = print(compile({ filter: { name: { $in: ids } } }).where)!;
    expect(printed.sql).toBe('"items"."name" IN (SELECT value FROM json_each(?))');
    expect(printed.params).toEqual([JSON.stringify(ids)]);
    expect(print(compile({ filter: { name: { $nin: ["a"] } } }).where)!.sql).toBe(
      '("items"."name" IS NULL OR "items"."name" NOT IN (SELECT value FROM json_each(?)))',
    );
  });

  it("joins $and, $or and $not, and keeps missing values under $not", () => {
    const q = compile({ filter: { $or: [{ name: "A" }, { $and: [{ price: { $lt: 1 } }, { visible: false }] }], $not: { name: "B" } } });
    expect(print(q.where)).toEqual({
      sql: '(("items"."name" = ? or ("items"."price" < ? and "items"."visible" = ?)) and NOT coalesce("items"."name" = ?, 0))',
      params: ["A", 100, 0, "B"],
    });
  });

  it("uses a set field's own SQL for $hasSome, $hasAll, $eq and $in", () => {
    expect(print(compile({ filter: { tags: { $hasAll: ["a", "b"] } } }).where)).toEqual({ sql: "tags_all(?)", params: ['["a","b"]'] });
    expect(print(compile({ filter: { tags: "a" } }).where)).toEqual({ sql: "tags_some(?)", params: ['["a"]'] });
  });

  it("accepts filter and sort as JSON strings, and sorts on sortable fields", () => {
    const q = compile({
      filter: JSON.stringify({ name: "A" }),
      sort: JSON.stringify([{ fieldName: "price", order: "desc" }, { fieldName: "name" }]),
    });
    expect(print(q.where)!.params).toEqual(["A"]);
    expect(q.orderBy.map((o) => print(o)!.sql)).toEqual(['"items"."price" DESC', '"items"."name" ASC', '"items"."id" ASC']);
  });

  it("pages within bounds (limit 0 is the default page)", () => {
    expect(compile({ paging: { limit: MAX_LIMIT, offset: 20 } })).toMatchObject({ limit: MAX_LIMIT, offset: 20 });
    expect(compile({ paging: { limit: 0 } }).limit).toBe(DEFAULT_LIMIT);
  });

  it("refuses every bad part at once, each as a field violation", () => {
    expect(
      violations({
        filter: { colour: "red", price: { $regex: "x" }, visible: { $gt: true }, $xor: [] },
        sort: [{ fieldName: "visible" }, { fieldName: "name", order: "UP" }],
        paging: { limit: MAX_LIMIT + 1, offset: -1 },
      }),
    ).toEqual([
      ["query.filter.$xor", "FIELD_NOT_ALLOWED"],
      ["query.filter.colour", "FIELD_NOT_ALLOWED"],
      ["query.filter.price.$regex", "FIELD_NOT_ALLOWED"],
      ["query.filter.visible.$gt", "FIELD_NOT_ALLOWED"],
      ["query.paging.limit", "MAX"],
      ["query.paging.offset", "MIN"],
      ["query.sort[0].fieldName", "FIELD_NOT_ALLOWED"],
      ["query.sort[1].order", "INVALID_ENUM_VALUE"],
    ]);
    expect(violations({ filter: "{not json" })).toEqual([["query.filter", "FORMAT"]]);
    expect(violations({ filter: { createdDate: "yesterday" } })).toEqual([["query.filter.createdDate", "FORMAT"]]);
    expect(violations({ filter: { $and: Array.from({ length: 201 }, () => ({ name: "A" })) } })).toContainEqual([
      "query.filter.$and[199]",
      "MAX_SIZE",
    ]);
    expect(violations({ filter: { tags: { $gt: "a" } } })).toEqual([["query.filter.tags.$gt", "FIELD_NOT_ALLOWED"]]);
  });

  it("encodes .r as base64url JSON without padding", () => {
    const encoded = encodeDotR({ query: { filter: { name: "é?" } } });
    expect(encoded).not.toMatch(/[+/=]/);
    expect(JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"))).toEqual({ query: { filter: { name: "é?" } } });
  });
});
