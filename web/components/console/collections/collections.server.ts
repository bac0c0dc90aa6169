import { getCollection, getCollectionWithProducts, queryCollections, queryProducts } from "#worker/catalog";
import type { Ctx } from "#worker/platform/context";
import { ALL_PRODUCTS_COLLECTION_ID, slugify } from "#worker/platform/ids";
import { uploadImage } from "#worker/media";
import { cardOf, sameSiteUrl } from "#web/catalog.server";
import { data } from "react-router";
import { ApiError } from "#worker/platform/errors";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";

/**
 * The console's collections list, read through the catalogue's collections query (the one /v2/collections answers):
 * the URL's search and page become one filter and one page of the query language, so the Worker reads one page and
 * its count in one D1 round trip, never the whole table.
 */

export const COLLECTIONS_PAGE_SIZE = 25;
const MAX_PAGE = 4000;

export const COLLECTION_SORTS = {
  name: { label: "Name A–Z", sort: { fieldName: "name", order: "ASC" } },
  newest: { label: "Newest first", sort: { fieldName: "createdDate", order: "DESC" } },
  updated: { label: "Recently edited", sort: { fieldName: "updatedDate", order: "DESC" } },
  products: { label: "Most products", sort: { fieldName: "numberOfProducts", order: "DESC" } },
} as const;
export type CollectionSort = keyof typeof COLLECTION_SORTS;

export interface CollectionFilters {
  q: string;
  sort: CollectionSort;
  page: number;
}

export function readCollectionFilters(url: URL): CollectionFilters {
  const p = url.searchParams;
  const page = Number(p.get("page") ?? "1");
  const sort = p.get("sort") ?? "";
  return {
    q: (p.get("q") ?? "").trim().slice(0, 100),
    sort: (sort in COLLECTION_SORTS ? sort : "name") as CollectionSort,
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1,
  };
}

export interface ConsoleCollectionRow {
  id: string;
  name: string;
  slug: string;
  visible: boolean;
  /** Products a shopper sees in it (the query's numberOfProducts counts visible products). */
  products: number;
  image: string | null;
  builtIn: boolean;
}

/**
 * One page of collections whose name (or slug) starts with the search text. The query language matches prefixes
 * (no LIKE: D1 refuses long patterns), so "summer" finds "Summer sale" and the slug "summer-sale".
 */
export async function listConsoleCollections(ctx: Ctx, f: CollectionFilters) {
  const slugPrefix = /[a-z0-9]/i.test(f.q) ? slugify(f.q) : "";
  const filter = f.q ? { $or: [{ name: { $startsWith: f.q } }, ...(slugPrefix ? [{ slug: { $startsWith: slugPrefix } }] : [])] } : {};
  const result = await queryCollections(ctx, {
    filter,
    sort: [COLLECTION_SORTS[f.sort].sort],
    paging: { limit: COLLECTIONS_PAGE_SIZE, offset: (f.page - 1) * COLLECTIONS_PAGE_SIZE },
  });
  const rows: ConsoleCollectionRow[] = result.collections.map((c) => ({
    id: c.id,
    name: c.name,
    slug: c.slug,
    visible: c.visible,
    products: c.numberOfProducts,
    image: c.media.mainMedia ? sameSiteUrl(c.media.mainMedia.image.url, ctx.origin) : null,
    builtIn: c.id === ALL_PRODUCTS_COLLECTION_ID,
  }));
  return { rows, total: result.totalResults, pages: Math.max(1, Math.ceil(result.totalResults / COLLECTIONS_PAGE_SIZE)) };
}

/** The details form (./form.tsx) as the API's collection input: empty optional fields are left out. */
export function collectionFormRaw(form: FormData) {
  const text = (name: string) => String(form.get(name) ?? "");
  const imageUrl = text("media.url").trim();
  return {
    name: text("name"),
    slug: text("slug").trim(),
    description: text("description"),
    visible: form.get("visible") === "on",
    imageUrl,
    imageChanged: imageUrl !== text("mediaUrlBefore").trim(),
  };
}

/**
 * The image the details form sets: an uploaded file (stored in R2 by the media service, catalog.write, checked by
 * its bytes; a bad file is a violation on `imageFile`) wins over the URL field. Called after the other fields
 * passed their checks, so a refused form uploads nothing.
 */
export async function collectionImage(ctx: Ctx, form: FormData, imageUrl: string): Promise<{ url: string; width?: number; height?: number } | null> {
  const file = form.get("imageFile");
  if (hasImageFile(form)) {
    const uploaded = await uploadImage(ctx, file as File, "imageFile");
    return { url: uploaded.url, ...(uploaded.width ? { width: uploaded.width } : {}), ...(uploaded.height ? { height: uploaded.height } : {}) };
  }
  return imageUrl ? { url: imageUrl } : null;
}

/** Whether the form carries a file to upload. */
export function hasImageFile(form: FormData): boolean {
  const file = form.get("imageFile");
  return !!file && typeof file !== "string" && (file.size > 0 || !!file.name);
}

/** A refused save as page data; a taken slug (409, no field violation from the service) is shown at the slug field. */
export function collectionProblem(err: unknown) {
  const problem = problemOf(err, CONSOLE);
  if (problem.code === "DUPLICATE_SLUG") {
    problem.fields.slug = "Another collection already uses this slug. Choose another one.";
    problem.message = "Nothing was saved. Please correct the highlighted fields.";
  }
  return problem;
}

/** A product as the collection page lists it (its members and the picker's matches). */
export interface CollectionProductRow {
  id: string;
  name: string;
  slug: string;
  visible: boolean;
  image: string | null;
}

/** Products whose text matches the picker's search, hidden ones too, each marked when already in the collection. */
export async function pickerMatches(ctx: Ctx, collectionId: string, find: string, limit: number) {
  const result = await queryProducts(ctx, { query: { search: { expression: find }, paging: { limit } }, includeHiddenProducts: true });
  return {
    total: result.totalResults,
    rows: result.products.map((p) => {
      const card = cardOf(p, ctx);
      return {
        id: p.id,
        name: p.name,
        slug: p.slug,
        visible: p.visible,
        image: card.image?.url ?? null,
        inCollection: p.collectionIds.includes(collectionId),
      };
    }),
  };
}

const MEMBERS_PAGE = 25;
const PICKER_LIMIT = 10;

/**
 * One collection's page: its details, a page of its products and, when the picker has a search in the URL, the
 * matching products. Two D1 round trips: the collection with its page of members (one batch) and the picker's
 * product query, side by side. The built-in collection holds every product without membership rows: nothing to edit.
 */
export async function collectionPage(ctx: Ctx, id: string, url: URL) {
  const page = Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
  const find = (url.searchParams.get("find") ?? "").trim().slice(0, 200);
  if (id === ALL_PRODUCTS_COLLECTION_ID) {
    const c = await getCollection(ctx, { id });
    return { builtIn: true as const, collection: { id: c.id, name: c.name, slug: c.slug, visible: c.visible, numberOfProducts: c.numberOfProducts } };
  }
  try {
    const [detail, picker] = await Promise.all([
      getCollectionWithProducts(ctx, id, { limit: MEMBERS_PAGE, offset: (page - 1) * MEMBERS_PAGE }),
      find ? pickerMatches(ctx, id, find, PICKER_LIMIT) : null,
    ]);
    const c = detail.collection;
    const members: CollectionProductRow[] = detail.products.map((p) => ({
      id: p.id,
      name: p.name,
      slug: p.slug,
      visible: p.visible,
      image: p.image ? sameSiteUrl(p.image, ctx.origin) : null,
    }));
    return {
      builtIn: false as const,
      collection: {
        id: c.id,
        name: c.name,
        slug: c.slug,
        description: c.description,
        visible: c.visible,
        image: c.media.mainMedia ? sameSiteUrl(c.media.mainMedia.image.url, ctx.origin) : "",
        updatedDate: c.updatedDate,
        numberOfProducts: c.numberOfProducts,
      },
      members,
      totalMembers: detail.totalProducts,
      page,
      pages: Math.max(1, Math.ceil(detail.totalProducts / MEMBERS_PAGE)),
      find,
      picker,
      created: url.searchParams.get("created") === "1",
    };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such collection.", { status: 404 });
    throw err;
  }
}

/** The picker's matches as the page gets them. */
export type PickerMatches = Awaited<ReturnType<typeof pickerMatches>>;
