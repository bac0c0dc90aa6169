import { describe, expect, it } from "vitest";
import { api, createProduct, getQuery, merchant, outboxRows, settledCatalogueSnapshot as snapshot, unique } from "../helpers";

/** Variants: per-variant edits, reset, options availability, the per-product and store-wide variant queries. */

const SIZE = { name: "Size", choices: [{ value: "S" }, { value: "M" }] };
const COLOR = {
  name: "Color",
  optionType: "color",
  choices: [
    { value: "#1F3A5F", description: "Navy" },
    { value: "#B5532C", description: "Rust" },
  ],
};
const DEFAULT_VARIANT_ID = "00000000-0000-0000-0000-000000000000";
const EVENT = { changed: "com.wix.ecommerce.catalog.api.v1.ProductChanged", variants: "com.wix.ecommerce.catalog.api.v1.VariantsChanged" };

function expectInvalid(res: { status: number; body: any }, field: string, rule?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.message).toMatch(/^INVALID_ARGUMENT: "/);
  const violations: { field: string; violatedRule: string }[] = res.body.details.validationError.fieldViolations;
  const hit = violations.find((v) => v.field === field);
  expect(hit, `${field} not among ${violations.map((v) => v.field).join(", ")}`).toBeDefined();
  if (rule) expect(hit!.violatedRule).toBe(rule);
}

function variantWith(product: { variants: any[] }, choices: Record<string, string>) {
  const found = product.variants.filter(
    (v) => Object.entries(choices).every(([k, c]) => v.choices[k] === c) && Object.keys(v.choices).length === Object.keys(choices).length,
  );
  expect(found, JSON.stringify(choices)).toHaveLength(1);
  return found[0];
}

const choiceOf = (options: any[], option: string, choice: string) =>
  options.find((o) => o.name === option).choices.find((c: any) => c.description === choice);

const getAsMerchant = async (id: string) => (await merchant("GET", `/v1/products/${id}?includeMerchantSpecificData=true`)).body.product;

/**
 * A 2 × 2 tee: tracked stock of 5 per variant, except M/Rust (sold out); S/Rust costs 11 instead of 10; Rust has its
 * own picture.
 */
async function tee(extra: Record<string, unknown> = {}) {
  const u = unique();
  return createProduct({
    name: `Variant Tee ${u}`,
    sku: `VT-${u}`,
    priceData: { price: 10 },
    costAndProfitData: { itemCost: 3 },
    manageVariants: true,
    stock: { trackInventory: true, quantity: 5 },
    productOptions: [SIZE, COLOR],
    media: [{ url: "https://cdn.example.com/tee.jpg" }, { url: "https://cdn.example.com/tee-rust.jpg", choice: { option: "Color", choice: "Rust" } }],
    variants: [
      { choices: { Size: "M", Color: "Rust" }, stock: { quantity: 0 } },
      { choices: { Size: "S", Color: "Rust" }, price: 11 },
    ],
    ...extra,
  });
}

describe("PATCH product variants", () => {
  it("sets price, cost, weight and SKU on every variant matching the choices; reads and priceRange follow; events are written", async () => {
    const p = await tee();
    const res = await merchant("PATCH", `/v1/products/${p.id}/variants`, {
      variants: [{ choices: { Size: "M" }, price: 12.5, cost: 4, weight: 0.3, sku: `M-${p.id.slice(0, 4)}` }],
    });
    expect(res.status).toBe(200);
    expect(res.body.variants).toHaveLength(4);
    for (const color of ["Navy", "Rust"]) {
      const v = variantWith(res.body, { Size: "M", Color: color });
      expect(v.variant).toMatchObject({
        priceData: { price: 12.5, formatted: { price: "$12.50" } },
        costAndProfitData: { itemCost: 4, profit: 8.5 },
        weight: 0.3,
        sku: `M-${p.id.slice(0, 4)}`,
      });
      expect(v.id).toBe(variantWith(p, { Size: "M", Color: color }).id);
    }
    // Untouched variants keep their own data.
    expect(variantWith(res.body, { Size: "S", Color: "Rust" }).variant).toMatchObject({ priceData: { price: 11 }, sku: p.sku });
    expect(variantWith(res.body, { Size: "S", Color: "Navy" }).variant.priceData.price).toBe(10);

    const after = await getAsMerchant(p.id);
    expect(after.variants).toEqual(res.body.variants);
    expect(after.priceRange).toEqual({ minValue: 10, maxValue: 12.5 });
    expect(after.weightRange).toEqual({ minValue: 0, maxValue: 0.3 });
    expect(after.costRange).toEqual({ minValue: 3, maxValue: 4 });
    expect(after.updatedDate > p.updatedDate).toBe(true);

    const events = (await outboxRows(p.id)).slice(1);
    expect(events.map((e) => e.type).sort()).toEqual([EVENT.changed, EVENT.variants]);
    const variantsEvent = events.find((e) => e.type === EVENT.variants)!;
    expect(variantsEvent).toMatchObject({ entity_id: p.id, actor_type: "APP", data: { productId: p.id } });
    expect(variantsEvent.data.variants.map((v: any) => v.variantId).sort()).toEqual(
      p.variants
        .filter((v: any) => v.choices.Size === "M")
        .map((v: any) => v.id)
        .sort(),
    );
    expect(events.find((e) => e.type === EVENT.changed)!.data).toEqual({ productId: p.id, changedFields: ["variants"] });
  });

  it("takes the SDK's body at the gateway path and changes visibility and stock by variant id", async () => {
    const p = await tee();
    const sNavy = variantWith(p, { Size: "S", Color: "Navy" }).id;
    const mNavy = variantWith(p, { Size: "M", Color: "Navy" }).id;
    const res = await merchant("PATCH", `/stores/v1/products/${p.id}/variants`, {
      id: p.id,
      variants: [
        { variantIds: [sNavy], visible: false, price: 3 },
        { variantIds: [mNavy], stock: { quantity: 0 } },
      ],
    });
    expect(res.status).toBe(200);

    // Shoppers no longer see S/Navy, nor its price in the range.
    const shopper = (await api("GET", `/v1/products/${p.id}`)).body.product;
    expect(shopper.variants.map((v: any) => v.id)).not.toContain(sNavy);
    expect(shopper.variants).toHaveLength(3);
    expect(shopper.priceRange).toEqual({ minValue: 10, maxValue: 11 });
    expect(choiceOf(shopper.productOptions, "Color", "Navy")).toMatchObject({ visible: true, inStock: false });
    // Both M variants are sold out now.
    expect(choiceOf(shopper.productOptions, "Size", "M")).toMatchObject({ visible: true, inStock: false });
    expect(choiceOf(shopper.productOptions, "Size", "S")).toMatchObject({ visible: true, inStock: true });
    expect(shopper.stock).toEqual({ trackInventory: true, quantity: 5, inStock: true, inventoryStatus: "PARTIALLY_OUT_OF_STOCK" });

    const asMerchant = await getAsMerchant(p.id);
    expect(asMerchant.variants).toHaveLength(4);
    expect(variantWith(asMerchant, { Size: "S", Color: "Navy" }).variant).toMatchObject({ visible: false, priceData: { price: 3 } });
    expect(variantWith(asMerchant, { Size: "M", Color: "Navy" }).stock).toEqual({ trackQuantity: true, quantity: 0, inStock: false });
  });

  it("sells out the whole product when every variant's stock reaches 0, and brings it back", async () => {
    const p = await tee();
    await merchant("PATCH", `/v1/products/${p.id}/variants`, {
      variants: [
        { choices: { Size: "S" }, stock: { quantity: 0 } },
        { choices: { Size: "M" }, stock: { quantity: 0 } },
      ],
    });
    expect((await api("GET", `/v1/products/${p.id}`)).body.product.stock).toEqual({
      trackInventory: true,
      quantity: 0,
      inStock: false,
      inventoryStatus: "OUT_OF_STOCK",
    });
    await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ choices: {}, stock: { quantity: 1 } }] });
    expect((await api("GET", `/v1/products/${p.id}`)).body.product.stock).toEqual({
      trackInventory: true,
      quantity: 4,
      inStock: true,
      inventoryStatus: "IN_STOCK",
    });
  });

  it("refuses variant data on a product whose manageVariants is off, changing nothing", async () => {
    const p = await createProduct({ name: `Unmanaged ${unique()}`, productOptions: [SIZE] });
    const before = await snapshot();
    const res = await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ choices: { Size: "S" }, price: 5 }] });
    expectInvalid(res, "manageVariants");
    expect(await snapshot()).toEqual(before);
  });

  it("refuses choices or ids that match no variant, and stock quantities on untracked products, changing nothing", async () => {
    const p = await tee();
    const untracked = await createProduct({ name: `Untracked ${unique()}`, manageVariants: true, productOptions: [SIZE] });
    const before = await snapshot();
    // A valid first entry does not get written when a later one is refused.
    expectInvalid(
      await merchant("PATCH", `/v1/products/${p.id}/variants`, {
        variants: [
          { choices: { Size: "S" }, price: 1 },
          { choices: { Size: "XL" }, price: 2 },
        ],
      }),
      "variants[1].choices",
    );
    expectInvalid(
      await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ choices: { Fabric: "Wool" }, price: 2 }] }),
      "variants[0].choices",
    );
    expectInvalid(
      await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ variantIds: [crypto.randomUUID()], price: 2 }] }),
      "variants[0].variantIds",
    );
    expectInvalid(await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ price: 2 }] }), "variants[0].choices", "REQUIRED_FIELD");
    expectInvalid(
      await merchant("PATCH", `/v1/products/${untracked.id}/variants`, { variants: [{ choices: { Size: "S" }, stock: { quantity: 3 } }] }),
      "variants[0].stock.quantity",
    );
    expect(await snapshot()).toEqual(before);
  });

  it("answers 404 for an unknown product", async () => {
    const res = await merchant("PATCH", `/v1/products/${crypto.randomUUID()}/variants`, { variants: [{ choices: { Size: "S" }, price: 1 }] });
    expect(res.status).toBe(404);
    expect(res.body.details.applicationError.code).toBe("PRODUCT_NOT_FOUND");
  });

  const badBodies: [string, unknown, string, string?][] = [
    ["no variants", {}, "variants", "REQUIRED_FIELD"],
    ["an empty list", { variants: [] }, "variants", "MIN_SIZE"],
    ["more than 1000 entries", { variants: Array.from({ length: 1001 }, () => ({ choices: { Size: "S" } })) }, "variants", "MAX_SIZE"],
    ["a negative price", { variants: [{ choices: { Size: "S" }, price: -1 }] }, "variants[0].price", "MIN"],
    ["a price given as a string", { variants: [{ choices: { Size: "S" }, price: "12" }] }, "variants[0].price", "VALIDATION"],
    ["a negative cost", { variants: [{ choices: { Size: "S" }, cost: -2 }] }, "variants[0].cost", "MIN"],
    ["a negative weight", { variants: [{ choices: { Size: "S" }, weight: -0.1 }] }, "variants[0].weight", "MIN"],
    ["a SKU of 41 characters", { variants: [{ choices: { Size: "S" }, sku: "s".repeat(41) }] }, "variants[0].sku", "MAX_LENGTH"],
    ["visible as a string", { variants: [{ choices: { Size: "S" }, visible: "no" }] }, "variants[0].visible", "VALIDATION"],
    ["a fractional quantity", { variants: [{ choices: { Size: "S" }, stock: { quantity: 1.5 } }] }, "variants[0].stock.quantity"],
    ["a negative quantity", { variants: [{ choices: { Size: "S" }, stock: { quantity: -1 } }] }, "variants[0].stock.quantity", "MIN"],
    ["a choice that is not a string", { variants: [{ choices: { Size: 5 } }] }, "variants[0].choices.Size", "VALIDATION"],
    ["variant ids that are not a list", { variants: [{ variantIds: "all" }] }, "variants[0].variantIds", "VALIDATION"],
  ];
  it.each(badBodies)("refuses %s with 400 naming the field, changing nothing", async (_label, body, field, rule) => {
    const p = await tee();
    const before = await snapshot();
    expectInvalid(await merchant("PATCH", `/v1/products/${p.id}/variants`, body), field, rule);
    expect(await snapshot()).toEqual(before);
  });
});

describe("reset variants to default", () => {
  it("gives every variant the product's price, cost, weight and SKU again and shows hidden ones, keeping stock", async () => {
    const p = await tee();
    await merchant("PATCH", `/v1/products/${p.id}/variants`, {
      variants: [{ choices: { Size: "M" }, price: 40, weight: 2, sku: "X", cost: 9, visible: false }],
    });
    const eventsBefore = (await outboxRows(p.id)).length;
    const res = await merchant("POST", `/stores/v1/products/${p.id}/variants/resetToDefault`, { id: p.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const after = await getAsMerchant(p.id);
    for (const v of after.variants) {
      expect(v.variant).toMatchObject({ priceData: { price: 10 }, costAndProfitData: { itemCost: 3 }, weight: 0, sku: p.sku, visible: true });
    }
    expect(after.priceRange).toEqual({ minValue: 10, maxValue: 10 });
    // Stock is not variant "data": M/Rust stays sold out.
    expect(variantWith(after, { Size: "M", Color: "Rust" }).stock.quantity).toBe(0);
    expect(variantWith(after, { Size: "S", Color: "Navy" }).stock.quantity).toBe(5);
    // The reset writes two events whose times can differ by a millisecond, so their order is not asserted.
    const resetEvents = (await outboxRows(p.id)).slice(eventsBefore).map((e) => e.type);
    expect(resetEvents).toContain(EVENT.variants);
  });

  it("answers 404 for an unknown product", async () => {
    const res = await merchant("POST", `/v1/products/${crypto.randomUUID()}/variants/resetToDefault`, {});
    expect(res.status).toBe(404);
  });
});

describe("product options availability", () => {
  const availability = (id: string, options: Record<string, string>, path = `/v1/products/${id}/productOptionsAvailability`) =>
    api("POST", path, { body: { id, options } });

  it("marks, for a partial selection, which choices of the other options are sold out", async () => {
    const p = await tee();
    const m = await availability(p.id, { Size: "M" });
    expect(m.status).toBe(200);
    expect(choiceOf(m.body.productOptions, "Color", "Navy")).toMatchObject({ inStock: true, visible: true });
    expect(choiceOf(m.body.productOptions, "Color", "Rust")).toMatchObject({ inStock: false, visible: true });
    expect(m.body.selectedVariant).toBeNull();
    expect(m.body.availableForPurchase).toBe(false);

    const rust = await availability(p.id, { Color: "Rust" });
    expect(choiceOf(rust.body.productOptions, "Size", "S")).toMatchObject({ inStock: true });
    expect(choiceOf(rust.body.productOptions, "Size", "M")).toMatchObject({ inStock: false });
    // Rust's own picture is the media shown for it.
    expect(rust.body.media.items.map((x: any) => x.image.url)).toEqual(["https://cdn.example.com/tee-rust.jpg"]);

    const none = await availability(p.id, {});
    for (const o of none.body.productOptions) for (const c of o.choices) expect(c.inStock).toBe(true);
    expect(none.body.media.items).toHaveLength(2);
  });

  it("returns the selected variant with its own price for a full selection", async () => {
    const p = await tee();
    const res = await availability(p.id, { Size: "S", Color: "Rust" }, `/stores-reader/v1/products/${p.id}/productOptionsAvailability`);
    expect(res.status).toBe(200);
    expect(res.body.selectedVariant).toMatchObject({
      id: variantWith(p, { Size: "S", Color: "Rust" }).id,
      choices: { Size: "S", Color: "Rust" },
      price: { currency: "USD", price: 11, discountedPrice: 11, formatted: { price: "$11.00" } },
      inStock: true,
      visible: true,
      quantity: 5,
    });
    expect(typeof res.body.selectedVariant.price.price).toBe("number");
    expect(res.body.availableForPurchase).toBe(true);
    // Shoppers get no cost data through this call.
    expect(JSON.stringify(res.body)).not.toContain("costAndProfitData");
  });

  it("is not available for purchase when the selected variant is sold out or hidden", async () => {
    const p = await tee();
    const soldOut = await availability(p.id, { Size: "M", Color: "Rust" });
    expect(soldOut.body.selectedVariant).toMatchObject({ id: variantWith(p, { Size: "M", Color: "Rust" }).id, inStock: false, quantity: 0 });
    expect(soldOut.body.availableForPurchase).toBe(false);

    await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ choices: { Size: "S", Color: "Navy" }, visible: false }] });
    const hidden = await availability(p.id, { Size: "S", Color: "Navy" });
    expect(hidden.body.selectedVariant).toBeNull();
    expect(hidden.body.availableForPurchase).toBe(false);
    expect(choiceOf((await availability(p.id, { Size: "S" })).body.productOptions, "Color", "Navy")).toMatchObject({
      visible: false,
      inStock: false,
    });
  });

  it("selects the default variant of a product without options", async () => {
    const p = await createProduct({ name: `Simple ${unique()}`, priceData: { price: 4 } });
    const res = await availability(p.id, {});
    expect(res.body.selectedVariant).toMatchObject({ id: DEFAULT_VARIANT_ID, price: { price: 4 } });
    expect(res.body.availableForPurchase).toBe(true);
  });

  it("refuses an unknown option or choice with 400, and answers 404 for a hidden product", async () => {
    const p = await tee();
    expectInvalid(await availability(p.id, { Fabric: "Wool" }), "options.Fabric");
    expectInvalid(await availability(p.id, { Size: "XXL" }), "options.Size");
    expectInvalid(await api("POST", `/v1/products/${p.id}/productOptionsAvailability`, { body: { options: { Size: 3 } } }), "options.Size");
    const hidden = await createProduct({ name: `Hidden ${unique()}`, visible: false });
    expect((await availability(hidden.id, {})).status).toBe(404);
  });
});

describe("per-product variants query", () => {
  it("filters by choices and by variant ids, pages with offset, and answers at the gateway path", async () => {
    const p = await tee();
    const m = await api("POST", `/stores-reader/v1/products/${p.id}/variants/query`, { body: { id: p.id, choices: { Size: "M" } } });
    expect(m.status).toBe(200);
    expect(m.body.variants.map((v: any) => v.choices)).toEqual([
      { Size: "M", Color: "Navy" },
      { Size: "M", Color: "Rust" },
    ]);
    expect(m.body.metadata).toEqual({ items: 2, offset: 0, total: 2 });

    const all = (await api("POST", `/v1/products/${p.id}/variants/query`, { body: {} })).body;
    expect(all.variants.map((v: any) => v.id)).toEqual(p.variants.map((v: any) => v.id));
    const page = await api("POST", `/v1/products/${p.id}/variants/query`, { body: { paging: { limit: 2, offset: 2 } } });
    expect(page.body.variants.map((v: any) => v.id)).toEqual(p.variants.slice(2).map((v: any) => v.id));
    expect(page.body.metadata).toEqual({ items: 2, offset: 2, total: 4 });

    const wanted = [p.variants[3].id, p.variants[0].id];
    const byIds = await api("POST", `/v1/products/${p.id}/variants/query`, { body: { variantIds: wanted } });
    expect(byIds.body.variants.map((v: any) => v.id).sort()).toEqual([...wanted].sort());

    // A limit of 0 means the default page, as in the query language.
    const zero = await api("POST", `/v1/products/${p.id}/variants/query`, { body: { paging: { limit: 0 } } });
    expect(zero.body.variants).toHaveLength(4);

    const both = await api("POST", `/v1/products/${p.id}/variants/query`, { body: { choices: { Color: "Rust" }, variantIds: wanted } });
    expect(both.body.variants.map((v: any) => v.choices)).toEqual([{ Size: "M", Color: "Rust" }]);
  });

  it("shows cost only to the merchant asking for it, and hidden variants only to the merchant", async () => {
    const p = await tee();
    await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ choices: { Size: "S", Color: "Navy" }, visible: false }] });
    const shopper = await api("POST", `/v1/products/${p.id}/variants/query`, { body: { includeMerchantSpecificData: true } });
    expect(shopper.body.variants).toHaveLength(3);
    expect(shopper.body.metadata.total).toBe(3);
    for (const v of shopper.body.variants) expect(v.variant).not.toHaveProperty("costAndProfitData");
    const owner = await merchant("POST", `/v1/products/${p.id}/variants/query`, { includeMerchantSpecificData: true });
    expect(owner.body.variants).toHaveLength(4);
    expect(owner.body.variants[0].variant.costAndProfitData).toMatchObject({ itemCost: 3 });
  });

  it("refuses bad paging and answers 404 for an unknown product", async () => {
    const p = await tee();
    expectInvalid(await api("POST", `/v1/products/${p.id}/variants/query`, { body: { paging: { limit: 101 } } }), "paging.limit", "MAX");
    expectInvalid(await api("POST", `/v1/products/${p.id}/variants/query`, { body: { paging: { offset: -1 } } }), "paging.offset", "MIN");
    expect((await api("POST", `/v1/products/${crypto.randomUUID()}/variants/query`, { body: {} })).status).toBe(404);
  });
});

describe("store variants", () => {
  it("queries variants across the store by product id, with each variant naming its product (GET .r and POST)", async () => {
    const p = await tee();
    const query = { query: { filter: { productId: p.id } } };
    const viaPost = await api("POST", "/v1/variants/query", { body: query });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body.variants).toHaveLength(4);
    expect(viaPost.body.metadata).toEqual({ items: 4, offset: 0, total: 4 });
    const sRust = viaPost.body.variants.find((v: any) => v.choices.Size === "S" && v.choices.Color === "Rust");
    const sRustId = variantWith(p, { Size: "S", Color: "Rust" }).id;
    expect(sRust).toMatchObject({
      id: `${p.id}-${sRustId}`,
      variantId: sRustId,
      productId: p.id,
      productName: p.name,
      managedVariant: true,
      variantName: "S | Rust",
      variant: { priceData: { price: 11 } },
      stock: { trackQuantity: true, quantity: 5, inStock: true },
      media: { image: { url: "https://cdn.example.com/tee-rust.jpg" } },
    });
    const viaGet = await getQuery("/stores-reader/v1/variants/query", query);
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toEqual(viaPost.body);

    const page = await api("POST", "/v1/variants/query", { body: { query: { ...query.query, paging: { limit: 1, offset: 1 } } } });
    expect(page.body.variants).toHaveLength(1);
    expect(page.body.metadata).toEqual({ items: 1, offset: 1, total: 4 });
  });

  it("filters by SKU and by several products", async () => {
    const a = await tee();
    const b = await tee();
    const sku = `SKU-${unique()}`;
    const target = variantWith(a, { Size: "M", Color: "Navy" }).id;
    await merchant("PATCH", `/v1/products/${a.id}/variants`, { variants: [{ variantIds: [target], sku }] });
    const bySku = await api("POST", "/v1/variants/query", { body: { query: { filter: { sku } } } });
    expect(bySku.body.variants.map((v: any) => v.id)).toEqual([`${a.id}-${target}`]);
    expect(bySku.body.variants[0].variant.sku).toBe(sku);
    // A variant without its own SKU is found by the product's.
    const byProductSku = await api("POST", "/v1/variants/query", { body: { query: { filter: { sku: b.sku } } } });
    expect(byProductSku.body.variants).toHaveLength(4);

    const both = await api("POST", "/v1/variants/query", { body: { query: { filter: { productId: { $in: [a.id, b.id] } } } } });
    expect(both.body.metadata.total).toBe(8);
    expectInvalid(await api("POST", "/v1/variants/query", { body: { query: { filter: { colour: "Rust" } } } }), "query.filter.colour");
  });

  it("gets one variant by <productId>-<variantId>, 404 for an unknown one, hidden ones only for the merchant", async () => {
    const p = await tee();
    const v = variantWith(p, { Size: "M", Color: "Navy" });
    const storeId = `${p.id}-${v.id}`;
    const res = await api("GET", `/stores-reader/v1/variants/${storeId}?id=${storeId}`);
    expect(res.status).toBe(200);
    expect(res.body.variant).toMatchObject({
      id: storeId,
      productId: p.id,
      variantId: v.id,
      choices: { Size: "M", Color: "Navy" },
      variant: { priceData: { price: 10 } },
    });
    expect((await api("GET", `/v1/variants/${storeId}`)).body).toEqual(res.body);

    for (const unknown of [`${p.id}-${crypto.randomUUID()}`, `${crypto.randomUUID()}-${v.id}`, "not-a-variant"]) {
      const missing = await api("GET", `/v1/variants/${unknown}`);
      expect(missing.status, unknown).toBe(404);
      expect(missing.body.details.applicationError.code).toBe("VARIANT_NOT_FOUND");
    }

    await merchant("PATCH", `/v1/products/${p.id}/variants`, { variants: [{ variantIds: [v.id], visible: false }] });
    expect((await api("GET", `/v1/variants/${storeId}`)).status).toBe(404);
    expect((await merchant("GET", `/v1/variants/${storeId}`)).status).toBe(200);
    const shopperQuery = await api("POST", "/v1/variants/query", { body: { query: { filter: { productId: p.id } } } });
    expect(shopperQuery.body.variants.map((x: any) => x.variantId)).not.toContain(v.id);
    expect(shopperQuery.body.metadata.total).toBe(3);
  });

  it("serves the default variant of a product without options", async () => {
    const p = await createProduct({ name: `Plain ${unique()}` });
    const res = await api("GET", `/v1/variants/${p.id}-${DEFAULT_VARIANT_ID}`);
    expect(res.status).toBe(200);
    expect(res.body.variant).toMatchObject({ productId: p.id, variantId: DEFAULT_VARIANT_ID, choices: {}, variantName: "" });
  });
});
