import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Abandoned checkouts (the Wix abandoned checkout, status ABANDONED | RECOVERED): one per cart and idle period, made
 * by the cart-abandoned processor. Money columns are minor units in `currency`. `lineItems` is the cart's line items
 * as they were at abandonment (wire shape), kept so the record reads well after the cart changes or goes.
 */
export const abandonedCheckouts = sqliteTable(
  "abandoned_checkouts",
  {
    id: text("id").primaryKey(),
    cartId: text("cart_id").notNull(),
    /** The checkout made from the cart, if the shopper got that far. */
    checkoutId: text("checkout_id"),
    ownerKind: text("owner_kind", { enum: ["visitor", "member"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    status: text("status", { enum: ["ABANDONED", "RECOVERED"] }).notNull(),
    /** {visitorId | memberId, email, firstName?, lastName?}: who to win back. */
    buyerInfo: text("buyer_info", { mode: "json" }).$type<Record<string, string>>().notNull(),
    currency: text("currency").notNull(),
    subtotal: integer("subtotal").notNull(),
    total: integer("total").notNull(),
    lineItems: text("line_items", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
    cartCreatedDate: text("cart_created_date").notNull(),
    abandonTime: text("abandon_time").notNull(),
    /** The secret of the recovery link /cart/recover/<token>. */
    recoveryToken: text("recovery_token").notNull(),
    /** The cart the recovery link filled in another browser (its order recovers this record too). */
    restoredCartId: text("restored_cart_id"),
    recoveredDate: text("recovered_date"),
    recoveredOrderId: text("recovered_order_id"),
    /** The recovering order's total (minor units): the recovered revenue. */
    recoveredTotal: integer("recovered_total"),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [
    // One open (ABANDONED) record per cart: a later idle period of the same cart updates it.
    uniqueIndex("abandoned_checkouts_open_cart_idx").on(t.cartId).where(sql`status = 'ABANDONED'`),
    uniqueIndex("abandoned_checkouts_token_idx").on(t.recoveryToken),
    index("abandoned_checkouts_restored_idx").on(t.restoredCartId),
    index("abandoned_checkouts_status_idx").on(t.status, t.createdDate),
  ],
);

/** Activity types of an abandoned checkout (the Wix cart activity types). */
export const ACTIVITY_TYPES = ["SCHEDULED", "EMAIL_SENT", "EMAIL_NOT_SENT", "NOTIFICATION_SENT", "TASK_CREATED", "CUSTOM_ACTIVITY"] as const;
/** Who did a custom activity (the Wix cart activity actors). */
export const ACTIVITY_ACTORS = ["ADMIN", "MEMBER", "VISITOR", "CONTACT"] as const;

/** What happened to an abandoned checkout, oldest first: each step of the automation, and custom activities. */
export const abandonedCheckoutActivities = sqliteTable(
  "abandoned_checkout_activities",
  {
    id: text("id").primaryKey(),
    abandonedCheckoutId: text("abandoned_checkout_id").notNull(),
    type: text("type", { enum: ACTIVITY_TYPES }).notNull(),
    /** Why an email was not sent: NO_EMAIL, UNSUBSCRIBED, CART_EMPTIED, ALREADY_RECOVERED, SEND_FAILED, SUPERSEDED. */
    reason: text("reason"),
    actorType: text("actor_type", { enum: ACTIVITY_ACTORS }),
    actorId: text("actor_id"),
    /** Extra facts: the email's step and due date, the email id, the task id, a custom activity's title. */
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("abandoned_checkout_activities_idx").on(t.abandonedCheckoutId, t.createdDate)],
);

/**
 * Recovery emails scheduled for an abandoned checkout: the sweep sends those due (Queue delays cap at 12 hours, so
 * a 24- or 72-hour email is a row, not a delayed message). A recovery cancels those still SCHEDULED.
 */
export const recoveryEmails = sqliteTable(
  "recovery_emails",
  {
    id: text("id").primaryKey(),
    abandonedCheckoutId: text("abandoned_checkout_id").notNull(),
    /** 1, 2, 3…: which reminder of the schedule. */
    step: integer("step").notNull(),
    /** Minutes after abandonment (the schedule setting when it was made). */
    delayMinutes: integer("delay_minutes").notNull(),
    dueDate: text("due_date").notNull(),
    /** SENDING: the first hand-over to the transport failed and the email sweep is retrying it (emailId). */
    status: text("status", { enum: ["SCHEDULED", "SENDING", "SENT", "NOT_SENT", "CANCELED"] }).notNull(),
    reason: text("reason"),
    emailId: text("email_id"),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [uniqueIndex("recovery_emails_step_idx").on(t.abandonedCheckoutId, t.step), index("recovery_emails_due_idx").on(t.status, t.dueDate)],
);

/**
 * Which idle period of a cart was reported abandoned: the cart's lastActivity when the sweep emitted the event. A
 * cart is reported again only after the shopper touched it (a new lastActivity) and it went idle again.
 */
export const cartAbandonmentMarks = sqliteTable("cart_abandonment_marks", {
  cartId: text("cart_id").primaryKey(),
  idleSince: text("idle_since").notNull(),
  eventId: text("event_id").notNull(),
  markedDate: text("marked_date").notNull(),
});

/**
 * Back-in-stock notification requests: one per email and item (product, or product variant).
 * RECEIVED → PROCESSING (the item came back in stock) → NOTIFICATION_SENT, or FAILED with `reason`.
 */
export const backInStockRequests = sqliteTable(
  "back_in_stock_requests",
  {
    id: text("id").primaryKey(),
    /** As given; `emailKey` is its lower-cased form (one request per address and item). */
    email: text("email").notNull(),
    emailKey: text("email_key").notNull(),
    appId: text("app_id").notNull(),
    catalogItemId: text("catalog_item_id").notNull(),
    /** The variant asked for; "" for the product as a whole. */
    variantId: text("variant_id").notNull(),
    options: text("options", { mode: "json" }).$type<Record<string, unknown> | null>(),
    itemUrl: text("item_url"),
    /** {name, price, image} the shopper's page gave (shown in the email when the catalogue has nothing better). */
    itemDetails: text("item_details", { mode: "json" }).$type<Record<string, unknown> | null>(),
    status: text("status", { enum: ["RECEIVED", "PROCESSING", "NOTIFICATION_SENT", "FAILED"] }).notNull(),
    autoNotified: integer("auto_notified", { mode: "boolean" }),
    /** Why it FAILED. */
    reason: text("reason"),
    /** The inventory event (or report call) that moved it to PROCESSING: a redelivery finishes its own requests. */
    processingKey: text("processing_key"),
    /** The email; a PROCESSING request with one waits for the email sweep's retries to settle it. */
    emailId: text("email_id"),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [
    uniqueIndex("back_in_stock_unique_idx").on(t.emailKey, t.catalogItemId, t.variantId),
    index("back_in_stock_item_idx").on(t.catalogItemId, t.status),
    index("back_in_stock_processing_idx").on(t.processingKey),
    index("back_in_stock_status_idx").on(t.status, t.updatedDate),
  ],
);
