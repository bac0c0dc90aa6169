import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { bulkDeleteProducts } from "#worker/catalog/bulk";
import { uploadImage } from "#worker/media/store";
import { ApiError } from "#worker/platform/errors";
import { api, createProduct, merchant, outboxRows, serviceCtx, settledCatalogueSnapshot as snapshot, unique } from "../helpers";

/** Bulk edits: set one value on many products, or adjust price/cost/weight; each id succeeds or fails on its own. */

const CHANGED = "com.wix.ecommerce.catalog.api.v1.ProductChanged";

function expectInvalid(res: { status: number; body: any }, field: string, rule?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.message).toMatch(/^INVALID_ARGUMENT: "/);
  const violations: { field: string; violatedRule: string }[] = res.body.details.validationError.fieldViolations;
  const hit = violations.find((v) => v.field === field);
  expect(hit, `${field} not among ${violations.map((v) => v.field).join(", ")}`).toBeDefined();
  if (rule) expect(hit!.violatedRule).toBe(rule);
}

const getAsMerchant = async (id: string) => (await merchant("GET", `/v1/products/${id}?includeMerchantSpecificData=true`)).body.product;
const changedEvents = async (id: string) => (await outboxRows(id)).filter((e) => e.type === CHANGED);
const product = (extra: Record<string, unknown> = {}) => createProduct({ name: `Bulk ${unique()}`, priceData: { price: 10 }, ...extra });

describe("bulk update", () => {
  it("sets the value on every product (SDK body at the gateway path) and answers per item in request order", async () => {
    const ps = [
      await product(),
      await product({ discount: { type: "PERCENT", value: 10 } }),
      await product({ productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }] }] }),
    ];
    const ids = ps.map((p) => p.id);
    const res = await merchant("POST", "/stores/v1/bulk/products/update", { ids, set: { price: 9.99 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: ids.map((id, originalIndex) => ({ itemMetadata: { id, originalIndex, success: true } })),
      bulkActionMetadata: { totalSuccesses: 3, totalFailures: 0, undetailedFailures: 0 },
    });
    const [a, b, c] = await Promise.all(ids.map(getAsMerchant));
    expect(a.priceData).toMatchObject({ price: 9.99, discountedPrice: 9.99, formatted: { price: "$9.99" } });
    expect(b.priceData).toMatchObject({ price: 9.99, discountedPrice: 8.99 });
    expect(c.priceRange).toEqual({ minValue: 9.99, maxValue: 9.99 });
    expect(c.variants.every((v: any) => v.variant.priceData.price === 9.99)).toBe(true);
    for (const p of [a, b, c]) expect(p.updatedDate > ps[0].updatedDate).toBe(true);
    // The store's price sort and filter see the new price.
    const cheap = await api("POST", "/v1/products/query-platformized", { body: { query: { filter: { id: { $in: ids }, price: { $lt: 9 } } } } });
    expect(cheap.body.products.map((p: any) => p.id)).toEqual([b.id]);

    for (const id of ids) {
      const events = await changedEvents(id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ entity_id: id, actor_type: "APP", data: { productId: id, changedFields: ["priceData"] } });
    }
  });

  it("sets cost, weight, visibility, brand, ribbon and product type together", async () => {
    const a = await product({ brand: "Old", ribbon: "Old" });
    const b = await product();
    const res = await merchant("POST", "/v1/bulk/products/update", {
      ids: [a.id, b.id],
      set: { cost: 4, weight: 1.25, visible: false, brand: "Fernhill", ribbon: "Sale", productType: "digital" },
    });
    expect(res.body.bulkActionMetadata).toEqual({ totalSuccesses: 2, totalFailures: 0, undetailedFailures: 0 });
    for (const id of [a.id, b.id]) {
      const p = await getAsMerchant(id);
      expect(p).toMatchObject({
        weight: 1.25,
        visible: false,
        brand: "Fernhill",
        ribbon: "Sale",
        productType: "digital",
        costAndProfitData: { itemCost: 4, profit: 6 },
      });
      expect((await api("GET", `/v1/products/${id}`)).status).toBe(404);
      expect((await changedEvents(id))[0].data.changedFields.sort()).toEqual([
        "brand",
        "costAndProfitData",
        "productType",
        "ribbon",
        "visible",
        "weight",
      ]);
    }
    // An empty brand clears it.
    await merchant("POST", "/v1/bulk/products/update", { ids: [a.id], set: { brand: "" } });
    expect((await getAsMerchant(a.id)).brand).toBe("");
  });

  it("reports an unknown id as a failure at its original index while the others succeed", async () => {
    const a = await product();
    const b = await product();
    const ghost = crypto.randomUUID();
    const res = await merchant("POST", "/v1/bulk/products/update", { ids: [a.id, ghost, b.id], set: { visible: false } });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { itemMetadata: { id: a.id, originalIndex: 0, success: true } },
      {
        itemMetadata: {
          id: ghost,
          originalIndex: 1,
          success: false,
          error: { code: "PRODUCT_NOT_FOUND", description: `Product ${ghost} not found`, data: { productId: ghost } },
        },
      },
      { itemMetadata: { id: b.id, originalIndex: 2, success: true } },
    ]);
    expect(res.body.bulkActionMetadata).toEqual({ totalSuccesses: 2, totalFailures: 1, undetailedFailures: 0 });
    expect((await getAsMerchant(a.id)).visible).toBe(false);
    expect((await getAsMerchant(b.id)).visible).toBe(false);
    expect(await outboxRows(ghost)).toEqual([]);
  });

  it("answers 200 with only failures when no id exists, writing nothing", async () => {
    const before = await snapshot();
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    const res = await merchant("POST", "/v1/bulk/products/update", { ids, set: { price: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.bulkActionMetadata).toEqual({ totalSuccesses: 0, totalFailures: 2, undetailedFailures: 0 });
    expect(res.body.results.map((r: any) => [r.itemMetadata.originalIndex, r.itemMetadata.success])).toEqual([
      [0, false],
      [1, false],
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it("moves updatedDate forward even when the stored one is not earlier than the clock", async () => {
    const p = await product();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    await env.DB.prepare("UPDATE products SET updated_date = ?, last_updated = ? WHERE id = ?").bind(future, future, p.id).run();
    await merchant("POST", "/v1/bulk/products/update", { ids: [p.id], set: { ribbon: "Later" } });
    await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [p.id], adjust: { price: { amount: 1 } } });
    const after = await getAsMerchant(p.id);
    expect(after.updatedDate).toBe(new Date(Date.parse(future) + 2).toISOString());
    expect(after.lastUpdated).toBe(after.updatedDate);
  });

  const badBodies: [string, unknown, string, string?][] = [
    ["no ids", { set: { price: 1 } }, "ids", "REQUIRED_FIELD"],
    ["an empty id list", { ids: [], set: { price: 1 } }, "ids", "MIN_SIZE"],
    ["more than 100 ids", { ids: Array.from({ length: 101 }, (_, i) => `id-${i}`), set: { price: 1 } }, "ids", "MAX_SIZE"],
    ["an empty id", { ids: [""], set: { price: 1 } }, "ids[0]", "REQUIRED_FIELD"],
    ["an id that is not a string", { ids: [7], set: { price: 1 } }, "ids[0]", "VALIDATION"],
    ["nothing to set", { ids: ["x"], set: {} }, "set"],
    ["no set", { ids: ["x"] }, "set", "REQUIRED_FIELD"],
    ["a negative price", { ids: ["x"], set: { price: -1 } }, "set.price", "MIN"],
    ["a price given as a string", { ids: ["x"], set: { price: "9.99" } }, "set.price", "VALIDATION"],
    ["a negative weight", { ids: ["x"], set: { weight: -1 } }, "set.weight", "MIN"],
    ["visible as a string", { ids: ["x"], set: { visible: "false" } }, "set.visible", "VALIDATION"],
    ["a brand of 51 characters", { ids: ["x"], set: { brand: "b".repeat(51) } }, "set.brand", "MAX_LENGTH"],
    ["an unknown product type", { ids: ["x"], set: { productType: "service" } }, "set.productType", "INVALID_ENUM_VALUE"],
  ];
  it.each(badBodies)("refuses %s with 400 naming the field, writing nothing", async (_label, body, field, rule) => {
    const p = await product();
    const fixed = JSON.parse(JSON.stringify(body).replaceAll('"x"', JSON.stringify(p.id)));
    const before = await snapshot();
    expectInvalid(await merchant("POST", "/v1/bulk/products/update", fixed), field, rule);
    expect(await snapshot()).toEqual(before);
  });
});

describe("bulk adjust", () => {
  it("adds an amount to price, cost and weight", async () => {
    const a = await product({ costAndProfitData: { itemCost: 4 }, weight: 1 });
    const b = await product({ priceData: { price: 20 }, costAndProfitData: { itemCost: 2.5 }, weight: 0.5 });
    const res = await merchant("POST", "/stores/v1/bulk/products/adjust-properties", {
      adjust: { price: { amount: 1.5 }, cost: { amount: -0.5 }, weight: { amount: 0.25 } },
      ids: [a.id, b.id],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: [{ itemMetadata: { id: a.id, originalIndex: 0, success: true } }, { itemMetadata: { id: b.id, originalIndex: 1, success: true } }],
      bulkActionMetadata: { totalSuccesses: 2, totalFailures: 0, undetailedFailures: 0 },
    });
    expect(await getAsMerchant(a.id)).toMatchObject({ priceData: { price: 11.5 }, costAndProfitData: { itemCost: 3.5 }, weight: 1.25 });
    expect(await getAsMerchant(b.id)).toMatchObject({ priceData: { price: 21.5 }, costAndProfitData: { itemCost: 2 }, weight: 0.75 });
    const events = await changedEvents(a.id);
    expect(events).toHaveLength(1);
    expect(events[0].data.changedFields.sort()).toEqual(["costAndProfitData", "priceData", "weight"]);
  });

  it("adjusts by a percentage, rounding to cents or, with roundToInt, to whole units", async () => {
    const a = await product({ priceData: { price: 9.99 } });
    const b = await product({ priceData: { price: 9.99 } });
    const c = await product({ priceData: { price: 10 } });
    await merchant("POST", "/v1/bulk/products/adjust-properties", {
      ids: [a.id],
      adjust: { price: { percentage: { rate: 10, roundToInt: false } } },
    });
    await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [b.id], adjust: { price: { percentage: { rate: 10, roundToInt: true } } } });
    await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [c.id], adjust: { price: { percentage: { rate: -50 } } } });
    expect((await getAsMerchant(a.id)).priceData.price).toBe(10.99); // 10.989 → 10.99
    expect((await getAsMerchant(b.id)).priceData.price).toBe(11); // 10.989 → 11
    expect((await getAsMerchant(c.id)).priceData).toMatchObject({ price: 5, formatted: { price: "$5.00" } });

    const w = await product({ weight: 2.4 });
    await merchant("POST", "/v1/bulk/products/adjust-properties", {
      ids: [w.id],
      adjust: { weight: { percentage: { rate: 10, roundToInt: true } } },
    });
    expect((await getAsMerchant(w.id)).weight).toBe(3); // 2.64 → 3
  });

  it("fails only the items whose result would be negative, writing nothing and no event for them", async () => {
    const rich = await product({ priceData: { price: 10 } });
    const cheap = await product({ priceData: { price: 2 } });
    const ghost = crypto.randomUUID();
    const res = await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [cheap.id, ghost, rich.id], adjust: { price: { amount: -5 } } });
    expect(res.status).toBe(200);
    const [first, second, third] = res.body.results.map((r: any) => r.itemMetadata);
    expect(first).toMatchObject({
      id: cheap.id,
      originalIndex: 0,
      success: false,
      error: { code: "INVALID_ADJUSTMENT", data: { productId: cheap.id } },
    });
    expect(first.error.description).toContain("negative");
    expect(second).toMatchObject({ id: ghost, originalIndex: 1, success: false, error: { code: "PRODUCT_NOT_FOUND" } });
    expect(third).toEqual({ id: rich.id, originalIndex: 2, success: true });
    expect(res.body.bulkActionMetadata).toEqual({ totalSuccesses: 1, totalFailures: 2, undetailedFailures: 0 });

    const cheapAfter = await getAsMerchant(cheap.id);
    expect(cheapAfter.priceData.price).toBe(2);
    expect(cheapAfter.updatedDate).toBe(cheap.updatedDate);
    expect(await changedEvents(cheap.id)).toEqual([]);
    expect((await getAsMerchant(rich.id)).priceData.price).toBe(5);
    expect(await changedEvents(rich.id)).toHaveLength(1);
  });

  it("fails a product that has no cost (or weight) to adjust, and one property's failure fails the whole item", async () => {
    const noCost = await product();
    const res = await merchant("POST", "/v1/bulk/products/adjust-properties", {
      ids: [noCost.id],
      adjust: { price: { amount: 1 }, cost: { amount: 1 } },
    });
    expect(res.body.results[0].itemMetadata).toMatchObject({ success: false, error: { code: "INVALID_ADJUSTMENT" } });
    expect((await getAsMerchant(noCost.id)).priceData.price).toBe(10);
    const noWeight = await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [noCost.id], adjust: { weight: { amount: 1 } } });
    expect(noWeight.body.results[0].itemMetadata.success).toBe(false);
  });

  it("adjusts an id given twice once, reporting both positions", async () => {
    const p = await product();
    const res = await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [p.id, p.id], adjust: { price: { amount: 1 } } });
    expect(res.body.results.map((r: any) => [r.itemMetadata.originalIndex, r.itemMetadata.success])).toEqual([
      [0, true],
      [1, true],
    ]);
    expect((await getAsMerchant(p.id)).priceData.price).toBe(11);
    expect(await changedEvents(p.id)).toHaveLength(1);
  });

  const badBodies: [string, unknown, string, string?][] = [
    ["no ids", { adjust: { price: { amount: 1 } } }, "ids", "REQUIRED_FIELD"],
    ["nothing to adjust", { ids: ["x"], adjust: {} }, "adjust"],
    ["an adjustment with neither amount nor percentage", { ids: ["x"], adjust: { price: {} } }, "adjust.price"],
    ["an adjustment with both amount and percentage", { ids: ["x"], adjust: { price: { amount: 1, percentage: { rate: 5 } } } }, "adjust.price"],
    ["an amount given as a string", { ids: ["x"], adjust: { cost: { amount: "1" } } }, "adjust.cost.amount", "VALIDATION"],
    ["a percentage below -100", { ids: ["x"], adjust: { price: { percentage: { rate: -101 } } } }, "adjust.price.percentage.rate", "MIN"],
    [
      "a percentage without its rate",
      { ids: ["x"], adjust: { weight: { percentage: { roundToInt: true } } } },
      "adjust.weight.percentage.rate",
      "REQUIRED_FIELD",
    ],
    [
      "roundToInt as a string",
      { ids: ["x"], adjust: { price: { percentage: { rate: 5, roundToInt: "yes" } } } },
      "adjust.price.percentage.roundToInt",
      "VALIDATION",
    ],
  ];
  it.each(badBodies)("refuses %s with 400 naming the field, writing nothing", async (_label, body, field, rule) => {
    const p = await product({ costAndProfitData: { itemCost: 1 }, weight: 1 });
    const fixed = JSON.parse(JSON.stringify(body).replaceAll('"x"', JSON.stringify(p.id)));
    const before = await snapshot();
    expectInvalid(await merchant("POST", "/v1/bulk/products/adjust-properties", fixed), field, rule);
    expect(await snapshot()).toEqual(before);
  });
});

describe("bulk price changes reach variants with their own price", () => {
  const sized = async () => {
    return product({
      priceData: { price: 25 },
      manageVariants: true,
      productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }, { value: "L" }] }],
      variants: [
        { choices: { Size: "M" }, price: 27 },
        { choices: { Size: "L" }, price: 29 },
      ],
    });
  };
  const prices = async (id: string) => {
    const p = await getAsMerchant(id);
    return { base: p.priceData.price, sizes: p.variants.map((v: any) => [v.choices.Size, v.variant.priceData.price]), range: p.priceRange };
  };

  const cases: [string, string, unknown, number, [string, number][]][] = [
    [
      "raises by a percentage",
      "adjust-properties",
      { adjust: { price: { percentage: { rate: 10 } } } },
      27.5,
      [
        ["S", 27.5],
        ["M", 29.7],
        ["L", 31.9],
      ],
    ],
    [
      "lowers by a percentage",
      "adjust-properties",
      { adjust: { price: { percentage: { rate: -10 } } } },
      22.5,
      [
        ["S", 22.5],
        ["M", 24.3],
        ["L", 26.1],
      ],
    ],
    [
      "raises by an amount",
      "adjust-properties",
      { adjust: { price: { amount: 2 } } },
      27,
      [
        ["S", 27],
        ["M", 29],
        ["L", 31],
      ],
    ],
    [
      "lowers by an amount",
      "adjust-properties",
      { adjust: { price: { amount: -2 } } },
      23,
      [
        ["S", 23],
        ["M", 25],
        ["L", 27],
      ],
    ],
    [
      "sets a price",
      "update",
      { set: { price: 20 } },
      20,
      [
        ["S", 20],
        ["M", 20],
        ["L", 20],
      ],
    ],
  ];
  it.each(cases)("%s on the base and every variant price", async (_label, path, body, base, sizes) => {
    const p = await sized();
    const res = await merchant("POST", `/v1/bulk/products/${path}`, { ids: [p.id], ...(body as object) });
    expect(res.body.bulkActionMetadata).toEqual({ totalSuccesses: 1, totalFailures: 0, undetailedFailures: 0 });
    const after = await prices(p.id);
    expect(after.base).toBe(base);
    expect(after.sizes).toEqual(sizes);
    const all = sizes.map(([, v]) => v);
    expect(after.range).toEqual({ minValue: Math.min(...all), maxValue: Math.max(...all) });
  });

  it("refuses a product whose variant price would go negative, changing none of its prices", async () => {
    const p = await product({
      priceData: { price: 10 },
      manageVariants: true,
      productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }] }],
      variants: [{ choices: { Size: "S" }, price: 3 }],
    });
    const res = await merchant("POST", "/v1/bulk/products/adjust-properties", { ids: [p.id], adjust: { price: { amount: -5 } } });
    expect(res.body.bulkActionMetadata).toEqual({ totalSuccesses: 0, totalFailures: 1, undetailedFailures: 0 });
    expect(res.body.results[0].itemMetadata.error).toMatchObject({ code: "INVALID_ADJUSTMENT" });
    expect(res.body.results[0].itemMetadata.error.description).toContain("variant price would be negative");
    expect((await prices(p.id)).sizes).toEqual([
      ["S", 3],
      ["M", 10],
    ]);
    expect(await changedEvents(p.id)).toEqual([]);
  });
});

describe("bulk delete (the console's)", () => {
  const DELETED = "com.wix.ecommerce.catalog.api.v1.ProductDeleted";
  const staff = (permissions: ("catalog.write" | "orders.write")[]) =>
    serviceCtx({ kind: "member", identityId: crypto.randomUUID(), visitorId: crypto.randomUUID(), clientId: "console", role: "STAFF", permissions });

  it("deletes each product with its memberships and one ProductDeleted event; an id already gone fails on its own", async () => {
    const a = await product();
    const b = await product();
    const col = await merchant("POST", "/v1/collections", { collection: { name: `Bulk delete ${unique()}` } });
    await merchant("POST", `/v1/collections/${col.body.collection.id}/productIds`, { productIds: [a.id, b.id] });
    const ghost = crypto.randomUUID();
    const { ctx, settled } = staff(["catalog.write"]);
    const res = await bulkDeleteProducts(ctx, { ids: [a.id, ghost, b.id] });
    await settled();
    expect(res.results).toEqual([
      { itemMetadata: { id: a.id, originalIndex: 0, success: true } },
      {
        itemMetadata: {
          id: ghost,
          originalIndex: 1,
          success: false,
          error: { code: "PRODUCT_NOT_FOUND", description: `Product ${ghost} not found`, data: { productId: ghost } },
        },
      },
      { itemMetadata: { id: b.id, originalIndex: 2, success: true } },
    ]);
    expect(res.bulkActionMetadata).toEqual({ totalSuccesses: 2, totalFailures: 1, undetailedFailures: 0 });
    for (const id of [a.id, b.id]) {
      expect((await merchant("GET", `/v1/products/${id}`)).status).toBe(404);
      expect((await outboxRows(id)).filter((e) => e.type === DELETED)).toHaveLength(1);
    }
    expect(await outboxRows(ghost)).toEqual([]);
    const members = await env.DB.prepare("SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?")
      .bind(col.body.collection.id)
      .first<{ n: number }>();
    expect(members!.n).toBe(0);
  });

  it("deletes the deleted products' own image files and keeps those another product still shows", async () => {
    const { ctx, settled } = serviceCtx();
    // A GIF header with random trailing bytes: new content, so a new file, in every run.
    const gif = () =>
      new File([new Uint8Array([71, 73, 70, 56, 57, 97, 4, 0, 4, 0, 0, 0, 0, ...crypto.getRandomValues(new Uint8Array(16))])], "a.gif", {
        type: "image/gif",
      });
    const own = await uploadImage(ctx, gif());
    const shared = await uploadImage(ctx, gif());
    const a = await product({ media: [{ url: own.url }, { url: shared.url }] });
    const b = await product({ media: [{ url: shared.url }] });
    const keeper = await product({ media: [{ url: shared.url }] });
    await bulkDeleteProducts(ctx, { ids: [a.id, b.id] });
    await settled();
    expect(await env.MEDIA.head(own.url.slice(1))).toBeNull();
    expect(await env.MEDIA.head(shared.url.slice(1))).not.toBeNull();
    expect((await merchant("GET", `/v1/products/${keeper.id}`)).status).toBe(200);
  });

  it("refuses staff without catalog.write (403) and deletes nothing", async () => {
    const a = await product();
    const before = await snapshot();
    const { ctx } = staff(["orders.write"]);
    const err = await bulkDeleteProducts(ctx, { ids: [a.id] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect(await snapshot()).toEqual(before);
    expect((await merchant("GET", `/v1/products/${a.id}`)).status).toBe(200);
  });
});
