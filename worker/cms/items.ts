import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, outboxInsertIfChanged, type EventEnvelope, type Statement } from "#worker/events";
import { nowIso, requirePermission, type Ctx } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { ApiError, badField, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { isUniqueViolation } from "#worker/platform/batch";
import { compileQuery } from "#worker/platform/query";
import { runBatch } from "#worker/platform/unit-of-work";
import { collectionOf, linksOf, MENUS, PAGES, type CollectionDef, type ItemRow } from "./collections";
import { cmsItems } from "./tables";

/** Wix Data's item events, recorded with every write (the catalogue cache is purged on them). */
export const CMS_EVENTS = {
  created: "wix.data.v2.data_item_created",
  updated: "wix.data.v2.data_item_updated",
  deleted: "wix.data.v2.data_item_deleted",
} as const;

/** An item on the wire: `{id, dataCollectionId, data}`. */
export interface DataItem {
  id: string;
  dataCollectionId: string;
  data: Record<string, unknown>;
}

const MAX_INCLUDED = 100;
const ID = /^[A-Za-z0-9_-]{1,100}$/;

function obj(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw badField(field, "must be an object");
  return value as Record<string, unknown>;
}

/** Which reference fields to expand: `includeReferences: [{field, limit}]` (or the older `referencedItemOptions: [{fieldName, limit}]`). */
function includedFields(def: CollectionDef, body: Record<string, unknown>): Map<string, number> {
  const out = new Map<string, number>();
  const violations: FieldViolation[] = [];
  for (const key of ["includeReferences", "referencedItemOptions"] as const) {
    const list = body[key];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw badField(key, "must be an array of {field}");
    list.forEach((entry: unknown, i) => {
      const e = typeof entry === "string" ? { field: entry } : (entry as Record<string, unknown> | null);
      const field = e?.field ?? e?.fieldName;
      const limit = e?.limit ?? MAX_INCLUDED;
      if (typeof field !== "string" || !Object.hasOwn(def.references, field)) {
        const allowed = Object.keys(def.references);
        violations.push({
          field: `${key}[${i}].field`,
          description: allowed.length ? `must name a reference field of ${def.id} (${allowed.join(", ")})` : `${def.id} has no reference fields`,
          violatedRule: "FIELD_NOT_ALLOWED",
          data: {},
        });
      } else if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_INCLUDED) {
        violations.push({
          field: `${key}[${i}].limit`,
          description: `must be an integer from 1 to ${MAX_INCLUDED}`,
          violatedRule: "VALIDATION",
          data: {},
        });
      } else out.set(field, limit);
    });
  }
  if (violations.length) throw invalidArgument(violations);
  return out;
}

/** A cursor carries the query it pages through (the SDK sends only the cursor for the next page). */
function encodeCursor(state: { filter: unknown; sort: unknown; offset: number }): string {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeCursor(cursor: unknown): { filter: unknown; sort: unknown; offset: number } {
  try {
    if (typeof cursor !== "string" || cursor.length > 8000) throw new Error("not a cursor");
    const b64 = cursor.replace(/-/g, "+").replace(/_/g, "/");
    const text = new TextDecoder().decode(Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0)));
    const state = JSON.parse(text) as { filter: unknown; sort: unknown; offset: unknown };
    if (typeof state.offset !== "number" || !Number.isInteger(state.offset) || state.offset < 0) throw new Error("bad offset");
    return { filter: state.filter, sort: state.sort, offset: state.offset };
  } catch {
    throw badField("query.cursorPaging.cursor", "is not a cursor this server gave", "FORMAT");
  }
}

/** The row's data on the wire, with each included reference field's items inline (in the stored order). */
function toDataItem(def: CollectionDef, row: ItemRow, refs: Map<string, ItemRow>, included: Map<string, number>, fields?: string[]): DataItem {
  let data = def.wire(row);
  for (const [field, limit] of included) {
    const target = collectionOf(def.references[field]);
    const ids = (data[field] as string[] | undefined) ?? [];
    data[field] = ids
      .map((id) => refs.get(id))
      .filter((r): r is ItemRow => r !== undefined)
      .slice(0, limit)
      .map((r) => target.wire(r));
  }
  if (fields?.length) data = Object.fromEntries(Object.entries(data).filter(([k]) => k === "_id" || fields.includes(k)));
  return { id: row.id, dataCollectionId: def.id, data };
}

/** The items that the rows' included reference fields name, by id: one read for all of them. */
async function referencedRows(ctx: Ctx, def: CollectionDef, rows: ItemRow[], included: Map<string, number>): Promise<Map<string, ItemRow>> {
  const wanted = new Set<string>();
  for (const field of included.keys()) for (const r of rows) for (const id of (r.data[field] as string[] | undefined) ?? []) wanted.add(id);
  if (wanted.size === 0) return new Map();
  const targets = [...new Set([...included.keys()].map((f) => def.references[f]))];
  const found = await ctx.db
    .select()
    .from(cmsItems)
    .where(and(inArray(cmsItems.collectionId, targets), sql`${cmsItems.id} IN (SELECT value FROM json_each(${JSON.stringify([...wanted])}))`));
  return new Map(found.map((r) => [r.id, r]));
}

/**
 * Wix Data's items query: `{dataCollectionId, query: {filter, sort, fields, paging | cursorPaging}, includeReferences}`
 * -> `{dataItems, pagingMetadata}`. Public: menus and pages are what every shopper sees.
 */
export async function queryItems(ctx: Ctx, body: Record<string, unknown>) {
  const def = collectionOf(body.dataCollectionId);
  const query = obj(body.query, "query");
  const included = includedFields(def, body);
  const fields = query.fields;
  if (fields !== undefined && (!Array.isArray(fields) || !fields.every((f) => typeof f === "string")))
    throw badField("query.fields", "must be an array of field names");
  let filter = query.filter;
  let sort = query.sort;
  let paging: { limit?: unknown; offset?: unknown } | undefined;
  const cursorPaging = obj(query.cursorPaging, "query.cursorPaging");
  const byCursor = query.cursorPaging !== undefined && query.cursorPaging !== null;
  if (byCursor) {
    let offset = 0;
    if (cursorPaging.cursor !== undefined && cursorPaging.cursor !== null) ({ filter, sort, offset } = decodeCursor(cursorPaging.cursor));
    paging = { limit: cursorPaging.limit, offset };
  } else if (query.paging !== undefined && query.paging !== null) paging = obj(query.paging, "query.paging");
  const compiled = compileQuery({ filter, sort, paging }, def.fields, {
    currency: ctx.currency,
    tieBreaker: cmsItems.id,
    defaultSort: [sql`${cmsItems.createdDate} ASC`],
    prefix: "query",
  });
  const where = and(eq(cmsItems.collectionId, def.id), compiled.where);
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db
      .select()
      .from(cmsItems)
      .where(where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset),
    ctx.db.select({ total: count() }).from(cmsItems).where(where),
  ]);
  const refs = await referencedRows(ctx, def, rows, included);
  const dataItems = rows.map((r) => toDataItem(def, r, refs, included, fields as string[] | undefined));
  const next = compiled.offset + rows.length;
  const hasNext = next < total;
  const pagingMetadata = byCursor
    ? { count: rows.length, total, tooManyToCount: false, cursors: hasNext ? { next: encodeCursor({ filter, sort, offset: next }) } : {}, hasNext }
    : { count: rows.length, offset: compiled.offset, total, tooManyToCount: false, hasNext };
  return { dataItems, pagingMetadata };
}

/** One item by id: `{dataItem}`, or WDE0073 when the collection holds no such item. */
export async function getItem(ctx: Ctx, collectionId: unknown, id: string) {
  const def = collectionOf(collectionId);
  const included = new Map<string, number>();
  const [row] = await ctx.db
    .select()
    .from(cmsItems)
    .where(and(eq(cmsItems.collectionId, def.id), eq(cmsItems.id, id)))
    .limit(1);
  if (!row) throw itemNotFound(def.id, id);
  const refs = await referencedRows(ctx, def, [row], included);
  return { dataItem: toDataItem(def, row, refs, included) };
}

function itemNotFound(collectionId: string, id: string): ApiError {
  return new ApiError(404, "WDE0073", `WDE0073: Item ${id.slice(0, 100)} does not exist in collection ${collectionId}.`, {
    data: { dataCollectionId: collectionId, itemId: id.slice(0, 100) },
  });
}

/** Checks that every item a write references exists in its target collection (one read for all). */
async function checkReferences(ctx: Ctx, def: CollectionDef, data: Record<string, unknown>): Promise<void> {
  const violations: FieldViolation[] = [];
  for (const [field, target] of Object.entries(def.references)) {
    const ids = (data[field] as string[] | undefined) ?? [];
    if (ids.length === 0) continue;
    const found = await ctx.db
      .select({ id: cmsItems.id })
      .from(cmsItems)
      .where(and(eq(cmsItems.collectionId, target), sql`${cmsItems.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`));
    const known = new Set(found.map((r) => r.id));
    ids.forEach((id, i) => {
      if (!known.has(id))
        violations.push({ field: `dataItem.data.${field}[${i}]`, description: `names no item of ${target}`, violatedRule: "VALIDATION", data: {} });
    });
  }
  if (def.id === MENUS) {
    const links = linksOf(data);
    const ids = links.flatMap((l) => (l.type === "COLLECTION" ? [l.collection] : []));
    const known = new Set(
      ids.length
        ? (await ctx.db.all<{ id: string }>(sql`SELECT id FROM collections WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)).map(
            (r) => r.id,
          )
        : [],
    );
    links.forEach((l, i) => {
      if (l.type === "COLLECTION" && !known.has(l.collection))
        violations.push({ field: `dataItem.data.links[${i}].collection`, description: "names no collection", violatedRule: "VALIDATION", data: {} });
    });
  }
  if (violations.length) throw invalidArgument(violations);
}

function writeInput(body: Record<string, unknown>) {
  const def = collectionOf(body.dataCollectionId);
  const dataItem = obj(body.dataItem, "dataItem");
  if (body.dataItem === undefined || body.dataItem === null) throw badField("dataItem", "is required", "REQUIRED_FIELD");
  const input = def.parse(dataItem.data ?? {}, "dataItem.data");
  const given = dataItem.id ?? (dataItem.data as Record<string, unknown> | undefined)?._id;
  if (given !== undefined && (typeof given !== "string" || !ID.test(given)))
    throw badField("dataItem.id", "must be 1 to 100 letters, digits, - or _", "FORMAT");
  return { def, input, id: given as string | undefined };
}

function slugTaken(def: CollectionDef, slug: string): ApiError {
  const what = def.id === PAGES ? "page" : def.id === MENUS ? "menu" : "item";
  return badField("dataItem.data.slug", `is already used by another ${what}: ${slug}`, "VALIDATION", { slug });
}

async function writeOnce<T>(def: CollectionDef, slug: string, id: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isUniqueViolation(err, "cms_items.slug")) throw slugTaken(def, slug);
    if (isUniqueViolation(err, "cms_items.id")) {
      throw new ApiError(409, "WDE0074", `WDE0074: An item with id ${id} already exists.`, { data: { itemId: id } });
    }
    throw err;
  }
}

/** Inserts an item: `{dataCollectionId, dataItem: {id?, data}}` -> `{dataItem}`. Needs cms.write. */
export async function insertItem(ctx: Ctx, body: Record<string, unknown>) {
  requirePermission(ctx, "cms.write");
  const { def, input, id: given } = writeInput(body);
  await checkReferences(ctx, def, input.data);
  const now = nowIso();
  const row: ItemRow = { id: given ?? newId(), collectionId: def.id, ...input, createdDate: now, updatedDate: now };
  const event = newEvent(ctx, CMS_EVENTS.created, row.id, { dataCollectionId: def.id, dataItemId: row.id });
  await writeOnce(def, row.slug, row.id, () => commit(ctx, [ctx.db.insert(cmsItems).values(row), outboxInsert(ctx.db, event)], [event]));
  return { dataItem: toDataItem(def, row, new Map(), new Map()) };
}

/** Replaces an item's data: `{dataCollectionId, dataItem: {id, data}}` -> `{dataItem}`. Needs cms.write. */
export async function updateItem(ctx: Ctx, body: Record<string, unknown>, pathId?: string) {
  requirePermission(ctx, "cms.write");
  const { def, input, id: given } = writeInput(body);
  const id = pathId ?? given;
  if (!id) throw badField("dataItem.id", "is required", "REQUIRED_FIELD");
  await checkReferences(ctx, def, input.data);
  const updatedDate = nowIso();
  const event = newEvent(ctx, CMS_EVENTS.updated, id, { dataCollectionId: def.id, dataItemId: id });
  const [, , [stored]] = await writeOnce(def, input.slug, id, () =>
    commit(
      ctx,
      [
        ctx.db
          .update(cmsItems)
          .set({ ...input, updatedDate })
          .where(and(eq(cmsItems.collectionId, def.id), eq(cmsItems.id, id))),
        outboxInsertIfChanged(ctx.db, event),
        ctx.db
          .select()
          .from(cmsItems)
          .where(and(eq(cmsItems.collectionId, def.id), eq(cmsItems.id, id))),
      ],
      (r) => (r[0].meta.changes ? [event] : []),
    ),
  );
  if (!stored) throw itemNotFound(def.id, id);
  return { dataItem: toDataItem(def, stored, new Map(), new Map()) };
}

/**
 * Removes an item -> `{dataItem}` (as it was). A removed page leaves every menu that listed it, in the same batch.
 * Needs cms.write.
 */
export async function removeItem(ctx: Ctx, collectionId: unknown, id: unknown) {
  requirePermission(ctx, "cms.write");
  const def = collectionOf(collectionId);
  if (typeof id !== "string" || id === "") throw badField("dataItemId", "is required", "REQUIRED_FIELD");
  const [row] = await ctx.db
    .select()
    .from(cmsItems)
    .where(and(eq(cmsItems.collectionId, def.id), eq(cmsItems.id, id)))
    .limit(1);
  if (!row) throw itemNotFound(def.id, id);
  const event = newEvent(ctx, CMS_EVENTS.deleted, id, { dataCollectionId: def.id, dataItemId: id });
  const statements: Statement[] = [ctx.db.delete(cmsItems).where(eq(cmsItems.id, id)), outboxInsertIfChanged(ctx.db, event)];
  if (def.id === PAGES) statements.push(unlinkPageStatement(ctx, id, nowIso()));
  const changed = (r: unknown[]) => (r[0] as { meta: { changes: number } }).meta.changes > 0;
  const results = await commit(ctx, statements, (r): EventEnvelope[] => (changed(r) ? [event] : []));
  if (!changed(results)) throw itemNotFound(def.id, id);
  return { dataItem: toDataItem(def, row, new Map(), new Map()) };
}

/** Takes a page out of every menu that lists it, keeping the others in their order. */
function unlinkPageStatement(ctx: Ctx, pageId: string, updatedDate: string): Statement {
  return rawStatement(
    ctx.db,
    sql`UPDATE cms_items SET updated_date = ${updatedDate},
      data = json_set(data,
        '$.pages', (SELECT json_group_array(p.value) FROM (SELECT value FROM json_each(cms_items.data, '$.pages') WHERE value != ${pageId} ORDER BY key) p),
        '$.links', (SELECT json_group_array(json(l.value)) FROM (SELECT value FROM json_each(cms_items.data, '$.links')
          WHERE NOT (json_extract(value, '$.type') = 'PAGE' AND json_extract(value, '$.page') = ${pageId}) ORDER BY key) l))
      WHERE collection_id = ${MENUS} AND EXISTS (SELECT 1 FROM json_each(cms_items.data, '$.pages') WHERE value = ${pageId})`,
  );
}

/** Items of a collection in slug order, for the console's lists (at most 200). */
export async function listItems(ctx: Ctx, collectionId: string) {
  const def = collectionOf(collectionId);
  const rows = await ctx.db.select().from(cmsItems).where(eq(cmsItems.collectionId, def.id)).orderBy(asc(cmsItems.slug)).limit(200);
  return rows.map((r) => toDataItem(def, r, new Map(), new Map()));
}

/** An item by slug with its references inline, or null (the storefront's menus and pages). */
export async function itemBySlug(ctx: Ctx, collectionId: string, slug: string): Promise<DataItem | null> {
  const def = collectionOf(collectionId);
  const [row] = await ctx.db
    .select()
    .from(cmsItems)
    .where(and(eq(cmsItems.collectionId, def.id), eq(cmsItems.slug, slug)))
    .limit(1);
  if (!row) return null;
  const included = new Map(Object.keys(def.references).map((f) => [f, MAX_INCLUDED]));
  return toDataItem(def, row, await referencedRows(ctx, def, [row], included), included);
}

/**
 * The read of the named menus' links, in order, each with its title and path (for a caller's batch; menuLinksOf shapes
 * its result): pages at /pages/{slug}, visible collections at /collections/{slug}, free URLs as given. A link to a
 * page or collection that is gone or hidden is left out.
 */
export function menuLinksRead(db: Db, slugs: string[]) {
  return rawStatement(
    db,
    sql`SELECT m.slug AS menu, coalesce(p.title, c.name, json_extract(l.value, '$.title')) AS title,
        CASE json_extract(l.value, '$.type') WHEN 'PAGE' THEN '/pages/' || p.slug WHEN 'COLLECTION' THEN '/collections/' || c.slug
          ELSE json_extract(l.value, '$.url') END AS href
      FROM cms_items m JOIN json_each(m.data, '$.links') l
      LEFT JOIN cms_items p ON json_extract(l.value, '$.type') = 'PAGE' AND p.collection_id = ${PAGES} AND p.id = json_extract(l.value, '$.page')
      LEFT JOIN collections c ON json_extract(l.value, '$.type') = 'COLLECTION' AND c.id = json_extract(l.value, '$.collection') AND c.visible = 1
      WHERE m.collection_id = ${MENUS} AND m.slug IN (SELECT value FROM json_each(${JSON.stringify(slugs)}))
        AND (p.id IS NOT NULL OR c.id IS NOT NULL OR json_extract(l.value, '$.type') = 'URL')
      ORDER BY m.slug, l.key`,
  );
}

/** A menu entry as the storefront shows it. */
export interface MenuLink {
  title: string;
  href: string;
}

/** The links of each named menu as `{title, href}`, from menuLinksRead's result (a missing menu is an empty list). */
export function menuLinksOf(result: unknown, slugs: string[]): Record<string, MenuLink[]> {
  const rows = ((result as { results?: (MenuLink & { menu: string })[] }).results ?? []) as (MenuLink & { menu: string })[];
  const out: Record<string, MenuLink[]> = Object.fromEntries(slugs.map((s) => [s, []]));
  for (const r of rows) out[r.menu]?.push({ title: r.title, href: r.href });
  return out;
}
