import type { Context } from "hono";
import { and, or, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { badField, invalidArgument, type FieldViolation } from "./errors";
import { toMinor } from "./money";
import { readJson } from "./validation";

/**
 * The Wix query language, compiled to parameterised SQL:
 *   { filter: { field: value | { $op: value } , $and: [...], $or: [...], $not: {...} },
 *     sort: [{ fieldName, order: "ASC" | "DESC" }], paging: { limit, offset } }
 * Each API declares the fields it accepts; an unknown field or operator, or a value of the wrong type, is a
 * field violation. List values travel as one JSON parameter (json_each), so a 500-id `$in` stays within D1's
 * limit of 100 bound parameters per statement.
 */

export const DEFAULT_LIMIT = 50;
/** Largest page a query returns (documented in docs/api.md). */
export const MAX_LIMIT = 100;
const MAX_LIST_VALUES = 1000;
const MAX_FILTER_NODES = 200;
const MAX_SORT_FIELDS = 5;

export type FieldType = "string" | "number" | "boolean" | "date" | "money";

export interface ScalarField {
  kind?: "scalar";
  sql: SQL | AnyColumn;
  type: FieldType;
  sortable?: boolean;
  /** Wix Data's text operators too: `$contains` (case-insensitive) and `$hasSome` (any of the values). */
  textOps?: boolean;
}

/** A field holding a set of ids (e.g. a product's collectionIds): supports $hasSome, $hasAll, $eq, $in. */
export interface SetField {
  kind: "set";
  /** SQL true when the row holds at least one of the JSON-array parameter's values. */
  hasSome(values: string[]): SQL;
  /** SQL true when the row holds every one of the values. */
  hasAll(values: string[]): SQL;
}

export type QueryField = ScalarField | SetField;
export type FieldMap = Record<string, QueryField>;

export interface CompileOptions {
  currency: string;
}

export interface CompiledQuery {
  where: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  offset: number;
}

export interface QueryInput {
  filter?: unknown;
  sort?: unknown;
  paging?: unknown;
}

const SCALAR_OPS = new Set(["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$startsWith", "$exists"]);
const SET_OPS = new Set(["$eq", "$in", "$hasSome", "$hasAll"]);
const ALL_OPS = [...SCALAR_OPS, "$hasSome", "$hasAll", "$contains"];

class Compiler {
  violations: FieldViolation[] = [];
  nodes = 0;
  constructor(
    private fields: FieldMap,
    private opts: CompileOptions & { resolve?: (name: string) => QueryField | undefined },
  ) {}

  lookup(name: string): QueryField | undefined {
    return Object.hasOwn(this.fields, name) ? this.fields[name] : this.opts.resolve?.(name);
  }

  fail(field: string, description: string, rule: FieldViolation["violatedRule"] = "VALIDATION") {
    this.violations.push({ field, description, violatedRule: rule, data: {} });
  }

  filter(node: unknown, path: string): SQL | undefined {
    if (++this.nodes > MAX_FILTER_NODES) {
      this.fail(path, `has more than ${MAX_FILTER_NODES} conditions`, "MAX_SIZE");
      return undefined;
    }
    if (node === null || typeof node !== "object" || Array.isArray(node)) {
      this.fail(path, "must be an object", "VALIDATION");
      return undefined;
    }
    const parts: SQL[] = [];
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      const at = `${path}.${key}`;
      if (key === "$and" || key === "$or") {
        if (!Array.isArray(value) || value.length === 0) {
          this.fail(at, "must be a non-empty array of filters");
          continue;
        }
        const subs = value.map((v, i) => this.filter(v, `${at}[${i}]`)).filter((s): s is SQL => s !== undefined);
        if (subs.length) parts.push((key === "$and" ? and(...subs) : or(...subs))!);
      } else if (key === "$not") {
        const sub = this.filter(value, at);
        // A comparison with a missing value is NULL, and NOT NULL is NULL: coalesce so `$not: {brand: "X"}` keeps
        // products without a brand, as `brand: {$ne: "X"}` does.
        if (sub) parts.push(sql`NOT coalesce(${sub}, 0)`);
      } else if (key.startsWith("$")) {
        this.fail(at, `unknown operator ${key} (allowed here: $and, $or, $not)`, "FIELD_NOT_ALLOWED");
      } else {
        const field = this.lookup(key);
        if (!field) {
          this.fail(at, `is not a filterable field (allowed: ${Object.keys(this.fields).sort().join(", ")})`, "FIELD_NOT_ALLOWED");
          continue;
        }
        const cond = this.fieldCondition(field, value, at);
        if (cond) parts.push(cond);
      }
    }
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : and(...parts);
  }

  fieldCondition(field: QueryField, value: unknown, path: string): SQL | undefined {
    // A bare value means $eq.
    const isOpObject =
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      Object.keys(value).some((k) => k.startsWith("$")) &&
      !("$date" in value);
    const ops: [string, unknown][] = isOpObject ? Object.entries(value as Record<string, unknown>) : [["$eq", value]];
    const parts: SQL[] = [];
    for (const [op, operand] of ops) {
      const at = isOpObject ? `${path}.${op}` : path;
      if (!ALL_OPS.includes(op) || (op === "$contains" && (field.kind === "set" || !field.textOps))) {
        this.fail(at, `unknown operator ${op}`, "FIELD_NOT_ALLOWED");
        continue;
      }
      const cond = field.kind === "set" ? this.setCondition(field, op, operand, at) : this.scalarCondition(field, op, operand, at);
      if (cond) parts.push(cond);
    }
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : and(...parts);
  }

  setCondition(field: SetField, op: string, operand: unknown, at: string): SQL | undefined {
    if (!SET_OPS.has(op)) {
      this.fail(at, `operator ${op} does not apply to a list field (use $hasSome, $hasAll, $eq or $in)`, "FIELD_NOT_ALLOWED");
      return undefined;
    }
    const values = op === "$eq" ? [operand] : operand;
    if (!Array.isArray(values) || values.length === 0 || values.length > MAX_LIST_VALUES || !values.every((v) => typeof v === "string")) {
      this.fail(at, `must be ${op === "$eq" ? "a string" : `a non-empty array of at most ${MAX_LIST_VALUES} strings`}`);
      return undefined;
    }
    return op === "$hasAll" ? field.hasAll(values as string[]) : field.hasSome(values as string[]);
  }

  scalarCondition(field: ScalarField, op: string, operand: unknown, at: string): SQL | undefined {
    const col = field.sql;
    switch (op) {
      case "$exists":
        if (typeof operand !== "boolean") return void this.fail(at, "must be a boolean");
        return operand ? sql`${col} IS NOT NULL` : sql`${col} IS NULL`;
      case "$eq":
      case "$ne": {
        if (operand === null) return op === "$eq" ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
        const v = this.value(field, operand, at);
        if (v === undefined) return undefined;
        return op === "$eq" ? sql`${col} = ${v}` : sql`${col} IS NOT ${v}`;
      }
      case "$in":
      case "$nin": {
        if (!Array.isArray(operand) || operand.length > MAX_LIST_VALUES) {
          return void this.fail(at, `must be an array of at most ${MAX_LIST_VALUES} values`, Array.isArray(operand) ? "MAX_SIZE" : "VALIDATION");
        }
        const vals = operand.map((o, i) => this.value(field, o, `${at}[${i}]`));
        if (vals.some((v) => v === undefined)) return undefined;
        const list = sql`(SELECT value FROM json_each(${JSON.stringify(vals)}))`;
        return op === "$in" ? sql`${col} IN ${list}` : sql`(${col} IS NULL OR ${col} NOT IN ${list})`;
      }
      case "$gt":
      case "$gte":
      case "$lt":
      case "$lte": {
        if (field.type === "boolean") return void this.fail(at, `operator ${op} does not apply to a boolean field`, "FIELD_NOT_ALLOWED");
        const v = this.value(field, operand, at);
        if (v === undefined) return undefined;
        const sym = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" }[op];
        return sql`${col} ${sql.raw(sym)} ${v}`;
      }
      case "$hasSome":
        if (!field.textOps) return void this.fail(at, `operator ${op} does not apply to this field`, "FIELD_NOT_ALLOWED");
        return this.scalarCondition(field, "$in", operand, at);
      case "$contains":
        if (typeof operand !== "string" || operand.length > 1000) return void this.fail(at, "must be a string of at most 1000 characters");
        // instr rather than LIKE, for the same reasons as $startsWith; lower() folds ASCII case.
        return sql`instr(lower(${col}), lower(${operand})) > 0`;
      case "$startsWith": {
        if (field.type !== "string") return void this.fail(at, "operator $startsWith applies only to text fields", "FIELD_NOT_ALLOWED");
        if (typeof operand !== "string" || operand.length > 1000) return void this.fail(at, "must be a string of at most 1000 characters");
        // A prefix comparison rather than LIKE: D1 refuses LIKE patterns over 50 bytes, and `%`/`_` stay literal.
        // NOCASE folds ASCII case, as LIKE does. substr counts characters (code points).
        return sql`substr(${col}, 1, ${[...operand].length}) = ${operand} COLLATE NOCASE`;
      }
      default:
        return void this.fail(at, `operator ${op} does not apply to this field`, "FIELD_NOT_ALLOWED");
    }
  }

  /** Checks a value against the field type and converts it to its stored form. */
  value(field: ScalarField, v: unknown, at: string): string | number | undefined {
    switch (field.type) {
      case "string":
        if (typeof v === "string" && v.length <= 1000) return v;
        return void this.fail(at, "must be a string of at most 1000 characters");
      case "number":
        if (typeof v === "number" && Number.isFinite(v)) return v;
        return void this.fail(at, "must be a number");
      case "money":
        if (typeof v === "number" && Number.isFinite(v)) return toMinor(v, this.opts.currency);
        return void this.fail(at, "must be a number");
      case "boolean":
        if (typeof v === "boolean") return v ? 1 : 0;
        return void this.fail(at, "must be a boolean");
      case "date": {
        const raw = v !== null && typeof v === "object" && "$date" in v ? (v as { $date: unknown }).$date : v;
        const d = typeof raw === "string" ? new Date(raw) : undefined;
        if (d && !Number.isNaN(d.getTime())) return d.toISOString();
        return void this.fail(at, "must be an ISO-8601 date", "FORMAT");
      }
    }
  }
}

/** Accepts an object or a JSON string (some Wix APIs send filter and sort as strings). */
function jsonish(value: unknown, field: string, violations: FieldViolation[]): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    violations.push({ field, description: "is not valid JSON", violatedRule: "FORMAT", data: {} });
    return undefined;
  }
}

/**
 * Compiles a query against a field map. `prefix` is where the query sits in the request ("query").
 * `tieBreaker` keeps offset paging stable when sort values repeat.
 */
export function compileQuery(
  input: QueryInput | undefined,
  fields: FieldMap,
  opts: CompileOptions & {
    prefix?: string;
    tieBreaker: SQL | AnyColumn;
    defaultSort?: SQL[];
    /** Fields with dynamic names (e.g. `options.Size`), tried after the map. */
    resolve?: (name: string) => QueryField | undefined;
  },
): CompiledQuery {
  const prefix = opts.prefix ?? "query";
  const compiler = new Compiler(fields, opts);
  const q = input ?? {};

  const filterValue = jsonish(q.filter, `${prefix}.filter`, compiler.violations);
  const where = filterValue === undefined || filterValue === null ? undefined : compiler.filter(filterValue, `${prefix}.filter`);

  const orderBy: SQL[] = [];
  const sortValue = jsonish(q.sort, `${prefix}.sort`, compiler.violations);
  if (sortValue !== undefined && sortValue !== null) {
    if (!Array.isArray(sortValue)) compiler.fail(`${prefix}.sort`, "must be an array of {fieldName, order}");
    else if (sortValue.length > MAX_SORT_FIELDS) compiler.fail(`${prefix}.sort`, `must have at most ${MAX_SORT_FIELDS} entries`, "MAX_SIZE");
    else {
      sortValue.forEach((s: unknown, i: number) => {
        const at = `${prefix}.sort[${i}]`;
        if (s === null || typeof s !== "object") return compiler.fail(at, "must be an object {fieldName, order}");
        const { fieldName, order = "ASC" } = s as { fieldName?: unknown; order?: unknown };
        const field = typeof fieldName === "string" && Object.hasOwn(fields, fieldName) ? fields[fieldName] : undefined;
        if (typeof fieldName !== "string") return compiler.fail(`${at}.fieldName`, "is required", "REQUIRED_FIELD");
        if (!field || field.kind === "set" || !field.sortable) {
          const sortable = Object.entries(fields)
            .filter(([, f]) => f.kind !== "set" && f.sortable)
            .map(([k]) => k)
            .sort();
          return compiler.fail(`${at}.fieldName`, `is not a sortable field (allowed: ${sortable.join(", ")})`, "FIELD_NOT_ALLOWED");
        }
        const dir = typeof order === "string" ? order.toUpperCase() : "";
        if (dir !== "ASC" && dir !== "DESC") return compiler.fail(`${at}.order`, "must be ASC or DESC", "INVALID_ENUM_VALUE");
        orderBy.push(dir === "ASC" ? sql`${field.sql} ASC` : sql`${field.sql} DESC`);
      });
    }
  }
  if (orderBy.length === 0 && opts.defaultSort) orderBy.push(...opts.defaultSort);
  orderBy.push(sql`${opts.tieBreaker} ASC`);

  let limit = DEFAULT_LIMIT;
  let offset = 0;
  if (q.paging !== undefined && q.paging !== null) {
    if (typeof q.paging !== "object") compiler.fail(`${prefix}.paging`, "must be an object {limit, offset}");
    else {
      const p = q.paging as { limit?: unknown; offset?: unknown };
      if (p.limit !== undefined && p.limit !== null) {
        if (typeof p.limit !== "number" || !Number.isInteger(p.limit)) compiler.fail(`${prefix}.paging.limit`, "must be an integer");
        else if (p.limit < 0) compiler.fail(`${prefix}.paging.limit`, "must be at least 0", "MIN");
        else if (p.limit > MAX_LIMIT) compiler.fail(`${prefix}.paging.limit`, `must be at most ${MAX_LIMIT}`, "MAX");
        else limit = p.limit === 0 ? DEFAULT_LIMIT : p.limit;
      }
      if (p.offset !== undefined && p.offset !== null) {
        if (typeof p.offset !== "number" || !Number.isInteger(p.offset)) compiler.fail(`${prefix}.paging.offset`, "must be an integer");
        else if (p.offset < 0) compiler.fail(`${prefix}.paging.offset`, "must be at least 0", "MIN");
        else if (p.offset > 1_000_000) compiler.fail(`${prefix}.paging.offset`, "must be at most 1000000", "MAX");
        else offset = p.offset;
      }
    }
  }

  if (compiler.violations.length) throw invalidArgument(compiler.violations);
  return { where, orderBy, limit, offset };
}

/** The `metadata` block of a query response. */
export function pagingMetadata(items: number, offset: number, total: number) {
  return { items, offset, total };
}

/**
 * Reads a query request in either encoding: `GET ?.r=<base64url JSON>` or `POST` with the same JSON body.
 * Other query-string parameters (the SDK repeats path parameters there) are ignored.
 */
export async function readQueryRequest(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  if (c.req.method === "GET") {
    const r = c.req.query(".r");
    if (r === undefined) return {};
    try {
      const b64 = r.replace(/-/g, "+").replace(/_/g, "/");
      const bytes = Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
      body = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw badField(".r", "must be base64url-encoded JSON", "FORMAT");
    }
  } else {
    body = await readJson(c);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw badField("body", "must be a JSON object", "VALIDATION");
  return body as Record<string, unknown>;
}

/** Encodes a payload the way the SDK does for `.r` (base64url, no padding). For tests and tools. */
export function encodeDotR(payload: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
