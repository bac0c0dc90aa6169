/** The CMS (Wix Data): data collections of items, the built-in Menus and Pages; what other folders, the pages and the entry use. */
export { linksOf, MENUS, PAGES, type MenuLinkData } from "./collections";
export { demoContentStatements } from "./demo";
export {
  CMS_EVENTS,
  getItem,
  insertItem,
  itemBySlug,
  listItems,
  menuLinksOf,
  menuLinksRead,
  queryItems,
  removeItem,
  updateItem,
  type DataItem,
  type MenuLink,
} from "./items";
export { cmsCacheProcessors } from "./processors";
export { cmsRoutes } from "./routes";
