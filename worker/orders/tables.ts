import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { products } from "../catalog/tables";

/**
 * Inventory tables. Stock itself lives on the catalogue's variants (`quantity`, `in_stock`) and products
 * (`track_inventory`); these hold what the catalogue does not: the change log, preorder settings, and a scratch
 * table that lets one D1 batch compare stock before and after its own updates.
 */

/** The spec's inventory change causes (section 4). */
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
