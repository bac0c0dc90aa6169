import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex, type SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * Pricing configuration: discount rules, coupons, shipping regions, tax groups and regions, additional fees. Money
 * columns and money inside JSON are integer minor units of the store currency; percentages are percent (8.25).
 * Nested parts always read and written with their row (a region's options, a rule's trigger) are JSON columns.
 * Every row carries a revision that each update increments (optimistic concurrency, as Wix's `revision`).
 */

/** Which lines a discount reaches: the whole order, some items (by product or collection), or shipping. */
export interface StoredDiscount {
  targetType: "GLOBAL" | "SPECIFIC_ITEMS" | "SHIPPING";
  /** SPECIFIC_ITEMS: a line matches when its product is listed or it is in one of the collections. */
  catalogItemIds: string[];
  collectionIds: string[];
  discountType: "PERCENTAGE" | "FIXED_AMOUNT";
  /** PERCENTAGE: percent off (0–100]. */
  percentage: number | null;
  /** FIXED_AMOUNT, minor units: off each unit for SPECIFIC_ITEMS; off the order (GLOBAL) or the shipping (SHIPPING) once. */
  fixedAmount: number | null;
}

/** When a discount rule fires. No trigger: always. */
export type StoredTrigger =
  | { conditionType: "SUBTOTAL_RANGE"; from: number | null; to: number | null }
  | { conditionType: "ITEM_QUANTITY_RANGE"; from: number | null; to: number | null }
  | { conditionType: "COUPON_CODE"; code: string }
  | { conditionType: "AND" | "OR"; triggers: StoredTrigger[] };

/**
 * A rule's end for "has not ended" tests: no end date reads as '~', after every ISO date, so `liveRuleEnd > now` is
 * one range on discount_rules_live_idx (an `end_date IS NULL OR end_date > now` is not). A pricing read must spell it
 * exactly like this for SQLite to use the index. (A CASE, not coalesce: drizzle-kit splits an index expression at
 * its commas.)
 */
export const liveRuleEnd = (endDate: SQLiteColumn) => sql`(CASE WHEN ${endDate} IS NULL THEN '~' ELSE ${endDate} END)`;

export const discountRules = sqliteTable(
  "discount_rules",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** activeTimeInfo: ISO-8601, null for open-ended. */
    startDate: text("start_date"),
    endDate: text("end_date"),
    trigger: text("trigger", { mode: "json" }).$type<StoredTrigger | null>(),
    discount: text("discount", { mode: "json" }).$type<StoredDiscount>().notNull(),
    usageCount: integer("usage_count").notNull().default(0),
    revision: integer("revision").notNull().default(1),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [
    index("discount_rules_active_idx").on(t.active, t.createdDate),
    // The rules a cart is priced with (switched on, not ended), found without reading the ended ones, which pile up
    // as a store runs its seasonal sales. See liveRuleEnd.
    index("discount_rules_live_idx").on(t.active, liveRuleEnd(t.endDate)),
  ],
);

/**
 * The coupon codes each rule's trigger names (anywhere in it, lower-cased as pricing matches them), so a cart's
 * coupon finds the rules naming it by index instead of walking every rule's trigger JSON. Kept by SQLite triggers
 * on discount_rules (migration 0018): every write of a rule, whichever code path makes it, keeps it in step.
 */
export const discountRuleCodes = sqliteTable(
  "discount_rule_codes",
  {
    codeKey: text("code_key").notNull(),
    ruleId: text("rule_id")
      .notNull()
      .references(() => discountRules.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.codeKey, t.ruleId] }), index("discount_rule_codes_rule_idx").on(t.ruleId)],
);

export const coupons = sqliteTable(
  "coupons",
  {
    id: text("id").primaryKey(),
    /** As the merchant wrote it. */
    code: text("code").notNull(),
    /** Lower-cased code: codes are unique and matched without regard to case. */
    codeKey: text("code_key").notNull(),
    name: text("name").notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    startTime: text("start_time"),
    expirationTime: text("expiration_time"),
    /** null: unlimited. */
    usageLimit: integer("usage_limit"),
    timesUsed: integer("times_used").notNull().default(0),
    /** Minor units; the cart subtotal must reach it. */
    minimumSubtotal: integer("minimum_subtotal"),
    discount: text("discount", { mode: "json" }).$type<StoredDiscount>().notNull(),
    revision: integer("revision").notNull().default(1),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [uniqueIndex("coupons_code_key_unique").on(t.codeKey)],
);

export type ShippingRuleBasis = "WEIGHT" | "PRICE" | "QUANTITY";
export type ShippingRuleOperator = "EQ" | "GT" | "GTE" | "LT" | "LTE";

export interface StoredShippingRule {
  basis: ShippingRuleBasis;
  operator: ShippingRuleOperator;
  /** kg for WEIGHT, minor units for PRICE, units for QUANTITY. */
  value: number;
  /** Minor units. */
  rate: number;
}

export interface StoredShippingOption {
  code: string;
  title: string;
  /** DELIVERY ships to the address; PICKUP is collected at pickupDetails.address. */
  kind: "DELIVERY" | "PICKUP";
  deliveryTime: string | null;
  instructions: string | null;
  deliveryTimeSlot: { from: string; to: string } | null;
  pickupDetails: {
    address: { country?: string; subdivision?: string; city?: string; postalCode?: string; addressLine?: string };
    pickupMethod: "STORE_PICKUP" | "PICKUP_POINT";
  } | null;
  /** Flat rate when no rule matches, minor units. */
  rate: number;
  /** Tried in order; the first that matches sets the rate. */
  rules: StoredShippingRule[];
  /** Free when the shipped lines' subtotal after discounts reaches it (minor units). */
  freeShippingThreshold: number | null;
}

export const shippingRegions = sqliteTable("shipping_regions", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** ISO 3166-1 alpha-2 codes. */
  countries: text("countries", { mode: "json" }).$type<string[]>().notNull(),
  /** ISO 3166-2 codes ("US-CA"); empty: the whole of each country. */
  subdivisions: text("subdivisions", { mode: "json" }).$type<string[]>().notNull(),
  /** Matches any destination no other region matches. */
  restOfWorld: integer("rest_of_world", { mode: "boolean" }).notNull().default(false),
  options: text("options", { mode: "json" }).$type<StoredShippingOption[]>().notNull(),
  revision: integer("revision").notNull().default(1),
  createdDate: text("created_date").notNull(),
  updatedDate: text("updated_date").notNull(),
});

export const taxGroups = sqliteTable("tax_groups", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** Products (and products of collections) taxed under this group unless a line names its own group. */
  catalogItemIds: text("catalog_item_ids", { mode: "json" }).$type<string[]>().notNull(),
  collectionIds: text("collection_ids", { mode: "json" }).$type<string[]>().notNull(),
  revision: integer("revision").notNull().default(1),
  createdDate: text("created_date").notNull(),
  updatedDate: text("updated_date").notNull(),
});

export const taxRegions = sqliteTable(
  "tax_regions",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    country: text("country").notNull(),
    /** ISO 3166-2, or "" for the whole country (kept non-null so the unique index holds). */
    subdivision: text("subdivision").notNull().default(""),
    /** Percent for the default tax group. */
    defaultRate: real("default_rate").notNull(),
    groupRates: text("group_rates", { mode: "json" }).$type<{ taxGroupId: string; rate: number }[]>().notNull(),
    taxShipping: integer("tax_shipping", { mode: "boolean" }).notNull().default(false),
    /** DEFAULT follows the store setting; MANUAL always uses the manual rates here. */
    calculation: text("calculation", { enum: ["DEFAULT", "MANUAL"] })
      .notNull()
      .default("DEFAULT"),
    revision: integer("revision").notNull().default(1),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [uniqueIndex("tax_regions_place_unique").on(t.country, t.subdivision)],
);

export const additionalFees = sqliteTable(
  "additional_fees",
  {
    id: text("id").primaryKey(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    type: text("type", { enum: ["HANDLING_FEE", "INSURANCE"] }).notNull(),
    /** Exactly one of amount (minor units) and percentage (of the subtotal after discounts). */
    amount: integer("amount"),
    percentage: real("percentage"),
    /** Charged only when the subtotal after discounts reaches it (minor units). */
    minimumSubtotal: integer("minimum_subtotal"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    revision: integer("revision").notNull().default(1),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [uniqueIndex("additional_fees_code_unique").on(t.code)],
);
