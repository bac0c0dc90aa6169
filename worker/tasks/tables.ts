import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The merchant's to-do list, filled by automations: a high-value abandoned cart to follow up, stock running low, an
 * outgoing webhook disabled after persistent failures. `dedupeKey` keeps one *open* task per cause (a
 * done task does not block a new one).
 */
export const tasks = sqliteTable(
  "tasks",
  {
    id: text("id").primaryKey(),
    /** ABANDONED_CART, LOW_STOCK, WEBHOOK_DISABLED, … */
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    /** The thing it is about (cart, product, subscription id). */
    entityId: text("entity_id"),
    dedupeKey: text("dedupe_key").notNull(),
    status: text("status", { enum: ["OPEN", "DONE"] }).notNull(),
    createdDate: text("created_date").notNull(),
    completedDate: text("completed_date"),
  },
  (t) => [uniqueIndex("tasks_open_dedupe_idx").on(t.dedupeKey).where(sql`status = 'OPEN'`), index("tasks_status_idx").on(t.status, t.createdDate)],
);
