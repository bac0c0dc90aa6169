import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Current carts and the checkouts made from them. Money columns are integer minor units in the cart's currency.
 * Everything the cart shows about a catalogue item is re-read from the catalogue on every read; the line's
 * snapshot (name, price, image…) is what the shopper last saw, shown when the product is gone.
 */

/** Who owns a cart: a visitor (anonymous tokens) or a member (identity). */
export type CartOwnerKind = "visitor" | "member";

/** ACTIVE: the current cart; COMPLETED: an order was placed from it; CLOSED: merged into a member's cart at login. */
export type CartStatus = "ACTIVE" | "COMPLETED" | "CLOSED";

export interface StoredAddress {
  country?: string | null;
  subdivision?: string | null;
  city?: string | null;
  postalCode?: string | null;
  addressLine?: string | null;
  addressLine2?: string | null;
  streetAddress?: { number?: string; name?: string; apt?: string };
  formattedAddress?: string | null;
  geocode?: { latitude?: number | null; longitude?: number | null };
  countryFullname?: string | null;
  subdivisionFullname?: string | null;
}

export interface StoredContactDetails {
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  company?: string | null;
  vatId?: { id?: string; type?: "UNSPECIFIED" | "CPF" | "CNPJ" };
}

export interface StoredContactInfo {
  address?: StoredAddress;
  contactDetails?: StoredContactDetails;
}

/** A merchant discount on the cart (staff only): an amount (minor units) or a percentage off the whole cart or some lines. */
export interface StoredMerchantDiscount {
  amount?: number;
  percentage?: number;
  lineItemIds?: string[];
}

export const carts = sqliteTable(
  "carts",
  {
    id: text("id").primaryKey(),
    ownerKind: text("owner_kind", { enum: ["visitor", "member"] }).notNull(),
    /** visitorId for a visitor's cart, identityId for a member's. */
    ownerId: text("owner_id").notNull(),
    status: text("status", { enum: ["ACTIVE", "COMPLETED", "CLOSED"] })
      .notNull()
      .default("ACTIVE"),
    currency: text("currency").notNull(),
    weightUnit: text("weight_unit", { enum: ["KG", "LB"] })
      .notNull()
      .default("KG"),
    /** buyerInfo the shopper gave: email, contactId (visitorId / memberId come from the owner). */
    buyerInfo: text("buyer_info", { mode: "json" }).$type<{ email?: string; contactId?: string }>().notNull().default({}),
    contactInfo: text("contact_info", { mode: "json" }).$type<StoredContactInfo>(),
    buyerNote: text("buyer_note"),
    selectedShippingOption: text("selected_shipping_option", { mode: "json" }).$type<{ code: string; carrierId?: string | null }>(),
    businessLocationId: text("business_location_id"),
    overrideCheckoutUrl: text("override_checkout_url"),
    couponCode: text("coupon_code"),
    merchantDiscounts: text("merchant_discounts", { mode: "json" }).$type<StoredMerchantDiscount[]>().notNull().default(sql`'[]'`),
    /** The last checkout created from this cart. */
    checkoutId: text("checkout_id"),
    /** Correlates cart, checkout and order. */
    purchaseFlowId: text("purchase_flow_id").notNull(),
    /** Bumped by every change: writes are checked against the revision they read (optimistic concurrency). */
    revision: integer("revision").notNull().default(1),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
    /** Last change made by the shopper (the abandoned-cart sweep reads it). */
    lastActivity: text("last_activity").notNull(),
    /**
     * The idle period (its lastActivity) the abandoned-cart sweep has decided on: reported, or not a candidate (no
     * items, no email). Any later activity moves lastActivity past it, and the cart is looked at again.
     */
    abandonChecked: text("abandon_checked"),
  },
  (t) => [
    // One current cart per visitor or member.
    uniqueIndex("carts_active_owner_unique").on(t.ownerKind, t.ownerId).where(sql`status = 'ACTIVE'`),
    index("carts_status_activity_idx").on(t.status, t.lastActivity),
    index("carts_owner_idx").on(t.ownerKind, t.ownerId, t.updatedDate),
    // The carts whose idle period the sweep has not decided on yet: each minute's sweep reads only those, not every
    // active cart ever left idle (most visitors' carts are never completed nor emptied, and stay ACTIVE for good).
    index("carts_abandon_pending_idx").on(t.lastActivity).where(sql`status = 'ACTIVE' AND abandon_checked IS NOT last_activity`),
  ],
);

/** What the shopper last saw of a line (and, for custom line items, the line itself). */
export interface LineSnapshot {
  productName: string;
  slug?: string;
  productType?: "physical" | "digital";
  image?: { id: string; url: string; width: number; height: number; altText?: string | null } | null;
  weight?: number;
  sku?: string | null;
  descriptionLines?: unknown[];
  /** Custom line items only: the fields the caller gave. */
  url?: { relativePath: string; url: string } | null;
  itemType?: { preset?: string; custom?: string };
  paymentOption?: string;
  priceDescription?: { original: string; translated?: string | null } | null;
  quantityAvailable?: number | null;
  shippable?: boolean;
}

export const cartLineItems = sqliteTable(
  "cart_line_items",
  {
    id: text("id").primaryKey(),
    cartId: text("cart_id")
      .notNull()
      .references(() => carts.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    /** `<catalogItemId>:<variantId>` for catalogue lines (adding the same item again merges); null for custom lines. */
    itemKey: text("item_key"),
    appId: text("app_id"),
    catalogItemId: text("catalog_item_id"),
    /** The variant the catalogue reference resolved to. */
    variantId: text("variant_id"),
    /** catalogReference.options as the shopper gave them ({variantId} or {options: {Size: "M"}}). */
    options: text("options", { mode: "json" }).$type<Record<string, unknown> | null>(),
    quantity: integer("quantity").notNull(),
    custom: integer("custom", { mode: "boolean" }).notNull().default(false),
    /** Unit price after the catalogue discount, and before it (snapshot, minor units). */
    price: integer("price").notNull(),
    fullPrice: integer("full_price").notNull(),
    snapshot: text("snapshot", { mode: "json" }).$type<LineSnapshot>().notNull(),
    addedDate: text("added_date").notNull(),
  },
  (t) => [
    uniqueIndex("cart_line_items_key_unique").on(t.cartId, t.itemKey),
    index("cart_line_items_cart_idx").on(t.cartId, t.position),
    index("cart_line_items_catalog_idx").on(t.catalogItemId),
  ],
);

/**
 * A checkout made from a cart (create-checkout): a snapshot of its lines and totals, the buyer's email and
 * addresses and the chosen shipping option. The orders part builds on it (set addresses, place the order).
 */
export const checkouts = sqliteTable(
  "checkouts",
  {
    id: text("id").primaryKey(),
    cartId: text("cart_id").notNull(),
    ownerKind: text("owner_kind", { enum: ["visitor", "member"] }).notNull(),
    ownerId: text("owner_id").notNull(),
    status: text("status", { enum: ["OPEN", "COMPLETED"] })
      .notNull()
      .default("OPEN"),
    channelType: text("channel_type").notNull().default("WEB"),
    currency: text("currency").notNull(),
    weightUnit: text("weight_unit", { enum: ["KG", "LB"] })
      .notNull()
      .default("KG"),
    /** The cart's line items as the buyer saw them (wire shape), plus their catalogue ids and minor-unit prices. */
    lineItems: text("line_items", { mode: "json" }).$type<CheckoutLine[]>().notNull(),
    /** {email, visitorId | memberId, contactId?} */
    buyerInfo: text("buyer_info", { mode: "json" }).$type<Record<string, string>>().notNull(),
    shippingAddress: text("shipping_address", { mode: "json" }).$type<StoredAddress>(),
    billingAddress: text("billing_address", { mode: "json" }).$type<StoredAddress>(),
    contactDetails: text("contact_details", { mode: "json" }).$type<StoredContactDetails>(),
    selectedShippingOption: text("selected_shipping_option", { mode: "json" }).$type<{ code: string; carrierId?: string | null }>(),
    couponCode: text("coupon_code"),
    merchantDiscounts: text("merchant_discounts", { mode: "json" }).$type<StoredMerchantDiscount[]>().notNull().default(sql`'[]'`),
    /** The totals when the checkout was made (wire shape: priceSummary, shippingInfo, appliedDiscounts, …). */
    totals: text("totals", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** priceSummary.subtotal and .total in minor units. */
    subtotal: integer("subtotal").notNull(),
    total: integer("total").notNull(),
    purchaseFlowId: text("purchase_flow_id").notNull(),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [index("checkouts_cart_idx").on(t.cartId), index("checkouts_owner_idx").on(t.ownerKind, t.ownerId)],
);

/** One checkout line: the wire line item and what an order needs to reserve stock and charge. */
export interface CheckoutLine {
  lineItem: Record<string, unknown>;
  catalogItemId: string | null;
  variantId: string | null;
  quantity: number;
  /** Unit price after the catalogue discount, minor units. */
  price: number;
  custom: boolean;
}
