import type { SQL } from "drizzle-orm";
import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";

/** The drizzle handle every service takes. */
export type Db = DrizzleD1Database & { $client: D1Database };

/** D1 round trips made while serving one request (reported in the Server-Timing header). */
export interface RoundTrips {
  count: number;
  ms: number;
  /** D1 rows written (D1's own `rows_written`, indexes included: what the platform bills). */
  rowsWritten?: number;
  /** KV puts and deletes (counted by countingKv). */
  kvWrites?: number;
  /** KV gets and lists (counted by countingKv; billed per call, edge-cached or not). */
  kvReads?: number;
  /**
   * D1 rows read: D1's own `rows_read` where the result carries it (run, all, batch); drizzle's selects outside a
   * batch go through `raw`, which has no meta, so those count the rows returned (a lower bound).
   */
  rowsRead?: number;
  /** Queue messages sent while the request was being served (counted by countingQueue). */
  queueSends?: number;
}

/**
 * Opens drizzle over D1. With `trips`, every call that reaches D1 (a statement's all/first/run/raw, or one batch)
 * is counted, so the benchmark and tests can check that a request stays at one or two round trips.
 */
export function openDb(d1: D1Database, trips?: RoundTrips): Db {
  return drizzle(trips ? countingD1(d1, trips) : d1);
}

const REAL = Symbol("real statement");

function timed<T>(trips: RoundTrips, run: () => Promise<T>): Promise<T> {
  const start = Date.now();
  trips.count++;
  return run()
    .then((result) => {
      trips.rowsWritten = (trips.rowsWritten ?? 0) + rowsWrittenOf(result);
      trips.rowsRead = (trips.rowsRead ?? 0) + rowsReadOf(result);
      return result;
    })
    .finally(() => {
      trips.ms += Date.now() - start;
    });
}

/** The rows a statement's or a batch's result says it wrote (`first` and `raw` carry no meta: counted as 0). */
function rowsWrittenOf(result: unknown): number {
  if (Array.isArray(result)) return result.reduce((n: number, r) => n + rowsWrittenOf(r), 0);
  const meta = (result as { meta?: { rows_written?: number } } | null)?.meta;
  return typeof meta?.rows_written === "number" ? meta.rows_written : 0;
}

/** The rows a result says it read; a `raw` or `first` result (no meta) counts its rows returned. */
function rowsReadOf(result: unknown): number {
  if (Array.isArray(result)) return result.reduce((n: number, r) => n + (Array.isArray(r) ? 1 : rowsReadOf(r)), 0);
  const meta = (result as { meta?: { rows_read?: number } } | null)?.meta;
  if (typeof meta?.rows_read === "number") return meta.rows_read;
  return result === null || result === undefined ? 0 : 1;
}

/**
 * The KV namespace with its writes (put, delete) counted into `trips`: KV writes are the platform's scarcest
 * resource, so the Server-Timing header reports them beside D1's, and tests and the bench check pages write none.
 */
export function countingKv(kv: KVNamespace, trips: RoundTrips): KVNamespace {
  return new Proxy(kv, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "put" || prop === "delete") {
        return (...args: unknown[]) => {
          trips.kvWrites = (trips.kvWrites ?? 0) + 1;
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      if (prop === "get" || prop === "getWithMetadata" || prop === "list") {
        return (...args: unknown[]) => {
          // A get of several keys at once is billed per key.
          trips.kvReads = (trips.kvReads ?? 0) + (Array.isArray(args[0]) ? args[0].length : 1);
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The queue with its messages counted into `trips`, for the bench's cost table. The outbox flush runs in
 * waitUntil, but its first sendBatch is called before commit() returns, so a request's events are counted.
 */
export function countingQueue<T>(queue: Queue<T>, trips: RoundTrips): Queue<T> {
  return new Proxy(queue, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "send" || prop === "sendBatch") {
        return (...args: unknown[]) => {
          trips.queueSends = (trips.queueSends ?? 0) + (prop === "send" ? 1 : (args[0] as unknown[]).length);
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function countingStatement(stmt: D1PreparedStatement, trips: RoundTrips): D1PreparedStatement {
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === REAL) return target;
      if (prop === "bind") return (...values: unknown[]) => countingStatement(target.bind(...values), trips);
      if (prop === "all" || prop === "first" || prop === "run" || prop === "raw") {
        const fn = (target[prop] as (...a: unknown[]) => Promise<unknown>).bind(target);
        return (...args: unknown[]) => timed(trips, () => fn(...args));
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function countingD1(d1: D1Database, trips: RoundTrips): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (query: string) => countingStatement(target.prepare(query), trips);
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) =>
          timed(trips, () => target.batch(statements.map((s) => (s as unknown as Record<symbol, D1PreparedStatement>)[REAL] ?? s)));
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * A raw SQL statement that can go into `runBatch`. drizzle 0.45's D1 batch expects every parameterised item to
 * carry a prepared `stmt`, which `db.run(sql)` lacks, so it is attached here.
 */
export function rawStatement(db: Db, query: SQL) {
  const raw = db.run(query);
  const { sql: text } = raw.getQuery();
  (raw as unknown as { stmt: D1PreparedStatement }).stmt = db.$client.prepare(text);
  return raw;
}
