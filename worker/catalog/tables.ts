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
    productType: text("product_type", { enum: ["physical", "digital"] })
      .notNull()
      .default("physical"),
    description: text("description").notNull().default(""),
    /** Ricos rich content `{nodes}` (JSON). */
    richDescription: text("rich_description", { mode: "json" }).$type<{ nodes: unknown[] }>(),
    sku: text("sku"),
    visible: integer("visible", { mode: "boolean" }).notNull().default(true),
    /** Base price, minor units. */
    price: integer("price").notNull(),
    cost: integer("cost"),
    weight: real("weight"),
    discountType: text("discount_type", { enum: ["NONE", "AMOUNT", "PERCENT"] })
      .notNull()
      .default("NONE"),
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
  (t) => [uniqueIndex("collections_slug_unique").on(t.slug), index("collections_name_nocase_idx").on(sql`${t.name} COLLATE NOCASE`)],
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

/**
 * A CSV import (catalog/imports.ts): the checked file waiting to be applied, then applied chunk by chunk through the
 * queue. `auth` is the importing staff member as they were when they uploaded (the queue applies with their
 * permissions, not the shop's).
 */
export const importJobs = sqliteTable(
  "import_jobs",
  {
    id: text("id").primaryKey(),
    /** READY (checked, not applied), APPLYING, DONE. */
    status: text("status", { enum: ["READY", "APPLYING", "DONE"] }).notNull(),
    fileName: text("file_name").notNull(),
    /** The importer's Auth (kind, identityId, role, permissions). */
    auth: text("auth", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The importer's email, shown on the job's page. */
    createdBy: text("created_by").notNull(),
    /** The file's columns, and the ones it has that the import ignores. */
    columns: text("columns", { mode: "json" }).$type<{ columns: string[]; ignored: string[] }>().notNull(),
    /** Products (not rows) to create, update and leave unchanged, and rows with errors. */
    summary: text("summary", { mode: "json" })
      .$type<{ create: number; update: number; unchanged: number; invalidRows: number; products: number }>()
      .notNull(),
    totalRows: integer("total_rows").notNull(),
    chunks: integer("chunks").notNull(),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
    appliedDate: text("applied_date"),
    finishedDate: text("finished_date"),
  },
  // The sweep's look for imports that stopped moving reads only those still applying.
  (t) => [index("import_jobs_applying_idx").on(t.updatedDate).where(sql`status = 'APPLYING'`)],
);

/** One data row of an import, with what the dry run found and, once applied, how it went. */
export const importRows = sqliteTable(
  "import_rows",
  {
    jobId: text("job_id")
      .notNull()
      .references(() => importJobs.id, { onDelete: "cascade" }),
    /** The row's number as a spreadsheet shows it (the header is row 1). */
    row: integer("row").notNull(),
    /** The queue chunk that applies it: whole products, at most 50 rows unless one product has more variants. */
    chunk: integer("chunk").notNull(),
    slug: text("slug").notNull(),
    /** The row's cells by column. */
    cells: text("cells", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** What the dry run plans for the row's product: create, update, unchanged, or invalid (errors). */
    action: text("action", { enum: ["create", "update", "unchanged", "invalid"] }).notNull(),
    /** [{column, message}] of this row (dry run), or the failure when applying. */
    errors: text("errors", { mode: "json" }).$type<{ column: string; message: string }[]>().notNull(),
    /** PENDING until its chunk runs; then DONE, FAILED (the service refused it) or SKIPPED (invalid in the dry run). */
    status: text("status", { enum: ["PENDING", "DONE", "FAILED", "SKIPPED"] }).notNull(),
    /** What applying did: created, updated, unchanged. */
    outcome: text("outcome"),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.row] }),
    index("import_rows_chunk_idx").on(t.jobId, t.chunk),
    index("import_rows_status_idx").on(t.jobId, t.status),
  ],
);

// ---------------------------------------------------------------------------------------------------------------
// Inventory (worker/catalog/inventory.ts)

/**
 * Inventory tables. Stock itself lives on the catalogue's variants (`quantity`, `in_stock`) and products
 * (`track_inventory`); these hold what the catalogue does not: the change log, preorder settings, and a scratch
 * table that lets one D1 batch compare stock before and after its own updates.
 */

/** Why stock changed, as the Wix inventory API names the causes. */
export const INVENTORY_CAUSES = ["ORDER", "MANUAL", "REVERT_INVENTORY_CHANGE"] as const;
export type InventoryCause = (typeof INVENTORY_CAUSES)[number];

/**
 * One row per variant whose stock a change moved. Written by SQL in the same batch as the change, from the
 * variant's state after it, so `quantityAfter` is exact even when orders race. No foreign key: the history of a
 * deleted product is kept.
 */
export const inventoryChanges = sqliteTable(
  "inventory_changes",
  {
    id: text("id").primaryKey(),
    productId: text("product_id").notNull(),
    variantId: text("variant_id").notNull(),
    /** New quantity minus old (0 when only the in-stock flag of an untracked variant changed). */
    delta: integer("delta").notNull(),
    /** Null when the product does not track quantities. */
    quantityAfter: integer("quantity_after"),
    inStockAfter: integer("in_stock_after", { mode: "boolean" }).notNull(),
    cause: text("cause", { enum: INVENTORY_CAUSES }).notNull(),
    /** Free text from the merchant (or the order flow). */
    reason: text("reason"),
    orderId: text("order_id"),
    /** What made a keyed release (e.g. `refund:<id>`), so replaying it returns nothing twice; null otherwise. */
    changeKey: text("change_key"),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    createdDate: text("created_date").notNull(),
  },
  (t) => [index("inventory_changes_product_idx").on(t.productId, t.createdDate), index("inventory_changes_order_idx").on(t.orderId)],
);

/**
 * Preorder per product (Wix's inventory-item preorderInfo). When enabled on a product that tracks quantities, a
 * variant may be reserved below zero, down to minus `limit` (no floor when limit is null).
 */
export const preorderSettings = sqliteTable("preorder_settings", {
  productId: text("product_id")
    .primaryKey()
    .references(() => products.id, { onDelete: "cascade" }),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  message: text("message"),
  limit: integer("preorder_limit"),
  updatedDate: text("updated_date").notNull(),
});

/**
 * Stock of the variants a batch is about to change, copied at the start of that batch and deleted at its end (so
 * the table is empty between batches). The log rows and events are computed from it and the variants' new state.
 */
export const stockSnapshots = sqliteTable(
  "stock_snapshots",
  {
    changeId: text("change_id").notNull(),
    productId: text("product_id").notNull(),
    variantId: text("variant_id").notNull(),
    quantity: integer("quantity"),
    inStock: integer("in_stock", { mode: "boolean" }).notNull(),
    tracked: integer("tracked", { mode: "boolean" }).notNull(),
    preorderEnabled: integer("preorder_enabled", { mode: "boolean" }).notNull(),
    preorderLimit: integer("preorder_limit"),
    preorderMessage: text("preorder_message"),
  },
  (t) => [primaryKey({ columns: [t.changeId, t.productId, t.variantId] })],
);
