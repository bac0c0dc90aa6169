import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Every email the shop sends, with its status: the record (and, locally, the mailbox a person or test reads). */
export const emails = sqliteTable(
  "emails",
  {
    id: text("id").primaryKey(),
    to: text("to").notNull(),
    template: text("template").notNull(),
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    text: text("text").notNull(),
    /**
     * QUEUED (recorded; handed to the transport, or none is configured), SENT, FAILED (transport error in `error`;
     * retried while nextAttemptAt is set), SUPPRESSED (a marketing email to an address that unsubscribed: recorded,
     * never sent).
     */
    status: text("status", { enum: ["QUEUED", "SENT", "FAILED", "SUPPRESSED"] }).notNull(),
    error: text("error"),
    createdDate: text("created_date").notNull(),
    sentDate: text("sent_date"),
    /** Who asked for it, once: a second send with the same key (a redelivered event) sends nothing. */
    idempotencyKey: text("idempotency_key"),
    /** Extra headers given to the transport (List-Unsubscribe, List-Unsubscribe-Post on marketing emails). */
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>(),
    /** Hand-overs to the transport so far (0 when none is configured). */
    attempts: integer("attempts").notNull().default(0),
    /**
     * When the retry sweep may hand it over again (worker/email/retries.ts): set while a hand-over is in flight (a
     * lease, in case the Worker stops before recording the outcome) and after a failure; null once SENT, when no
     * transport is configured, or when the attempts ran out.
     */
    nextAttemptAt: text("next_attempt_at"),
  },
  (t) => [
    index("emails_to_idx").on(t.to, t.createdDate),
    uniqueIndex("emails_idempotency_idx").on(t.idempotencyKey),
    index("emails_retry_idx").on(t.nextAttemptAt),
  ],
);

/**
 * Marketing-email subscriptions by address (lower-cased): the secret token of its unsubscribe link, and when the
 * address unsubscribed (later marketing sends to it are SUPPRESSED).
 */
export const emailSubscriptions = sqliteTable(
  "email_subscriptions",
  {
    email: text("email").primaryKey(),
    token: text("token").notNull(),
    unsubscribedDate: text("unsubscribed_date"),
    createdDate: text("created_date").notNull(),
  },
  (t) => [uniqueIndex("email_subscriptions_token_idx").on(t.token)],
);
