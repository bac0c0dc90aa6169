import { and, asc, desc, eq, getTableColumns, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, outboxInsertIfChanged } from "#worker/events";
import { EventType } from "#worker/events";
import { isUniqueViolation } from "#worker/platform/batch";
import { isMerchant, nowIso, type Ctx, requireMerchant, requirePermission } from "#worker/platform/context";
import { ApiError, badField, invalidArgument, notFound } from "#worker/platform/errors";
import { ALL_PRODUCTS_COLLECTION_ID, newId, slugify } from "#worker/platform/ids";
import { compileQuery, pagingMetadata, type FieldMap, type QueryInput } from "#worker/platform/query";
import type { CollectionInput, CollectionPatch } from "./schemas";
import { freeSlug } from "./slugs";
import { collectionShape } from "./shapes";
import { collectionProducts, collections, products } from "./tables";
import { runBatch, type Statement } from "#worker/platform/unit-of-work";

/** Collections: manual membership, plus the built-in "All Products" collection that holds every product. */

// The outer row is named as `collections.id` in the text, not as an interpolated column: drizzle prints columns of a
// single-table select unqualified ("id"), which inside the subquery would mean p.id and count nothing.
const numberOfProductsSql = sql<number>`(CASE WHEN collections.id = ${ALL_PRODUCTS_COLLECTION_ID}
    THEN (SELECT count(*) FROM products p WHERE p.visible = 1)
    ELSE (SELECT count(*) FROM collection_products cp JOIN products p ON p.id = cp.product_id
          WHERE cp.collection_id = collections.id AND p.visible = 1) END)`;
const numberOfProducts = numberOfProductsSql.as("number_of_products");

const selectCollections = (ctx: Ctx) => ctx.db.select({ ...getTableColumns(collections), numberOfProducts }).from(collections);

type Row = Awaited<ReturnType<ReturnType<typeof selectCollections>["all"]>>[number];

function shape(ctx: Ctx, r: Row) {
  const { numberOfProducts: n, ...row } = r;
  return collectionShape(row, n, ctx.origin);
}

function visibleOnly(ctx: Ctx) {
  return isMerchant(ctx.auth) ? undefined : eq(collections.visible, true);
}

/** A collection by id or slug; hidden ones only for the merchant. */
export async function getCollection(ctx: Ctx, by: { id: string } | { slug: string }) {
  const match = "id" in by ? eq(collections.id, by.id) : eq(collections.slug, by.slug);
  const [row] = await selectCollections(ctx)
    .where(and(match, visibleOnly(ctx)))
    .limit(1);
  if (!row) throw notFound("COLLECTION_NOT_FOUND", "Collection", "id" in by ? by.id : by.slug, "id" in by ? "collectionId" : "slug");
  return shape(ctx, row);
}

/**
 * The merchant's view of one collection: the collection, one page of its member products (hidden ones too, the
 * latest added first) and how many there are, in one D1 round trip (the console's collection page).
 */
export async function getCollectionWithProducts(ctx: Ctx, id: string, paging: { limit: number; offset: number }) {
  requireMerchant(ctx);
  const membersOf = eq(collectionProducts.collectionId, id);
  const [found, members, [{ total }]] = await runBatch(ctx.db, [
    selectCollections(ctx).where(eq(collections.id, id)).limit(1),
    ctx.db
      .select({
        id: products.id,
        name: products.name,
        slug: products.slug,
        visible: products.visible,
        media: products.media,
        addedDate: collectionProducts.addedDate,
      })
      .from(collectionProducts)
      .innerJoin(products, eq(products.id, collectionProducts.productId))
      .where(membersOf)
      .orderBy(desc(collectionProducts.addedDate), asc(products.name), asc(products.id))
      .limit(paging.limit)
      .offset(paging.offset),
    ctx.db.select({ total: sql<number>`count(*)` }).from(collectionProducts).where(membersOf),
  ]);
  if (!found[0]) throw notFound("COLLECTION_NOT_FOUND", "Collection", id, "collectionId");
  return {
    collection: shape(ctx, found[0]),
    products: members.map(({ media, ...m }) => ({ ...m, image: media.find((x) => x.mediaType === "image")?.url ?? null })),
    totalProducts: total,
  };
}

export const collectionFields: FieldMap = {
  id: { sql: collections.id, type: "string", sortable: true },
  name: { sql: collections.name, type: "string", sortable: true },
  slug: { sql: collections.slug, type: "string", sortable: true },
  visible: { sql: collections.visible, type: "boolean" },
  createdDate: { sql: collections.createdDate, type: "date", sortable: true },
  updatedDate: { sql: collections.updatedDate, type: "date", sortable: true },
  lastUpdated: { sql: collections.updatedDate, type: "date", sortable: true },
};

/** Collections query (v2), offset paging; page and total in one round trip. */
export async function queryCollections(ctx: Ctx, query: QueryInput | undefined) {
  return (await queryCollectionsWith(ctx, query))[0];
}

/**
 * The collections query with other reads run in the same D1 batch (one round trip for both): the shop's page frame
 * reads its navigation this way. Returns the query's answer and each extra read's rows.
 */
export async function queryCollectionsWith<E extends Statement[]>(ctx: Ctx, query: QueryInput | undefined, ...alongside: E) {
  const compiled = compileQuery(
    query,
    { ...collectionFields, numberOfProducts: { sql: numberOfProductsSql, type: "number", sortable: true } },
    {
      currency: ctx.currency,
      tieBreaker: collections.id,
      defaultSort: [sql`${collections.name} ASC`],
    },
  );
  const where = and(compiled.where, visibleOnly(ctx));
  const rowsRead = selectCollections(ctx)
    .where(where)
    .orderBy(...compiled.orderBy)
    .limit(compiled.limit)
    .offset(compiled.offset);
  const countRead = ctx.db.select({ total: sql<number>`count(*)` }).from(collections).where(where);
  const [rows, [{ total }], ...extra] = (await runBatch(ctx.db, [rowsRead, countRead, ...alongside])) as unknown as [
    Awaited<typeof rowsRead>,
    Awaited<typeof countRead>,
    ...unknown[],
  ];
  const shaped = rows.map((r) => shape(ctx, r));
  return [{ collections: shaped, metadata: pagingMetadata(shaped.length, compiled.offset, total), totalResults: total }, extra] as const;
}

function duplicateSlug(slug: string) {
  return new ApiError(409, "DUPLICATE_SLUG", `Another collection already uses the slug "${slug}"`, { message: "Slug already in use" });
}

/** The row and statements of a new collection, without running them (create and the demo loader). */
export function prepareCreateCollection(ctx: Ctx, input: CollectionInput, slug: string, productIds: string[] = []) {
  const now = nowIso();
  const row = {
    id: newId(),
    slug,
    name: input.name,
    description: input.description ?? "",
    visible: input.visible,
    media: input.media ?? null,
    createdDate: now,
    updatedDate: now,
  };
  const event = newEvent(ctx, EventType.collectionCreated, row.id, { collectionId: row.id, name: row.name, slug, visible: row.visible });
  const members = productIds.map((productId) => ({ collectionId: row.id, productId, addedDate: now }));
  const statements = [ctx.db.insert(collections).values(row), outboxInsert(ctx.db, event)];
  for (let i = 0; i < members.length; i += 30) statements.push(ctx.db.insert(collectionProducts).values(members.slice(i, i + 30)));
  return { row, statements, events: [event] };
}

export async function createCollection(ctx: Ctx, input: CollectionInput) {
  requirePermission(ctx, "catalog.write");
  const slug = input.slug ?? (await freeSlug(ctx.db, collections, slugify(input.name)));
  const prepared = prepareCreateCollection(ctx, input, slug);
  try {
    await commit(ctx, prepared.statements, prepared.events);
  } catch (err) {
    if (isUniqueViolation(err, "collections.slug")) throw duplicateSlug(slug);
    throw err;
  }
  return collectionShape(prepared.row, 0, ctx.origin);
}

function refuseBuiltIn(id: string) {
  if (id === ALL_PRODUCTS_COLLECTION_ID) {
    throw new ApiError(400, "BUILT_IN_COLLECTION", "The All Products collection is built in: it always holds every product and cannot be changed", {
      message: "Built-in collection",
    });
  }
}

export async function updateCollection(ctx: Ctx, id: string, patch: CollectionPatch) {
  requirePermission(ctx, "catalog.write");
  refuseBuiltIn(id);
  const changed = Object.keys(patch).filter((k) => k !== "id");
  if (!changed.length) return getCollection(ctx, { id });
  if (patch.slug) {
    const free = await freeSlug(ctx.db, collections, patch.slug, id);
    if (free !== patch.slug) throw duplicateSlug(patch.slug);
  }
  const { id: _ignored, ...fields } = patch;
  const event = newEvent(ctx, EventType.collectionChanged, id, { collectionId: id, changedFields: changed });
  const results = await commit(
    ctx,
    [
      ctx.db
        .update(collections)
        .set({ ...fields, updatedDate: nowIso() })
        .where(eq(collections.id, id)),
      outboxInsertIfChanged(ctx.db, event),
      selectCollections(ctx).where(eq(collections.id, id)),
    ],
    (r) => (r[2][0] ? [event] : []),
  ).catch((err) => {
    if (isUniqueViolation(err, "collections.slug")) throw duplicateSlug(patch.slug ?? "");
    throw err;
  });
  const rows = results[2] as Row[];
  if (!rows[0]) throw notFound("COLLECTION_NOT_FOUND", "Collection", id, "collectionId");
  return shape(ctx, rows[0]);
}

export async function deleteCollection(ctx: Ctx, id: string): Promise<void> {
  requirePermission(ctx, "catalog.write");
  refuseBuiltIn(id);
  const event = newEvent(ctx, EventType.collectionDeleted, id, { collectionId: id });
  const [deleted] = await commit(ctx, [ctx.db.delete(collections).where(eq(collections.id, id)), outboxInsertIfChanged(ctx.db, event)], (r) =>
    r[0].meta.changes ? [event] : [],
  );
  if (!deleted.meta.changes) throw notFound("COLLECTION_NOT_FOUND", "Collection", id, "collectionId");
}

/**
 * Adds or removes products; unknown product ids are refused and nothing changes. The event names only the products
 * whose membership really changed, and a call that changes nothing writes nothing.
 */
export async function changeMembership(ctx: Ctx, id: string, productIds: string[], mode: "add" | "remove"): Promise<void> {
  requirePermission(ctx, "catalog.write");
  refuseBuiltIn(id);
  const unique = [...new Set(productIds)];
  // Id lists travel as one JSON parameter (D1 allows 100 bound parameters per statement).
  const inList = (column: typeof products.id | typeof collectionProducts.productId) =>
    sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(unique)}))`;
  const [found, existing, members] = await runBatch(ctx.db, [
    ctx.db.select({ id: collections.id }).from(collections).where(eq(collections.id, id)),
    ctx.db.select({ id: products.id }).from(products).where(inList(products.id)),
    ctx.db
      .select({ productId: collectionProducts.productId })
      .from(collectionProducts)
      .where(and(eq(collectionProducts.collectionId, id), inList(collectionProducts.productId))),
  ]);
  if (!found.length) throw notFound("COLLECTION_NOT_FOUND", "Collection", id, "collectionId");
  if (mode === "add") {
    const known = new Set(existing.map((p) => p.id));
    const missing = productIds.map((p, i) => [p, i] as const).filter(([p]) => !known.has(p));
    if (missing.length) {
      throw invalidArgument(
        missing.map(([p, i]) => ({
          field: `productIds[${i}]`,
          description: `is not a product (${p})`,
          violatedRule: "VALIDATION" as const,
          data: {},
        })),
      );
    }
  }
  const current = new Set(members.map((m) => m.productId));
  const changing = unique.filter((p) => (mode === "add" ? !current.has(p) : current.has(p)));
  if (!changing.length) return;
  const now = nowIso();
  const event = newEvent(ctx, EventType.collectionChanged, id, {
    collectionId: id,
    changedFields: ["productIds"],
    ...(mode === "add" ? { productsAdded: changing } : { productsRemoved: changing }),
  });
  const statements =
    mode === "add"
      ? Array.from({ length: Math.ceil(changing.length / 30) }, (_, i) =>
          ctx.db
            .insert(collectionProducts)
            .values(changing.slice(i * 30, i * 30 + 30).map((productId) => ({ collectionId: id, productId, addedDate: now })))
            .onConflictDoNothing(),
        )
      : [
          ctx.db
            .delete(collectionProducts)
            .where(
              and(
                eq(collectionProducts.collectionId, id),
                sql`${collectionProducts.productId} IN (SELECT value FROM json_each(${JSON.stringify(changing)}))`,
              ),
            ),
        ];
  await commit(
    ctx,
    [...statements, ctx.db.update(collections).set({ updatedDate: now }).where(eq(collections.id, id)), outboxInsert(ctx.db, event)],
    [event],
  );
}

export function checkSlugParam(slug: string) {
  if (slug.length > 100) throw badField("slug", "must be at most 100 characters", "MAX_LENGTH");
}
