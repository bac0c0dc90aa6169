import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Catalogue tables. Money columns are integer minor units in the store currency. Nested parts that are always
 * read and written with their product (options, media, info sections, SEO, rich description) are JSON columns;
 * everything a query filters or sorts on is a real column.
 */
export const products = sqliteTable(
  "products",
  {
    id: text("id").primaryKey(),
    /** Wix's numericId: a stable integer from product_numbers; also the full-text index's rowid. */
    numericId: integer("numeric_id").notNull(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    productType: text("product_type", { enum: ["physical", "digital"] }).notNull().default("physical"),
    description: text("description").notNull().default(""),
    /** Ricos rich content `{nodes}` (JSON). */
    richDescription: text("rich_description", { mode: "json" }).$type<{ nodes: unknown[] }>(),
    sku: text("sku"),
    visible: integer("visible", { mode: "boolean" }).notNull().default(true),
    /** Base price, minor units. */
    price: integer("price").notNull(),
    cost: integer("cost"),
    weight: real("weight"),
    discountType: text("discount_type", { enum: ["NONE", "AMOUNT", "PERCENT"] }).notNull().default("NONE"),
    discountValue: real("discount_value").notNull().default(0),
    pricePerUnitData: text("price_per_unit_data", { mode: "json" }).$type<{
      totalQuantity: number;
      totalMeasurementUnit: string;
      baseQuantity: number;
      baseMeasurementUnit: string;
    }>(),
    brand: text("brand"),
    ribbon: text("ribbon"),
    manageVariants: integer("manage_variants", { mode: "boolean" }).notNull().default(false),
    trackInventory: integer("track_inventory", { mode: "boolean" }).notNull().default(false),
    productOptions: text("product_options", { mode: "json" }).$type<StoredOption[]>().notNull().default(sql`'[]'`),
    media: text("media", { mode: "json" }).$type<StoredMedia[]>().notNull().default(sql`'[]'`),
    infoSections: text("info_sections", { mode: "json" }).$type<StoredInfoSection[]>().notNull().default(sql`'[]'`),
    seoData: text("seo_data", { mode: "json" }).$type<Record<string, unknown>>(),
    /** Denormalised for queries, kept up to date by every write that touches variants: */
    /** lowest and highest actual (discounted) price over visible variants, minor units */
    minPrice: integer("min_price").notNull().default(0),
    maxPrice: integer("max_price").notNull().default(0),
    /** true when at least one visible variant can be bought */
    inStock: integer("in_stock", { mode: "boolean" }).notNull().default(true),
    /** sum of tracked quantities, null when untracked */
    quantity: integer("quantity"),
    /** variant SKUs joined by spaces, for full-text search */
    variantSkus: text("variant_skus").notNull().default(""),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
    lastUpdated: text("last_updated").notNull(),
  },
  (t) => [
    uniqueIndex("products_slug_unique").on(t.slug),
    uniqueIndex("products_numeric_id_unique").on(t.numericId),
    index("products_created_idx").on(t.createdDate),
    index("products_min_price_idx").on(t.minPrice),
    index("products_name_idx").on(t.name),
  ],
);

export interface StoredChoice {
  value: string;
  description: string;
  visible: boolean;
  /** media item ids shown for this choice */
  mediaIds: string[];
}
export interface StoredOption {
  id: string;
  name: string;
  optionType: "drop_down" | "color";
  choices: StoredChoice[];
}
export interface StoredMedia {
  id: string;
  mediaType: "image" | "video";
  url: string;
  title?: string;
  altText?: string;
  width: number;
  height: number;
  thumbnailUrl?: string;
}
export interface StoredInfoSection {
  id: string;
  title: string;
  description: string;
}

/**
 * Hands out product numericIds. AUTOINCREMENT never reuses a number, even after the newest product is deleted, so a
 * numericId (and the full-text index row keyed on it) always means one product.
 */
export const productNumbers = sqliteTable("product_numbers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
});

/** One row per combination of option choices (one default row for a product without options). */
export const variants = sqliteTable(
  "variants",
  {
    productId: text("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    /** {"Size": "M", "Color": "Navy"} */
    choices: text("choices", { mode: "json" }).$type<Record<string, string>>().notNull(),
    position: integer("position").notNull().default(0),
    /** Overrides; null means "the product's". Minor units. */
    price: integer("price"),
    cost: integer("cost"),
    weight: real("weight"),
    sku: text("sku"),
    visible: integer("visible", { mode: "boolean" }).notNull().default(true),
    /** Stock: tracked quantity (null when untracked) or the in-stock flag for untracked items. */
    quantity: integer("quantity"),
    inStock: integer("in_stock", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [primaryKey({ columns: [t.productId, t.id] }), index("variants_sku_idx").on(t.sku)],
);

export const collections = sqliteTable(
  "collections",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    visible: integer("visible", { mode: "boolean" }).notNull().default(true),
    media: text("media", { mode: "json" }).$type<{ url: string; altText?: string; width?: number; height?: number } | null>(),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [uniqueIndex("collections_slug_unique").on(t.slug)],
);

/** Manual collection membership. The built-in "all products" collection has no rows: it holds everything. */
export const collectionProducts = sqliteTable(
  "collection_products",
  {
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    productId: text("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    addedDate: text("added_date").notNull(),
  },
  (t) => [primaryKey({ columns: [t.collectionId, t.productId] }), index("collection_products_product_idx").on(t.productId)],
);
