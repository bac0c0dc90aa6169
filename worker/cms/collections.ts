import { sql } from "drizzle-orm";
import { z } from "zod";
import { descriptionToRich, richToHtml, type RichNode } from "#worker/catalog";
import { ApiError, badField } from "#worker/platform/errors";
import type { FieldMap } from "#worker/platform/query";
import { httpUrl, parseWith } from "#worker/platform/validation";
import { cmsItems } from "./tables";

/** The built-in data collections: menus of pages, and the pages themselves. */
export const MENUS = "Menus";
export const PAGES = "Pages";

/** A stored item: its columns, and the collection's other fields as stored JSON. */
export interface ItemRow {
  id: string;
  collectionId: string;
  slug: string;
  title: string;
  data: Record<string, unknown>;
  createdDate: string;
  updatedDate: string;
}

/** An item's fields as a write gives them, checked: the columns and the JSON the row keeps. */
export interface ItemInput {
  slug: string;
  title: string;
  data: Record<string, unknown>;
}

/** A data collection: what a query may filter and sort on, which fields reference other items, how data is read and written. */
export interface CollectionDef {
  id: string;
  fields: FieldMap;
  /** Multi-reference fields and the collection they point into (a stored array of item ids, in order). */
  references: Record<string, string>;
  /** The wire's `data` (without system fields) checked and turned into what the row keeps. */
  parse(data: unknown, prefix: string): ItemInput;
  /** The row's own fields as the wire's `data` (references as ids). */
  wire(row: ItemRow): Record<string, unknown>;
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const slug = z.string().trim().min(1).max(100).regex(SLUG, "must be lowercase letters, digits and single hyphens, such as about-us");
const title = z.string().trim().min(1).max(200);
/** Fields the platform keeps itself: a client may send them back, and they are ignored. */
const system = {
  _id: z.unknown().optional(),
  _owner: z.unknown().optional(),
  _createdDate: z.unknown().optional(),
  _updatedDate: z.unknown().optional(),
};

const pageData = z
  .object({
    ...system,
    slug,
    title,
    body: z.string().max(100_000).optional(),
    seoTitle: z.string().trim().max(200).optional(),
    seoDescription: z.string().trim().max(320).optional(),
  })
  .strict();

/** A referenced item as a client may send it: its id, or the item (or its data) with `_id`. */
const reference = z.union([
  z.string().min(1).max(100),
  z
    .object({ _id: z.string().min(1).max(100) })
    .passthrough()
    .transform((r) => r._id),
]);

/**
 * A menu's entry: a page of the Pages collection, a catalogue collection, or a free URL (an http(s) URL or a path
 * on this site) with its own title.
 */
const menuLink = z.discriminatedUnion("type", [
  z.object({ type: z.literal("PAGE"), page: reference }).strict(),
  z.object({ type: z.literal("COLLECTION"), collection: z.string().trim().min(1).max(100) }).strict(),
  z.object({ type: z.literal("URL"), url: httpUrl({ max: 2048, sitePath: true }), title }).strict(),
]);

export type MenuLinkData = z.output<typeof menuLink>;

/** What a menu links to, and where (for the duplicate check): a page and a collection appear once each. */
const linkKey = (l: MenuLinkData) => (l.type === "PAGE" ? `PAGE:${l.page}` : l.type === "COLLECTION" ? `COLLECTION:${l.collection}` : `URL:${l.url}`);

/**
 * A menu: its `links` in order, or (as the Wix template writes it) only `pages`, a reference field to Pages. The row
 * keeps both: `pages` is the links' pages, in order, so the reference field reads and filters as before.
 */
const menuData = z
  .object({ ...system, slug, title, pages: z.array(reference).max(50).optional(), links: z.array(menuLink).max(50).optional() })
  .strict()
  .refine((m) => new Set(m.pages ?? []).size === (m.pages ?? []).length, { path: ["pages"], message: "lists a page twice" })
  .refine((m) => new Set((m.links ?? []).map(linkKey)).size === (m.links ?? []).length, { path: ["links"], message: "lists an entry twice" });

/** A stored menu's links (a menu stored before links existed lists its pages). */
export function linksOf(data: Record<string, unknown>): MenuLinkData[] {
  const links = data.links as MenuLinkData[] | undefined;
  return links ?? ((data.pages as string[] | undefined) ?? []).map((page) => ({ type: "PAGE" as const, page }));
}

const text = (column: unknown) => ({ sql: column as never, type: "string" as const, sortable: true, textOps: true });
const jsonText = (key: string) => ({
  sql: sql`json_extract(${cmsItems.data}, ${`$.${key}`})`,
  type: "string" as const,
  sortable: true,
  textOps: true,
});

/** Fields every collection has: the id and dates (under the names Wix Data gives them and the SDK's renames). */
const common: FieldMap = {
  _id: { sql: cmsItems.id, type: "string", sortable: true, textOps: true },
  id: { sql: cmsItems.id, type: "string", sortable: true, textOps: true },
  _createdDate: { sql: cmsItems.createdDate, type: "date", sortable: true },
  createdDate: { sql: cmsItems.createdDate, type: "date", sortable: true },
  _updatedDate: { sql: cmsItems.updatedDate, type: "date", sortable: true },
  updatedDate: { sql: cmsItems.updatedDate, type: "date", sortable: true },
  slug: text(cmsItems.slug),
  title: text(cmsItems.title),
};

const dates = (row: ItemRow) => ({ _id: row.id, _createdDate: { $date: row.createdDate }, _updatedDate: { $date: row.updatedDate } });

const pages: CollectionDef = {
  id: PAGES,
  fields: { ...common, seoTitle: jsonText("seoTitle"), seoDescription: jsonText("seoDescription") },
  references: {},
  parse(data, prefix) {
    const p = parseWith(pageData, data, prefix);
    const content = descriptionToRich(p.body ?? "");
    return { slug: p.slug, title: p.title, data: { content, seoTitle: p.seoTitle ?? "", seoDescription: p.seoDescription ?? "" } };
  },
  wire(row) {
    const content = (row.data.content as { nodes?: RichNode[] } | undefined) ?? { nodes: [] };
    return {
      ...dates(row),
      slug: row.slug,
      title: row.title,
      body: richToHtml(content.nodes),
      content,
      seoTitle: row.data.seoTitle ?? "",
      seoDescription: row.data.seoDescription ?? "",
    };
  },
};

const menus: CollectionDef = {
  id: MENUS,
  fields: {
    ...common,
    pages: {
      kind: "set",
      hasSome: (ids) =>
        sql`EXISTS (SELECT 1 FROM json_each(${cmsItems.data}, '$.pages') p WHERE p.value IN (SELECT value FROM json_each(${JSON.stringify(ids)})))`,
      hasAll: (ids) =>
        sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(ids)}) w WHERE w.value NOT IN (SELECT value FROM json_each(${cmsItems.data}, '$.pages')))`,
    },
  },
  references: { pages: PAGES },
  parse(data, prefix) {
    const m = parseWith(menuData, data, prefix);
    const links: MenuLinkData[] = m.links ?? (m.pages ?? []).map((page) => ({ type: "PAGE", page }));
    const pages = links.flatMap((l) => (l.type === "PAGE" ? [l.page] : []));
    return { slug: m.slug, title: m.title, data: { pages, links } };
  },
  wire(row) {
    return { ...dates(row), slug: row.slug, title: row.title, pages: (row.data.pages as string[] | undefined) ?? [], links: linksOf(row.data) };
  },
};

const COLLECTIONS: Record<string, CollectionDef> = { [MENUS]: menus, [PAGES]: pages };

/** The collection a request names: a validation error without one, WDE0025 (as Wix Data answers) for one that does not exist. */
export function collectionOf(id: unknown, field = "dataCollectionId"): CollectionDef {
  if (typeof id !== "string" || id.trim() === "") {
    throw badField(field, "is required: Menus or Pages", "REQUIRED_FIELD");
  }
  const def = Object.hasOwn(COLLECTIONS, id) ? COLLECTIONS[id] : undefined;
  if (!def) {
    const description = `WDE0025: The ${id.slice(0, 100)} collection does not exist. You cannot work with a collection that does not exist in the Data Manager.`;
    throw new ApiError(404, "WDE0025", description, { data: { collectionId: id.slice(0, 100) } });
  }
  return def;
}
