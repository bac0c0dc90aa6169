import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
/** Order tables. Stock and its change log are the catalogue's (worker/catalog/tables.ts). */

// ---------------------------------------------------------------------------------------------------------------
// Orders (worker/orders/orders.ts, checkout.ts, payments.ts)

export const PAYMENT_STATUSES = [
  "NOT_PAID",
  "PAID",
  "PARTIALLY_REFUNDED",
  "FULLY_REFUNDED",
  "PENDING",
  "PARTIALLY_PAID",
  "PENDING_MERCHANT",
  "CANCELED",
  "DECLINED",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const FULFILLMENT_STATUSES = ["NOT_FULFILLED", "FULFILLED", "PARTIALLY_FULFILLED", "CANCELED"] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];
export const ORDER_STATUSES = ["INITIALIZED", "APPROVED", "CANCELED", "PENDING", "REJECTED"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const TRANSACTION_STATUSES = [
  "APPROVED",
  "PENDING",
  "PENDING_MERCHANT",
  "CANCELED",
  "DECLINED",
  "REFUNDED",
  "PARTIALLY_REFUNDED",
  "AUTHORIZED",
  "VOIDED",
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** Hands out order numbers (AUTOINCREMENT: sequential, never reused). */
export const orderNumbers = sqliteTable("order_numbers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
});

/**
 * Offline orders still waiting for their payment (a paid, fulfilled, cancelled or free order is not): the rows of
 * orders_unpaid_offline_idx, which the unpaid-order sweep (unpaid.ts) reads by age. The sweep's query repeats this
 * text exactly, so SQLite can use the partial index.
 */
export const UNPAID_OFFLINE_ORDER =
  "status = 'APPROVED' AND payment_status = 'NOT_PAID' AND fulfillment_status = 'NOT_FULFILLED' AND total > 0 AND json_extract(details, '$.paymentOption') = 'FULL_PAYMENT_OFFLINE'";

/**
 * Online orders still waiting for their payment on the provider's page: the rows of orders_pending_online_idx, which
 * the pending-online sweep (hosted-payment.ts) reads by age. Its query repeats this text exactly, for the index.
 */
export const PENDING_ONLINE_ORDER =
  "status = 'INITIALIZED' AND payment_status = 'NOT_PAID' AND json_extract(details, '$.paymentOption') = 'FULL_PAYMENT_ONLINE'";

/**
 * An order placed from a checkout. Statuses and money (minor units) are columns, so they can be filtered and moved
 * by guarded updates; the rest of the Wix Order shape (buyerInfo, shippingInfo, billingInfo, recipientInfo,
 * priceSummary, appliedDiscounts, …) is the JSON snapshot in `details`, as it was when the order was placed.
 */
export const orders = sqliteTable(
  "orders",
  {
    id: text("id").primaryKey(),
    number: integer("number").notNull(),
    /** One order per checkout: the unique index is the last guard against placing a checkout twice. */
    checkoutId: text("checkout_id").notNull(),
    cartId: text("cart_id").notNull(),
    ownerKind: text("owner_kind", { enum: ["visitor", "member"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    buyerEmail: text("buyer_email"),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    paymentStatus: text("payment_status", { enum: PAYMENT_STATUSES }).notNull(),
    fulfillmentStatus: text("fulfillment_status", { enum: FULFILLMENT_STATUSES }).notNull().default("NOT_FULFILLED"),
    currency: text("currency").notNull(),
    subtotal: integer("subtotal").notNull(),
    total: integer("total").notNull(),
    channelType: text("channel_type").notNull().default("WEB"),
    /** The Stripe Checkout Session made for an order paid online (cs_…), so a sweep can ask Stripe about it. */
    checkoutSessionId: text("checkout_session_id"),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    purchasedDate: text("purchased_date").notNull(),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [
    uniqueIndex("orders_number_unique").on(t.number),
    uniqueIndex("orders_checkout_unique").on(t.checkoutId),
    index("orders_owner_idx").on(t.ownerKind, t.ownerId, t.purchasedDate),
    index("orders_purchased_idx").on(t.purchasedDate),
    index("orders_buyer_email_idx").on(t.buyerEmail, t.purchasedDate),
    index("orders_unpaid_offline_idx").on(t.createdDate).where(sql.raw(UNPAID_OFFLINE_ORDER)),
    index("orders_pending_online_idx").on(t.createdDate).where(sql.raw(PENDING_ONLINE_ORDER)),
  ],
);

/** The order's lines: a snapshot of the checkout line (wire shape in `details`) with what stock and fulfilment need. */
export const orderLineItems = sqliteTable(
  "order_line_items",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    catalogItemId: text("catalog_item_id"),
    variantId: text("variant_id"),
    name: text("name").notNull(),
    quantity: integer("quantity").notNull(),
    fulfilledQuantity: integer("fulfilled_quantity").notNull().default(0),
    /** Units refunded so far (refunds by line); they no longer ship. */
    refundedQuantity: integer("refunded_quantity").notNull().default(0),
    /** Units a refund returned to stock. */
    restockedQuantity: integer("restocked_quantity").notNull().default(0),
    /** Unit price after the catalogue discount, minor units. */
    price: integer("price").notNull(),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    index("order_line_items_order_idx").on(t.orderId, t.position),
    // The orders a product was bought in (recommendations' "bought together").
    index("order_line_items_item_idx").on(t.catalogItemId, t.orderId),
  ],
);

/** What happened to an order (ORDER_PLACED, ORDER_PAID, ORDER_FULFILLED, ORDER_CANCELED, ORDER_REFUNDED, …). */
export const orderActivities = sqliteTable(
  "order_activities",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("order_activities_order_idx").on(t.orderId, t.createdDate), index("order_activities_type_idx").on(t.type, t.createdDate)],
);

/** Fulfilments of an order: which lines (and how many of each) left, with tracking. */
export const orderFulfillments = sqliteTable(
  "order_fulfillments",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    lineItems: text("line_items", { mode: "json" }).$type<{ id: string; quantity: number }[]>().notNull(),
    trackingInfo: text("tracking_info", { mode: "json" }).$type<{
      trackingNumber?: string | null;
      shippingProvider?: string | null;
      trackingLink?: string | null;
    }>(),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("order_fulfillments_order_idx").on(t.orderId)],
);

/** Payment transactions (card payments through a provider, payments the merchant records). */
export const transactions = sqliteTable(
  "transactions",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    status: text("status", { enum: TRANSACTION_STATUSES }).notNull(),
    provider: text("provider").notNull(),
    /** The provider's own id for the charge. */
    providerTransactionId: text("provider_transaction_id"),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("transactions_order_idx").on(t.orderId)],
);

export const REFUND_STATUSES = ["STARTED", "PENDING", "SUCCEEDED", "FAILED"] as const;
/** STARTED: the amount is reserved and the provider is being asked; PENDING: the provider has not settled it yet. */
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * Refunds of an order: the money given back (minor units), which lines and how many of each, whether they went back
 * into stock, and the provider's refund id. A STARTED, PENDING or SUCCEEDED row counts against what was paid, so
 * two refunds at once can never give back more than the buyer paid.
 */
export const orderRefunds = sqliteTable(
  "order_refunds",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    status: text("status", { enum: REFUND_STATUSES }).notNull(),
    lineItems: text("line_items", { mode: "json" }).$type<{ lineItemId: string; quantity: number }[]>().notNull(),
    restock: integer("restock", { mode: "boolean" }).notNull().default(false),
    restockedLineItems: text("restocked_line_items", { mode: "json" }).$type<{ lineItemId: string; quantity: number }[]>(),
    provider: text("provider").notNull(),
    providerRefundId: text("provider_refund_id"),
    failureReason: text("failure_reason"),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [
    index("order_refunds_order_idx").on(t.orderId, t.createdDate),
    // The refunds made in a period (the refunds report).
    index("order_refunds_succeeded_idx").on(t.createdDate).where(sql`status = 'SUCCEEDED'`),
    index("order_refunds_started_idx").on(t.updatedDate).where(sql`status = 'STARTED'`),
    index("order_refunds_pending_idx").on(t.updatedDate).where(sql`status = 'PENDING'`),
    uniqueIndex("order_refunds_provider_unique").on(t.provider, t.providerRefundId).where(sql`provider_refund_id IS NOT NULL`),
  ],
);
