/**
 * Event types, named as the Wix platform names them so outgoing webhooks in the Wix format need no mapping
 * (wire doc §5).
 */
export const EventType = {
  productCreated: "com.wix.ecommerce.catalog.api.v1.ProductCreated",
  productChanged: "com.wix.ecommerce.catalog.api.v1.ProductChanged",
  productDeleted: "com.wix.ecommerce.catalog.api.v1.ProductDeleted",
  variantsChanged: "com.wix.ecommerce.catalog.api.v1.VariantsChanged",
  collectionCreated: "com.wix.ecommerce.catalog.api.v1.CollectionCreated",
  collectionChanged: "com.wix.ecommerce.catalog.api.v1.CollectionChanged",
  collectionDeleted: "com.wix.ecommerce.catalog.api.v1.CollectionDeleted",
} as const;

export type EventTypeName = (typeof EventType)[keyof typeof EventType];
