import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The outbox: every state change writes its event here in the same D1 batch, so an event exists exactly when its
 * change does. Rows are flushed to the EVENTS queue after the response and re-flushed by the cron sweep.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    entityId: text("entity_id").notNull(),
    eventTime: text("event_time").notNull(),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** When the row reached the queue; null until then. */
    flushedAt: text("flushed_at"),
    attempts: integer("attempts").notNull().default(0),
  },
  (t) => [index("outbox_unflushed_idx").on(t.flushedAt, t.eventTime)],
);
