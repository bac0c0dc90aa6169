import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * The CMS's data items (Wix Data): one row per item of a data collection (`Menus`, `Pages`). Slug and title are
 * columns, as every built-in collection has them and pages and menus are found by slug; the collection's other
 * fields are one JSON object in `data` (a page's rich content as Ricos nodes, a menu's ordered page ids).
 */
export const cmsItems = sqliteTable(
  "cms_items",
  {
    id: text("id").primaryKey(),
    collectionId: text("collection_id").notNull(),
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdDate: text("created_date").notNull(),
    updatedDate: text("updated_date").notNull(),
  },
  (t) => [uniqueIndex("cms_items_slug_idx").on(t.collectionId, t.slug), index("cms_items_updated_idx").on(t.collectionId, t.updatedDate)],
);
