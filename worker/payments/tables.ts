import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Stripe events as received, keyed by Stripe's own event id: the insert is the dedupe, so a delivery Stripe repeats
 * (it retries until it gets a 2xx) is acknowledged and changes nothing. Only what the shop acts on is kept, never the
 * whole object (no buyer details). HANDLED rows went to the outbox with the same batch; IGNORED rows are types the
 * shop takes no action on.
 */
export const paymentEvents = sqliteTable(
  "payment_events",
  {
    /** Stripe's event id (evt_…). */
    id: text("id").primaryKey(),
    provider: text("provider", { enum: ["stripe"] }).notNull(),
    type: text("type").notNull(),
    status: text("status", { enum: ["HANDLED", "IGNORED"] }).notNull(),
    /** Our order id when the event names it (a session's client_reference_id, a payment's metadata). */
    orderId: text("order_id"),
    /** The Stripe object the event is about (cs_…, pi_…, ch_…, dp_…). */
    objectId: text("object_id"),
    livemode: text("livemode", { enum: ["live", "test"] }).notNull(),
    /** When Stripe made the event, and when it reached us. */
    createdDate: text("created_date").notNull(),
    receivedDate: text("received_date").notNull(),
  },
  (t) => [index("payment_events_received_idx").on(t.provider, t.receivedDate), index("payment_events_order_idx").on(t.orderId)],
);
