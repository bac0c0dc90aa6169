import { ApiKeyStrategy, createClient } from "@wix/sdk";
import { collections, products } from "@wix/stores";
import { describe, expect, it } from "vitest";
import { redirectWixHosts, rejection } from "../wix-sdk-host";
import { OWNER_KEY, unique } from "../helpers";

/**
 * The unmodified official Wix SDK (@wix/sdk + @wix/stores) as a real client of the Worker. Only the host is
 * redirected: requests the SDK sends to www/edge.wixapis.com go, with the same method, path,
 * query, headers and body, to the Worker; everything else the SDK does is its own.
 */

const sent = redirectWixHosts();

/** The merchant's client: the owner API key, as an admin integration would use it. */
const merchant = () => createClient({ modules: { products, collections }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });

/** A storefront-style reader (no token server yet: identity comes later, so this one holds an API key too). */
const reader = () => createClient({ modules: { products, collections }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });

type Client = ReturnType<typeof merchant>;

/** A tee with Size × Color options (6 variants) that manages its variants. */
async function createTee(client: Client, name = `SDK Tee ${unique()}`) {
  const { product } = await client.products.createProduct({
    name,
    productType: "physical",
    description: "Heavyweight organic cotton.",
    priceData: { price: 24.5 },
    costAndProfitData: { itemCost: 10 },
    weight: 0.25,
    brand: "Fernhill",
    ribbon: "New",
    manageVariants: true,
    productOptions: [
      {
        name: "Size",
        optionType: "drop_down",
        choices: [
          { value: "S", description: "S" },
          { value: "M", description: "M" },
          { value: "L", description: "L" },
        ],
      },
      {
        name: "Color",
        optionType: "color",
        choices: [
          { value: "#1F3A5F", description: "Navy" },
          { value: "#B5532C", description: "Rust" },
        ],
      },
    ],
  });
  return product!;
}

/** A plain product (no options) at a given price. */
async function createPlain(client: Client, name: string, price: number) {
  const { product } = await client.products.createProduct({
    name,
    productType: "physical",
    priceData: { price },
    costAndProfitData: { itemCost: 1 },
  });
  return product!;
}

describe("the Wix SDK against the Worker: products", () => {
  it("creates a product with options and priceData, and reads it back with Dates and numbers", async () => {
    const client = merchant();
    const name = `SDK Tee ${unique()}`;
    const created = await createTee(client, name);

    expect(sent[0]).toMatchObject({ method: "POST", host: "www.wixapis.com", path: "/stores/v1/products" });
    expect(sent[0].headers.get("authorization")).toBe(OWNER_KEY);
    expect(sent[0].headers.get("wix-site-id")).toBe("site-1");

    expect(created._id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).not.toHaveProperty("id");
    expect(created.name).toBe(name);
    expect(created.slug).toMatch(/^sdk-tee-/);
    expect(created._createdDate).toBeInstanceOf(Date);
    expect(created.lastUpdated).toBeInstanceOf(Date);
    expect(created.priceData).toMatchObject({ currency: "USD", price: 24.5, discountedPrice: 24.5, formatted: { price: "$24.50" } });
    expect(created.costAndProfitData).toMatchObject({ itemCost: 10, profit: 14.5 });
    expect(created.weight).toBe(0.25);
    expect(created.brand).toBe("Fernhill");
    expect(created.ribbon).toBe("New");
    expect(created.productOptions!.map((o) => [o.name, o.optionType, o.choices!.map((c) => c.description)])).toEqual([
      ["Size", "drop_down", ["S", "M", "L"]],
      ["Color", "color", ["Navy", "Rust"]],
    ]);
    expect(created.variants).toHaveLength(6);
    for (const v of created.variants!) {
      expect(v._id).toEqual(expect.any(String));
      expect(v.variant!.priceData!.price).toBe(24.5);
    }
    expect(created.stock).toMatchObject({ inStock: true, inventoryStatus: "IN_STOCK" });

    const { product } = await reader().products.getProduct(created._id!);
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: `/stores-reader/v1/products/${created._id}` });
    expect(product!._id).toBe(created._id);
    expect(product!._createdDate).toBeInstanceOf(Date);
    expect(product!._createdDate!.getTime()).toBe(created._createdDate!.getTime());
    expect(Date.now() - product!._createdDate!.getTime()).toBeLessThan(60_000);
    expect(typeof product!.priceData!.price).toBe("number");
    expect(product!.price!.price).toBe(24.5);
    expect(product!.priceRange).toEqual({ minValue: 24.5, maxValue: 24.5 });
    expect(product!.weightRange).toEqual({ minValue: 0.25, maxValue: 0.25 });
    expect(product!.variants!.map((v) => v.choices)).toContainEqual({ Size: "M", Color: "Rust" });
    // Cost and profit are merchant data: only when asked for.
    expect(product!.costAndProfitData).toBeUndefined();
    const withCost = await client.products.getProduct(created._id!, { includeMerchantSpecificData: true });
    expect(withCost.product!.costAndProfitData).toMatchObject({ itemCost: 10, profit: 14.5 });
    expect(sent.at(-1)!.search).toContain("includeMerchantSpecificData=true");
  });

  it("updates a product and returns the new values", async () => {
    const client = merchant();
    const tee = await createTee(client);
    const { product } = await client.products.updateProduct(tee._id!, { name: "SDK Tee Renamed", priceData: { price: 30 }, weight: 0.5 });
    expect(sent.at(-1)).toMatchObject({ method: "PATCH", path: `/stores/v1/products/${tee._id}` });
    expect(product!._id).toBe(tee._id);
    expect(product!.name).toBe("SDK Tee Renamed");
    expect(product!.priceData!.price).toBe(30);
    expect(product!.weight).toBe(0.5);
    expect(product!.lastUpdated).toBeInstanceOf(Date);
    expect(product!.lastUpdated!.getTime()).toBeGreaterThanOrEqual(tee.lastUpdated!.getTime());
    expect(product!._createdDate!.getTime()).toBe(tee._createdDate!.getTime());
    const again = await reader().products.getProduct(tee._id!);
    expect(again.product!.name).toBe("SDK Tee Renamed");
    expect(again.product!.variants!.every((v) => v.variant!.priceData!.price === 30)).toBe(true);
  });

  it("queries with filters, sort and offset paging (GET ?.r=)", async () => {
    const client = merchant();
    const tag = unique();
    const made = [];
    for (const price of [18, 10, 14, 12, 16]) made.push(await createPlain(client, `Query ${tag} ${price}`, price));
    const { collection } = await client.products.createCollection({ name: `Query ${tag}` });
    await client.products.addProductsToCollection(
      collection!._id!,
      made.map((p) => p._id!),
    );

    sent.length = 0;
    const page = await reader()
      .products.queryProducts()
      .hasSome("collectionIds", [collection!._id!])
      .eq("productType", "physical")
      .gt("priceData.price", 11)
      .ascending("priceData.price")
      .limit(2)
      .find();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: "GET", path: "/stores-reader/v1/products/query-platformized" });
    expect(sent[0].search).toMatch(/^\?\.r=[A-Za-z0-9_-]+$/);
    expect(page.items.map((p) => p.priceData!.price)).toEqual([12, 14]);
    expect(page.items.map((p) => p.name)).toEqual([`Query ${tag} 12`, `Query ${tag} 14`]);
    expect(page.items[0]._id).toEqual(expect.any(String));
    expect(page.items[0]._createdDate).toBeInstanceOf(Date);
    expect(page.totalCount).toBe(4);
    expect(page.hasNext()).toBe(true);
    const next = await page.next();
    expect(next.items.map((p) => p.priceData!.price)).toEqual([16, 18]);
    expect(next.hasNext()).toBe(false);

    const skipped = await reader()
      .products.queryProducts()
      .hasSome("collectionIds", [collection!._id!])
      .ascending("priceData.price")
      .limit(2)
      .skip(1)
      .find();
    expect(skipped.items.map((p) => p.priceData!.price)).toEqual([12, 14]);
    expect(skipped.totalCount).toBe(5);

    const byName = await reader().products.queryProducts().eq("name", `Query ${tag} 16`).find();
    expect(byName.items.map((p) => p._id)).toEqual([made[4]._id]);
    expect(byName.totalCount).toBe(1);
    expect(byName.hasNext()).toBe(false);
  });

  it("falls back to POST for a query longer than 4000 characters (120 ids in $in)", async () => {
    const client = merchant();
    const tag = unique();
    const real = [
      await createPlain(client, `In ${tag} a`, 5),
      await createPlain(client, `In ${tag} b`, 6),
      await createPlain(client, `In ${tag} c`, 7),
    ];
    const ids = [...real.map((p) => p._id!), ...Array.from({ length: 117 }, () => crypto.randomUUID())];
    sent.length = 0;
    const result = await reader().products.queryProducts().in("_id", ids).ascending("priceData.price").find();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: "POST", path: "/stores-reader/v1/products/query-platformized", search: "" });
    expect(result.items.map((p) => p._id)).toEqual(real.map((p) => p._id));
    expect(result.totalCount).toBe(3);
  });

  it("answers options availability and variant queries", async () => {
    const client = merchant();
    const tee = await createTee(client);

    const full = await reader().products.getProductOptionsAvailability(tee._id!, { Size: "M", Color: "Navy" });
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores-reader/v1/products/${tee._id}/productOptionsAvailability` });
    expect(full.availableForPurchase).toBe(true);
    // The typings omit it, but the variant's id arrives renamed like every other id.
    expect((full.selectedVariant as { _id?: string })._id).toBe(
      tee.variants!.find((v) => v.choices!.Size === "M" && v.choices!.Color === "Navy")!._id,
    );
    expect(full.selectedVariant!.price!.price).toBe(24.5);
    expect(typeof full.selectedVariant!.weight).toBe("number");
    expect(full.productOptions!.map((o) => o.name)).toEqual(["Size", "Color"]);

    const partial = await reader().products.getProductOptionsAvailability(tee._id!, { Size: "M" });
    expect(partial.selectedVariant ?? null).toBeNull();
    expect(partial.availableForPurchase).toBe(false);
    expect(partial.productOptions!.find((o) => o.name === "Color")!.choices!.every((c) => c.inStock && c.visible)).toBe(true);

    const variants = await reader().products.queryProductVariants(tee._id!, { choices: { Size: "M" } });
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores-reader/v1/products/${tee._id}/variants/query` });
    expect(variants.variants!.map((v) => v.choices)).toEqual([
      { Size: "M", Color: "Navy" },
      { Size: "M", Color: "Rust" },
    ]);
    expect(variants.variants![0]._id).toEqual(expect.any(String));
    expect(variants.variants![0].variant!.priceData!.price).toBe(24.5);
    expect(variants.totalResults).toBe(2);

    const paged = await reader().products.queryProductVariants(tee._id!, { paging: { limit: 4, offset: 4 } });
    expect(paged.variants).toHaveLength(2);
    expect(paged.totalResults).toBe(6);
    expect(paged.metadata).toMatchObject({ items: 2, offset: 4 });
  });

  it("updates per-variant data and resets it to the product's", async () => {
    const client = merchant();
    const tee = await createTee(client);
    const { variants } = await client.products.updateProductVariants(tee._id!, [{ choices: { Size: "L" }, price: 29, weight: 0.3, sku: "TEE-L" }]);
    expect(sent.at(-1)).toMatchObject({ method: "PATCH", path: `/stores/v1/products/${tee._id}/variants` });
    expect(variants).toHaveLength(6);
    const large = variants!.filter((v) => v.choices!.Size === "L");
    expect(large).toHaveLength(2);
    for (const v of large) expect(v.variant).toMatchObject({ priceData: { price: 29 }, weight: 0.3, sku: "TEE-L" });
    for (const v of variants!.filter((x) => x.choices!.Size !== "L")) expect(v.variant!.priceData!.price).toBe(24.5);

    const picked = await reader().products.getProductOptionsAvailability(tee._id!, { Size: "L", Color: "Rust" });
    expect(picked.selectedVariant!.price!.price).toBe(29);
    const { product } = await reader().products.getProduct(tee._id!);
    expect(product!.priceRange).toEqual({ minValue: 24.5, maxValue: 29 });

    await expect(client.products.resetAllProductVariantData(tee._id!)).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/products/${tee._id}/variants/resetToDefault` });
    const reset = await reader().products.queryProductVariants(tee._id!, { choices: { Size: "L" } });
    for (const v of reset.variants!) expect(v.variant).toMatchObject({ priceData: { price: 24.5 }, weight: 0.25 });
  });

  it("adds, links and removes media, then deletes options, brand and ribbon", async () => {
    const client = merchant();
    const tee = await createTee(client);
    const navyUrl = "https://shop.test/demo/tee-1f3a5f.svg";
    const rustUrl = "https://shop.test/demo/tee-b5532c.svg";
    await expect(
      client.products.addProductMedia(tee._id!, [{ url: navyUrl }, { url: rustUrl, choice: { option: "Color", choice: "Rust" } }]),
    ).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/products/${tee._id}/media` });

    let { product } = await reader().products.getProduct(tee._id!);
    const items = product!.media!.items!;
    expect(items.map((m) => m.image!.url)).toEqual([navyUrl, rustUrl]);
    expect(items[0]._id).toEqual(expect.any(String));
    expect(product!.media!.mainMedia!._id).toBe(items[0]._id);
    const rustChoice = () => product!.productOptions!.find((o) => o.name === "Color")!.choices!.find((c) => c.description === "Rust")!;
    const navyChoice = () => product!.productOptions!.find((o) => o.name === "Color")!.choices!.find((c) => c.description === "Navy")!;
    expect(rustChoice().media!.items!.map((m) => m._id)).toEqual([items[1]._id]);

    await expect(
      client.products.addProductMediaToChoices(tee._id!, [{ option: "Color", choice: "Navy", mediaIds: [items[0]._id!] }]),
    ).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "PATCH", path: `/stores/v1/products/${tee._id}/choices/media` });
    ({ product } = await reader().products.getProduct(tee._id!));
    expect(navyChoice().media!.items!.map((m) => m._id)).toEqual([items[0]._id]);
    const navyView = await reader().products.getProductOptionsAvailability(tee._id!, { Color: "Navy" });
    expect(navyView.media!.items!.map((m) => m._id)).toEqual([items[0]._id]);

    await expect(client.products.removeProductMedia(tee._id!, [items[1]._id!])).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/products/${tee._id}/media/delete` });
    ({ product } = await reader().products.getProduct(tee._id!));
    expect(product!.media!.items!.map((m) => m._id)).toEqual([items[0]._id]);
    expect(rustChoice().media!.items).toEqual([]);

    await expect(client.products.deleteProductOptions(tee._id!)).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "DELETE", path: `/stores/v1/products/${tee._id}/options` });
    await expect(client.products.removeBrand(tee._id!)).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/products/${tee._id}/remove-brand` });
    await expect(client.products.removeRibbon(tee._id!)).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/products/${tee._id}/remove-ribbon` });

    ({ product } = await reader().products.getProduct(tee._id!));
    expect(product!.productOptions).toEqual([]);
    expect(product!.manageVariants).toBe(false);
    expect(product!.variants).toHaveLength(1);
    expect(product!.variants![0].choices).toEqual({});
    expect(product!.stock!.inStock).toBe(true);
    expect(product!.brand || null).toBeNull();
    expect(product!.ribbon || null).toBeNull();
    expect(product!.ribbons).toEqual([]);
    expect(product!.media!.items).toHaveLength(1);
  });

  it("deletes a product: 200 {} and then 404", async () => {
    const client = merchant();
    const doomed = await createPlain(client, `Doomed ${unique()}`, 3);
    await expect(client.products.deleteProduct(doomed._id!)).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "DELETE", path: `/stores/v1/products/${doomed._id}` });
    const err = await rejection(reader().products.getProduct(doomed._id!));
    expect(err.details.applicationError.code).toBe("PRODUCT_NOT_FOUND");
  });

  it("edits in bulk: results carry _id, originalIndex and success", async () => {
    const client = merchant();
    const a = await createPlain(client, `Bulk ${unique()} a`, 10);
    const b = await createPlain(client, `Bulk ${unique()} b`, 20);
    const missing = crypto.randomUUID();

    const update = await client.products.bulkUpdateProductsProperty([a._id!, missing, b._id!], { price: 9.99 });
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/stores/v1/bulk/products/update" });
    expect(update.results!.map((r) => [r.itemMetadata!._id, r.itemMetadata!.originalIndex, r.itemMetadata!.success])).toEqual([
      [a._id, 0, true],
      [missing, 1, false],
      [b._id, 2, true],
    ]);
    expect(update.results![1].itemMetadata!.error!.code).toBe("PRODUCT_NOT_FOUND");
    expect(update.bulkActionMetadata).toEqual({ totalSuccesses: 2, totalFailures: 1, undetailedFailures: 0 });
    expect((await reader().products.getProduct(a._id!)).product!.priceData!.price).toBe(9.99);

    const adjust = await client.products.bulkAdjustProductProperty({ price: { amount: 1.5 } }, [a._id!, b._id!]);
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/stores/v1/bulk/products/adjust-properties" });
    expect(adjust.results!.map((r) => [r.itemMetadata!._id, r.itemMetadata!.success])).toEqual([
      [a._id, true],
      [b._id, true],
    ]);
    expect(adjust.bulkActionMetadata).toMatchObject({ totalSuccesses: 2, totalFailures: 0 });
    expect((await reader().products.getProduct(a._id!)).product!.priceData!.price).toBe(11.49);
    expect((await reader().products.getProduct(b._id!)).product!.priceData!.price).toBe(11.49);

    const percent = await client.products.bulkAdjustProductProperty({ price: { percentage: { rate: 10, roundToInt: true } } }, [b._id!]);
    expect(percent.results![0].itemMetadata).toMatchObject({ _id: b._id, success: true });
    expect((await reader().products.getProduct(b._id!)).product!.priceData!.price).toBe(13);
  });

  it("surfaces a 404 as the SDK's application error", async () => {
    const id = crypto.randomUUID();
    const err = await rejection(reader().products.getProduct(id));
    expect(err.status).toBe(404);
    expect(err.details.applicationError).toMatchObject({ code: "PRODUCT_NOT_FOUND", description: `Product ${id} not found` });
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(err.message).message).toBe(`Product not found: Product ${id} not found`);
  });

  it("surfaces a refused create as the SDK's validation error", async () => {
    const err = await rejection(merchant().products.createProduct({ name: "", priceData: { price: 5 }, costAndProfitData: { itemCost: 1 } }));
    expect(err.status).toBe(400);
    // The SDK's error message is the pretty-printed {message, details}; its message is the server's, field first.
    const { message } = JSON.parse(err.message);
    expect(message.startsWith('INVALID_ARGUMENT: "')).toBe(true);
    expect(message).toBe('INVALID_ARGUMENT: "product.name" is required');
    expect(err.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const violations = err.details.validationError.fieldViolations;
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ violatedRule: "REQUIRED_FIELD", data: {} });
    expect(violations[0].field).toMatch(/name$/);
  });
});

describe("the Wix SDK against the Worker: collections", () => {
  it("creates, updates, fills, reads, queries, empties and deletes a collection", async () => {
    const client = merchant();
    const tag = unique();
    const p1 = await createPlain(client, `Coll ${tag} one`, 4);
    const p2 = await createPlain(client, `Coll ${tag} two`, 5);

    const { collection: created } = await client.products.createCollection({ name: `Summer ${tag}`, description: "Warm days." });
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: "/stores/v1/collections" });
    expect(created!._id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({ name: `Summer ${tag}`, slug: `summer-${tag}`, numberOfProducts: 0 });

    const { collection: updated } = await client.products.updateCollection(created!._id!, { name: `Summer Sale ${tag}` });
    expect(sent.at(-1)).toMatchObject({ method: "PATCH", path: `/stores/v1/collections/${created!._id}` });
    expect(updated).toMatchObject({ _id: created!._id, name: `Summer Sale ${tag}`, slug: `summer-${tag}` });

    await expect(client.products.addProductsToCollection(created!._id!, [p1._id!, p2._id!])).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/collections/${created!._id}/productIds` });

    // v2 getCollection returns the collection itself, not {collection}.
    const v2 = await reader().collections.getCollection(created!._id!);
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: `/v2/collections/${created!._id}` });
    expect(v2).toMatchObject({ _id: created!._id, name: `Summer Sale ${tag}`, numberOfProducts: 2, description: "Warm days." });
    expect(v2).not.toHaveProperty("collection");

    const bySlugV1 = await reader().products.getCollectionBySlug(`summer-${tag}`);
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: `/stores-reader/v1/collections/slug/summer-${tag}` });
    expect(bySlugV1.collection).toMatchObject({ _id: created!._id, numberOfProducts: 2 });
    const bySlugV2 = await reader().collections.getCollectionBySlug(`summer-${tag}`);
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: `/v2/collections/slug/summer-${tag}` });
    expect(bySlugV2.collection!._id).toBe(created!._id);

    const found = await reader().collections.queryCollections().eq("name", `Summer Sale ${tag}`).find();
    expect(sent.at(-1)).toMatchObject({ method: "GET", path: "/v2/collections/query" });
    expect(found.items.map((c) => c._id)).toEqual([created!._id]);
    expect(found.totalCount).toBe(1);
    expect(found.items[0].numberOfProducts).toBe(2);
    const members = await reader().products.queryProducts().hasSome("collectionIds", [created!._id!]).ascending("priceData.price").find();
    expect(members.items.map((p) => p._id)).toEqual([p1._id, p2._id]);
    expect(members.items[0].collectionIds).toContain(created!._id);

    await expect(client.products.removeProductsFromCollection(created!._id!, [p1._id!])).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores/v1/collections/${created!._id}/productIds/delete` });
    expect((await reader().collections.getCollection(created!._id!)).numberOfProducts).toBe(1);
    const left = await reader().products.queryProducts().hasSome("collectionIds", [created!._id!]).find();
    expect(left.items.map((p) => p._id)).toEqual([p2._id]);

    await expect(client.products.deleteCollection(created!._id!)).resolves.toBeUndefined();
    expect(sent.at(-1)).toMatchObject({ method: "DELETE", path: `/stores/v1/collections/${created!._id}` });
    const err = await rejection(reader().collections.getCollection(created!._id!));
    expect(err.status).toBe(404);
    expect(err.details.applicationError.code).toBe("COLLECTION_NOT_FOUND");
  });

  it("queries collections with the POST fallback too", async () => {
    const client = merchant();
    const tag = unique();
    const { collection } = await client.products.createCollection({ name: `Fallback ${tag}` });
    const ids = [collection!._id!, ...Array.from({ length: 119 }, () => crypto.randomUUID())];
    sent.length = 0;
    const found = await reader().collections.queryCollections().in("_id", ids).find();
    expect(sent[0]).toMatchObject({ method: "POST", path: "/v2/collections/query" });
    expect(found.items.map((c) => c._id)).toEqual([collection!._id]);
    expect(found.totalCount).toBe(1);
  });
});
