import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
    /** QUEUED (recorded; no transport configured), SENT, FAILED (transport error in `error`) */
    status: text("status", { enum: ["QUEUED", "SENT", "FAILED"] }).notNull(),
    error: text("error"),
    createdDate: text("created_date").notNull(),
    sentDate: text("sent_date"),
  },
  (t) => [index("emails_to_idx").on(t.to, t.createdDate)],
);
