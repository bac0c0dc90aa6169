/** What the console's products table shares between server and browser: its filters and sort orders. */

export const PRODUCT_SORTS = {
  newest: { fieldName: "createdDate", order: "DESC" },
  oldest: { fieldName: "createdDate", order: "ASC" },
  name: { fieldName: "name", order: "ASC" },
  "name-desc": { fieldName: "name", order: "DESC" },
  "price-low": { fieldName: "price", order: "ASC" },
  "price-high": { fieldName: "price", order: "DESC" },
  updated: { fieldName: "updatedDate", order: "DESC" },
} as const;
export type ProductSort = keyof typeof PRODUCT_SORTS;

export const PRODUCT_SORT_LABELS: Record<ProductSort, string> = {
  newest: "Newest first (best match when searching)",
  oldest: "Oldest first",
  name: "Name A–Z",
  "name-desc": "Name Z–A",
  "price-low": "Lowest price",
  "price-high": "Highest price",
  updated: "Recently edited",
};

export interface ProductFilters {
  q: string;
  collection: string;
  stock: "in" | "out" | "";
  visibility: "visible" | "hidden" | "";
  brand: string;
  ribbon: string;
  min: string;
  max: string;
  sort: ProductSort;
  page: number;
}
