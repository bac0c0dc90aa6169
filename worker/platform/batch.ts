import { rawStatement } from "./db";
import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./db";
import { ApiError } from "./errors";

/** See batchAssertions in tables.ts: statements that abort their whole batch when a condition is false. */

/** Aborts the batch unless `condition` (an SQL boolean) holds. */
export function assertInBatch(db: Db, condition: SQL): BatchItem<"sqlite"> {
  return rawStatement(db, sql`INSERT INTO batch_assertions (ok) VALUES (CASE WHEN ${condition} THEN 1 ELSE 0 END)`);
}

/** Aborts the batch unless the statement just before it changed at least one row. */
export function assertPreviousChanged(db: Db): BatchItem<"sqlite"> {
  return rawStatement(db, sql`INSERT INTO batch_assertions (ok) VALUES (CASE WHEN changes() > 0 THEN 1 ELSE 0 END)`);
}

/** Last statement of a batch that asserted: leaves the table empty. */
export function clearAssertions(db: Db): BatchItem<"sqlite"> {
  return rawStatement(db, sql`DELETE FROM batch_assertions`);
}

/** True when a D1 error is a failed batch assertion. */
export function isAssertionFailure(err: unknown): boolean {
  return String((err as Error)?.message ?? err).includes("CHECK constraint failed");
}

/** True when a D1 error is a unique-constraint violation on the given column (e.g. "products.slug"). */
export function isUniqueViolation(err: unknown, column: string): boolean {
  const m = String((err as Error)?.message ?? err);
  return m.includes("UNIQUE constraint failed") && m.includes(column);
}

export function conflict(entity: string): ApiError {
  return new ApiError(409, "CONFLICT", `${entity} was changed by another request at the same time; reload it and try again`, {
    message: "Conflict",
  });
}
