import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Staff notes on a customer, keyed by the customer's lower-cased email (members and guests alike). */
export const customerNotes = sqliteTable(
  "customer_notes",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    body: text("body").notNull(),
    /** SITE_USER (the owner or a staff member) or APP (an API key). */
    authorType: text("author_type").notNull(),
    authorId: text("author_id"),
    /** The author's email (staff) or "API key", as it was when the note was written. */
    authorName: text("author_name"),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("customer_notes_email_idx").on(t.email, t.createdDate)],
);
