import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Db } from "./db";

/** One statement of a D1 batch (a drizzle query, or a raw statement from `rawStatement`). */
export type Statement = BatchItem<"sqlite">;

/** Statements that run together: one transaction, one round trip. */
export type Statements = readonly [Statement, ...Statement[]];

/**
 * Runs statements as one D1 batch and returns each statement's typed result, in order. With a tuple of statements
 * the results are typed per position; with a built-up array they come back as `unknown[]`. The only caller of
 * `db.batch` in the shop: services reach it directly or through the event bus's `commit`, which also flushes events.
 */
export async function runBatch<T extends Statements>(db: Db, statements: T): Promise<BatchResponse<T>>;
export async function runBatch(db: Db, statements: readonly Statement[]): Promise<unknown[]>;
export async function runBatch(db: Db, statements: readonly Statement[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  const results: readonly unknown[] = await db.batch(statements as unknown as Statements);
  return [...results];
}
