import { beforeAll, describe, expect, it } from "vitest";
import { api, createProduct, getQuery, idsOf, merchant, OWNER_KEY, unique } from "../helpers";

/**
 * Full-text search in the product query (`query.search.expression`). Every searchable word here embeds this file's
 * random token, so the shared search index never answers with another file's products.
 */

const t = unique(); // e.g. "k3j9x2"
const word = (w: string) => `${t}${w}`; // one token to the tokenizer: "k3j9x2lantern"
const BRAND = `Srch${t}`;
const READ = "/stores-reader/v1/products/query-platformized";

const search = async (expression: string, query: Record<string, unknown> = {}, key?: string, extra: Record<string, unknown> = {}) => {
  const res = await api("POST", "/v1/products/query-platformized", { body: { query: { ...query, search: { expression } }, ...extra }, key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.metadata.total).toBe(res.body.products.length);
  return res.body.products as { id: string; name: string }[];
};

const p: Record<string, { id: string; name: string }> = {};

beforeAll(async () => {
  // Created name-match first, so "newest first" would put the description-only match on top: relevance must not.
  p.lamp = await createProduct({
    name: `Brass ${word("glow")} Lamp`,
    brand: BRAND,
    priceData: { price: 40 },
    description: "A warm light for the desk.",
  });
  p.candle = await createProduct({
    name: "Beeswax Candle",
    brand: BRAND,
    priceData: { price: 12 },
    description: `Burns slowly with a soft ${word("glow")} for hours.`,
  });
  p.lantern = await createProduct({ name: `Storm ${word("lantern")}`, brand: BRAND, priceData: { price: 25 }, sku: `SK${t}LAN` });
  p.shirt = await createProduct({
    name: `Linen Shirt ${t}`,
    brand: BRAND,
    priceData: { price: 30 },
    manageVariants: true,
    productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }] }],
    variants: [{ choices: { Size: "M" }, sku: `VS${t}M` }],
  });
  p.brand = await createProduct({ name: "Plain Mug", brand: `Potter${t}`, priceData: { price: 9 } });
  p.accent = await createProduct({ name: `Crème ${word("brulee")} Dish`, brand: BRAND, priceData: { price: 18 } });
  p.hidden = await createProduct({ name: `Hidden ${word("glow")} Orb`, brand: BRAND, priceData: { price: 99 }, visible: false });
});

describe("product search", () => {
  it("finds a product by a word of its name", async () => {
    expect(idsOf(await search(word("lantern")))).toEqual([p.lantern.id]);
    expect(idsOf(await search(`storm ${word("lantern")}`))).toEqual([p.lantern.id]);
  });

  it("matches every word as a prefix", async () => {
    expect(idsOf(await search(word("lant")))).toEqual([p.lantern.id]);
    expect(idsOf(await search(`${word("lan")} sto`))).toEqual([p.lantern.id]);
    // Every word must match: a second word the product lacks finds nothing.
    expect(await search(`${word("lantern")} teapot`)).toEqual([]);
  });

  it("finds by description, case and accents aside", async () => {
    expect(idsOf(await search(`${word("glow")} hours`))).toEqual([p.candle.id]);
    expect(idsOf(await search(`CREME ${word("BRULEE")}`))).toEqual([p.accent.id]);
  });

  it("finds by the product's SKU and by a variant's SKU", async () => {
    expect(idsOf(await search(`SK${t}LAN`))).toEqual([p.lantern.id]);
    expect(idsOf(await search(`vs${t}m`))).toEqual([p.shirt.id]);
    expect(idsOf(await search(`VS${t}`))).toEqual([p.shirt.id]);
  });

  it("finds by brand", async () => {
    expect(idsOf(await search(`Potter${t}`))).toEqual([p.brand.id]);
    expect(new Set(idsOf(await search(BRAND)))).toEqual(new Set([p.lamp.id, p.candle.id, p.lantern.id, p.shirt.id, p.accent.id]));
  });

  it("finds nothing for nonsense, or for punctuation only", async () => {
    const res = await api("POST", "/v1/products/query-platformized", { body: { query: { search: { expression: `zzq${t}xyzzy` } } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ products: [], metadata: { items: 0, offset: 0, total: 0 } });
    expect(await search("?!* ---")).toEqual([]);
  });

  it("ranks a name match above a description-only match when no sort is given", async () => {
    expect(idsOf(await search(word("glow")))).toEqual([p.lamp.id, p.candle.id]);
    // An explicit sort wins over relevance.
    expect(idsOf(await search(word("glow"), { sort: [{ fieldName: "price", order: "ASC" }] }))).toEqual([p.candle.id, p.lamp.id]);
  });

  it("combines with a filter, paging and the GET encoding", async () => {
    expect(idsOf(await search(word("glow"), { filter: { price: { $lt: 20 } } }))).toEqual([p.candle.id]);
    expect(idsOf(await search(BRAND, { filter: { price: { $gte: 25 } }, sort: [{ fieldName: "price", order: "DESC" }] }))).toEqual([
      p.lamp.id,
      p.shirt.id,
      p.lantern.id,
    ]);
    const page = await api("POST", "/v1/products/query-platformized", {
      body: { query: { search: { expression: BRAND }, sort: [{ fieldName: "price", order: "ASC" }], paging: { limit: 2, offset: 4 } } },
    });
    expect(page.body.metadata).toEqual({ items: 1, offset: 4, total: 5 });
    expect(idsOf(page.body.products)).toEqual([p.lamp.id]);
    const viaGet = await getQuery(READ, { query: { search: { expression: word("glow") }, filter: { price: { $lt: 20 } } } });
    expect(idsOf(viaGet.body.products)).toEqual([p.candle.id]);
  });

  it("keeps hidden products out of anonymous results but shows them to the merchant who asks", async () => {
    expect(idsOf(await search(word("glow")))).not.toContain(p.hidden.id);
    expect(idsOf(await search(word("glow"), {}, undefined, { includeHiddenProducts: true }))).not.toContain(p.hidden.id);
    expect(idsOf(await search(word("glow"), {}, OWNER_KEY, { includeHiddenProducts: true }))).toContain(p.hidden.id);
  });

  it("refuses a search expression that is not a string or is too long", async () => {
    for (const expression of [42, "x".repeat(201)]) {
      const res = await api("POST", "/v1/products/query-platformized", { body: { query: { search: { expression } } } });
      expect(res.status).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "query.search.expression", data: {} });
    }
  });

  it("follows a rename: the old word stops finding the product, the new word finds it", async () => {
    const prod = await createProduct({ name: `Old ${word("oldword")} Bowl`, brand: BRAND, priceData: { price: 5 } });
    expect(idsOf(await search(word("oldword")))).toEqual([prod.id]);
    const res = await merchant("PATCH", `/v1/products/${prod.id}`, { product: { name: `New ${word("newword")} Bowl` } });
    expect(res.status).toBe(200);
    expect(await search(word("oldword"))).toEqual([]);
    expect(idsOf(await search(word("newword")))).toEqual([prod.id]);
    // A description change is indexed too.
    await merchant("PATCH", `/v1/products/${prod.id}`, { product: { description: `Thrown by ${word("potterfolk")}.` } });
    expect(idsOf(await search(word("potterfolk")))).toEqual([prod.id]);
  });

  it("follows a variant SKU change", async () => {
    const prod = await createProduct({
      name: `Tee ${t}`,
      priceData: { price: 5 },
      manageVariants: true,
      productOptions: [{ name: "Size", choices: [{ value: "S" }] }],
    });
    const res = await merchant("PATCH", `/v1/products/${prod.id}/variants`, { variants: [{ choices: { Size: "S" }, sku: `NV${t}S` }] });
    expect(res.status).toBe(200);
    expect(idsOf(await search(`NV${t}S`))).toEqual([prod.id]);
  });

  it("forgets a deleted product", async () => {
    const prod = await createProduct({ name: `Doomed ${word("doomed")}`, priceData: { price: 5 } });
    expect(idsOf(await search(word("doomed")))).toEqual([prod.id]);
    expect((await merchant("DELETE", `/v1/products/${prod.id}`)).status).toBe(200);
    expect(await search(word("doomed"))).toEqual([]);
    // A product created afterwards (it may reuse the freed numeric id) is not confused with the deleted one.
    const next = await createProduct({ name: `Successor ${word("successor")}`, priceData: { price: 5 } });
    expect(await search(word("doomed"))).toEqual([]);
    expect(idsOf(await search(word("successor")))).toEqual([next.id]);
  });
});
