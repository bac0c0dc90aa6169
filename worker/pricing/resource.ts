import { and, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { ApiError, badField, invalidArgument, notFound, type FieldViolation } from "#worker/platform/errors";
import { currencyDigits, toDecimalString, toMajor, toMinor } from "#worker/platform/money";
import { newId } from "#worker/platform/ids";
import { compileQuery, pagingMetadata, type FieldMap } from "#worker/platform/query";
import { parseWith } from "#worker/platform/validation";
import { queryRequestSchema } from "./schemas";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * One merchant resource of the pricing configuration (a discount rule, a coupon, a shipping region...): create,
 * get, patch, delete and query, all merchant-only, all in the same shape. A PATCH replaces each top-level field it
 * names; the merged result is validated as a whole like a create, so a bad patch changes nothing. Every update
 * bumps `revision`; a patch that names an older revision, or races another update, gets 409 and changes nothing.
 */

type PricingTable = SQLiteTable & {
  id: SQLiteColumn;
  revision: SQLiteColumn;
  createdDate: SQLiteColumn;
  updatedDate: SQLiteColumn;
};

export interface BaseRow {
  id: string;
  revision: number;
  createdDate: string;
  updatedDate: string;
}

export interface ResourceSpec<Row extends BaseRow, Input, Values extends object> {
  /** "Discount rule": used in messages. */
  entity: string;
  /** "DISCOUNT_RULE_NOT_FOUND" */
  notFoundCode: string;
  /** Request and response key of one item ("discountRule") and of a query's list ("discountRules"). */
  wrapper: string;
  plural: string;
  table: PricingTable;
  schema: z.ZodType<Input>;
  /** Column values from validated input (money to minor units...); throws INVALID_ARGUMENT for what the schema cannot check. */
  toValues(ctx: Ctx, input: Input): Values | Promise<Values>;
  shape(ctx: Ctx, row: Row): Record<string, unknown>;
  fields(ctx: Ctx): FieldMap;
  defaultSort(): SQL[];
  /** Maps a write error (a unique index) to a 409, or returns null. */
  conflict?(err: unknown, values: Values): ApiError | null;
  /** Columns only a create sets (counters such as timesUsed). */
  createDefaults?: Partial<Row>;
  /** Merges a patch over the current wire shape (default: top-level replace). */
  merge?(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown>;
}

const patchBody = (wrapper: string) => z.object({ [wrapper]: z.record(z.string(), z.unknown()) });

function conflictError(entity: string): ApiError {
  return new ApiError(
    409,
    "REVISION_MISMATCH",
    `${entity} was changed since revision you sent (or by another request at the same time); read it again and retry`,
    {
      message: "Conflict",
    },
  );
}

/** The create, get, update, remove and query services of one pricing resource. */
export function resource<Row extends BaseRow, Input, Values extends object>(spec: ResourceSpec<Row, Input, Values>) {
  const t = spec.table;
  const write = (run: () => Promise<unknown>, values: Values) => writeMapped(spec, run, values);
  const load = (ctx: Ctx, id: string) => loadRow(spec, ctx, id);

  return {
    async create(ctx: Ctx, body: unknown) {
      requirePermission(ctx, "settings.manage");
      const input = parseWith(z.object({ [spec.wrapper]: spec.schema }), body)[spec.wrapper] as Input;
      const values = await spec.toValues(ctx, input);
      const now = nowIso();
      const row = { ...spec.createDefaults, ...values, id: newId(), revision: 1, createdDate: now, updatedDate: now } as unknown as Row;
      await write(() => ctx.db.insert(t).values(row as never), values);
      return { [spec.wrapper]: spec.shape(ctx, row) };
    },

    async get(ctx: Ctx, id: string) {
      requireMerchant(ctx);
      return { [spec.wrapper]: spec.shape(ctx, await load(ctx, id)) };
    },

    async update(ctx: Ctx, id: string, body: unknown) {
      requirePermission(ctx, "settings.manage");
      const patch = parseWith(patchBody(spec.wrapper), body)[spec.wrapper];
      if (patch.id !== undefined && patch.id !== id) {
        throw badField(`${spec.wrapper}.id`, "must match the id in the path");
      }
      const current = await load(ctx, id);
      const { revision: _r, ...currentShape } = spec.shape(ctx, current);
      const merged = spec.merge ? spec.merge(currentShape, patch) : { ...currentShape, ...patch };
      const input = parseWith(spec.schema, merged, spec.wrapper) as Input & { revision?: number };
      if (patch.revision !== undefined && input.revision !== current.revision) throw conflictError(spec.entity);
      const values = await spec.toValues(ctx, input);
      const now = nowIso();
      const [updated, rows] = (await write(
        () =>
          runBatch(ctx.db, [
            ctx.db
              .update(t)
              .set({ ...values, revision: current.revision + 1, updatedDate: now } as never)
              .where(and(eq(t.id, id), eq(t.revision, current.revision))),
            ctx.db.select().from(t).where(eq(t.id, id)),
          ]),
        values,
      )) as [D1Result, Row[]];
      if (!rows[0]) throw notFound(spec.notFoundCode, spec.entity, id);
      if (!updated.meta.changes) throw conflictError(spec.entity);
      return { [spec.wrapper]: spec.shape(ctx, rows[0]) };
    },

    async remove(ctx: Ctx, id: string) {
      requirePermission(ctx, "settings.manage");
      const result = (await ctx.db.delete(t).where(eq(t.id, id))) as unknown as D1Result;
      if (!result.meta.changes) throw notFound(spec.notFoundCode, spec.entity, id);
      return {};
    },

    async query(ctx: Ctx, body: unknown) {
      requireMerchant(ctx);
      const { query } = parseWith(queryRequestSchema, body);
      const compiled = compileQuery({ filter: query?.filter, sort: query?.sort, paging: pagingOf(query) }, spec.fields(ctx), {
        currency: ctx.currency,
        tieBreaker: t.id,
        defaultSort: spec.defaultSort(),
      });
      const [rows, [{ total }]] = (await runBatch(ctx.db, [
        ctx.db
          .select()
          .from(t)
          .where(compiled.where)
          .orderBy(...compiled.orderBy)
          .limit(compiled.limit)
          .offset(compiled.offset),
        ctx.db.select({ total: sql<number>`count(*)` }).from(t).where(compiled.where),
      ])) as unknown as [Row[], { total: number }[]];
      const items = rows.map((r) => spec.shape(ctx, r));
      const next = compiled.offset + items.length;
      const cursors = {
        next: next < total ? String(next) : null,
        prev: compiled.offset > 0 ? String(Math.max(0, compiled.offset - compiled.limit)) : null,
      };
      return {
        [spec.plural]: items,
        // Offset readers take metadata; Wix cursor queries read pagingMetadata.
        metadata: { ...pagingMetadata(items.length, compiled.offset, total), count: items.length, cursors, hasNext: next < total },
        pagingMetadata: { count: items.length, offset: compiled.offset, total, cursors, hasNext: next < total },
      };
    },
  };
}

/** Runs a write; a unique-index failure the spec knows becomes its 409. */
async function writeMapped<Row extends BaseRow, Input, Values extends object>(
  spec: ResourceSpec<Row, Input, Values>,
  run: () => Promise<unknown>,
  values: Values,
) {
  try {
    return await run();
  } catch (err) {
    // drizzle wraps a failed single statement ("Failed query: ..."), keeping D1's error as the cause.
    const cause = (err as { cause?: unknown })?.cause;
    const mapped = spec.conflict?.(err, values) ?? (cause ? spec.conflict?.(cause, values) : null);
    if (mapped) throw mapped;
    throw err;
  }
}

/** One row by id, or the resource's 404. */
async function loadRow<Row extends BaseRow, Input, Values extends object>(
  spec: ResourceSpec<Row, Input, Values>,
  ctx: Ctx,
  id: string,
): Promise<Row> {
  const t = spec.table;
  // drizzle's generic table types do not survive this abstraction; the spec's Row type is what the table holds.
  const db = ctx.db as unknown as {
    select(): { from(t: unknown): { where(w: SQL | undefined): { limit(n: number): Promise<Row[]> } } };
  };
  const [row] = await db.select().from(t).where(eq(t.id, id)).limit(1);
  if (!row) throw notFound(spec.notFoundCode, spec.entity, id);
  return row;
}

type QueryRequest = z.infer<typeof queryRequestSchema>["query"];

/** A query's paging: offset paging as sent, or cursor paging (the cursor is the offset this API gave out). */
function pagingOf(query: QueryRequest) {
  if (!query?.cursorPaging) return query?.paging;
  const cursor = query.cursorPaging.cursor;
  const offset = cursor ? Number(cursor) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw badField("query.cursorPaging.cursor", "is not a cursor this API gave out", "FORMAT");
  return { limit: query.cursorPaging.limit ?? undefined, offset };
}

/** Converts wire money (major units) to minor units, collecting a violation when it has more decimals than the currency allows. */
export class MoneyReader {
  readonly violations: FieldViolation[] = [];
  constructor(private readonly currency: string) {}

  minor(value: number, field: string): number {
    const minor = toMinor(value, this.currency);
    if (Math.abs(toMajor(minor, this.currency) - value) > 1e-9) {
      this.violations.push({
        field,
        description: `has more decimal places than ${this.currency} allows (${currencyDigits(this.currency)})`,
        violatedRule: "FORMAT",
        data: {},
      });
    }
    return minor;
  }

  minorOrNull(value: number | null | undefined, field: string): number | null {
    return value === null || value === undefined ? null : this.minor(value, field);
  }

  /** Throws INVALID_ARGUMENT with everything collected. */
  check(extra: FieldViolation[] = []): void {
    const all = [...this.violations, ...extra];
    if (all.length) throw invalidArgument(all);
  }
}

/** Minor units to the wire's decimal string (null stays null). */
export function moneyOut(minor: number | null, currency: string): string | null {
  return minor === null ? null : toDecimalString(minor, currency);
}

/** An ISO-8601 date-time normalised to UTC with milliseconds (what columns hold, so text order is time order). */
export function isoOrNull(value: string | null | undefined): string | null {
  return value ? new Date(value).toISOString() : null;
}
