/** The CMS (Wix Data): data collections of items, the built-in Menus and Pages; what other folders, the pages and the entry use. */
export { MENUS, PAGES } from "./collections";
export { demoContentStatements } from "./demo";
export {
  CMS_EVENTS,
  getItem,
  insertItem,
  itemBySlug,
  listItems,
  menuPagesOf,
  menuPagesRead,
  queryItems,
  removeItem,
  updateItem,
  type DataItem,
} from "./items";
export { cmsCacheProcessors } from "./processors";
export { cmsRoutes } from "./routes";
