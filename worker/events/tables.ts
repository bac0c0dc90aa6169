import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

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

/**
 * Which processor has finished which event. Delivery is at least once, so a processor writes its row here in the
 * same D1 batch as its effect (`ProcessorContext.done`); a redelivered event skips the processors already recorded.
 */
export const processedEvents = sqliteTable(
  "processed_events",
  {
    eventId: text("event_id").notNull(),
    processor: text("processor").notNull(),
    processedAt: text("processed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.processor] }), index("processed_events_time_idx").on(t.processedAt)],
);

/**
 * Queue messages that failed: RETRYING while the queue still redelivers them (with the last error), DEAD once the
 * dead-letter queue received them, REPLAYED after the merchant sent them again. `body` is the message as sent, so a
 * replay is exact. Keyed by the event id (or a job's id).
 */
export const eventFailures = sqliteTable(
  "event_failures",
  {
    id: text("id").primaryKey(),
    /** The event type, or the job kind for non-event messages. */
    type: text("type").notNull(),
    body: text("body", { mode: "json" }).$type<unknown>().notNull(),
    state: text("state", { enum: ["RETRYING", "DEAD", "REPLAYED"] }).notNull(),
    /** The processor (or job) that failed last. */
    processor: text("processor"),
    error: text("error").notNull(),
    attempts: integer("attempts").notNull(),
    firstFailedAt: text("first_failed_at").notNull(),
    lastFailedAt: text("last_failed_at").notNull(),
    deadAt: text("dead_at"),
    replayedAt: text("replayed_at"),
  },
  (t) => [index("event_failures_state_idx").on(t.state, t.lastFailedAt)],
);
