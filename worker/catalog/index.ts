/** The catalogue's face: what other folders, the storefront and the console use of products, collections and stock. */

export { bulkAdjustProducts, bulkDeleteProducts, bulkUpdateProducts } from "./bulk";
export { cachedCatalogRead, cachedPage, catalogCacheProcessors, keepPage, pageCacheKey, purgeCatalogCache } from "./cache";
export { demoCollections, demoProducts } from "./demo/catalogue";
export {
  changeMembership,
  createCollection,
  deleteCollection,
  getCollection,
  getCollectionWithProducts,
  prepareCreateCollection,
  queryCollections,
  queryCollectionsWith,
  updateCollection,
} from "./collections";
export { CHUNK_ROWS, MAX_IMPORT_BYTES, MAX_ROWS, PRODUCT_COLUMNS, REQUIRED_COLUMNS, VARIANT_COLUMNS } from "./csv-columns";
export {
  applyImport,
  checkImport,
  exportProductsCsv,
  importJobHandlers,
  importProgress,
  recentImports,
  resumeImport,
  resumeStalledImports,
} from "./imports";
export { decrementInventory, incrementInventory, inventoryOverview, lowStockCountRead, lowStockVariants, updateInventoryItem } from "./inventory";
export { decrementRequest, incrementRequest, inventoryRoutes, updateRequest } from "./inventory-routes";
export { mediaSweepDue, productMediaView, releaseUnusedMedia, sweepUnusedMedia } from "./media";
export { discountedPrice } from "./pricing";
export { addProductMedia, removeProductMedia, reorderProductMedia, setChoiceMedia, setProductMediaAltText } from "./product-media";
export { getProductBySlug, getProductPage, loadProductEditor, rankedProductIds, RELATED_LIMIT } from "./product-pages";
export { ftsExpression, productFilterValues, queryProducts } from "./product-queries";
export { loadProduct, productNames, variantLabels } from "./product-reads";
export { createProduct, deleteProduct, duplicateProduct, prepareCreateProduct, updateProduct } from "./product-writes";
export { descriptionToRich } from "./rich-text";
export { richToMarkdown, unsupportedNodes } from "./rich-text-markdown";
export { plainToLine } from "./rich-text-plain";
export { richToHtml } from "./rich-text-render";
export { catalogRead, catalogV3, catalogWrite, collectionsV2 } from "./routes";
export {
  bulkAdjustRequest,
  bulkDeleteRequest,
  bulkUpdateRequest,
  collectionInputSchema,
  collectionPatchSchema,
  createProductRequest,
  productInputSchema,
  updateProductRequest,
  type RichNode,
} from "./schemas";
export type { LoadedProduct } from "./shapes";
export {
  explainStockFailure,
  flushStockEvents,
  readStockAvailability,
  releaseStockStatements,
  reserveStockStatements,
  type StockChange,
  type StockLine,
} from "./stock-changes";
export { DEFAULT_LOW_STOCK_THRESHOLD, LOW_STOCK_SETTINGS_KEY } from "./stock-settings";
export { collectionProducts, products, variants, type StoredMedia, type StoredOption } from "./tables";
export { MEASUREMENT_UNITS } from "./units";
export { matching, type VariantRow } from "./variants";
