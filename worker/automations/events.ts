/** Event types the automations emit and handle (Wix names, so outgoing webhooks need no mapping). */
export const AutomationEventType = {
  cartAbandoned: "com.wix.ecommerce.cart.abandonment.api.v1.CartAbandonedEvent",
  cartRecovered: "com.wix.ecommerce.cart.abandonment.api.v1.CartRecoveredEvent",
  /** Domain events of the abandoned-checkout record (@wix/ecom abandonedCheckouts.onAbandonedCheckoutCreated / …Recovered). */
  abandonedCheckoutCreated: "wix.ecom.v1.abandoned_checkout_created",
  abandonedCheckoutRecovered: "wix.ecom.v1.abandoned_checkout_recovered",
  backInStockCreated: "wix.ecom.v1.back_in_stock_notification_request_created",
  backInStockUpdated: "wix.ecom.v1.back_in_stock_notification_request_updated",
  backInStockDeleted: "wix.ecom.v1.back_in_stock_notification_request_deleted",
  /** Incoming from a warehouse or ERP (an incoming webhook source): set or adjust stock. */
  inventoryUpdated: "inventory.updated",
} as const;
