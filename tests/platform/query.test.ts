import { beforeAll, describe, expect, it } from "vitest";
import { encodeDotR, MAX_LIMIT } from "#worker/platform/query";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { api, createProduct, getQuery, idsOf, merchant, OWNER_KEY, unique } from "../helpers";

/**
 * The query language (filter, sort, paging) as a client of the product query sees it. Every product here carries
 * this file's name prefix or brand, and every query is scoped to them, so other files' data never matters.
 */

const uid = unique();
const P = `Qry${uid}`; // name prefix of the main set
const BA = `QA${uid}`;
const BB = `QB${uid}`;
const BP = `QP${uid}`; // brand of the paging set
const READ = "/stores-reader/v1/products/query-platformized";
const WRITE_SIDE = "/v1/products/query-platformized";

type Product = { id: string; name: string; createdDate: string; brand: string; collectionIds: string[] };

const post = (query: unknown, extra: Record<string, unknown> = {}, key?: string) => api("POST", WRITE_SIDE, { body: { query, ...extra }, key });

/** Scopes a filter to this file's main set. */
const scoped = (filter: Record<string, unknown>) => ({ $and: [{ name: { $startsWith: `${P} ` } }, filter] });

/** The short names ("Alpha", "50% off") of a query's products, sorted, for set comparisons. */
const shortNames = (products: { name: string }[]) => products.map((p) => p.name.slice(P.length + 1)).sort();

/** Runs a scoped filter (anonymous POST) and returns the short names it matched, sorted. */
async function match(filter: Record<string, unknown>, extra: Record<string, unknown> = {}, key?: string): Promise<string[]> {
  const res = await post({ filter: scoped(filter) }, extra, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.metadata.total).toBe(res.body.products.length);
  return shortNames(res.body.products);
}

const s: Record<string, Product> = {};
let c1: string;
let c2: string;
const pageIds: string[] = [];

beforeAll(async () => {
  const specs: Record<string, Record<string, unknown>> = {
    alpha: {
      name: `${P} Alpha`,
      brand: BA,
      priceData: { price: 10 },
      ribbon: "Sale",
      sku: `${P}-ALPHA`,
      productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }, { value: "L" }] }],
    },
    beta: { name: `${P} Beta`, brand: BA, priceData: { price: 20 }, productOptions: [{ name: "Size", choices: [{ value: "M" }, { value: "XL" }] }] },
    // price (the lowest discounted price) 15; priceData.price 30
    gamma: {
      name: `${P} Gamma`,
      brand: BB,
      priceData: { price: 30 },
      discount: { type: "PERCENT", value: 50 },
      productOptions: [{ name: "Material", choices: [{ value: "Wood" }] }],
    },
    delta: { name: `${P} 50% off`, brand: BB, priceData: { price: 40 }, ribbon: "New" },
    epsilon: { name: `${P} 50x off`, priceData: { price: 50 }, stock: { inStock: false } },
    zeta: { name: `${P} a_b`, priceData: { price: 60 } },
    // Size M exists only as a hidden variant, so eta does not offer M.
    eta: {
      name: `${P} axb`,
      brand: BA,
      priceData: { price: 70 },
      manageVariants: true,
      productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }] }],
      variants: [{ choices: { Size: "M" }, visible: false }],
    },
    hidden: { name: `${P} Hidden`, brand: BA, priceData: { price: 5 }, visible: false },
  };
  for (const [key, spec] of Object.entries(specs)) s[key] = await createProduct(spec);

  const col = async (name: string, productIds: string[]) => {
    const res = await merchant("POST", "/v1/collections", { collection: { name } });
    expect(res.status).toBe(200);
    const add = await merchant("POST", `/v1/collections/${res.body.collection.id}/productIds`, { productIds });
    expect(add.status).toBe(200);
    return res.body.collection.id as string;
  };
  c1 = await col(`${P} One`, [s.alpha.id, s.beta.id, s.hidden.id]);
  c2 = await col(`${P} Two`, [s.beta.id, s.gamma.id]);

  // 55 products for paging, created a few at a time.
  for (let i = 0; i < 55; i += 11) {
    const batch = await Promise.all(
      Array.from({ length: 11 }, (_, j) =>
        createProduct({ name: `Qpg${uid} ${String(i + j).padStart(2, "0")}`, brand: BP, priceData: { price: 1 + ((i + j) % 7) } }),
      ),
    );
    pageIds.push(...batch.map((p) => p.id));
  }
});

const VISIBLE = ["50% off", "50x off", "Alpha", "Beta", "Gamma", "a_b", "axb"];

describe("filter operators", () => {
  it("compares price (the lowest discounted price) with $gt, $gte, $lt and $lte", async () => {
    expect(await match({ price: { $gt: 20 } })).toEqual(["50% off", "50x off", "a_b", "axb"]);
    expect(await match({ price: { $gte: 20 } })).toEqual(["50% off", "50x off", "Beta", "a_b", "axb"]);
    expect(await match({ price: { $lt: 20 } })).toEqual(["Alpha", "Gamma"]);
    expect(await match({ price: { $lte: 15 } })).toEqual(["Alpha", "Gamma"]);
    expect(await match({ price: { $gt: 10, $lt: 50 } })).toEqual(["50% off", "Beta", "Gamma"]);
    expect(await match({ price: 15 })).toEqual(["Gamma"]);
    // priceData.price is the undiscounted price: Gamma costs 30 there.
    expect(await match({ "priceData.price": { $gte: 30, $lte: 40 } })).toEqual(["50% off", "Gamma"]);
  });

  it("matches names with $startsWith, taking % and _ in the operand literally", async () => {
    expect(await match({ name: { $startsWith: `${P} 50` } })).toEqual(["50% off", "50x off"]);
    expect(await match({ name: { $startsWith: `${P} 50%` } })).toEqual(["50% off"]);
    expect(await match({ name: { $startsWith: `${P} a_` } })).toEqual(["a_b"]);
    expect(await match({ name: { $startsWith: `${P} Al` } })).toEqual(["Alpha"]);
    expect(await match({ sku: { $startsWith: `${P}-ALP` } })).toEqual(["Alpha"]);
    // ASCII case does not matter, as in Wix.
    expect(await match({ name: { $startsWith: `${P} alpha`.toUpperCase().replace(P.toUpperCase(), P) } })).toEqual(["Alpha"]);
  });

  it("matches a $startsWith operand longer than D1's 50-byte LIKE limit", async () => {
    const long = `Long${uid} ${"abcdefghij".repeat(6)}`;
    const prod = await createProduct({ name: `${long} end`, slug: `long-${uid}`, priceData: { price: 1 } });
    const res = await post({ filter: { name: { $startsWith: long } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(idsOf(res.body.products)).toEqual([prod.id]);
    const miss = await post({ filter: { name: { $startsWith: `${long}x` } } });
    expect(miss.body.products).toEqual([]);
  });

  it("matches brand with $eq, a bare value, $ne, $in and $nin (missing brands count as not equal)", async () => {
    expect(await match({ brand: { $eq: BA } })).toEqual(["Alpha", "Beta", "axb"]);
    expect(await match({ brand: BB })).toEqual(["50% off", "Gamma"]);
    expect(await match({ brand: { $ne: BA } })).toEqual(["50% off", "50x off", "Gamma", "a_b"]);
    expect(await match({ brand: { $in: [BA, BB] } })).toEqual(["50% off", "Alpha", "Beta", "Gamma", "axb"]);
    expect(await match({ brand: { $nin: [BA] } })).toEqual(["50% off", "50x off", "Gamma", "a_b"]);
    expect(await match({ brand: { $in: [] } })).toEqual([]);
  });

  it("tells products with a ribbon from those without using $exists", async () => {
    expect(await match({ ribbon: { $exists: true } })).toEqual(["50% off", "Alpha"]);
    expect(await match({ ribbon: { $exists: false } })).toEqual(["50x off", "Beta", "Gamma", "a_b", "axb"]);
    expect(await match({ ribbon: "Sale" })).toEqual(["Alpha"]);
  });

  it("combines conditions with $and, $or and $not", async () => {
    expect(await match({ $or: [{ brand: BB }, { price: { $lt: 15 } }] })).toEqual(["50% off", "Alpha", "Gamma"]);
    expect(await match({ $and: [{ brand: BA }, { price: { $gt: 10 } }] })).toEqual(["Beta", "axb"]);
    // Several fields in one object are ANDed too.
    expect(await match({ brand: BA, price: { $gt: 10 } })).toEqual(["Beta", "axb"]);
    expect(await match({ $not: { $or: [{ ribbon: { $exists: true } }, { price: { $gte: 50 } }] } })).toEqual(["Beta", "Gamma"]);
    expect(await match({ $or: [{ $and: [{ brand: BA }, { price: { $gte: 70 } }] }, { name: { $startsWith: `${P} 50x` } }] })).toEqual([
      "50x off",
      "axb",
    ]);
  });

  it("$not of an equality keeps the products that lack the field", async () => {
    expect(await match({ $not: { brand: BA } })).toEqual(["50% off", "50x off", "Gamma", "a_b"]);
    expect(await match({ $and: [{ brand: BA }, { $not: { ribbon: "Sale" } }] })).toEqual(["Beta", "axb"]);
    expect(await match({ $not: { ribbon: { $exists: true } } })).toEqual(["50x off", "Beta", "Gamma", "a_b", "axb"]);
  });

  it("filters collectionIds with $hasSome, $hasAll, $eq and $in, the All Products collection holding everything", async () => {
    expect(await match({ collectionIds: { $hasSome: [c1] } })).toEqual(["Alpha", "Beta"]);
    expect(await match({ collectionIds: { $hasSome: [c1, c2] } })).toEqual(["Alpha", "Beta", "Gamma"]);
    expect(await match({ collectionIds: { $hasAll: [c1, c2] } })).toEqual(["Beta"]);
    expect(await match({ collectionIds: { $hasSome: [ALL_PRODUCTS_COLLECTION_ID] } })).toEqual(VISIBLE);
    expect(await match({ collectionIds: { $hasAll: [ALL_PRODUCTS_COLLECTION_ID, c2] } })).toEqual(["Beta", "Gamma"]);
    expect(await match({ collectionIds: { $hasAll: [ALL_PRODUCTS_COLLECTION_ID] } })).toEqual(VISIBLE);
    expect(await match({ collectionIds: c2 })).toEqual(["Beta", "Gamma"]);
    expect(await match({ collectionIds: { $in: [c1] } })).toEqual(["Alpha", "Beta"]);
    expect(await match({ "collections.id": { $hasSome: [c2] } })).toEqual(["Beta", "Gamma"]);
    expect(await match({ collectionIds: { $hasSome: ["no-such-collection"] } })).toEqual([]);
    expect(await match({ $not: { collectionIds: { $hasSome: [c1, c2] } } })).toEqual(["50% off", "50x off", "a_b", "axb"]);
  });

  it("filters options.<name> over the choices of visible variants", async () => {
    expect(await match({ "options.Size": { $hasSome: ["XL"] } })).toEqual(["Beta"]);
    expect(await match({ "options.Size": { $hasSome: ["S"] } })).toEqual(["Alpha", "axb"]);
    // axb's M variant is hidden, so it does not offer M.
    expect(await match({ "options.Size": { $hasSome: ["M"] } })).toEqual(["Alpha", "Beta"]);
    expect(await match({ "options.Size": { $hasAll: ["S", "M"] } })).toEqual(["Alpha"]);
    expect(await match({ "options.Size": { $hasAll: ["M", "XL"] } })).toEqual(["Beta"]);
    expect(await match({ "options.Material": "Wood" })).toEqual(["Gamma"]);
    expect(await match({ "options.Colour": { $hasSome: ["Red"] } })).toEqual([]);
  });

  it("compares createdDate with ISO dates", async () => {
    const visible = Object.entries(s).filter(([k]) => k !== "hidden");
    const pivot = s.delta.createdDate;
    const expected = (pred: (d: string) => boolean) => shortNames(visible.filter(([, p]) => pred(p.createdDate)).map(([, p]) => p));
    expect(await match({ createdDate: { $gte: pivot } })).toEqual(expected((d) => d >= pivot));
    expect(await match({ createdDate: { $lt: pivot } })).toEqual(expected((d) => d < pivot));
    expect(await match({ createdDate: { $gte: pivot } })).toContain("50% off");
    expect(await match({ createdDate: { $lt: pivot } })).toContain("Alpha");
    expect(await match({ createdDate: { $gt: "2000-01-01" } })).toEqual(VISIBLE);
    expect(await match({ createdDate: { $lt: "2000-01-01T00:00:00.000Z" } })).toEqual([]);
    // The same instant written with another UTC offset.
    const offset = new Date(Date.parse(pivot) + 2 * 3_600_000).toISOString().replace("Z", "+02:00");
    expect(await match({ createdDate: { $gte: offset } })).toEqual(expected((d) => d >= pivot));
    expect(await match({ createdDate: { $eq: s.alpha.createdDate } })).toEqual(expected((d) => d === s.alpha.createdDate));
    expect(await match({ createdDate: { $eq: s.alpha.createdDate } })).toContain("Alpha");
  });

  it("filters the visible and inStock booleans", async () => {
    expect(await match({ inStock: false })).toEqual(["50x off"]);
    expect(await match({ "stock.inStock": true })).toEqual(VISIBLE.filter((n) => n !== "50x off"));
    expect(await match({ visible: true })).toEqual(VISIBLE);
    expect(await match({ visible: false })).toEqual([]);
    expect(await match({ visible: false }, { includeHiddenProducts: true }, OWNER_KEY)).toEqual(["Hidden"]);
  });
});

describe("sort", () => {
  const sorted = async (sort: unknown, filter: Record<string, unknown> = {}) => {
    const res = await post({ filter: scoped(filter), sort });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.products.map((p: { name: string }) => p.name.slice(P.length + 1));
  };

  it("sorts by price ascending and descending", async () => {
    const asc = ["Alpha", "Gamma", "Beta", "50% off", "50x off", "a_b", "axb"];
    expect(await sorted([{ fieldName: "price", order: "ASC" }])).toEqual(asc);
    expect(await sorted([{ fieldName: "price", order: "DESC" }])).toEqual([...asc].reverse());
    // ASC is the default order.
    expect(await sorted([{ fieldName: "price" }])).toEqual(asc);
  });

  it("sorts by name and by priceData.price", async () => {
    expect(await sorted([{ fieldName: "name", order: "ASC" }])).toEqual(["50% off", "50x off", "Alpha", "Beta", "Gamma", "a_b", "axb"]);
    expect(await sorted([{ fieldName: "name", order: "DESC" }])).toEqual(["axb", "a_b", "Gamma", "Beta", "Alpha", "50x off", "50% off"]);
    // Undiscounted, Gamma (30) sorts after Beta (20).
    expect(await sorted([{ fieldName: "priceData.price", order: "ASC" }])).toEqual(["Alpha", "Beta", "Gamma", "50% off", "50x off", "a_b", "axb"]);
  });

  it("sorts by several fields in turn", async () => {
    const branded = { brand: { $exists: true } };
    expect(
      await sorted(
        [
          { fieldName: "brand", order: "DESC" },
          { fieldName: "price", order: "ASC" },
        ],
        branded,
      ),
    ).toEqual(["Gamma", "50% off", "Alpha", "Beta", "axb"]);
    expect(
      await sorted(
        [
          { fieldName: "brand", order: "ASC" },
          { fieldName: "name", order: "DESC" },
        ],
        branded,
      ),
    ).toEqual(["axb", "Beta", "Alpha", "Gamma", "50% off"]);
    expect(
      await sorted([
        { fieldName: "inStock", order: "ASC" },
        { fieldName: "price", order: "DESC" },
      ]),
    ).toEqual(["50x off", "axb", "a_b", "50% off", "Beta", "Gamma", "Alpha"]);
  });

  it("without a sort, lists the newest products first", async () => {
    const expected = Object.entries(s)
      .filter(([k]) => k !== "hidden")
      .map(([, p]) => p)
      .sort((a, b) => (a.createdDate !== b.createdDate ? (a.createdDate < b.createdDate ? 1 : -1) : a.id < b.id ? -1 : 1));
    const res = await post({ filter: scoped({}) });
    expect(idsOf(res.body.products)).toEqual(idsOf(expected));
  });
});

describe("paging", () => {
  const byBrand = { brand: BP };

  it("pages 50 at a time from offset 0 by default", async () => {
    const res = await post({ filter: byBrand });
    expect(res.status).toBe(200);
    expect(res.body.products).toHaveLength(50);
    expect(res.body.metadata).toEqual({ items: 50, offset: 0, total: 55 });
    expect(res.body.totalResults).toBe(55);
    // No query at all is a query for everything, also 50 at most.
    const all = await api("POST", WRITE_SIDE, { body: {} });
    expect(all.status).toBe(200);
    expect(all.body.metadata.items).toBe(Math.min(50, all.body.metadata.total));
    expect(all.body.metadata.total).toBeGreaterThanOrEqual(55 + 7);
  });

  it("returns explicit pages that cover the result once, with correct metadata on the last page", async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 55; offset += 20) {
      const res = await post({ filter: byBrand, sort: [{ fieldName: "name", order: "ASC" }], paging: { limit: 20, offset } });
      expect(res.status).toBe(200);
      const items = Math.min(20, 55 - offset);
      expect(res.body.metadata).toEqual({ items, offset, total: 55 });
      expect(res.body.products).toHaveLength(items);
      seen.push(...res.body.products.map((p: { name: string }) => p.name));
    }
    expect(seen).toEqual(Array.from({ length: 55 }, (_, i) => `Qpg${uid} ${String(i).padStart(2, "0")}`));
    const past = await post({ filter: byBrand, paging: { limit: 10, offset: 60 } });
    expect(past.body.products).toEqual([]);
    expect(past.body.metadata).toEqual({ items: 0, offset: 60, total: 55 });
  });

  it("pages stably when sort values repeat", async () => {
    // Prices repeat (1..7), so the id tie-breaker decides; pages must not overlap.
    const seen = new Set<string>();
    for (let offset = 0; offset < 55; offset += 10) {
      const res = await post({ filter: byBrand, sort: [{ fieldName: "price", order: "ASC" }], paging: { limit: 10, offset } });
      for (const id of idsOf(res.body.products)) seen.add(id);
    }
    expect(seen.size).toBe(55);
  });

  it(`refuses a limit above ${MAX_LIMIT} and a negative offset`, async () => {
    const ok = await post({ filter: byBrand, paging: { limit: MAX_LIMIT } });
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.items).toBe(55);
    const res = await post({ filter: byBrand, paging: { limit: MAX_LIMIT + 1 } });
    expect(res.status).toBe(400);
    expect(res.body.details.validationError.fieldViolations).toEqual([
      { field: "query.paging.limit", description: expect.any(String), violatedRule: "MAX", data: {} },
    ]);
    const neg = await post({ filter: byBrand, paging: { offset: -1 } });
    expect(neg.status).toBe(400);
    expect(neg.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "query.paging.offset", violatedRule: "MIN" });
  });

  it("takes a $in of 150 ids (more than D1's 100 bound parameters) and a $nin of as many", async () => {
    const ids = [...pageIds, ...Array.from({ length: 150 - pageIds.length }, () => crypto.randomUUID())];
    const res = await post({ filter: { id: { $in: ids } }, paging: { limit: 100 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata.total).toBe(55);
    expect(new Set(idsOf(res.body.products))).toEqual(new Set(pageIds));
    const none = await post({ filter: { brand: BP, id: { $nin: ids } } });
    expect(none.status).toBe(200);
    expect(none.body.metadata.total).toBe(0);
  });
});

describe("encodings", () => {
  it("answers the same query identically as GET ?.r= on the gateway path and as POST on the spec path", async () => {
    const payload = {
      query: {
        filter: { brand: BP, price: { $gte: 3 } },
        sort: [
          { fieldName: "price", order: "DESC" },
          { fieldName: "name", order: "ASC" },
        ],
        paging: { limit: 7, offset: 3 },
      },
    };
    const viaGet = await getQuery(READ, payload);
    const viaPost = await api("POST", WRITE_SIDE, { body: payload });
    const viaGatewayPost = await api("POST", READ, { body: payload });
    // query-platformized returns variants unless told not to; the plain query path only when asked.
    const viaQuery = await getQuery("/v1/products/query", { ...payload, includeVariants: true });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.products).toHaveLength(7);
    expect(viaGet.body.metadata).toEqual({ items: 7, offset: 3, total: viaGet.body.metadata.total });
    expect(viaPost.body).toEqual(viaGet.body);
    expect(viaGatewayPost.body).toEqual(viaGet.body);
    expect(viaQuery.body).toEqual(viaGet.body);
  });

  it("decodes the SDK's exact .r (collectionIds $hasSome, paging, sort by price)", async () => {
    const payload = {
      query: { filter: { collectionIds: { $hasSome: [c2] } }, paging: { limit: 5, offset: 0 }, sort: [{ fieldName: "price", order: "ASC" }] },
    };
    const res = await getQuery(READ, payload);
    expect(res.status).toBe(200);
    expect(res.body.products.map((p: { name: string }) => p.name)).toEqual([`${P} Gamma`, `${P} Beta`]);
    expect(res.body.metadata).toEqual({ items: 2, offset: 0, total: 2 });
    // The SDK repeats nothing else in the query string, but extra parameters are ignored.
    const extra = await api("GET", `${READ}?.r=${encodeDotR(payload)}&foo=bar`);
    expect(extra.body).toEqual(res.body);
  });

  it("refuses a .r that is not base64url JSON with 400", async () => {
    for (const r of ["%%%", "!!notbase64!!", `${encodeDotR("x").slice(1)}{`, btoa("not json").replace(/=+$/, "")]) {
      const res = await api("GET", `${READ}?.r=${r}`);
      expect(res.status, r).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0]).toMatchObject({ field: ".r", violatedRule: "FORMAT", data: {} });
    }
    const array = await api("GET", `${READ}?.r=${encodeDotR([1, 2])}`);
    expect(array.status).toBe(400);
    expect(array.body.details.validationError.fieldViolations[0].field).toBe("body");
  });
});

describe("bad queries", () => {
  const violations = (res: { body: any }) =>
    res.body.details.validationError.fieldViolations as { field: string; violatedRule: string; data: unknown }[];

  it("names every bad field, operator, value and sort entry, sorted by field", async () => {
    const res = await post({
      filter: {
        zeta: 1,
        price: { $gt: "10" },
        name: 5,
        numericId: { $startsWith: "1" },
        brand: { $regex: "x" },
        $or: [{ brand: BA }, { colour: "red" }],
        collectionIds: { $gt: "x" },
        "options.Size": { $hasSome: "S" },
        createdDate: { $gt: "yesterday" },
      },
      sort: [{ fieldName: "nope" }, { fieldName: "name", order: "UP" }, { fieldName: "collectionIds" }],
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^INVALID_ARGUMENT: /);
    const got = violations(res).map((v) => [v.field, v.violatedRule]);
    expect(got).toEqual([
      ["query.filter.$or[1].colour", "FIELD_NOT_ALLOWED"],
      ["query.filter.brand.$regex", "FIELD_NOT_ALLOWED"],
      ["query.filter.collectionIds.$gt", "FIELD_NOT_ALLOWED"],
      ["query.filter.createdDate.$gt", "FORMAT"],
      ["query.filter.name", "VALIDATION"],
      ["query.filter.numericId.$startsWith", "FIELD_NOT_ALLOWED"],
      ["query.filter.options.Size.$hasSome", "VALIDATION"],
      ["query.filter.price.$gt", "VALIDATION"],
      ["query.filter.zeta", "FIELD_NOT_ALLOWED"],
      ["query.sort[0].fieldName", "FIELD_NOT_ALLOWED"],
      ["query.sort[1].order", "INVALID_ENUM_VALUE"],
      ["query.sort[2].fieldName", "FIELD_NOT_ALLOWED"],
    ]);
    for (const v of violations(res)) expect(v.data).toEqual({});
  });

  it("refuses each mistake alone with its exact path", async () => {
    const cases: [unknown, string, string][] = [
      [{ filter: { nope: 1 } }, "query.filter.nope", "FIELD_NOT_ALLOWED"],
      [{ filter: { price: { $near: 1 } } }, "query.filter.price.$near", "FIELD_NOT_ALLOWED"],
      [{ filter: { price: "cheap" } }, "query.filter.price", "VALIDATION"],
      [{ filter: { name: { $in: ["a", 5] } } }, "query.filter.name.$in[1]", "VALIDATION"],
      [{ filter: { price: { $startsWith: "1" } } }, "query.filter.price.$startsWith", "FIELD_NOT_ALLOWED"],
      [{ filter: { visible: { $gt: true } } }, "query.filter.visible.$gt", "FIELD_NOT_ALLOWED"],
      [{ filter: { ribbon: { $exists: "yes" } } }, "query.filter.ribbon.$exists", "VALIDATION"],
      [{ filter: { $and: {} } }, "query.filter.$and", "VALIDATION"],
      [{ filter: { $nor: [] } }, "query.filter.$nor", "FIELD_NOT_ALLOWED"],
      [{ filter: { $not: { $or: [{ nope: 1 }] } } }, "query.filter.$not.$or[0].nope", "FIELD_NOT_ALLOWED"],
      [{ sort: [{ fieldName: "description" }] }, "query.sort[0].fieldName", "FIELD_NOT_ALLOWED"],
      [{ sort: [{ fieldName: "price", order: "down" }] }, "query.sort[0].order", "INVALID_ENUM_VALUE"],
      [{ sort: { fieldName: "price" } }, "query.sort", "VALIDATION"],
    ];
    for (const [query, field, rule] of cases) {
      const res = await post(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(violations(res), JSON.stringify(query)).toEqual([{ field, description: expect.any(String), violatedRule: rule, data: {} }]);
    }
  });

  it("refuses the same mistakes in the GET encoding", async () => {
    const res = await getQuery(READ, { query: { filter: { price: { $gt: "10" }, name: 5 } } });
    expect(res.status).toBe(400);
    expect(violations(res).map((v) => v.field)).toEqual(["query.filter.name", "query.filter.price.$gt"]);
  });
});

describe("hidden products", () => {
  it("stay invisible to anonymous callers, even when they ask for hidden products", async () => {
    expect(await match({ brand: BA })).toEqual(["Alpha", "Beta", "axb"]);
    expect(await match({ brand: BA }, { includeHiddenProducts: true })).toEqual(["Alpha", "Beta", "axb"]);
    expect(await match({ id: s.hidden.id }, { includeHiddenProducts: true })).toEqual([]);
    expect(await match({ collectionIds: { $hasSome: [c1] } }, { includeHiddenProducts: true })).toEqual(["Alpha", "Beta"]);
    const viaGet = await getQuery(READ, { query: { filter: { id: s.hidden.id } }, includeHiddenProducts: true });
    expect(viaGet.body.products).toEqual([]);
    expect(viaGet.body.metadata.total).toBe(0);
  });

  it("are listed for the merchant who asks with includeHiddenProducts", async () => {
    expect(await match({ brand: BA }, {}, OWNER_KEY)).toEqual(["Alpha", "Beta", "axb"]);
    expect(await match({ brand: BA }, { includeHiddenProducts: true }, OWNER_KEY)).toEqual(["Alpha", "Beta", "Hidden", "axb"]);
    const viaGet = await getQuery(READ, { query: { filter: { id: s.hidden.id } }, includeHiddenProducts: true }, OWNER_KEY);
    expect(viaGet.body.products.map((p: { id: string; visible: boolean }) => [p.id, p.visible])).toEqual([[s.hidden.id, false]]);
  });

  it("refuses a query with a key that matches nothing", async () => {
    const res = await post({ filter: { brand: BA } }, {}, "not-a-key");
    expect(res.status).toBe(401);
  });
});
