import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The outbox: every state change writes its event here in the same D1 batch, so an event exists exactly when its
 * change does. Rows are flushed to the EVENTS queue after the response and re-flushed by the cron sweep. An event
 * is done once every processor of its type has recorded a result; until then the sweep re-sends it (acks.ts).
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
    /** How many times the sweep sent it again because it was flushed but not done. */
    resends: integer("resends").notNull().default(0),
    /** When every processor of its type had a result (processed, skipped or dead); null while it waits. */
    doneAt: text("done_at"),
  },
  (t) => [index("outbox_unflushed_idx").on(t.flushedAt, t.eventTime), index("outbox_waiting_idx").on(t.eventTime).where(sql`done_at IS NULL`)],
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

/** A signing key of a webhook source or subscription: a Standard Webhooks secret (`whsec_…`) or an RSA public key PEM. */
export interface WebhookKey {
  id: string;
  value: string;
  createdDate: string;
  /** Set on the old keys by a rotation: the key verifies until then (the overlap window), and is ignored after. */
  expiresAt?: string | null;
}

/**
 * Incoming webhooks: a system the merchant lets post events to `/webhooks/{name}`, with its format and the keys its
 * requests are verified with (several during a rotation).
 */
export const webhookSources = sqliteTable("webhook_sources", {
  id: text("id").primaryKey(),
  /** The path segment of its endpoint and the actor id of its events. */
  name: text("name").notNull().unique(),
  description: text("description").notNull().default(""),
  format: text("format", { enum: ["standard", "wix"] }).notNull(),
  keys: text("keys", { mode: "json" }).$type<WebhookKey[]>().notNull(),
  /** A disabled source refuses every request (403), recorded as REFUSED, until it is enabled again. */
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  /** The event types it may send (webhooks/event-types.ts INCOMING_EVENT_TYPES); any other is refused. */
  eventTypes: text("event_types", { mode: "json" }).$type<string[]>().notNull().default(["inventory.updated"]),
  /** Who last created, re-keyed or set the event types of the source, with the permissions they held then. */
  configuredBy: text("configured_by", { mode: "json" }).$type<SourceConfigurer>(),
  createdDate: text("created_date").notNull(),
  updatedDate: text("updated_date").notNull(),
});

/** The person (or API key) a source acts for: its events are applied only within what they may still do. */
export interface SourceConfigurer {
  kind: "apiKey" | "member";
  /** The API key's id, or the member's identity id. */
  id: string;
  role: "OWNER" | "STAFF";
  permissions: string[];
  date: string;
}

/**
 * Every accepted incoming webhook, keyed by the sender's `webhook-id` per source so a repeat is recognised. `id` is
 * the id of the event it became (ACCEPTED: written to the outbox in the same batch) or of the stored request
 * (UNHANDLED: no schema and no processor knows its type). Requests that were not taken are logged here too, so the
 * merchant sees what a sender tried: DUPLICATE (a repeat of a webhook id, not processed again) and REFUSED (bad
 * signature, disabled source, malformed, too large) with the `reason`; those rows never hold the request's body,
 * their `webhookId` is `duplicate:…` / `refused:…` (never matching a sender's id) and only the newest of them are kept.
 */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    sourceId: text("source_id")
      .notNull()
      .references(() => webhookSources.id, { onDelete: "cascade" }),
    webhookId: text("webhook_id").notNull(),
    type: text("type").notNull(),
    status: text("status", { enum: ["ACCEPTED", "UNHANDLED", "DUPLICATE", "REFUSED"] }).notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Why a DUPLICATE or REFUSED request was not taken (the answer the sender got). */
    reason: text("reason"),
    receivedDate: text("received_date").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_events_source_webhook_idx").on(t.sourceId, t.webhookId),
    index("webhook_events_received_idx").on(t.sourceId, t.receivedDate),
  ],
);

/** Outgoing webhooks: where the merchant wants which events sent, in which format, signed with which secret. */
export const webhookSubscriptions = sqliteTable("webhook_subscriptions", {
  id: text("id").primaryKey(),
  url: text("url").notNull(),
  description: text("description").notNull().default(""),
  /** Event types, or ["*"] for every event. */
  eventTypes: text("event_types", { mode: "json" }).$type<string[]>().notNull(),
  format: text("format", { enum: ["standard", "wix"] }).notNull(),
  /** The Standard Webhooks secret deliveries are signed with (the wix format signs with the shop's RSA key). */
  secret: text("secret").notNull(),
  /** After a rotation, the old secret also signs until this date, so the receiver can switch over. */
  previousSecret: text("previous_secret"),
  previousSecretExpiresAt: text("previous_secret_expires_at"),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  disabledReason: text("disabled_reason"),
  /** Deliveries that failed every attempt since the last success; the subscription is disabled at a threshold. */
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  createdDate: text("created_date").notNull(),
  updatedDate: text("updated_date").notNull(),
});

/**
 * One event to send to one subscription (at most one row per pair, so a redelivered event adds nothing). PENDING
 * until an attempt succeeds (SUCCEEDED) or the retry schedule runs out (FAILED). `nextAttemptAt` is when the next
 * attempt is due; while an attempt runs it is pushed a minute ahead (a lease), and the sweep re-enqueues rows left
 * overdue (a job message that was never sent or was lost).
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The event envelope as it is sent. */
    event: text("event", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    status: text("status", { enum: ["PENDING", "SUCCEEDED", "FAILED"] }).notNull(),
    /** Attempts made in all (the attempt log's numbering). */
    attempts: integer("attempts").notNull().default(0),
    /** Attempts made since the schedule last started (creation or a manual redelivery). */
    scheduleAttempts: integer("schedule_attempts").notNull().default(0),
    nextAttemptAt: text("next_attempt_at"),
    lastError: text("last_error"),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_subscription_event_idx").on(t.subscriptionId, t.eventId),
    index("webhook_deliveries_subscription_idx").on(t.subscriptionId, t.createdDate),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
  ],
);

/** The log of every delivery attempt: what the receiver answered (or why it could not), and how long it took. */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    startedDate: text("started_date").notNull(),
    /** The HTTP status, or null when no response came (timeout, refused connection). */
    responseStatus: integer("response_status"),
    latencyMs: integer("latency_ms").notNull(),
    /** At most 1 KB of the response body. */
    responseExcerpt: text("response_excerpt"),
    error: text("error"),
    succeeded: integer("succeeded", { mode: "boolean" }).notNull(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);
