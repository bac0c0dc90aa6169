import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addProductMedia } from "#worker/catalog/product-media";
import { deleteProductOptions, updateProductVariants } from "#worker/catalog/product-variants";
import { updateProduct } from "#worker/catalog/product-writes";
import type { Ctx } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { api, createProduct, getQuery, merchant, outboxRows, settledCatalogueSnapshot as snapshot, unique } from "../helpers";

/** Products: create, read (V1 and V3), update, delete, media and options writes, and their events. */

const SIZE = { name: "Size", choices: [{ value: "S" }, { value: "M" }, { value: "L" }] };
const COLOR = {
  name: "Color",
  optionType: "color",
  choices: [
    { value: "#1F3A5F", description: "Navy" },
    { value: "#B5532C", description: "Rust" },
  ],
};
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DEFAULT_VARIANT_ID = "00000000-0000-0000-0000-000000000000";
const EVENT = {
  created: "com.wix.ecommerce.catalog.api.v1.ProductCreated",
  changed: "com.wix.ecommerce.catalog.api.v1.ProductChanged",
  deleted: "com.wix.ecommerce.catalog.api.v1.ProductDeleted",
  variants: "com.wix.ecommerce.catalog.api.v1.VariantsChanged",
};

/** Asserts a 400 INVALID_ARGUMENT naming `field` (with its rule, when given) in the wire's error shape. */
function expectInvalid(res: { status: number; body: any }, field: string, rule?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.message).toMatch(/^INVALID_ARGUMENT: "/);
  const violations: { field: string; violatedRule: string; data: unknown }[] = res.body.details.validationError.fieldViolations;
  const hit = violations.find((v) => v.field === field);
  expect(hit, `${field} not among ${violations.map((v) => v.field).join(", ")}`).toBeDefined();
  if (rule) expect(hit!.violatedRule).toBe(rule);
  for (const v of violations) expect(v.data).toEqual({});
}

function variantWith(product: any, choices: Record<string, string>) {
  const found = product.variants.filter(
    (v: any) => Object.keys(v.choices).length === Object.keys(choices).length && Object.entries(choices).every(([k, c]) => v.choices[k] === c),
  );
  expect(found, JSON.stringify(choices)).toHaveLength(1);
  return found[0];
}

const choiceOf = (product: any, option: string, choice: string) =>
  product.productOptions.find((o: any) => o.name === option).choices.find((c: any) => c.description === choice);

const getAsMerchant = async (id: string) => (await merchant("GET", `/v1/products/${id}?includeMerchantSpecificData=true`)).body.product;

describe("create product", () => {
  it("answers 200 with the whole V1 product, one variant per combination of choices, and a ProductCreated event", async () => {
    const u = unique();
    const res = await merchant("POST", "/v1/products", {
      product: {
        name: `Trail Tee ${u}`,
        description: "Soft cotton.\n\nMade to last.",
        sku: `TT-${u}`,
        weight: 0.25,
        priceData: { price: 19.99 },
        costAndProfitData: { itemCost: 7.5 },
        ribbon: "New",
        brand: "Fernhill",
        productOptions: [SIZE, COLOR],
      },
    });
    expect(res.status).toBe(200);
    const p = res.body.product;
    expect(p.id).toMatch(UUID);
    expect(p).toMatchObject({
      name: `Trail Tee ${u}`,
      slug: `trail-tee-${u}`,
      visible: true,
      productType: "physical",
      description: "Soft cotton.\n\nMade to last.",
      sku: `TT-${u}`,
      weight: 0.25,
      ribbon: "New",
      ribbons: [{ text: "New" }],
      brand: "Fernhill",
      manageVariants: false,
      discount: { type: "NONE", value: 0 },
      priceData: { currency: "USD", price: 19.99, discountedPrice: 19.99, formatted: { price: "$19.99", discountedPrice: "$19.99" } },
      priceRange: { minValue: 19.99, maxValue: 19.99 },
      weightRange: { minValue: 0.25, maxValue: 0.25 },
      stock: { trackInventory: false, inStock: true, inventoryStatus: "IN_STOCK" },
      costAndProfitData: { itemCost: 7.5, formattedItemCost: "$7.50", profit: 12.49, formattedProfit: "$12.49", profitMargin: 0.6248 },
      productPageUrl: { base: "https://shop.test/", path: `/products/trail-tee-${u}` },
      collectionIds: [],
    });
    expect(p.price).toEqual(p.priceData);
    expect(p.stock).not.toHaveProperty("quantity");
    expect(p.numericId).toMatch(/^\d+$/);
    expect(p.createdDate).toMatch(ISO);
    expect(p.updatedDate).toBe(p.createdDate);
    expect(p.lastUpdated).toMatch(ISO);

    // Options as given: a colour option keeps its code as the value and its name as the description.
    expect(p.productOptions.map((o: any) => [o.name, o.optionType, o.choices.map((c: any) => [c.value, c.description])])).toEqual([
      [
        "Size",
        "drop_down",
        [
          ["S", "S"],
          ["M", "M"],
          ["L", "L"],
        ],
      ],
      [
        "Color",
        "color",
        [
          ["#1F3A5F", "Navy"],
          ["#B5532C", "Rust"],
        ],
      ],
    ]);
    expect(choiceOf(p, "Size", "M")).toMatchObject({ inStock: true, visible: true });

    // 3 sizes × 2 colours = 6 variants, each naming one choice of every option.
    expect(p.variants).toHaveLength(6);
    const combos = p.variants.map((v: any) => `${v.choices.Size}/${v.choices.Color}`).sort();
    expect(combos).toEqual(["L/Navy", "L/Rust", "M/Navy", "M/Rust", "S/Navy", "S/Rust"]);
    expect(new Set(p.variants.map((v: any) => v.id)).size).toBe(6);
    for (const v of p.variants) {
      expect(v.id).toMatch(UUID);
      expect(v.variant).toMatchObject({ priceData: { price: 19.99, discountedPrice: 19.99 }, weight: 0.25, sku: `TT-${u}`, visible: true });
      expect(v.stock).toEqual({ trackQuantity: false, inStock: true });
    }

    // Floats are JSON numbers, never strings.
    for (const n of [
      p.weight,
      p.priceData.price,
      p.priceData.discountedPrice,
      p.costAndProfitData.profitMargin,
      p.priceRange.minValue,
      p.variants[0].variant.priceData.price,
    ]) {
      expect(typeof n).toBe("number");
    }

    // The merchant reads back exactly what create answered.
    expect(await getAsMerchant(p.id)).toEqual(p);

    const events = await outboxRows(p.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: EVENT.created, entity_id: p.id, actor_type: "APP" });
    expect(events[0].data).toMatchObject({
      productId: p.id,
      name: `Trail Tee ${u}`,
      slug: `trail-tee-${u}`,
      price: { currency: "USD", price: 19.99 },
    });
  });

  it("gives a product without options the single default variant", async () => {
    const p = await createProduct({ name: `Gift Card ${unique()}`, priceData: { price: 25 } });
    expect(p.productOptions).toEqual([]);
    expect(p.variants).toHaveLength(1);
    expect(p.variants[0]).toMatchObject({ id: DEFAULT_VARIANT_ID, choices: {}, variant: { priceData: { price: 25 } } });
  });

  it("derives the slug from the name, adds -2, -3 for a repeated name, and refuses an explicit duplicate slug with 409", async () => {
    const u = unique();
    const first = await createProduct({ name: `Camp Mug ${u}` });
    const second = await createProduct({ name: `Camp Mug ${u}` });
    const third = await createProduct({ name: `Camp Mug ${u}` });
    expect([first.slug, second.slug, third.slug]).toEqual([`camp-mug-${u}`, `camp-mug-${u}-2`, `camp-mug-${u}-3`]);
    expect((await createProduct({ name: `Café Crème ${u}!` })).slug).toBe(`cafe-creme-${u}`);
    // An 80-character name (the longest) makes an 80-character slug, and a repeat of it one with -2.
    const long = `${u} ${"Long Name ".repeat(8)}`.slice(0, 80);
    const longSlugs = [(await createProduct({ name: long })).slug, (await createProduct({ name: long })).slug];
    expect(longSlugs[0]).toHaveLength(80);
    expect(longSlugs[1]).toBe(`${longSlugs[0]}-2`);
    expect((await createProduct({ name: `Any name ${u}`, slug: `chosen-slug-${u}` })).slug).toBe(`chosen-slug-${u}`);

    const before = await snapshot();
    const dup = await merchant("POST", "/v1/products", { product: { name: `Other ${u}`, slug: `camp-mug-${u}`, priceData: { price: 1 } } });
    expect(dup.status).toBe(409);
    expect(dup.body.details.applicationError.code).toBe("DUPLICATE_SLUG");
    expect(await snapshot()).toEqual(before);
  });

  it("applies per-variant overrides given at create to the variants, priceRange and stock status", async () => {
    const u = unique();
    const p = await createProduct({
      name: `Override Tee ${u}`,
      priceData: { price: 20 },
      manageVariants: true,
      stock: { trackInventory: true, quantity: 4 },
      productOptions: [SIZE, COLOR],
      variants: [
        { choices: { Size: "L" }, price: 24.5 },
        { choices: { Size: "S", Color: "Rust" }, stock: { quantity: 0 } },
        { choices: { Size: "M", Color: "Navy" }, sku: `MN-${u}`, weight: 0.4, cost: 6, visible: false },
      ],
    });
    expect(p.manageVariants).toBe(true);
    for (const color of ["Navy", "Rust"]) expect(variantWith(p, { Size: "L", Color: color }).variant.priceData.price).toBe(24.5);
    expect(variantWith(p, { Size: "S", Color: "Navy" }).variant.priceData.price).toBe(20);
    expect(variantWith(p, { Size: "S", Color: "Rust" }).stock).toEqual({ trackQuantity: true, quantity: 0, inStock: false });
    expect(variantWith(p, { Size: "S", Color: "Navy" }).stock).toEqual({ trackQuantity: true, quantity: 4, inStock: true });
    expect(variantWith(p, { Size: "M", Color: "Navy" }).variant).toMatchObject({
      sku: `MN-${u}`,
      weight: 0.4,
      visible: false,
      costAndProfitData: { itemCost: 6 },
    });
    expect(p.priceRange).toEqual({ minValue: 20, maxValue: 24.5 });
    // 5 visible variants: four with 4 each, S/Rust with 0.
    expect(p.stock).toEqual({ trackInventory: true, quantity: 16, inStock: true, inventoryStatus: "PARTIALLY_OUT_OF_STOCK" });

    // Shoppers do not see the hidden variant.
    const shopper = (await api("GET", `/v1/products/${p.id}`)).body.product;
    expect(shopper.variants).toHaveLength(5);
    expect(shopper.variants.some((v: any) => v.choices.Size === "M" && v.choices.Color === "Navy")).toBe(false);
  });

  it("computes discountedPrice and the formatted prices for AMOUNT and PERCENT discounts", async () => {
    const amount = await createProduct({
      name: `Amount ${unique()}`,
      priceData: { price: 20 },
      costAndProfitData: { itemCost: 5 },
      discount: { type: "AMOUNT", value: 2.5 },
    });
    expect(amount.discount).toEqual({ type: "AMOUNT", value: 2.5 });
    expect(amount.priceData).toEqual({
      currency: "USD",
      price: 20,
      discountedPrice: 17.5,
      formatted: { price: "$20.00", discountedPrice: "$17.50" },
    });
    expect(amount.variants[0].variant.priceData.discountedPrice).toBe(17.5);
    // Profit is earned on the discounted price.
    expect(amount.costAndProfitData).toMatchObject({ itemCost: 5, profit: 12.5, profitMargin: 0.7143 });

    const percent = await createProduct({ name: `Percent ${unique()}`, priceData: { price: 19.99 }, discount: { type: "PERCENT", value: 15 } });
    expect(percent.priceData).toMatchObject({ price: 19.99, discountedPrice: 16.99, formatted: { price: "$19.99", discountedPrice: "$16.99" } });

    const big = await createProduct({ name: `Big Amount ${unique()}`, priceData: { price: 3 }, discount: { type: "AMOUNT", value: 10 } });
    expect(big.priceData.discountedPrice).toBe(0);
    expect(big.priceData.formatted.discountedPrice).toBe("$0.00");
  });

  it("computes the price per unit from pricePerUnitData and the discounted price", async () => {
    const ppu = { totalQuantity: 250, totalMeasurementUnit: "G", baseQuantity: 100, baseMeasurementUnit: "G" };
    const p = await createProduct({ name: `Coffee ${unique()}`, priceData: { price: 12 }, pricePerUnitData: ppu });
    expect(p.pricePerUnitData).toEqual(ppu);
    expect(p.priceData).toMatchObject({ price: 12, pricePerUnit: 4.8, formatted: { pricePerUnit: "$4.80" } });
    expect(p.variants[0].variant.priceData.pricePerUnit).toBe(4.8);

    const kg = await createProduct({
      name: `Coffee KG ${unique()}`,
      priceData: { price: 12 },
      discount: { type: "PERCENT", value: 50 },
      pricePerUnitData: { ...ppu, baseQuantity: 1, baseMeasurementUnit: "KG" },
    });
    // $6.00 for 250 g = $24.00 per kg.
    expect(kg.priceData).toMatchObject({ discountedPrice: 6, pricePerUnit: 24, formatted: { pricePerUnit: "$24.00" } });
  });

  it("reports stock as IN_STOCK, OUT_OF_STOCK or PARTIALLY_OUT_OF_STOCK, tracked or not", async () => {
    const untracked = await createProduct({ name: `Untracked ${unique()}` });
    expect(untracked.stock).toEqual({ trackInventory: false, inStock: true, inventoryStatus: "IN_STOCK" });

    const soldOut = await createProduct({ name: `Sold Out ${unique()}`, stock: { inStock: false }, productOptions: [SIZE] });
    expect(soldOut.stock).toEqual({ trackInventory: false, inStock: false, inventoryStatus: "OUT_OF_STOCK" });
    expect(soldOut.variants.every((v: any) => v.stock.inStock === false)).toBe(true);
    expect(choiceOf(soldOut, "Size", "S")).toMatchObject({ inStock: false, visible: true });

    const tracked = await createProduct({ name: `Tracked ${unique()}`, stock: { trackInventory: true, quantity: 3 } });
    expect(tracked.stock).toEqual({ trackInventory: true, quantity: 3, inStock: true, inventoryStatus: "IN_STOCK" });
    expect(tracked.variants[0].stock).toEqual({ trackQuantity: true, quantity: 3, inStock: true });

    const empty = await createProduct({ name: `Empty ${unique()}`, stock: { trackInventory: true, quantity: 0 } });
    expect(empty.stock).toEqual({ trackInventory: true, quantity: 0, inStock: false, inventoryStatus: "OUT_OF_STOCK" });

    // A quantity alone turns tracking on.
    const implied = await createProduct({ name: `Implied ${unique()}`, stock: { quantity: 2 } });
    expect(implied.stock).toMatchObject({ trackInventory: true, quantity: 2, inventoryStatus: "IN_STOCK" });

    const partial = await createProduct({
      name: `Partial ${unique()}`,
      manageVariants: true,
      productOptions: [SIZE],
      variants: [{ choices: { Size: "L" }, stock: { inStock: false } }],
    });
    expect(partial.stock).toEqual({ trackInventory: false, inStock: true, inventoryStatus: "PARTIALLY_OUT_OF_STOCK" });
    expect(choiceOf(partial, "Size", "L")).toMatchObject({ inStock: false, visible: true });
  });

  it("keeps media in order (first is the main media) and links media to the choice it shows", async () => {
    const p = await createProduct({
      name: `Media Tee ${unique()}`,
      productOptions: [COLOR],
      media: [
        { url: "https://cdn.example.com/tee-front.jpg", title: "Front", altText: "Tee, front", width: 1200, height: 1600 },
        { url: "/demo/tee-b5532c.svg", choice: { option: "Color", choice: "Rust" } },
        { url: "https://cdn.example.com/tee.mp4", mediaType: "video", thumbnailUrl: "https://cdn.example.com/tee-poster.jpg" },
      ],
    });
    const items = p.media.items;
    expect(items).toHaveLength(3);
    expect(p.media.mainMedia).toEqual(items[0]);
    expect(items[0]).toMatchObject({
      mediaType: "image",
      title: "Front",
      image: { url: "https://cdn.example.com/tee-front.jpg", width: 1200, height: 1600, altText: "Tee, front" },
    });
    // Site paths become absolute URLs on this origin.
    expect(items[1].image.url).toBe("https://shop.test/demo/tee-b5532c.svg");
    expect(items[2]).toMatchObject({ mediaType: "video", thumbnail: { url: "https://cdn.example.com/tee-poster.jpg" } });
    expect(items[2].video.files[0].url).toBe("https://cdn.example.com/tee.mp4");
    for (const m of items) expect(m.id).toMatch(UUID);

    expect(choiceOf(p, "Color", "Rust").media.items.map((m: any) => m.id)).toEqual([items[1].id]);
    expect(choiceOf(p, "Color", "Rust").media.mainMedia.id).toBe(items[1].id);
    expect(choiceOf(p, "Color", "Navy").media).toEqual({ mainMedia: null, items: [] });
  });

  it("keeps info sections and SEO data", async () => {
    const seoData = {
      tags: [{ type: "title", children: "The best tee", custom: false, disabled: false }],
      settings: { preventAutoRedirect: false, keywords: [{ term: "tee", isMain: true }] },
    };
    const sections = [
      { title: "Care", description: "Machine wash cold." },
      { title: "Fit", description: "Relaxed." },
    ];
    const p = await createProduct({ name: `Info Tee ${unique()}`, additionalInfoSections: sections, seoData });
    expect(p.additionalInfoSections).toEqual(sections);
    expect(p.seoData).toEqual(seoData);
    const v3 = (await api("GET", `/stores/v3/products/${p.id}`)).body.product;
    expect(v3.infoSections.map((s: any) => [s.title, s.plainDescription, s.description.nodes[0].nodes[0].textData.text])).toEqual([
      ["Care", "Machine wash cold.", "Machine wash cold."],
      ["Fit", "Relaxed.", "Relaxed."],
    ]);
    expect(v3.seoData).toEqual(seoData);
  });

  it("keeps a rich description as the V3 nodes and derives the plain one, and the other way round", async () => {
    const nodes = [
      {
        type: "HEADING",
        id: "h1",
        nodes: [{ type: "TEXT", id: "", textData: { text: "Built for trails", decorations: [] } }],
        headingData: { level: 2 },
      },
      {
        type: "PARAGRAPH",
        id: "p1",
        nodes: [
          { type: "TEXT", id: "", textData: { text: "Light and ", decorations: [] } },
          { type: "TEXT", id: "", textData: { text: "tough.", decorations: [{ type: "BOLD" }] } },
        ],
        paragraphData: {},
      },
    ];
    const rich = await createProduct({ name: `Rich ${unique()}`, richDescription: { nodes } });
    // The V1 description is HTML, as Wix's is.
    expect(rich.description).toBe("<h2>Built for trails</h2><p>Light and <strong>tough.</strong></p>");
    const richV3 = (await api("GET", `/stores/v3/products/${rich.id}`)).body.product;
    expect(richV3.description.nodes).toEqual(nodes);
    expect(richV3.description.metadata).toMatchObject({ createdTimestamp: rich.createdDate });
    expect(richV3.plainDescription).toBe("Built for trails\n\nLight and tough.");

    const plain = await createProduct({ name: `Plain ${unique()}`, description: "First paragraph.\n\nSecond paragraph." });
    const plainV3 = (await api("GET", `/stores/v3/products/${plain.id}`)).body.product;
    expect(plainV3.description.nodes.map((n: any) => [n.type, n.nodes[0].textData.text])).toEqual([
      ["PARAGRAPH", "First paragraph."],
      ["PARAGRAPH", "Second paragraph."],
    ]);
  });

  it("reads a description written as HTML into rich nodes: V1 answers HTML, V3 the nodes and plain text, no markup kept", async () => {
    const html = '<p>A tee.</p><ul><li>soft</li><li>organic</li></ul><script>alert(1)</script><p><a href="javascript:alert(2)">care</a></p>';
    const p = await createProduct({ name: `Html Tee ${unique()}`, description: html });
    expect(p.description).toBe("<p>A tee.</p><ul><li>soft</li><li>organic</li></ul><p>care</p>");
    const v3 = (await api("GET", `/stores/v3/products/${p.id}`)).body.product;
    expect(v3.plainDescription).toBe("A tee.\n\nsoft\norganic\n\ncare");
    expect(v3.description.nodes.map((n: any) => n.type)).toEqual(["PARAGRAPH", "BULLETED_LIST", "PARAGRAPH"]);
    expect(JSON.stringify(v3.description.nodes)).not.toMatch(/<|alert|javascript/);
    // Search reads the words, not the tags.
    const search = async (expression: string) =>
      (await api("POST", "/v1/products/query-platformized", { body: { query: { filter: { id: p.id }, search: { expression } } } })).body.products.map(
        (x: any) => x.id,
      );
    expect(await search("organic")).toEqual([p.id]);
    expect(await search("li")).toEqual([]);

    // An update in HTML is read the same way; one in Markdown (plain text is Markdown) too.
    const patched = await merchant("PATCH", `/v1/products/${p.id}`, {
      product: { description: "<h3>Care</h3><p>Wash <b>cold</b>.<br>Dry flat.</p>" },
    });
    expect(patched.body.product.description).toBe("<h3>Care</h3><p>Wash <strong>cold</strong>.<br>Dry flat.</p>");
    expect((await api("GET", `/stores/v3/products/${p.id}`)).body.product.plainDescription).toBe("Care\n\nWash cold.\nDry flat.");
    const md = await merchant("PATCH", `/v1/products/${p.id}`, { product: { description: "Soft **organic** cotton.\n\n- Wash cold\n- Dry flat" } });
    expect(md.body.product.description).toBe("<p>Soft <strong>organic</strong> cotton.</p><ul><li>Wash cold</li><li>Dry flat</li></ul>");
    expect((await api("GET", `/stores/v3/products/${p.id}`)).body.product.plainDescription).toBe("Soft organic cotton.\n\nWash cold\nDry flat");
  });

  it("creates a digital product", async () => {
    const p = await createProduct({ name: `E-book ${unique()}`, productType: "digital", priceData: { price: 9 } });
    expect(p.productType).toBe("digital");
    expect((await api("GET", `/stores/v3/products/${p.id}`)).body.product.productType).toBe("DIGITAL");
  });

  it("is served at the gateway path the SDK uses, with the SDK's body", async () => {
    const res = await merchant("POST", "/stores/v1/products", {
      product: { name: `Tee ${unique()}`, productType: "physical", priceData: { price: 10.5 }, description: "d", visible: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({ priceData: { price: 10.5 }, description: "d", visible: true });
  });
});

describe("get product", () => {
  it("answers the same product at the spec path and at the SDK's gateway path (path id repeated in the query)", async () => {
    const p = await createProduct({ name: `Both Mounts ${unique()}`, productOptions: [SIZE] });
    const spec = await api("GET", `/v1/products/${p.id}`);
    const gateway = await api("GET", `/stores-reader/v1/products/${p.id}?id=${p.id}`);
    expect(spec.status).toBe(200);
    expect(gateway.status).toBe(200);
    expect(gateway.body).toEqual(spec.body);
    expect(spec.body.product).toMatchObject({ id: p.id, name: p.name, slug: p.slug });
    expect(spec.body.product.variants).toHaveLength(3);
  });

  it("shows cost and profit only to the merchant who asks with includeMerchantSpecificData", async () => {
    const p = await createProduct({
      name: `Costly ${unique()}`,
      priceData: { price: 30 },
      costAndProfitData: { itemCost: 12 },
      productOptions: [SIZE],
    });
    const anonymous = (await api("GET", `/v1/products/${p.id}?includeMerchantSpecificData=true`)).body.product;
    const anonymousGateway = (await api("GET", `/stores-reader/v1/products/${p.id}?id=${p.id}&includeMerchantSpecificData=true`)).body.product;
    const merchantPlain = (await merchant("GET", `/v1/products/${p.id}`)).body.product;
    for (const product of [anonymous, anonymousGateway, merchantPlain]) {
      expect(product).not.toHaveProperty("costAndProfitData");
      expect(product).not.toHaveProperty("costRange");
      for (const v of product.variants) expect(v.variant).not.toHaveProperty("costAndProfitData");
    }
    const merchantData = await getAsMerchant(p.id);
    expect(merchantData.costAndProfitData).toMatchObject({ itemCost: 12, profit: 18, profitMargin: 0.6 });
    expect(merchantData.costRange).toEqual({ minValue: 12, maxValue: 12 });
    expect(merchantData.variants[0].variant.costAndProfitData).toMatchObject({ itemCost: 12, profit: 18 });
  });

  it("hides a hidden product from shoppers (404) but not from the merchant", async () => {
    const p = await createProduct({ name: `Hidden ${unique()}`, visible: false });
    for (const path of [`/v1/products/${p.id}`, `/stores-reader/v1/products/${p.id}?id=${p.id}`, `/stores/v3/products/${p.id}`]) {
      const res = await api("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body.details.applicationError).toMatchObject({ code: "PRODUCT_NOT_FOUND", data: { productId: p.id } });
    }
    const asMerchant = await merchant("GET", `/v1/products/${p.id}`);
    expect(asMerchant.status).toBe(200);
    expect(asMerchant.body.product.visible).toBe(false);
    expect((await merchant("GET", `/stores/v3/products/${p.id}`)).body.product.visible).toBe(false);
  });

  it("answers an unknown id with 404 PRODUCT_NOT_FOUND", async () => {
    const res = await api("GET", "/v1/products/00000000-0000-4000-8000-000000000000");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ message: "Product not found", details: { applicationError: { code: "PRODUCT_NOT_FOUND" } } });
  });
});

describe("update product", () => {
  it("changes only the fields a PATCH gives, bumps updatedDate, and writes ProductChanged", async () => {
    const u = unique();
    const before = await createProduct({
      name: `Patch Me ${u}`,
      description: "Original.",
      priceData: { price: 15 },
      costAndProfitData: { itemCost: 4 },
      discount: { type: "AMOUNT", value: 1 },
      brand: "Fernhill",
      ribbon: "Sale",
      weight: 1.2,
      productOptions: [SIZE],
      media: [{ url: "https://cdn.example.com/a.jpg" }],
      additionalInfoSections: [{ title: "Care", description: "Wash." }],
    });
    const res = await merchant("PATCH", `/v1/products/${before.id}`, { product: { name: `Renamed ${u}` } });
    expect(res.status).toBe(200);
    const after = res.body.product;
    expect(after).toEqual({ ...before, name: `Renamed ${u}`, updatedDate: after.updatedDate, lastUpdated: after.lastUpdated });
    expect(after.slug).toBe(`patch-me-${u}`);
    expect(after.updatedDate > before.updatedDate).toBe(true);
    expect(after.updatedDate).toMatch(ISO);
    expect(after.createdDate).toBe(before.createdDate);
    // A later read sees the rename.
    expect((await api("GET", `/v1/products/${before.id}`)).body.product.name).toBe(`Renamed ${u}`);

    const events = await outboxRows(before.id);
    expect(events.map((e) => e.type)).toEqual([EVENT.created, EVENT.changed]);
    expect(events[1]).toMatchObject({ entity_id: before.id, actor_type: "APP", data: { productId: before.id, changedFields: ["name"] } });
  });

  it("treats a PATCH that changes nothing as a no-op: same version, no event", async () => {
    const p = await createProduct({ name: `Same ${unique()}`, priceData: { price: 10 }, productOptions: [SIZE] });
    const res = await merchant("PATCH", `/v1/products/${p.id}`, { product: { name: p.name, priceData: { price: 10 }, id: p.id } });
    expect(res.status).toBe(200);
    expect(res.body.product).toEqual(p);
    expect((await outboxRows(p.id)).map((e) => e.type)).toEqual([EVENT.created]);
  });

  it("takes the SDK's updateProduct body at the gateway path and re-prices variants and ranges", async () => {
    const p = await createProduct({
      name: `Reprice ${unique()}`,
      priceData: { price: 10 },
      discount: { type: "PERCENT", value: 10 },
      productOptions: [SIZE],
    });
    const res = await merchant("PATCH", `/stores/v1/products/${p.id}`, { product: { priceData: { price: 12 }, id: p.id } });
    expect(res.status).toBe(200);
    expect(res.body.product.priceData).toMatchObject({ price: 12, discountedPrice: 10.8, formatted: { discountedPrice: "$10.80" } });
    expect(res.body.product.priceRange).toEqual({ minValue: 12, maxValue: 12 });
    expect(res.body.product.variants.every((v: any) => v.variant.priceData.price === 12)).toBe(true);
    expect(res.body.product.discount).toEqual({ type: "PERCENT", value: 10 });
  });

  it("regenerates variants when options change, keeping ids, overrides and stock of the combinations that survive", async () => {
    const before = await createProduct({
      name: `Regen ${unique()}`,
      manageVariants: true,
      stock: { trackInventory: true, quantity: 5 },
      productOptions: [SIZE, COLOR],
      variants: [{ choices: { Size: "M", Color: "Navy" }, price: 30, stock: { quantity: 2 } }],
    });
    const res = await merchant("PATCH", `/v1/products/${before.id}`, {
      product: {
        productOptions: [
          { name: "Size", choices: [{ value: "S" }, { value: "M" }] },
          { name: "Color", optionType: "color", choices: [...COLOR.choices, { value: "#A3B59A", description: "Sage" }] },
        ],
      },
    });
    expect(res.status).toBe(200);
    const after = res.body.product;
    expect(after.variants).toHaveLength(6);
    expect(after.variants.some((v: any) => v.choices.Size === "L")).toBe(false);

    const kept = variantWith(after, { Size: "M", Color: "Navy" });
    expect(kept.id).toBe(variantWith(before, { Size: "M", Color: "Navy" }).id);
    expect(kept.variant.priceData.price).toBe(30);
    expect(kept.stock.quantity).toBe(2);
    expect(variantWith(after, { Size: "S", Color: "Rust" }).id).toBe(variantWith(before, { Size: "S", Color: "Rust" }).id);
    expect(variantWith(after, { Size: "S", Color: "Rust" }).stock.quantity).toBe(5);

    const oldIds = new Set(before.variants.map((v: any) => v.id));
    for (const size of ["S", "M"]) {
      const sage = variantWith(after, { Size: size, Color: "Sage" });
      expect(oldIds.has(sage.id)).toBe(false);
      expect(sage.stock).toEqual({ trackQuantity: true, quantity: 0, inStock: false });
      expect(sage.variant.priceData.price).toBe(10);
    }
    expect(after.productOptions[1].choices.map((c: any) => c.value)).toEqual(["#1F3A5F", "#B5532C", "#A3B59A"]);

    const events = await outboxRows(before.id);
    const changed = events.find((e) => e.type === EVENT.changed)!;
    expect(changed.data.changedFields).toEqual(expect.arrayContaining(["productOptions", "variants"]));
    const variantsEvent = events.find((e) => e.type === EVENT.variants)!;
    expect(variantsEvent).toMatchObject({ entity_id: before.id, actor_type: "APP", data: { productId: before.id } });
    const removed = variantsEvent.data.variants
      .filter((v: any) => v.removed)
      .map((v: any) => v.variantId)
      .sort();
    expect(removed).toEqual(
      before.variants
        .filter((v: any) => v.choices.Size === "L")
        .map((v: any) => v.id)
        .sort(),
    );
  });

  it("turns inventory tracking on and off and sets every variant's stock", async () => {
    const p = await createProduct({ name: `Stocked ${unique()}`, productOptions: [SIZE] });
    const tracked = (await merchant("PATCH", `/v1/products/${p.id}`, { product: { stock: { trackInventory: true, quantity: 7 } } })).body.product;
    expect(tracked.stock).toEqual({ trackInventory: true, quantity: 21, inStock: true, inventoryStatus: "IN_STOCK" });
    expect(tracked.variants.map((v: any) => v.stock.quantity)).toEqual([7, 7, 7]);

    const empty = (await merchant("PATCH", `/v1/products/${p.id}`, { product: { stock: { quantity: 0 } } })).body.product;
    expect(empty.stock).toEqual({ trackInventory: true, quantity: 0, inStock: false, inventoryStatus: "OUT_OF_STOCK" });

    const untracked = (await merchant("PATCH", `/v1/products/${p.id}`, { product: { stock: { trackInventory: false, inStock: true } } })).body
      .product;
    expect(untracked.stock).toEqual({ trackInventory: false, inStock: true, inventoryStatus: "IN_STOCK" });
    expect(untracked.variants[0].stock).toEqual({ trackQuantity: false, inStock: true });

    // A quantity alone turns tracking on, as it does at create.
    const implied = (await merchant("PATCH", `/v1/products/${p.id}`, { product: { stock: { quantity: 2 } } })).body.product;
    expect(implied.stock).toEqual({ trackInventory: true, quantity: 6, inStock: true, inventoryStatus: "IN_STOCK" });
  });

  it("gives variants the product's data again when manageVariants is turned off", async () => {
    const p = await createProduct({
      name: `Unmanage ${unique()}`,
      priceData: { price: 10 },
      manageVariants: true,
      stock: { trackInventory: true, quantity: 2 },
      productOptions: [SIZE],
      variants: [{ choices: { Size: "L" }, price: 15, sku: "L-ONLY", visible: false, stock: { quantity: 7 } }],
    });
    const res = await merchant("PATCH", `/v1/products/${p.id}`, { product: { manageVariants: false } });
    expect(res.status).toBe(200);
    const after = res.body.product;
    expect(after.manageVariants).toBe(false);
    expect(after.priceRange).toEqual({ minValue: 10, maxValue: 10 });
    const large = variantWith(after, { Size: "L" });
    expect(large.variant).toMatchObject({ priceData: { price: 10 }, sku: "", visible: true });
    // Stock stays per variant.
    expect(large.stock.quantity).toBe(7);
    expect((await api("GET", `/v1/products/${p.id}`)).body.product.variants).toHaveLength(3);
  });

  it("changes the slug, and refuses one another product uses with 409", async () => {
    const u = unique();
    const a = await createProduct({ name: `Slug A ${u}` });
    const b = await createProduct({ name: `Slug B ${u}` });
    const moved = await merchant("PATCH", `/v1/products/${a.id}`, { product: { slug: `new-home-${u}` } });
    expect(moved.status).toBe(200);
    expect(moved.body.product).toMatchObject({ slug: `new-home-${u}`, productPageUrl: { path: `/products/new-home-${u}` } });
    // Keeping its own slug is fine.
    expect((await merchant("PATCH", `/v1/products/${a.id}`, { product: { slug: `new-home-${u}` } })).status).toBe(200);

    const before = await snapshot();
    const taken = await merchant("PATCH", `/v1/products/${b.id}`, { product: { slug: `new-home-${u}` } });
    expect(taken.status).toBe(409);
    expect(taken.body.details.applicationError.code).toBe("DUPLICATE_SLUG");
    expect(await snapshot()).toEqual(before);
  });

  it("clears brand, ribbon and discount with null", async () => {
    const p = await createProduct({ name: `Clear ${unique()}`, brand: "Fernhill", ribbon: "Sale", discount: { type: "AMOUNT", value: 1 } });
    const res = await merchant("PATCH", `/v1/products/${p.id}`, { product: { brand: null, ribbon: null, discount: null } });
    expect(res.status).toBe(200);
    expect(res.body.product).toMatchObject({
      brand: "",
      ribbon: "",
      ribbons: [],
      discount: { type: "NONE", value: 0 },
      priceData: { discountedPrice: 10 },
    });
  });

  it("answers 404 for an unknown id and writes no event", async () => {
    const id = crypto.randomUUID();
    const res = await merchant("PATCH", `/v1/products/${id}`, { product: { name: "Nobody" } });
    expect(res.status).toBe(404);
    expect(res.body.details.applicationError).toMatchObject({ code: "PRODUCT_NOT_FOUND", data: { productId: id } });
    expect(await outboxRows(id)).toEqual([]);
  });

  it("refuses a write based on a version that changed meanwhile with 409 CONFLICT, writing nothing", async () => {
    const p = await createProduct({ name: `Race ${unique()}`, manageVariants: true, productOptions: [SIZE] });
    // A D1 handle that lets another writer bump the product between the service's read and its batch.
    const racing = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "batch")
          return async (statements: D1PreparedStatement[]) => {
            await target
              .prepare("UPDATE products SET name = 'Other writer', updated_date = ? WHERE id = ?")
              .bind(new Date(Date.now() + 60_000).toISOString(), p.id)
              .run();
            return target.batch(statements);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const ctx: Ctx = {
      db: openDb(racing),
      env,
      auth: { kind: "apiKey", keyId: "owner", role: "OWNER" },
      currency: "USD",
      origin: "https://shop.test",
      waitUntil: () => {},
    };
    const writes: [string, () => Promise<unknown>][] = [
      ["update", () => updateProduct(ctx, p.id, { name: "Mine" })],
      ["variants", () => updateProductVariants(ctx, p.id, [{ choices: { Size: "S" }, price: 1 }])],
      ["media", () => addProductMedia(ctx, p.id, [{ url: "https://cdn.example.com/race.jpg" }])],
      ["options", () => deleteProductOptions(ctx, p.id)],
    ];
    for (const [label, write] of writes) {
      const before = await getAsMerchant(p.id);
      const err: any = await write().catch((e) => e);
      expect(err, label).toBeInstanceOf(ApiError);
      expect(err.status, label).toBe(409);
      expect(err.code, label).toBe("CONFLICT");
      const after = await getAsMerchant(p.id);
      // Only the other writer's change landed.
      expect({ ...after, updatedDate: 0, lastUpdated: 0 }, label).toEqual({ ...before, name: "Other writer", updatedDate: 0, lastUpdated: 0 });
    }
    expect((await outboxRows(p.id)).map((e) => e.type)).toEqual([EVENT.created]);
  });

  it("leaves the right events for every successful product write, each naming the product and the APP actor", async () => {
    const p = await createProduct({
      name: `Eventful ${unique()}`,
      brand: "B",
      ribbon: "R",
      manageVariants: true,
      productOptions: [COLOR],
      media: [{ url: "https://cdn.example.com/a.jpg" }],
    });
    const m = p.media.items[0].id;
    const steps: [string, string, unknown, string[]][] = [
      ["PATCH", `/v1/products/${p.id}`, { product: { description: "New words." } }, [EVENT.changed]],
      ["PATCH", `/v1/products/${p.id}/variants`, { variants: [{ choices: { Color: "Navy" }, price: 3 }] }, [EVENT.changed, EVENT.variants]],
      ["POST", `/v1/products/${p.id}/variants/resetToDefault`, {}, [EVENT.changed, EVENT.variants]],
      ["POST", `/v1/products/${p.id}/media`, { media: [{ url: "https://cdn.example.com/b.jpg" }] }, [EVENT.changed]],
      ["PATCH", `/v1/products/${p.id}/choices/media`, { media: [{ option: "Color", choice: "Rust", mediaIds: [m] }] }, [EVENT.changed]],
      ["POST", `/v1/products/${p.id}/choices/media/delete`, { media: [{ option: "Color", choice: "Rust", mediaIds: [m] }] }, [EVENT.changed]],
      ["POST", `/v1/products/${p.id}/media/delete`, { mediaIds: [m] }, [EVENT.changed]],
      ["POST", `/v1/products/${p.id}/remove-brand`, {}, [EVENT.changed]],
      ["POST", `/v1/products/${p.id}/remove-ribbon`, {}, [EVENT.changed]],
      ["DELETE", `/v1/products/${p.id}/options`, undefined, [EVENT.changed, EVENT.variants]],
      ["DELETE", `/v1/products/${p.id}`, undefined, [EVENT.deleted]],
    ];
    for (const [method, path, body, types] of steps) {
      const seen = (await outboxRows(p.id)).length;
      const res = await merchant(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(200);
      const fresh = (await outboxRows(p.id)).slice(seen);
      expect(fresh.map((e) => e.type).sort(), `${method} ${path}`).toEqual([...types].sort());
      for (const e of fresh) expect(e).toMatchObject({ entity_id: p.id, actor_type: "APP", actor_id: "owner", data: { productId: p.id } });
    }
  });
});

describe("delete product", () => {
  it("answers 200 {}; the product, its variants, store variants and collection memberships are gone; ProductDeleted is written", async () => {
    const p = await createProduct({ name: `Doomed ${unique()}`, productOptions: [SIZE] });
    const collection = (await merchant("POST", "/v1/collections", { collection: { name: `Doomed Shelf ${unique()}` } })).body.collection;
    expect((await merchant("POST", `/v1/collections/${collection.id}/productIds`, { productIds: [p.id] })).status).toBe(200);
    expect((await getAsMerchant(p.id)).collectionIds).toEqual([collection.id]);
    const res = await merchant("DELETE", `/v1/products/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await api("GET", `/v1/products/${p.id}`)).status).toBe(404);
    expect((await merchant("GET", `/v1/products/${p.id}`)).status).toBe(404);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM variants WHERE product_id = ?").bind(p.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
    expect((await api("GET", `/v1/variants/${p.id}-${p.variants[0].id}`)).status).toBe(404);
    expect((await api("POST", `/v1/products/${p.id}/variants/query`, { body: {} })).status).toBe(404);
    const members = await env.DB.prepare("SELECT count(*) AS n FROM collection_products WHERE product_id = ?").bind(p.id).first<{ n: number }>();
    expect(members!.n).toBe(0);
    const events = await outboxRows(p.id);
    expect(events.map((e) => e.type)).toEqual([EVENT.created, EVENT.deleted]);
    expect(events[1]).toMatchObject({ entity_id: p.id, actor_type: "APP", data: { productId: p.id } });
  });

  it("works at the gateway path with the id repeated in the query, as the SDK sends it", async () => {
    const p = await createProduct({ name: `Doomed SDK ${unique()}` });
    const res = await merchant("DELETE", `/stores/v1/products/${p.id}?id=${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await merchant("GET", `/v1/products/${p.id}`)).status).toBe(404);
  });

  it("answers 404 for an unknown (or already deleted) id and writes no event", async () => {
    const id = crypto.randomUUID();
    const before = await snapshot();
    const res = await merchant("DELETE", `/v1/products/${id}`);
    expect(res.status).toBe(404);
    expect(res.body.details.applicationError.code).toBe("PRODUCT_NOT_FOUND");
    expect(await outboxRows(id)).toEqual([]);
    expect(await snapshot()).toEqual(before);

    const p = await createProduct({ name: `Twice ${unique()}` });
    expect((await merchant("DELETE", `/v1/products/${p.id}`)).status).toBe(200);
    expect((await merchant("DELETE", `/v1/products/${p.id}`)).status).toBe(404);
    expect((await outboxRows(p.id)).filter((e) => e.type === EVENT.deleted)).toHaveLength(1);
  });
});

describe("media and options writes", () => {
  it("adds media (answer {}), appending to media.items, optionally linked to a choice", async () => {
    const p = await createProduct({ name: `Add Media ${unique()}`, productOptions: [COLOR], media: [{ url: "https://cdn.example.com/first.jpg" }] });
    const res = await merchant("POST", `/stores/v1/products/${p.id}/media`, {
      id: p.id,
      media: [
        { url: "https://cdn.example.com/second.jpg" },
        { url: "https://cdn.example.com/navy.jpg", choice: { option: "Color", choice: "Navy" } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const after = await getAsMerchant(p.id);
    expect(after.media.items.map((m: any) => m.image.url)).toEqual([
      "https://cdn.example.com/first.jpg",
      "https://cdn.example.com/second.jpg",
      "https://cdn.example.com/navy.jpg",
    ]);
    expect(after.media.mainMedia.image.url).toBe("https://cdn.example.com/first.jpg");
    expect(choiceOf(after, "Color", "Navy").media.items.map((m: any) => m.id)).toEqual([after.media.items[2].id]);
    const events = await outboxRows(p.id);
    expect(events.at(-1)).toMatchObject({ type: EVENT.changed, data: { productId: p.id, changedFields: ["media"] } });
  });

  it("removes media and unlinks it from choices; an unknown media id is refused and nothing changes", async () => {
    const p = await createProduct({
      name: `Remove Media ${unique()}`,
      productOptions: [COLOR],
      media: [{ url: "https://cdn.example.com/a.jpg" }, { url: "https://cdn.example.com/rust.jpg", choice: { option: "Color", choice: "Rust" } }],
    });
    const [a, rust] = p.media.items.map((m: any) => m.id);

    const before = await snapshot();
    const bad = await merchant("POST", `/v1/products/${p.id}/media/delete`, { mediaIds: [a, "not-a-media-id"] });
    expectInvalid(bad, "mediaIds[1]");
    expect(await snapshot()).toEqual(before);

    const res = await merchant("POST", `/stores/v1/products/${p.id}/media/delete`, { id: p.id, mediaIds: [rust] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const after = await getAsMerchant(p.id);
    expect(after.media.items.map((m: any) => m.id)).toEqual([a]);
    expect(choiceOf(after, "Color", "Rust").media.items).toEqual([]);
  });

  it("links media to choices and unlinks it again", async () => {
    const p = await createProduct({
      name: `Choice Media ${unique()}`,
      productOptions: [SIZE, COLOR],
      media: [{ url: "https://cdn.example.com/a.jpg" }, { url: "https://cdn.example.com/b.jpg" }],
    });
    const [a, b] = p.media.items.map((m: any) => m.id);
    const add = await merchant("PATCH", `/stores/v1/products/${p.id}/choices/media`, {
      id: p.id,
      media: [{ option: "Color", choice: "Rust", mediaIds: [b, a] }],
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({});
    let after = await getAsMerchant(p.id);
    expect(choiceOf(after, "Color", "Rust").media.items.map((m: any) => m.id)).toEqual([b, a]);
    expect(choiceOf(after, "Color", "Navy").media.items).toEqual([]);
    // Choosing Rust shows its media.
    const availability = await api("POST", `/v1/products/${p.id}/productOptionsAvailability`, { body: { options: { Color: "Rust" } } });
    expect(availability.body.media.items.map((m: any) => m.id)).toEqual([b, a]);
    expect(
      (await api("GET", `/stores/v3/products/${p.id}`)).body.product.options[1].choicesSettings.choices[1].linkedMedia.map((m: any) => m.id),
    ).toEqual([b, a]);

    const remove = await merchant("POST", `/stores/v1/products/${p.id}/choices/media/delete`, {
      id: p.id,
      media: [{ option: "Color", choice: "Rust", mediaIds: [b] }],
    });
    expect(remove.status).toBe(200);
    expect(remove.body).toEqual({});
    after = await getAsMerchant(p.id);
    expect(choiceOf(after, "Color", "Rust").media.items.map((m: any) => m.id)).toEqual([a]);
    expect(after.media.items).toHaveLength(2);

    const before = await snapshot();
    expectInvalid(
      await merchant("PATCH", `/v1/products/${p.id}/choices/media`, { media: [{ option: "Fabric", choice: "Rust", mediaIds: [a] }] }),
      "media[0].option",
    );
    expectInvalid(
      await merchant("PATCH", `/v1/products/${p.id}/choices/media`, { media: [{ option: "Color", choice: "Teal", mediaIds: [a] }] }),
      "media[0].choice",
    );
    expectInvalid(
      await merchant("PATCH", `/v1/products/${p.id}/choices/media`, { media: [{ option: "Color", choice: "Navy", mediaIds: [a, "nope"] }] }),
      "media[0].mediaIds[1]",
    );
    expectInvalid(
      await merchant("POST", `/v1/products/${p.id}/choices/media/delete`, { media: [{ option: "Size", choice: "XXL", mediaIds: [a] }] }),
      "media[0].choice",
    );
    expect(await snapshot()).toEqual(before);
  });

  it("deletes all options: one default variant holds the stock, manageVariants turns off", async () => {
    const p = await createProduct({
      name: `No Options ${unique()}`,
      manageVariants: true,
      stock: { trackInventory: true, quantity: 3 },
      productOptions: [SIZE],
      variants: [{ choices: { Size: "L" }, price: 99 }],
    });
    const res = await merchant("DELETE", `/stores/v1/products/${p.id}/options?id=${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    const after = await getAsMerchant(p.id);
    expect(after.productOptions).toEqual([]);
    expect(after.manageVariants).toBe(false);
    expect(after.variants).toHaveLength(1);
    expect(after.variants[0]).toMatchObject({ id: DEFAULT_VARIANT_ID, choices: {}, variant: { priceData: { price: 10 } }, stock: { quantity: 9 } });
    expect(after.stock).toEqual({ trackInventory: true, quantity: 9, inStock: true, inventoryStatus: "IN_STOCK" });
    expect(after.priceRange).toEqual({ minValue: 10, maxValue: 10 });
    // The delete's two events come from one request; their relative order depends on when the clock ticked.
    const [first, ...rest] = (await outboxRows(p.id)).map((e) => e.type);
    expect(first).toBe(EVENT.created);
    expect(rest.sort()).toEqual([EVENT.changed, EVENT.variants].sort());
  });

  it("removes the brand and the ribbon", async () => {
    const p = await createProduct({ name: `Branded ${unique()}`, brand: "Fernhill", ribbon: "New" });
    const brand = await merchant("POST", `/stores/v1/products/${p.id}/remove-brand`, { id: p.id });
    expect(brand.status).toBe(200);
    expect(brand.body).toEqual({});
    let after = await getAsMerchant(p.id);
    expect(after).toMatchObject({ brand: "", ribbon: "New" });
    const ribbon = await merchant("POST", `/stores/v1/products/${p.id}/remove-ribbon`, { id: p.id });
    expect(ribbon.status).toBe(200);
    expect(ribbon.body).toEqual({});
    after = await getAsMerchant(p.id);
    expect(after).toMatchObject({ brand: "", ribbon: "", ribbons: [] });
    const v3 = (await api("GET", `/stores/v3/products/${p.id}`)).body.product;
    expect(v3).not.toHaveProperty("brand");
    expect(v3).not.toHaveProperty("ribbon");
    const events = (await outboxRows(p.id)).filter((e) => e.type === EVENT.changed);
    expect(events.map((e) => e.data.changedFields)).toEqual([["brand"], ["ribbon"]]);
  });

  it("answers 404 for every media and options write on an unknown product", async () => {
    const id = crypto.randomUUID();
    const calls: [string, string, unknown][] = [
      ["POST", `/v1/products/${id}/media`, { media: [{ url: "https://cdn.example.com/a.jpg" }] }],
      ["POST", `/v1/products/${id}/media/delete`, { mediaIds: ["m"] }],
      ["PATCH", `/v1/products/${id}/choices/media`, { media: [{ option: "Color", choice: "Red", mediaIds: ["m"] }] }],
      ["POST", `/v1/products/${id}/choices/media/delete`, { media: [{ option: "Color", choice: "Red", mediaIds: ["m"] }] }],
      ["DELETE", `/v1/products/${id}/options`, undefined],
      ["POST", `/v1/products/${id}/remove-brand`, {}],
      ["POST", `/v1/products/${id}/remove-ribbon`, {}],
    ];
    for (const [method, path, body] of calls) {
      const res = await merchant(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.details.applicationError.code).toBe("PRODUCT_NOT_FOUND");
    }
    expect(await outboxRows(id)).toEqual([]);
  });
});

describe("V3 shape", () => {
  async function v3Fixture() {
    const u = unique();
    return createProduct({
      name: `V3 Jacket ${u}`,
      priceData: { price: 20 },
      costAndProfitData: { itemCost: 8 },
      discount: { type: "AMOUNT", value: 2 },
      weight: 0.5,
      brand: "Fernhill",
      ribbon: "New",
      manageVariants: true,
      stock: { trackInventory: true, quantity: 2 },
      pricePerUnitData: { totalQuantity: 1, totalMeasurementUnit: "KG", baseQuantity: 100, baseMeasurementUnit: "G" },
      productOptions: [SIZE, COLOR],
      variants: [{ choices: { Size: "L" }, price: 25, weight: 0.7 }],
      media: [
        { url: "https://cdn.example.com/jacket.jpg", altText: "Jacket" },
        { url: "https://cdn.example.com/rust.jpg", choice: { option: "Color", choice: "Rust" } },
      ],
      additionalInfoSections: [{ title: "Care", description: "Dry clean." }],
      description: "Warm.",
    });
  }

  it("answers GET /stores/v3/products/{id} in the V3 shape, from the same data", async () => {
    const p = await v3Fixture();
    const res = await api("GET", `/stores/v3/products/${p.id}`);
    expect(res.status).toBe(200);
    const v3 = res.body.product;
    expect(v3).toMatchObject({
      id: p.id,
      name: p.name,
      slug: p.slug,
      visible: true,
      productType: "PHYSICAL",
      plainDescription: "Warm.",
      createdDate: p.createdDate,
      updatedDate: p.updatedDate,
      currency: "USD",
      brand: { name: "Fernhill" },
      ribbon: { name: "New" },
      url: { relativePath: `/products/${p.slug}`, url: `https://shop.test/products/${p.slug}` },
      actualPriceRange: { minValue: { amount: "18.00", formattedAmount: "$18.00" }, maxValue: { amount: "23.00", formattedAmount: "$23.00" } },
      compareAtPriceRange: { minValue: { amount: "20.00" }, maxValue: { amount: "25.00" } },
      physicalProperties: {
        shippingWeightRange: { minValue: 0.5, maxValue: 0.7 },
        pricePerUnit: { settings: { quantity: 1, measurementUnit: "KG" } },
      },
      pricePerUnit: { quantity: 100, measurementUnit: "G" },
      inventory: { availabilityStatus: "IN_STOCK" },
      variantSummary: { variantCount: 6 },
    });
    expect(v3.description.nodes[0].nodes[0].textData.text).toBe("Warm.");
    expect(v3.infoSections[0]).toMatchObject({ title: "Care", plainDescription: "Dry clean." });
    expect(v3.media.main).toMatchObject({ mediaType: "IMAGE", image: { url: "https://cdn.example.com/jacket.jpg", altText: "Jacket" } });
    expect(v3.media.itemsInfo.items).toHaveLength(2);

    const [size, color] = v3.options;
    expect(size).toMatchObject({ name: "Size", optionRenderType: "TEXT_CHOICES" });
    expect(size.choicesSettings.choices.map((c: any) => [c.name, c.choiceType])).toEqual([
      ["S", "CHOICE_TEXT"],
      ["M", "CHOICE_TEXT"],
      ["L", "CHOICE_TEXT"],
    ]);
    expect(color).toMatchObject({ name: "Color", optionRenderType: "SWATCH_CHOICES" });
    expect(color.choicesSettings.choices.map((c: any) => [c.name, c.choiceType, c.colorCode, c.inStock, c.visible])).toEqual([
      ["Navy", "ONE_COLOR", "#1F3A5F", true, true],
      ["Rust", "ONE_COLOR", "#B5532C", true, true],
    ]);
    expect(color.choicesSettings.choices[1].image.url).toBe("https://cdn.example.com/rust.jpg");
    expect(color.choicesSettings.choices[1].linkedMedia).toHaveLength(1);

    expect(v3.variantsInfo.variants).toHaveLength(6);
    const large = v3.variantsInfo.variants.find((v: any) => v.id === variantWith(p, { Size: "L", Color: "Navy" }).id);
    expect(large).toMatchObject({
      price: { actualPrice: { amount: "23.00" }, compareAtPrice: { amount: "25.00" } },
      physicalProperties: { weight: 0.7, pricePerUnit: { settings: { quantity: 1, measurementUnit: "KG" }, value: "2.30" } },
      inventoryStatus: { inStock: true },
      inventory: { quantity: 2 },
    });
    expect(large.choices.map((c: any) => c.optionChoiceNames)).toEqual([
      { optionName: "Size", choiceName: "L", renderType: "TEXT_CHOICES" },
      { optionName: "Color", choiceName: "Navy", renderType: "SWATCH_CHOICES" },
    ]);
    expect(v3.minVariantPriceInfo).toMatchObject({
      actualPrice: { amount: "18.00", formattedAmount: "$18.00" },
      compareAtPrice: { amount: "20.00" },
      weight: 0.5,
      pricePerUnitData: { value: "1.80" },
    });
    // Shoppers get no revenue details; V3 money is decimal strings.
    expect(v3.minVariantPriceInfo).not.toHaveProperty("revenueDetails");
    expect(large).not.toHaveProperty("revenueDetails");
    for (const money of [v3.actualPriceRange.minValue.amount, large.price.actualPrice.amount]) expect(money).toMatch(/^\d+\.\d{2}$/);

    const asMerchant = (await merchant("GET", `/stores/v3/products/${p.id}`)).body.product;
    expect(asMerchant.minVariantPriceInfo.revenueDetails).toMatchObject({
      cost: { amount: "8.00" },
      profit: { amount: "10.00" },
      profitMargin: 0.5556,
    });
  });

  it("answers the V3 query (GET .r and POST) with the same V3 products, cursor-paged", async () => {
    const a = await v3Fixture();
    const b = await v3Fixture();
    const query = { query: { filter: { id: { $in: [a.id, b.id] } }, sort: [{ fieldName: "name", order: "ASC" }] } };
    const viaGet = await getQuery("/stores/v3/products/query", query);
    const viaPost = await api("POST", "/stores/v3/products/query", { body: query });
    expect(viaGet.status).toBe(200);
    expect(viaPost.body).toEqual(viaGet.body);
    const sorted = [a, b].sort((x, y) => (x.name < y.name ? -1 : 1));
    expect(viaGet.body.products.map((p: any) => p.id)).toEqual(sorted.map((p) => p.id));
    for (const p of viaGet.body.products) expect(p).toEqual((await api("GET", `/stores/v3/products/${p.id}`)).body.product);
    expect(viaGet.body.pagingMetadata).toMatchObject({ count: 2, total: 2, hasNext: false });

    const page1 = await api("POST", "/stores/v3/products/query", { body: { query: { ...query.query, cursorPaging: { limit: 1 } } } });
    expect(page1.body.products.map((p: any) => p.id)).toEqual([sorted[0].id]);
    expect(page1.body.pagingMetadata.hasNext).toBe(true);
    const page2 = await api("POST", "/stores/v3/products/query", {
      body: { query: { ...query.query, cursorPaging: { limit: 1, cursor: page1.body.pagingMetadata.cursors.next } } },
    });
    expect(page2.body.products.map((p: any) => p.id)).toEqual([sorted[1].id]);
    expect(page2.body.pagingMetadata.hasNext).toBe(false);

    // A cursor this server did not issue is a bad argument, never a 500.
    for (const cursor of ["!!!", "not a cursor", "LTE"]) {
      expectInvalid(
        await api("POST", "/stores/v3/products/query", { body: { query: { cursorPaging: { cursor } } } }),
        "query.cursorPaging.cursor",
        "FORMAT",
      );
    }
  });
});

describe("bad input on product writes", () => {
  const tooManyChoices = (n: number, name: string) => ({ name, choices: Array.from({ length: n }, (_, i) => ({ value: `${name}${i}` })) });
  const createCases: [string, Record<string, unknown>, string, string?][] = [
    ["a name of 81 characters", { name: "x".repeat(81) }, "product.name", "MAX_LENGTH"],
    ["an empty name", { name: "" }, "product.name", "REQUIRED_FIELD"],
    ["no name", { name: undefined }, "product.name", "REQUIRED_FIELD"],
    ["no priceData", { priceData: undefined }, "product.priceData", "REQUIRED_FIELD"],
    ["a price given as a string", { priceData: { price: "10" } }, "product.priceData.price", "VALIDATION"],
    ["a negative price", { priceData: { price: -1 } }, "product.priceData.price", "MIN"],
    ["a negative cost", { costAndProfitData: { itemCost: -0.01 } }, "product.costAndProfitData.itemCost", "MIN"],
    ["an unknown product type", { productType: "service" }, "product.productType", "INVALID_ENUM_VALUE"],
    ["an unknown discount type", { discount: { type: "HALF", value: 1 } }, "product.discount.type", "INVALID_ENUM_VALUE"],
    ["a PERCENT discount over 100", { discount: { type: "PERCENT", value: 101 } }, "product.discount.value"],
    [
      "a bad colour code",
      { productOptions: [{ name: "Color", optionType: "color", choices: [{ value: "red" }] }] },
      "product.productOptions[0].choices[0].value",
      "FORMAT",
    ],
    [
      "an unknown option type",
      { productOptions: [{ name: "Color", optionType: "swatch", choices: [{ value: "#000000" }] }] },
      "product.productOptions[0].optionType",
      "INVALID_ENUM_VALUE",
    ],
    ["an option without choices", { productOptions: [{ name: "Size", choices: [] }] }, "product.productOptions[0].choices", "MIN_SIZE"],
    ["a repeated option", { productOptions: [SIZE, SIZE] }, "product.productOptions[1].name"],
    [
      "a repeated choice",
      { productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "S" }] }] },
      "product.productOptions[0].choices[1].description",
    ],
    [
      "options making more than 1000 variants",
      { productOptions: [tooManyChoices(11, "A"), tooManyChoices(10, "B"), tooManyChoices(10, "C")] },
      "product.productOptions",
      "MAX_SIZE",
    ],
    [
      "seven options",
      { productOptions: Array.from({ length: 7 }, (_, i) => ({ name: `O${i}`, choices: [{ value: "x" }] })) },
      "product.productOptions",
      "MAX_SIZE",
    ],
    ["a slug with spaces and capitals", { slug: "Not A Slug" }, "product.slug", "FORMAT"],
    ["a media URL that is not http(s)", { media: [{ url: "javascript:alert(1)" }] }, "product.media[0].url", "FORMAT"],
    ["a weight given as a word", { weight: "heavy" }, "product.weight", "VALIDATION"],
    ["a negative stock quantity", { stock: { trackInventory: true, quantity: -1 } }, "product.stock.quantity", "MIN"],
    [
      "incompatible price-per-unit units",
      { pricePerUnitData: { totalQuantity: 1, totalMeasurementUnit: "KG", baseQuantity: 1, baseMeasurementUnit: "L" } },
      "product.pricePerUnitData.baseMeasurementUnit",
    ],
    [
      "an unknown measurement unit",
      { pricePerUnitData: { totalQuantity: 1, totalMeasurementUnit: "STONE", baseQuantity: 1, baseMeasurementUnit: "KG" } },
      "product.pricePerUnitData.totalMeasurementUnit",
      "INVALID_ENUM_VALUE",
    ],
    [
      "an unknown rich-content node type",
      { richDescription: { nodes: [{ type: "BLINK" }] } },
      "product.richDescription.nodes[0].type",
      "INVALID_ENUM_VALUE",
    ],
    [
      "variant overrides without manageVariants",
      { productOptions: [SIZE], variants: [{ choices: { Size: "S" }, price: 1 }] },
      "product.manageVariants",
    ],
    [
      "an override naming no variant",
      { manageVariants: true, productOptions: [SIZE], variants: [{ choices: { Size: "XXL" }, price: 1 }] },
      "product.variants[0].choices",
    ],
    [
      "an override with a negative price",
      { manageVariants: true, productOptions: [SIZE], variants: [{ choices: { Size: "S" }, price: -3 }] },
      "product.variants[0].price",
      "MIN",
    ],
    [
      "an override quantity on an untracked product",
      { manageVariants: true, productOptions: [SIZE], variants: [{ choices: { Size: "S" }, stock: { quantity: 3 } }] },
      "product.variants[0].stock.quantity",
    ],
    [
      "choice media naming no choice",
      { productOptions: [COLOR], media: [{ url: "https://cdn.example.com/a.jpg", choice: { option: "Color", choice: "Teal" } }] },
      "product.media[0].choice",
    ],
    [
      "more than 50 media items",
      { media: Array.from({ length: 51 }, (_, i) => ({ url: `https://cdn.example.com/${i}.jpg` })) },
      "product.media",
      "MAX_SIZE",
    ],
    [
      "more than 1000 variant overrides",
      { manageVariants: true, productOptions: [SIZE], variants: Array.from({ length: 1001 }, () => ({ choices: { Size: "S" } })) },
      "product.variants",
      "MAX_SIZE",
    ],
  ];

  it.each(createCases)("create refuses %s with 400 naming the field, and writes nothing", async (_label, patch, field, rule) => {
    const before = await snapshot();
    const res = await merchant("POST", "/v1/products", { product: { name: `Bad ${unique()}`, priceData: { price: 10 }, ...patch } });
    expectInvalid(res, field, rule);
    expect(await snapshot()).toEqual(before);
  });

  it("create refuses a body without a product object", async () => {
    const before = await snapshot();
    expectInvalid(await merchant("POST", "/v1/products", {}), "product", "REQUIRED_FIELD");
    expectInvalid(await merchant("POST", "/v1/products", { product: "Tee" }), "product", "VALIDATION");
    expect(await snapshot()).toEqual(before);
  });

  const updateCases: [string, Record<string, unknown>, string, string?][] = [
    ["a name of 81 characters", { name: "y".repeat(81) }, "product.name", "MAX_LENGTH"],
    ["an empty name", { name: "" }, "product.name", "REQUIRED_FIELD"],
    ["a negative price", { priceData: { price: -5 } }, "product.priceData.price", "MIN"],
    ["visible as a string", { visible: "yes" }, "product.visible", "VALIDATION"],
    [
      "a bad colour code",
      { productOptions: [{ name: "Color", optionType: "color", choices: [{ value: "#12345" }] }] },
      "product.productOptions[0].choices[0].value",
      "FORMAT",
    ],
    [
      "options making more than 1000 variants",
      { productOptions: [tooManyChoices(11, "A"), tooManyChoices(10, "B"), tooManyChoices(10, "C")] },
      "product.productOptions",
      "MAX_SIZE",
    ],
    ["an id that differs from the path", { id: "00000000-0000-4000-8000-000000000000" }, "product.id"],
    ["a bad slug", { slug: "bad_slug" }, "product.slug", "FORMAT"],
    ["an unknown product type", { productType: "bundle" }, "product.productType", "INVALID_ENUM_VALUE"],
    ["variant overrides while manageVariants is off", { variants: [{ choices: { Size: "S" }, price: 3 }] }, "product.manageVariants"],
    ["a ribbon of 31 characters", { ribbon: "r".repeat(31) }, "product.ribbon", "MAX_LENGTH"],
  ];

  it.each(updateCases)("update refuses %s with 400 naming the field, and changes nothing", async (_label, patch, field, rule) => {
    const p = await createProduct({ name: `Target ${unique()}`, productOptions: [SIZE] });
    const before = await snapshot();
    const res = await merchant("PATCH", `/v1/products/${p.id}`, { product: patch });
    expectInvalid(res, field, rule);
    expect(await snapshot()).toEqual(before);
  });

  it("media writes refuse bad bodies with 400 naming the field, and change nothing", async () => {
    const p = await createProduct({ name: `Media Target ${unique()}`, productOptions: [COLOR], media: [{ url: "https://cdn.example.com/a.jpg" }] });
    const cases: [string, string, unknown, string][] = [
      ["POST", "media", {}, "media"],
      ["POST", "media", { media: [] }, "media"],
      ["POST", "media", { media: [{ url: "ftp://cdn.example.com/a.jpg" }] }, "media[0].url"],
      ["POST", "media", { media: [{ url: "https://cdn.example.com/a.jpg", width: -1 }] }, "media[0].width"],
      ["POST", "media", { media: [{ url: "https://cdn.example.com/a.jpg", mediaType: "gif" }] }, "media[0].mediaType"],
      ["POST", "media", { media: [{ url: "https://cdn.example.com/a.jpg", choice: { option: "Color", choice: "Teal" } }] }, "media[0].choice"],
      ["POST", "media", { media: Array.from({ length: 50 }, (_, i) => ({ url: `https://cdn.example.com/${i}.jpg` })) }, "media"],
      ["POST", "media/delete", { mediaIds: [] }, "mediaIds"],
      ["POST", "media/delete", { mediaIds: [42] }, "mediaIds[0]"],
      ["PATCH", "choices/media", { media: [{ option: "Color", choice: "Navy" }] }, "media[0].mediaIds"],
      ["PATCH", "choices/media", { media: [{ option: "", choice: "Navy", mediaIds: ["x"] }] }, "media[0].option"],
      ["POST", "choices/media/delete", { media: "all" }, "media"],
    ];
    const before = await snapshot();
    for (const [method, suffix, body, field] of cases) {
      const res = await merchant(method, `/v1/products/${p.id}/${suffix}`, body);
      expectInvalid(res, field);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("numericId", () => {
  it("is never handed out twice, even after the newest product is deleted", async () => {
    const first = await createProduct({ name: `Numbered ${unique()}` });
    const del = await merchant("DELETE", `/v1/products/${first.id}`);
    expect(del.status).toBe(200);
    const second = await createProduct({ name: `Numbered ${unique()}` });
    expect(Number(second.numericId)).toBeGreaterThan(Number(first.numericId));
  });
});
