/**
 * Event types, named as the Wix platform names them so outgoing webhooks in the Wix format need no
 * mapping.
 */
export const EventType = {
  productCreated: "com.wix.ecommerce.catalog.api.v1.ProductCreated",
  productChanged: "com.wix.ecommerce.catalog.api.v1.ProductChanged",
  productDeleted: "com.wix.ecommerce.catalog.api.v1.ProductDeleted",
  variantsChanged: "com.wix.ecommerce.catalog.api.v1.VariantsChanged",
  collectionCreated: "com.wix.ecommerce.catalog.api.v1.CollectionCreated",
  collectionChanged: "com.wix.ecommerce.catalog.api.v1.CollectionChanged",
  collectionDeleted: "com.wix.ecommerce.catalog.api.v1.CollectionDeleted",
  /** Inventory (worker/catalog/inventory.ts): every stock change of a product. */
  inventoryItemChanged: "com.wix.ecommerce.inventory.api.v1.InventoryItemChanged",
  inventoryVariantsChanged: "com.wix.ecommerce.inventory.api.v1.InventoryVariantsChanged",
  /** A variant went from in stock to out of stock or back (Wix's catalog v3 name). */
  inventoryStockStatusUpdated: "wix.stores.catalog.v3.inventory_item_stock_status_updated",
  /** The change with its cause: ORDER, MANUAL or REVERT_INVENTORY_CHANGE (Wix's catalog v3 name). */
  inventoryItemUpdatedWithReason: "wix.stores.catalog.v3.inventory_item_updated_with_reason",
} as const;

export type EventTypeName = (typeof EventType)[keyof typeof EventType];
