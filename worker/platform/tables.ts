import { sql } from "drizzle-orm";
import { check, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Store-wide settings and markers, one JSON value per key (e.g. "demo_catalogue"). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).$type<unknown>().notNull(),
  updatedDate: text("updated_date").notNull(),
});

/**
 * Assertions inside a D1 batch. D1 has no BEGIN/COMMIT, but a batch is one transaction: a statement that inserts
 * `ok = 0` here breaks the CHECK and rolls the whole batch back. Used for optimistic concurrency ("the row is
 * still the version I read") and all-or-nothing guarded updates ("the previous statement changed a row").
 * Every batch that asserts also empties the table at its end, so it stays empty.
 */
export const batchAssertions = sqliteTable("batch_assertions", { ok: integer("ok").notNull() }, (t) => [
  check("batch_assertions_ok", sql`${t.ok} = 1`),
]);

/** Fixed-window counters for rate limits (login attempts per account and per client address). */
export const rateLimits = sqliteTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: integer("window_start").notNull(),
  count: integer("count").notNull(),
});
