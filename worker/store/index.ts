/** The store's settings: what other folders, the pages and the composition root use. */
export { storeRoutes } from "./routes";
export {
  DEFAULT_UNPAID_ORDER_HOLD_HOURS,
  defaultStoreSettings,
  emailSender,
  getStoreSettings,
  loadStoreSettings,
  LOGO_ALIGNMENTS,
  LOGO_SIZES,
  MAX_UNPAID_ORDER_HOLD_HOURS,
  pageShopSettings,
  shopSettings,
  STORE_SETTINGS_KEY,
  storeSettingsPatch,
  syncStoreSettingsCopy,
  updateStoreSettings,
  uploadStoreLogo,
  type StoreSettings,
  type StoreSettingsPatch,
} from "./settings";
