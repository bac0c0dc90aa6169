import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Files of digital products, in the private R2 bucket DOWNLOADS (never served by /media). One file per product
 * (variantId "") and one per variant at most; a variant's own file wins over the product's. Rows keep no foreign key
 * to the product: a file bought stays downloadable for its orders even when the product is deleted.
 */
export const digitalFiles = sqliteTable(
  "digital_files",
  {
    id: text("id").primaryKey(),
    productId: text("product_id").notNull(),
    /** "" for the product's file, else the variant's id. */
    variantId: text("variant_id").notNull().default(""),
    /** The R2 key: downloads/<productId>/<id>. A replaced file gets a new row id and key. */
    objectKey: text("object_key").notNull(),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    createdDate: text("created_date").notNull(),
  },
  (t) => [uniqueIndex("digital_files_product_variant_unique").on(t.productId, t.variantId)],
);

/** How many times each digital line of an order was downloaded: the guarded counter behind the download limit. */
export const lineDownloads = sqliteTable(
  "line_downloads",
  {
    orderId: text("order_id").notNull(),
    lineId: text("line_id").notNull(),
    count: integer("count").notNull(),
    lastDate: text("last_date").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.lineId] })],
);
