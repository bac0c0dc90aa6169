import { beforeAll, describe, expect, it } from "vitest";
import { getCollectionWithProducts } from "#worker/catalog/collections";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { api, createProduct, getQuery, idsOf, merchant, outboxRows, OWNER_KEY, serviceCtx, settledCatalogueSnapshot, unique } from "../helpers";

/** Collections: v2 and v1 reads, merchant writes, membership, the built-in All Products collection, events. */

const uid = unique();
const N = `Col${uid}`; // name prefix of this file's collections
const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, "-");

type Collection = { id: string; name: string; slug: string; visible: boolean; numberOfProducts: number; createdDate: string; updatedDate: string };

async function createCollection(collection: Record<string, unknown>): Promise<Collection> {
  const res = await merchant("POST", "/v1/collections", { collection });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.collection;
}

const violations = (res: { body: any }) =>
  res.body.details.validationError.fieldViolations as { field: string; violatedRule: string; data: unknown }[];

let prodA: { id: string };
let prodB: { id: string };
let prodHidden: { id: string };

beforeAll(async () => {
  prodA = await createProduct({ name: `${N} Product A`, brand: N, priceData: { price: 10 } });
  prodB = await createProduct({ name: `${N} Product B`, brand: N, priceData: { price: 20 } });
  prodHidden = await createProduct({ name: `${N} Product Hidden`, brand: N, priceData: { price: 30 }, visible: false });
});

describe("create", () => {
  it("creates a collection with a slug derived from its name, and answers 200 with it", async () => {
    const res = await merchant("POST", "/v1/collections", { collection: { name: `${N} Summer Sale!`, description: "Hot deals" } });
    expect(res.status).toBe(200);
    const c = res.body.collection;
    expect(c).toMatchObject({
      name: `${N} Summer Sale!`,
      slug: `${slugOf(N)}-summer-sale`,
      description: "Hot deals",
      visible: true,
      numberOfProducts: 0,
      media: { mainMedia: null, items: [] },
    });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(c.createdDate).toISOString()).toBe(c.createdDate);
    expect(c.lastUpdated).toBe(c.updatedDate);
  });

  it("gives a repeated name the next free slug (-2, -3)", async () => {
    const name = `${N} Twins`;
    const first = await createCollection({ name });
    const second = await createCollection({ name });
    const third = await createCollection({ name: `${N}  twins ` });
    expect([first.slug, second.slug, third.slug]).toEqual([`${slugOf(N)}-twins`, `${slugOf(N)}-twins-2`, `${slugOf(N)}-twins-3`]);
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
  });

  it("refuses an explicit slug that another collection uses with 409 DUPLICATE_SLUG, changing nothing", async () => {
    const taken = await createCollection({ name: `${N} Taken`, slug: `${slugOf(N)}-taken` });
    expect(taken.slug).toBe(`${slugOf(N)}-taken`);
    const before = await settledCatalogueSnapshot();
    const res = await merchant("POST", "/v1/collections", { collection: { name: `${N} Other`, slug: taken.slug } });
    expect(res.status).toBe(409);
    expect(res.body.details.applicationError.code).toBe("DUPLICATE_SLUG");
    expect(await settledCatalogueSnapshot()).toEqual(before);
  });

  it("also creates through the SDK's gateway path", async () => {
    const res = await api("POST", "/stores/v1/collections", {
      body: { collection: { name: `${N} Gateway`, visible: false, media: { url: "https://cdn.example/c.jpg", width: 400, height: 300 } } },
      key: OWNER_KEY,
    });
    expect(res.status).toBe(200);
    expect(res.body.collection).toMatchObject({ name: `${N} Gateway`, visible: false });
    expect(res.body.collection.media.mainMedia.image).toMatchObject({ url: "https://cdn.example/c.jpg", width: 400, height: 300 });
  });

  it("refuses bad input with 400 and the field, changing nothing", async () => {
    const cases: [Record<string, unknown>, string, unknown][] = [
      [{ name: "" }, "collection.name", "REQUIRED_FIELD"],
      // Blank once trimmed.
      [{ name: "   " }, "collection.name", expect.stringMatching(/^(REQUIRED_FIELD|MIN_LENGTH)$/)],
      [{}, "collection.name", "REQUIRED_FIELD"],
      [{ name: "x".repeat(51) }, "collection.name", "MAX_LENGTH"],
      [{ name: `${N} Bad Slug`, slug: "Bad Slug!" }, "collection.slug", "FORMAT"],
      [{ name: `${N} Bad Slug`, slug: "double--dash" }, "collection.slug", "FORMAT"],
      [{ name: `${N} Bad Visible`, visible: "yes" }, "collection.visible", "VALIDATION"],
    ];
    const before = await settledCatalogueSnapshot();
    for (const [collection, field, rule] of cases) {
      const res = await merchant("POST", "/v1/collections", { collection });
      expect(res.status, JSON.stringify(collection)).toBe(400);
      expect(violations(res), JSON.stringify(collection)).toEqual([{ field, description: expect.any(String), violatedRule: rule, data: {} }]);
    }
    expect(await settledCatalogueSnapshot()).toEqual(before);
    // Fifty characters is fine.
    const name = `${N} `.padEnd(50, "y");
    const fifty = await merchant("POST", "/v1/collections", { collection: { name } });
    expect(fifty.status, JSON.stringify(fifty.body)).toBe(200);
    expect(fifty.body.collection.slug).toBe(slugOf(name));
    // Its slug (longer than D1's 50-byte LIKE limit allows as a pattern) still gets a free variant.
    const again = await merchant("POST", "/v1/collections", { collection: { name } });
    expect(again.body.collection.slug).toBe(`${slugOf(name)}-2`);
  });

  it("writes a CollectionCreated event with the new collection in the same change", async () => {
    const c = await createCollection({ name: `${N} Evented` });
    const rows = await outboxRows(c.id);
    expect(rows.map((r) => r.type)).toEqual(["com.wix.ecommerce.catalog.api.v1.CollectionCreated"]);
    expect(rows[0].data).toEqual({ collectionId: c.id, name: c.name, slug: c.slug, visible: true });
    expect(rows[0].actor_type).toBe("APP");
  });
});

describe("reads", () => {
  let c: Collection;
  beforeAll(async () => {
    c = await createCollection({ name: `${N} Readable`, description: "For reading" });
  });

  it("gets a collection by id (v2) and by slug (v2, v1 and the v1 gateway), with the SDK's repeated query parameters", async () => {
    const byId = await api("GET", `/v2/collections/${c.id}?id=${c.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.collection).toEqual({ ...c });
    for (const path of [
      `/v2/collections/slug/${c.slug}?slug=${c.slug}`,
      `/v1/collections/slug/${c.slug}?slug=${c.slug}`,
      `/stores-reader/v1/collections/slug/${c.slug}?slug=${c.slug}`,
      `/stores-reader/v1/collections/slug/${c.slug}`,
    ]) {
      const res = await api("GET", path);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual({ collection: byId.body.collection });
    }
  });

  it("answers an unknown id with 404 COLLECTION_NOT_FOUND, and an unknown slug with a bare 404 as Wix does", async () => {
    for (const path of [`/v2/collections/nope-${uid}?id=nope-${uid}`, `/stores-reader/v2/collections/nope-${uid}`]) {
      const res = await api("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body.details.applicationError.code, path).toBe("COLLECTION_NOT_FOUND");
    }
    for (const path of [
      `/v2/collections/slug/nope-${uid}`,
      `/stores-reader/v2/collections/slug/nope-${uid}`,
      `/v1/collections/slug/nope-${uid}`,
      `/stores-reader/v1/collections/slug/nope-${uid}`,
    ]) {
      const res = await api("GET", path);
      expect(res.status, path).toBe(404);
      // Without an applicationError the SDK reports the status itself: applicationError.code === 404.
      expect(res.body, path).toEqual({ message: `Collection with slug "nope-${uid}" not found`, details: {} });
    }
  });

  it("serves the built-in All Products collection by its well-known id and slug", async () => {
    const byId = await api("GET", `/v2/collections/${ALL_PRODUCTS_COLLECTION_ID}?id=${ALL_PRODUCTS_COLLECTION_ID}`);
    expect(byId.status).toBe(200);
    expect(byId.body.collection).toMatchObject({ id: ALL_PRODUCTS_COLLECTION_ID, slug: "all-products", name: "All Products", visible: true });
    // It holds every visible product without membership rows.
    expect(byId.body.collection.numberOfProducts).toBeGreaterThanOrEqual(2);
    const bySlug = await api("GET", "/stores-reader/v1/collections/slug/all-products?slug=all-products");
    expect(bySlug.body.collection.id).toBe(ALL_PRODUCTS_COLLECTION_ID);
  });

  it("hides a hidden collection from anonymous callers but not from the merchant", async () => {
    const hidden = await createCollection({ name: `${N} Secret`, visible: false });
    for (const path of [
      `/v2/collections/${hidden.id}?id=${hidden.id}`,
      `/v2/collections/slug/${hidden.slug}`,
      `/v1/collections/slug/${hidden.slug}`,
    ]) {
      expect((await api("GET", path)).status, path).toBe(404);
      const asMerchant = await api("GET", path, { key: OWNER_KEY });
      expect(asMerchant.status, path).toBe(200);
      expect(asMerchant.body.collection).toMatchObject({ id: hidden.id, visible: false });
    }
    const anon = await api("POST", "/v2/collections/query", { body: { query: { filter: { name: { $startsWith: `${N} Secret` } } } } });
    expect(anon.body).toMatchObject({ collections: [], metadata: { items: 0, offset: 0, total: 0 } });
    const mine = await api("POST", "/v2/collections/query", {
      body: { query: { filter: { name: { $startsWith: `${N} Secret` } } } },
      key: OWNER_KEY,
    });
    expect(idsOf(mine.body.collections)).toEqual([hidden.id]);
  });

  it("refuses an over-long slug with 400", async () => {
    const res = await api("GET", `/v2/collections/slug/${"a".repeat(101)}`);
    expect(res.status).toBe(400);
  });
});

describe("query", () => {
  const Q = `${N} Q`;
  let qs: Collection[];
  beforeAll(async () => {
    qs = [];
    for (const letter of ["C", "A", "E", "B", "D"]) qs.push(await createCollection({ name: `${Q} ${letter}` }));
    // A: two products (one hidden, not counted), B: one, others none.
    const a = qs[1];
    const b = qs[3];
    expect((await merchant("POST", `/v1/collections/${a.id}/productIds`, { productIds: [prodA.id, prodB.id, prodHidden.id] })).status).toBe(200);
    expect((await merchant("POST", `/v1/collections/${b.id}/productIds`, { productIds: [prodA.id] })).status).toBe(200);
  });
  const names = (list: { name: string }[]) => list.map((c) => c.name.slice(Q.length + 1));
  const query = (query: unknown) => api("POST", "/v2/collections/query", { body: { query } });

  it("filters, sorts by name by default, and pages with correct metadata", async () => {
    const all = await query({ filter: { name: { $startsWith: Q } } });
    expect(all.status).toBe(200);
    expect(names(all.body.collections)).toEqual(["A", "B", "C", "D", "E"]);
    expect(all.body.metadata).toEqual({ items: 5, offset: 0, total: 5 });
    const desc = await query({ filter: { name: { $startsWith: Q } }, sort: [{ fieldName: "name", order: "DESC" }], paging: { limit: 2, offset: 2 } });
    expect(names(desc.body.collections)).toEqual(["C", "B"]);
    expect(desc.body.metadata).toEqual({ items: 2, offset: 2, total: 5 });
    const last = await query({ filter: { name: { $startsWith: Q } }, sort: [{ fieldName: "name", order: "DESC" }], paging: { limit: 2, offset: 4 } });
    expect(names(last.body.collections)).toEqual(["A"]);
    expect(last.body.metadata).toEqual({ items: 1, offset: 4, total: 5 });
  });

  it("filters on id, slug and dates", async () => {
    const ids = [qs[0].id, qs[2].id];
    expect(names((await query({ filter: { id: { $in: ids } } })).body.collections)).toEqual(["C", "E"]);
    expect(names((await query({ filter: { slug: qs[3].slug } })).body.collections)).toEqual(["B"]);
    const since = await query({ filter: { name: { $startsWith: Q }, createdDate: { $gte: qs[2].createdDate } } });
    expect(names(since.body.collections)).toEqual(names(qs.filter((c) => c.createdDate >= qs[2].createdDate)).sort());
  });

  it("counts only visible products in numberOfProducts, and filters and sorts on it", async () => {
    const all = await query({
      filter: { name: { $startsWith: Q } },
      sort: [
        { fieldName: "numberOfProducts", order: "DESC" },
        { fieldName: "name", order: "ASC" },
      ],
    });
    expect(all.status).toBe(200);
    expect(all.body.collections.map((c: Collection) => [c.name.slice(Q.length + 1), c.numberOfProducts])).toEqual([
      ["A", 2],
      ["B", 1],
      ["C", 0],
      ["D", 0],
      ["E", 0],
    ]);
    const some = await query({ filter: { name: { $startsWith: Q }, numberOfProducts: { $gt: 0 } } });
    expect(some.status, JSON.stringify(some.body)).toBe(200);
    expect(names(some.body.collections)).toEqual(["A", "B"]);
    expect(some.body.metadata.total).toBe(2);
  });

  it("answers the same in the GET ?.r= encoding as in POST", async () => {
    const payload = {
      query: { filter: { name: { $startsWith: Q } }, sort: [{ fieldName: "name", order: "DESC" }], paging: { offset: 1, limit: 3 } },
    };
    const viaGet = await getQuery("/v2/collections/query", payload);
    const viaPost = await api("POST", "/v2/collections/query", { body: payload });
    expect(viaGet.status).toBe(200);
    expect(names(viaGet.body.collections)).toEqual(["D", "C", "B"]);
    expect(viaGet.body).toEqual(viaPost.body);
    // The SDK's exact example: a bare-value name filter.
    const exact = await getQuery("/v2/collections/query", { query: { filter: { name: `${Q} E` }, paging: { offset: 0, limit: 50 } } });
    expect(names(exact.body.collections)).toEqual(["E"]);
    expect(exact.body.metadata.total).toBe(1);
  });

  it("refuses unknown fields, bad sorts and bad paging with 400", async () => {
    const res = await query({ filter: { colour: "red", name: 5 }, sort: [{ fieldName: "description" }], paging: { limit: 1000 } });
    expect(res.status).toBe(400);
    expect(violations(res).map((v) => [v.field, v.violatedRule])).toEqual([
      ["query.filter.colour", "FIELD_NOT_ALLOWED"],
      ["query.filter.name", "VALIDATION"],
      ["query.paging.limit", "MAX"],
      ["query.sort[0].fieldName", "FIELD_NOT_ALLOWED"],
    ]);
    const bad = await api("GET", "/v2/collections/query?.r=***");
    expect(bad.status).toBe(400);
  });
});

describe("update", () => {
  it("changes name, description and visibility, keeps the slug, and writes CollectionChanged", async () => {
    const c = await createCollection({ name: `${N} Before`, description: "old" });
    const res = await merchant("PATCH", `/v1/collections/${c.id}`, { collection: { name: `${N} After`, description: "new" } });
    expect(res.status).toBe(200);
    expect(res.body.collection).toMatchObject({ id: c.id, name: `${N} After`, description: "new", slug: c.slug, visible: true });
    expect(res.body.collection.updatedDate >= c.updatedDate).toBe(true);
    const got = await api("GET", `/v2/collections/${c.id}`);
    expect(got.body.collection).toEqual(res.body.collection);
    const rows = await outboxRows(c.id);
    expect(rows.map((r) => r.type)).toEqual([
      "com.wix.ecommerce.catalog.api.v1.CollectionCreated",
      "com.wix.ecommerce.catalog.api.v1.CollectionChanged",
    ]);
    expect(rows[1].data).toMatchObject({ collectionId: c.id });
    expect([...(rows[1].data.changedFields as string[])].sort()).toEqual(["description", "name"]);

    // Hiding it through the gateway path hides it from shoppers.
    const hide = await api("PATCH", `/stores/v1/collections/${c.id}`, { body: { collection: { visible: false } }, key: OWNER_KEY });
    expect(hide.status).toBe(200);
    expect(hide.body.collection.visible).toBe(false);
    expect((await api("GET", `/v2/collections/${c.id}`)).status).toBe(404);
  });

  it("removes the image with media: null", async () => {
    const c = await createCollection({ name: `${N} Pictured`, media: { url: "https://cdn.example/p.jpg" } });
    const res = await merchant("PATCH", `/v1/collections/${c.id}`, { collection: { media: null } });
    expect(res.status).toBe(200);
    expect(res.body.collection.media).toEqual({ mainMedia: null, items: [] });
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.media.mainMedia).toBeNull();
  });

  it("changes the slug, refusing one another collection uses with 409", async () => {
    const a = await createCollection({ name: `${N} Slug A` });
    const b = await createCollection({ name: `${N} Slug B` });
    const moved = await merchant("PATCH", `/v1/collections/${a.id}`, { collection: { slug: `${slugOf(N)}-moved` } });
    expect(moved.status).toBe(200);
    expect((await api("GET", `/v2/collections/slug/${slugOf(N)}-moved`)).body.collection.id).toBe(a.id);
    expect((await api("GET", `/v2/collections/slug/${a.slug}`)).status).toBe(404);
    // Its own slug again is fine.
    expect((await merchant("PATCH", `/v1/collections/${a.id}`, { collection: { slug: `${slugOf(N)}-moved`, id: a.id } })).status).toBe(200);
    const before = await settledCatalogueSnapshot();
    const clash = await merchant("PATCH", `/v1/collections/${a.id}`, { collection: { slug: b.slug } });
    expect(clash.status).toBe(409);
    expect(clash.body.details.applicationError.code).toBe("DUPLICATE_SLUG");
    expect(await settledCatalogueSnapshot()).toEqual(before);
  });

  it("refuses bad input, a mismatched id and an unknown collection, changing nothing", async () => {
    const c = await createCollection({ name: `${N} Patchable` });
    const before = await settledCatalogueSnapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "collection.name"],
      [{ name: "z".repeat(51) }, "collection.name"],
      [{ slug: "Not A Slug" }, "collection.slug"],
      [{ id: "someone-else" }, "collection.id"],
    ];
    for (const [collection, field] of cases) {
      const res = await merchant("PATCH", `/v1/collections/${c.id}`, { collection });
      expect(res.status, JSON.stringify(collection)).toBe(400);
      expect(violations(res).map((v) => v.field)).toEqual([field]);
    }
    const missing = await merchant("PATCH", `/v1/collections/nope-${uid}`, { collection: { name: "Whatever" } });
    expect(missing.status).toBe(404);
    expect(missing.body.details.applicationError.code).toBe("COLLECTION_NOT_FOUND");
    expect(await settledCatalogueSnapshot()).toEqual(before);
  });
});

describe("delete", () => {
  it("deletes a collection (200 {}), then 404s, takes its memberships along and writes CollectionDeleted", async () => {
    const c = await createCollection({ name: `${N} Doomed` });
    expect((await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodA.id] })).status).toBe(200);
    expect((await api("GET", `/v1/products/${prodA.id}`)).body.product.collectionIds).toContain(c.id);
    const res = await merchant("DELETE", `/v1/collections/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await api("GET", `/v2/collections/${c.id}`)).status).toBe(404);
    expect((await api("GET", `/v2/collections/slug/${c.slug}`)).status).toBe(404);
    expect((await api("GET", `/v1/products/${prodA.id}`)).body.product.collectionIds).not.toContain(c.id);
    const rows = await outboxRows(c.id);
    expect(rows.at(-1)).toMatchObject({ type: "com.wix.ecommerce.catalog.api.v1.CollectionDeleted", data: { collectionId: c.id } });
    // A second delete finds nothing and writes no event.
    const again = await merchant("DELETE", `/stores/v1/collections/${c.id}`);
    expect(again.status).toBe(404);
    expect(await outboxRows(c.id)).toHaveLength(rows.length);
    // The slug is free again.
    expect((await createCollection({ name: `${N} Doomed` })).slug).toBe(c.slug);
  });
});

describe("membership", () => {
  const inCollection = async (collectionId: string, key?: string, extra: Record<string, unknown> = {}) => {
    const res = await api("POST", "/v1/products/query-platformized", {
      body: { query: { filter: { brand: N, collectionIds: { $hasSome: [collectionId] } } }, ...extra },
      key,
    });
    expect(res.status).toBe(200);
    return idsOf(res.body.products).sort();
  };

  it("adds and removes products, visible in the product's collectionIds, the product query and numberOfProducts", async () => {
    const c = await createCollection({ name: `${N} Members` });
    const add = await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodA.id, prodB.id] });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({});
    expect(await inCollection(c.id)).toEqual([prodA.id, prodB.id].sort());
    expect((await api("GET", `/stores-reader/v1/products/${prodB.id}?id=${prodB.id}`)).body.product.collectionIds).toContain(c.id);
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.numberOfProducts).toBe(2);

    // Adding again is harmless and announces nothing; the gateway path works too.
    const eventsBefore = (await outboxRows(c.id)).length;
    const again = await api("POST", `/stores/v1/collections/${c.id}/productIds`, { body: { productIds: [prodB.id, prodB.id] }, key: OWNER_KEY });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({});
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.numberOfProducts).toBe(2);
    expect(await outboxRows(c.id)).toHaveLength(eventsBefore);

    // Removing a product that is not a member (or does not exist) changes nothing.
    const remove = await merchant("POST", `/v1/collections/${c.id}/productIds/delete`, { productIds: [prodA.id, prodHidden.id, `ghost-${uid}`] });
    expect(remove.status).toBe(200);
    expect(remove.body).toEqual({});
    expect(await inCollection(c.id)).toEqual([prodB.id]);
    expect((await api("GET", `/v1/products/${prodA.id}`)).body.product.collectionIds).not.toContain(c.id);
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.numberOfProducts).toBe(1);

    const rows = await outboxRows(c.id);
    const changes = rows.filter((r) => r.type === "com.wix.ecommerce.catalog.api.v1.CollectionChanged");
    expect(changes.map((r) => r.data)).toEqual([
      { collectionId: c.id, changedFields: ["productIds"], productsAdded: [prodA.id, prodB.id] },
      { collectionId: c.id, changedFields: ["productIds"], productsRemoved: [prodA.id] },
    ]);
    // Adding one new product next to an existing member names only the new one.
    expect((await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodB.id, prodA.id] })).status).toBe(200);
    expect((await outboxRows(c.id)).at(-1)!.data).toEqual({ collectionId: c.id, changedFields: ["productIds"], productsAdded: [prodA.id] });
  });

  it("keeps a hidden member out of shoppers' results and the count, but shows it to the merchant", async () => {
    const c = await createCollection({ name: `${N} With Hidden` });
    expect((await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodA.id, prodHidden.id] })).status).toBe(200);
    expect(await inCollection(c.id)).toEqual([prodA.id]);
    expect(await inCollection(c.id, OWNER_KEY, { includeHiddenProducts: true })).toEqual([prodA.id, prodHidden.id].sort());
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.numberOfProducts).toBe(1);
  });

  it("refuses an unknown product id with 400 naming it, and adds nothing", async () => {
    const c = await createCollection({ name: `${N} Strict` });
    const before = await settledCatalogueSnapshot();
    const res = await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodA.id, `ghost-${uid}`] });
    expect(res.status).toBe(400);
    expect(violations(res)).toEqual([
      { field: "productIds[1]", description: expect.stringContaining(`ghost-${uid}`), violatedRule: "VALIDATION", data: {} },
    ]);
    expect(await settledCatalogueSnapshot()).toEqual(before);
    expect(await inCollection(c.id)).toEqual([]);
    // An empty list and an unknown collection are refused too.
    expect((await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [] })).status).toBe(400);
    const unknown = await merchant("POST", `/v1/collections/nope-${uid}/productIds`, { productIds: [prodA.id] });
    expect(unknown.status).toBe(404);
    expect(await settledCatalogueSnapshot()).toEqual(before);
  });

  it("adds and removes 100 products in one call", async () => {
    const c = await createCollection({ name: `${N} Hundred` });
    const extra: string[] = [];
    for (let i = 0; i < 98; i += 14) {
      const batch = await Promise.all(
        Array.from({ length: 14 }, (_, j) => createProduct({ name: `${N} Bulk ${i + j}`, brand: `${N}-bulk`, priceData: { price: 1 } })),
      );
      extra.push(...batch.map((p) => p.id));
    }
    const ids = [prodA.id, prodB.id, ...extra];
    expect(ids).toHaveLength(100);
    const add = await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: ids });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.numberOfProducts).toBe(100);
    const remove = await merchant("POST", `/v1/collections/${c.id}/productIds/delete`, { productIds: ids });
    expect(remove.status, JSON.stringify(remove.body)).toBe(200);
    expect((await api("GET", `/v2/collections/${c.id}`)).body.collection.numberOfProducts).toBe(0);
  });
});

describe("the merchant's collection page read", () => {
  it("answers the collection, a page of its members (hidden ones too, latest added first) and their count", async () => {
    const c = await createCollection({ name: `${N} Console page` });
    expect((await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodA.id, prodHidden.id] })).status).toBe(200);
    expect((await merchant("POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodB.id] })).status).toBe(200);
    const { ctx } = serviceCtx();
    const first = await getCollectionWithProducts(ctx, c.id, { limit: 2, offset: 0 });
    expect(first.collection).toMatchObject({ id: c.id, name: `${N} Console page`, numberOfProducts: 2 });
    expect(first.totalProducts).toBe(3);
    expect(first.products[0]).toMatchObject({ id: prodB.id, name: `${N} Product B`, visible: true, image: null });
    expect(first.products).toHaveLength(2);
    const second = await getCollectionWithProducts(ctx, c.id, { limit: 2, offset: 2 });
    expect(second.products).toHaveLength(1);
    expect([first.products[1].id, second.products[0].id].sort()).toEqual([prodA.id, prodHidden.id].sort());
    await expect(getCollectionWithProducts(ctx, `ghost-${uid}`, { limit: 2, offset: 0 })).rejects.toMatchObject({
      status: 404,
      code: "COLLECTION_NOT_FOUND",
    });
    // Shoppers never get the merchant's view (hidden members).
    await expect(getCollectionWithProducts(serviceCtx({ kind: "anonymous" }).ctx, c.id, { limit: 2, offset: 0 })).rejects.toMatchObject({
      status: 401,
    });
  });
});

describe("the built-in All Products collection", () => {
  it("refuses update, delete and membership changes, and stays as it was", async () => {
    const before = await settledCatalogueSnapshot();
    const calls: [string, string, unknown][] = [
      ["PATCH", `/v1/collections/${ALL_PRODUCTS_COLLECTION_ID}`, { collection: { name: "Everything" } }],
      ["PATCH", `/stores/v1/collections/${ALL_PRODUCTS_COLLECTION_ID}`, { collection: { visible: false } }],
      ["DELETE", `/v1/collections/${ALL_PRODUCTS_COLLECTION_ID}`, undefined],
      ["POST", `/v1/collections/${ALL_PRODUCTS_COLLECTION_ID}/productIds`, { productIds: [prodA.id] }],
      ["POST", `/v1/collections/${ALL_PRODUCTS_COLLECTION_ID}/productIds/delete`, { productIds: [prodA.id] }],
    ];
    for (const [method, path, body] of calls) {
      const res = await merchant(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.details.applicationError.code).toBe("BUILT_IN_COLLECTION");
    }
    expect(await settledCatalogueSnapshot()).toEqual(before);
    const still = await api("GET", `/v2/collections/${ALL_PRODUCTS_COLLECTION_ID}`);
    expect(still.body.collection).toMatchObject({ name: "All Products", slug: "all-products", visible: true });
  });
});

describe("who may write", () => {
  it("answers writes without a key or with a wrong key with 401, changing nothing", async () => {
    const c = await createCollection({ name: `${N} Guarded` });
    const before = await settledCatalogueSnapshot();
    const calls: [string, string, unknown][] = [
      ["POST", "/v1/collections", { collection: { name: `${N} Sneaky` } }],
      ["POST", "/stores/v1/collections", { collection: { name: `${N} Sneaky` } }],
      ["PATCH", `/v1/collections/${c.id}`, { collection: { name: `${N} Sneaky` } }],
      ["DELETE", `/v1/collections/${c.id}`, undefined],
      ["POST", `/v1/collections/${c.id}/productIds`, { productIds: [prodA.id] }],
      ["POST", `/v1/collections/${c.id}/productIds/delete`, { productIds: [prodA.id] }],
    ];
    for (const [method, path, body] of calls) {
      for (const key of [undefined, "wrong-key", `Bearer wrong-key`]) {
        const res = await api(method, path, { body, key });
        expect(res.status, `${method} ${path} key=${key}`).toBe(401);
        expect(res.body.details.applicationError.code).toBe("UNAUTHENTICATED");
      }
    }
    expect(await settledCatalogueSnapshot()).toEqual(before);
    // `Bearer <key>` is accepted as well as the raw key.
    const bearer = await api("PATCH", `/v1/collections/${c.id}`, { body: { collection: { description: "ok" } }, key: `Bearer ${OWNER_KEY}` });
    expect(bearer.status).toBe(200);
  });
});
