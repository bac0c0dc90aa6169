/** The automations (abandoned carts and checkouts, back in stock, inventory updates): their face. */
export {
  abandonedByHourRead,
  addAbandonedCheckoutActivity,
  addActivityRequest,
  getAbandonedCheckoutWithEmails,
  queryAbandonedCheckouts,
} from "./abandoned-checkouts";
export { restoreAbandonedCart } from "./abandoned-carts";
export { backInStockByItem, backInStockCountsRead, backInStockItem, createBackInStockRequest, reportItemBackInStock } from "./back-in-stock";
export { AutomationEventType } from "./events";
export { automationProcessors, automationSchemas } from "./processors";
export { automationRoutes } from "./routes";
export {
  AUTOMATION_SETTINGS_KEY,
  automationSettingsPatch,
  DEFAULT_AUTOMATION_SETTINGS,
  getAutomationSettings,
  updateAutomationSettings,
  type AutomationSettings,
  type AutomationSettingsPatch,
} from "./settings";
export { runAutomationSweeps } from "./sweeps";
