import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createProduct, getQuery, merchant, outboxRows, unique } from "../helpers";
import {
  DEFAULT_VARIANT_ID,
  EVENT,
  expectInvalid,
  logRows,
  publicProduct,
  sizedProduct,
  stockOf,
  stockSnapshot,
  trackedProduct,
  variantOf,
} from "./inventory-fixtures";

/** The merchant inventory calls at the Wix SDK's paths: query, getVariants, update, increment, decrement, history. */

const QUERY = "/stores-reader/v2/inventoryItems/query";
const INCREMENT = "/stores/v2/inventoryItems/increment";
const DECREMENT = "/stores/v2/inventoryItems/decrement";
const update = (productId: string) => `/stores/v2/inventoryItems/product/${productId}`;
const history = (productId: string, qs = "") => `/api/v1/inventory/${productId}/history${qs}`;

const eventsOf = async (productId: string, type: string) => (await outboxRows(productId)).filter((r) => r.type === type);

describe("auth", () => {
  it("answers 401 without a key on every inventory call, before reading the body, and changes nothing", async () => {
    const p = await trackedProduct(5);
    const before = await stockSnapshot();
    const calls: [string, string, unknown][] = [
      ["POST", QUERY, { query: {} }],
      ["GET", QUERY, undefined],
      ["POST", `/stores-reader/v2/inventoryItems/${p.id}/getVariants`, {}],
      ["PATCH", update(p.id), { inventoryItem: { trackQuantity: true, variants: [{ variantId: DEFAULT_VARIANT_ID, quantity: 1 }] } }],
      ["POST", INCREMENT, { incrementData: [{ productId: p.id, incrementBy: 1 }] }],
      ["POST", DECREMENT, { decrementData: [{ productId: p.id, decrementBy: 1 }] }],
      ["POST", DECREMENT, { decrementData: "not a list" }],
      ["POST", "/v2/inventoryItems/increment", { incrementData: [{ productId: p.id, incrementBy: 1 }] }],
      ["GET", history(p.id), undefined],
    ];
    for (const [method, path, body] of calls) {
      for (const key of [undefined, "", "wrong-key"]) {
        const res = await api(method, path, { body, key });
        expect(res.status, `${method} ${path} ${key}`).toBe(401);
        expect(res.body.details.applicationError.code).toBe("UNAUTHENTICATED");
      }
    }
    expect(await stockSnapshot()).toEqual(before);
  });
});

describe("query inventory items", () => {
  it("takes filter and sort as JSON strings (as the SDK sends them) and answers inventoryItems with metadata", async () => {
    const a = await trackedProduct(4);
    const b = await sizedProduct(2);
    const res = await merchant("POST", QUERY, {
      query: {
        filter: JSON.stringify({ productId: { $in: [a.id, b.id] } }),
        sort: JSON.stringify([{ fieldName: "numericId", order: "DESC" }]),
        paging: { limit: 10, offset: 0 },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata).toEqual({ items: 2, offset: 0, total: 2 });
    expect(res.body.inventoryItems.map((i: any) => i.id)).toEqual([b.id, a.id]);
    const [tee, mug] = res.body.inventoryItems;
    expect(mug).toMatchObject({
      id: a.id,
      productId: a.id,
      trackQuantity: true,
      numericId: String(a.numericId),
      lastUpdated: a.lastUpdated,
      preorderInfo: { enabled: false },
      variants: [{ variantId: DEFAULT_VARIANT_ID, inStock: true, quantity: 4, availableForPreorder: false, availabilityStatus: "IN_STOCK" }],
      availabilityStatus: "IN_STOCK",
    });
    expect(tee.variants.map((v: any) => [v.variantId, v.quantity])).toEqual([
      [variantOf(b, "S").id, 2],
      [variantOf(b, "M").id, 2],
    ]);
  });

  it("also takes object filters, the GET ?.r= encoding and the spec-style path; filters on trackQuantity", async () => {
    const tracked = await trackedProduct(1);
    const untracked = await createProduct({ name: `Untracked ${unique()}`, stock: { trackInventory: false, inStock: false } });
    const ids = [tracked.id, untracked.id];
    const viaGet = await getQuery(QUERY, { query: { filter: { id: { $in: ids }, trackQuantity: false } } }, "test-owner-key");
    expect(viaGet.status, JSON.stringify(viaGet.body)).toBe(200);
    expect(viaGet.body.inventoryItems).toHaveLength(1);
    expect(viaGet.body.inventoryItems[0]).toMatchObject({
      id: untracked.id,
      trackQuantity: false,
      variants: [{ inStock: false, quantity: null, availabilityStatus: "OUT_OF_STOCK" }],
      availabilityStatus: "OUT_OF_STOCK",
    });
    const spec = await merchant("POST", "/v2/inventoryItems/query", { query: { filter: JSON.stringify({ productId: tracked.id }) } });
    expect(spec.body.inventoryItems.map((i: any) => i.id)).toEqual([tracked.id]);
  });

  it("refuses a malformed query with field violations", async () => {
    expectInvalid(await merchant("POST", QUERY, { query: { filter: "{not json" } }), "query.filter", "FORMAT");
    expectInvalid(await merchant("POST", QUERY, { query: { filter: JSON.stringify({ color: "red" }) } }), "query.filter.color", "FIELD_NOT_ALLOWED");
    expectInvalid(
      await merchant("POST", QUERY, { query: { sort: JSON.stringify([{ fieldName: "trackQuantity" }]) } }),
      "query.sort[0].fieldName",
      "FIELD_NOT_ALLOWED",
    );
    expectInvalid(await merchant("POST", QUERY, { query: { paging: { limit: 101 } } }), "query.paging.limit", "MAX");
  });
});

describe("getVariants", () => {
  it("answers the item with all its variants, or only those asked for", async () => {
    const p = await sizedProduct(3);
    const m = variantOf(p, "M").id;
    const all = await merchant("POST", `/stores-reader/v2/inventoryItems/${p.id}/getVariants`, { inventoryId: p.id });
    expect(all.status).toBe(200);
    expect(all.body.inventoryItem).toMatchObject({ id: p.id, productId: p.id, trackQuantity: true });
    expect(all.body.inventoryItem.variants).toHaveLength(2);
    const one = await merchant("POST", `/v2/inventoryItems/${p.id}/getVariants`, { variantIds: [m] });
    expect(one.body.inventoryItem.variants).toEqual([expect.objectContaining({ variantId: m, quantity: 3, inStock: true })]);
  });

  it("answers 404 for an unknown item and 400 for a bad body", async () => {
    const res = await merchant("POST", "/stores-reader/v2/inventoryItems/nope/getVariants", {});
    expect(res.status).toBe(404);
    expect(res.body.details.applicationError).toMatchObject({ code: "INVENTORY_ITEM_NOT_FOUND", data: { inventoryId: "nope" } });
    const p = await trackedProduct(1);
    expectInvalid(await merchant("POST", `/stores-reader/v2/inventoryItems/${p.id}/getVariants`, { variantIds: "x" }), "variantIds");
  });
});

describe("update inventory variants (PATCH)", () => {
  it("sets quantities with a reason: log rows with cause MANUAL, events in the outbox, product stock refreshed", async () => {
    const p = await sizedProduct(5);
    const s = variantOf(p, "S").id;
    const m = variantOf(p, "M").id;
    const res = await merchant("PATCH", update(p.id), {
      inventoryItem: {
        productId: p.id,
        trackQuantity: true,
        variants: [
          { variantId: s, quantity: 0 },
          { variantId: m, quantity: 8 },
        ],
      },
      reason: "stock count",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({});

    const log = await logRows(p.id);
    expect(log.map((r) => [r.variant_id, r.delta, r.quantity_after, r.in_stock_after, r.cause, r.reason])).toEqual([
      [s, -5, 0, 0, "MANUAL", "stock count"],
      [m, 3, 8, 1, "MANUAL", "stock count"],
    ]);
    expect(log[0]).toMatchObject({ actor_type: "APP", order_id: null });

    const [changed] = await eventsOf(p.id, EVENT.itemChanged);
    expect(changed.data).toMatchObject({ inventoryItemId: p.id, productId: p.id, fieldMask: { paths: ["variants"] } });
    expect(Date.parse(changed.data.updatedDate)).toBeGreaterThan(Date.parse(p.updatedDate) - 1);
    const [variants] = await eventsOf(p.id, EVENT.variantsChanged);
    expect(variants.data.variants).toEqual([
      expect.objectContaining({ variantId: s, inStock: false, quantity: 0, oldValue: expect.objectContaining({ quantity: 5, inStock: true }) }),
      expect.objectContaining({ variantId: m, inStock: true, quantity: 8 }),
    ]);
    // S ran out: a stock status event naming only S.
    const [status] = await eventsOf(p.id, EVENT.stockStatus);
    expect(status.data).toMatchObject({ productId: p.id, inStock: true, variants: [{ variantId: s, inStock: false, quantity: 0 }] });
    const [withReason] = await eventsOf(p.id, EVENT.withReason);
    expect(withReason.data).toMatchObject({ reason: "MANUAL", reasonText: "stock count", currentEntity: { id: p.id, trackQuantity: true } });

    const product = await publicProduct(p.id);
    expect(product.stock).toMatchObject({ trackInventory: true, quantity: 8, inStock: true, inventoryStatus: "PARTIALLY_OUT_OF_STOCK" });
    expect(product.updatedDate).toBe(changed.data.updatedDate);
    expect(variantOf(product, "S").stock).toMatchObject({ quantity: 0, inStock: false });
  });

  it("turns tracking off (variants keep their in-stock state) and sets inStock of untracked variants", async () => {
    const p = await sizedProduct(2);
    const s = variantOf(p, "S").id;
    const off = await merchant("PATCH", update(p.id), { inventoryItem: { trackQuantity: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(await stockOf(p.id, s)).toEqual({ quantity: null, in_stock: 1 });
    const [changed] = await eventsOf(p.id, EVENT.itemChanged);
    expect(changed.data.fieldMask.paths).toEqual(["trackQuantity", "variants"]);

    const out = await merchant("PATCH", update(p.id), { inventoryItem: { trackQuantity: false, variants: [{ variantId: s, inStock: false }] } });
    expect(out.status).toBe(200);
    expect(await stockOf(p.id, s)).toEqual({ quantity: null, in_stock: 0 });
    const last = (await logRows(p.id)).at(-1)!;
    expect(last).toMatchObject({ variant_id: s, delta: 0, quantity_after: null, in_stock_after: 0, cause: "MANUAL" });
    expect((await publicProduct(p.id)).stock).toMatchObject({ trackInventory: false, inStock: true, inventoryStatus: "PARTIALLY_OUT_OF_STOCK" });
  });

  it("writes nothing when nothing differs", async () => {
    const p = await trackedProduct(3);
    const before = await stockSnapshot();
    const res = await merchant("PATCH", update(p.id), {
      inventoryItem: { trackQuantity: true, variants: [{ variantId: DEFAULT_VARIANT_ID, quantity: 3 }] },
    });
    expect(res.status).toBe(200);
    expect(await stockSnapshot()).toEqual(before);
  });

  it("refuses bad input with 400 and changes nothing", async () => {
    const p = await trackedProduct(3);
    const untracked = await createProduct({ name: `Untracked ${unique()}`, stock: { trackInventory: false } });
    const before = await stockSnapshot();
    const bad: [string, unknown, string, string?][] = [
      [p.id, { inventoryItem: { variants: [{ variantId: "nope", quantity: 1 }] } }, "inventoryItem.variants[0].variantId"],
      [p.id, { inventoryItem: { variants: [{ variantId: DEFAULT_VARIANT_ID, quantity: -1 }] } }, "inventoryItem.variants[0].quantity", "MIN"],
      [p.id, { inventoryItem: { variants: [{ variantId: DEFAULT_VARIANT_ID, quantity: 1.5 }] } }, "inventoryItem.variants[0].quantity"],
      [
        p.id,
        {
          inventoryItem: {
            variants: [
              { variantId: DEFAULT_VARIANT_ID, quantity: 1 },
              { variantId: DEFAULT_VARIANT_ID, quantity: 2 },
            ],
          },
        },
        "inventoryItem.variants[1].variantId",
      ],
      [p.id, { inventoryItem: { trackQuantity: "yes" } }, "inventoryItem.trackQuantity"],
      [p.id, { inventoryItem: { productId: "another" } }, "inventoryItem.productId"],
      [p.id, { inventoryItem: { preorderInfo: { enabled: true, limit: 100_001 } } }, "inventoryItem.preorderInfo.limit", "MAX"],
      [p.id, {}, "inventoryItem", "REQUIRED_FIELD"],
      [untracked.id, { inventoryItem: { variants: [{ variantId: DEFAULT_VARIANT_ID, quantity: 4 }] } }, "inventoryItem.variants[0].quantity"],
      [untracked.id, { inventoryItem: { preorderInfo: { enabled: true } } }, "inventoryItem.preorderInfo.enabled"],
    ];
    for (const [id, body, field, rule] of bad) expectInvalid(await merchant("PATCH", update(id), body), field, rule);
    const missing = await merchant("PATCH", update("no-such-product"), { inventoryItem: { trackQuantity: true } });
    expect(missing.status).toBe(404);
    expect(missing.body.details.applicationError.code).toBe("INVENTORY_ITEM_NOT_FOUND");
    expect(await stockSnapshot()).toEqual(before);
  });
});

describe("increment", () => {
  it("adds stock to several items at once: log rows, events and the product's stock", async () => {
    const a = await trackedProduct(0);
    const b = await sizedProduct(1);
    const m = variantOf(b, "M").id;
    const res = await merchant("POST", INCREMENT, {
      incrementData: [
        { productId: a.id, variantId: DEFAULT_VARIANT_ID, incrementBy: 4 },
        { inventoryId: b.id, variantId: m, incrementBy: 99_999 },
      ],
      reason: "delivery",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({});
    expect(await stockOf(a.id)).toEqual({ quantity: 4, in_stock: 1 });
    expect(await stockOf(b.id, m)).toMatchObject({ quantity: 100_000 });
    expect(await logRows(a.id)).toEqual([expect.objectContaining({ delta: 4, quantity_after: 4, cause: "MANUAL", reason: "delivery" })]);
    expect(await logRows(b.id)).toEqual([expect.objectContaining({ variant_id: m, delta: 99_999, quantity_after: 100_000 })]);
    // a was out of stock and is back: InventoryItemChanged, variants changed and the stock status event.
    expect((await eventsOf(a.id, EVENT.itemChanged)).map((e) => e.data.fieldMask.paths)).toEqual([["variants"]]);
    expect((await eventsOf(a.id, EVENT.stockStatus)).map((e) => e.data.inStock)).toEqual([true]);
    expect(await eventsOf(b.id, EVENT.stockStatus)).toEqual([]);
    expect((await publicProduct(a.id)).stock).toMatchObject({ quantity: 4, inStock: true, inventoryStatus: "IN_STOCK" });
    expect((await publicProduct(b.id)).stock).toMatchObject({ quantity: 100_001 });
  });

  it("validates every item (1..99999, a known product and variant, a tracked quantity) and changes nothing", async () => {
    const p = await sizedProduct(1);
    const untracked = await createProduct({ name: `Untracked ${unique()}` });
    const before = await stockSnapshot();
    const s = variantOf(p, "S").id;
    const bad: [unknown, string, string?][] = [
      [{ incrementData: [{ productId: p.id, variantId: s, incrementBy: 0 }] }, "incrementData[0].incrementBy", "MIN"],
      [{ incrementData: [{ productId: p.id, variantId: s, incrementBy: 100_000 }] }, "incrementData[0].incrementBy", "MAX"],
      [{ incrementData: [{ productId: p.id, variantId: s, incrementBy: 2.5 }] }, "incrementData[0].incrementBy"],
      [{ incrementData: [{ productId: p.id, variantId: s }] }, "incrementData[0].incrementBy", "REQUIRED_FIELD"],
      [{ incrementData: [] }, "incrementData", "MIN_SIZE"],
      [{}, "incrementData", "REQUIRED_FIELD"],
      [
        {
          incrementData: [
            { productId: p.id, variantId: s, incrementBy: 1 },
            { productId: "ghost", variantId: s, incrementBy: 1 },
          ],
        },
        "incrementData[1].productId",
      ],
      [{ incrementData: [{ productId: p.id, variantId: "ghost", incrementBy: 1 }] }, "incrementData[0].variantId"],
      [{ incrementData: [{ productId: p.id, incrementBy: 1 }] }, "incrementData[0].variantId", "REQUIRED_FIELD"],
      [{ incrementData: [{ variantId: s, incrementBy: 1 }] }, "incrementData[0].productId", "REQUIRED_FIELD"],
      [{ incrementData: [{ productId: untracked.id, incrementBy: 1 }] }, "incrementData[0].incrementBy"],
    ];
    for (const [body, field, rule] of bad) expectInvalid(await merchant("POST", INCREMENT, body), field, rule);
    expect(await stockSnapshot()).toEqual(before);
  });
});

describe("decrement", () => {
  it("takes stock with cause MANUAL and refreshes the product (out of stock at zero)", async () => {
    const p = await trackedProduct(3);
    const res = await merchant("POST", "/v2/inventoryItems/decrement", { decrementData: [{ productId: p.id, decrementBy: 3 }], reason: "damaged" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await stockOf(p.id)).toEqual({ quantity: 0, in_stock: 1 });
    expect(await logRows(p.id)).toEqual([
      expect.objectContaining({ delta: -3, quantity_after: 0, in_stock_after: 0, cause: "MANUAL", reason: "damaged" }),
    ]);
    expect((await eventsOf(p.id, EVENT.stockStatus)).map((e) => e.data)).toEqual([
      expect.objectContaining({
        inStock: false,
        variants: [expect.objectContaining({ variantId: DEFAULT_VARIANT_ID, inStock: false, quantity: 0 })],
      }),
    ]);
    expect((await publicProduct(p.id)).stock).toMatchObject({ quantity: 0, inStock: false, inventoryStatus: "OUT_OF_STOCK" });
  });

  it("never goes below zero: one short item refuses the whole call with a 409 naming it, and nothing changes", async () => {
    const a = await trackedProduct(5);
    const b = await sizedProduct(2);
    const m = variantOf(b, "M").id;
    const before = await stockSnapshot();
    const res = await merchant("POST", DECREMENT, {
      decrementData: [
        { productId: a.id, decrementBy: 5 },
        { productId: b.id, variantId: variantOf(b, "S").id, decrementBy: 1 },
        { productId: b.id, variantId: m, decrementBy: 3 },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body.details.applicationError).toEqual({
      code: "INSUFFICIENT_INVENTORY",
      description: `Only 2 of "${b.name} (M)" left in stock (asked for 3)`,
      data: { productId: b.id, variantId: m, name: `${b.name} (M)`, available: 2, requested: 3 },
    });
    expect(await stockSnapshot()).toEqual(before);
  });

  it("counts repeated items together", async () => {
    const p = await trackedProduct(3);
    const before = await stockSnapshot();
    const res = await merchant("POST", DECREMENT, {
      decrementData: [
        { productId: p.id, decrementBy: 2 },
        { productId: p.id, decrementBy: 2 },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body.details.applicationError.data).toMatchObject({ available: 3, requested: 4 });
    expect(await stockSnapshot()).toEqual(before);
    expect(
      (
        await merchant("POST", DECREMENT, {
          decrementData: [
            { productId: p.id, decrementBy: 1 },
            { productId: p.id, decrementBy: 2 },
          ],
        })
      ).status,
    ).toBe(200);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 0 });
  });

  it("validates items like increment", async () => {
    const p = await trackedProduct(3);
    const before = await stockSnapshot();
    expectInvalid(await merchant("POST", DECREMENT, { decrementData: [{ productId: p.id, decrementBy: 0 }] }), "decrementData[0].decrementBy", "MIN");
    expectInvalid(
      await merchant("POST", DECREMENT, { decrementData: [{ productId: p.id, decrementBy: 1, preorderRequest: "y" }] }),
      "decrementData[0].preorderRequest",
    );
    expectInvalid(await merchant("POST", DECREMENT, { decrementData: [{ productId: "ghost", decrementBy: 1 }] }), "decrementData[0].productId");
    expectInvalid(await merchant("POST", DECREMENT, { incrementData: [{ productId: p.id, incrementBy: 1 }] }), "decrementData", "REQUIRED_FIELD");
    expect(await stockSnapshot()).toEqual(before);
  });

  it("serves 20 parallel decrements of 1 from 3 units: exactly 3 succeed, the rest get the 409", async () => {
    const p = await trackedProduct(3);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => merchant("POST", DECREMENT, { decrementData: [{ productId: p.id, decrementBy: 1 }] })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(17);
    for (const r of refused)
      expect(r.body.details.applicationError).toMatchObject({ code: "INSUFFICIENT_INVENTORY", data: { productId: p.id, available: 0 } });
    expect(await stockOf(p.id)).toMatchObject({ quantity: 0 });
    expect((await logRows(p.id)).map((r) => r.quantity_after).sort()).toEqual([0, 1, 2]);
  });
});

describe("change history", () => {
  it("lists a product's changes newest first, paged and filtered, with cause, reason and actor", async () => {
    const p = await sizedProduct(1);
    const s = variantOf(p, "S").id;
    const m = variantOf(p, "M").id;
    await merchant("POST", INCREMENT, { incrementData: [{ productId: p.id, variantId: s, incrementBy: 2 }], reason: "one" });
    await merchant("POST", INCREMENT, { incrementData: [{ productId: p.id, variantId: m, incrementBy: 3 }], reason: "two" });
    await merchant("POST", DECREMENT, { decrementData: [{ productId: p.id, variantId: s, decrementBy: 1 }], reason: "three" });

    const all = await merchant("GET", history(p.id));
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.metadata).toEqual({ items: 3, offset: 0, total: 3 });
    expect(all.body.changes.map((c: any) => [c.reason, c.variantId, c.delta, c.quantityAfter])).toEqual([
      ["three", s, -1, 2],
      ["two", m, 3, 4],
      ["one", s, 2, 3],
    ]);
    expect(all.body.changes[0]).toMatchObject({ productId: p.id, cause: "MANUAL", inStockAfter: true, orderId: null, actor: { type: "APP" } });
    expect(all.body.changes[0].createdDate).toMatch(/^\d{4}-\d\d-\d\dT/);

    const page = await merchant("GET", history(p.id, "?limit=1&offset=1"));
    expect(page.body.changes.map((c: any) => c.reason)).toEqual(["two"]);
    expect(page.body.metadata).toEqual({ items: 1, offset: 1, total: 3 });
    const onlyS = await merchant("GET", history(p.id, `?variantId=${s}&cause=MANUAL`));
    expect(onlyS.body.changes.map((c: any) => c.reason)).toEqual(["three", "one"]);
    expect((await merchant("GET", history(p.id, "?cause=ORDER"))).body.changes).toEqual([]);
  });

  it("answers 400 for bad paging or cause and 404 for an unknown product", async () => {
    const p = await trackedProduct(1);
    expectInvalid(await merchant("GET", history(p.id, "?limit=0")), "limit", "MIN");
    expectInvalid(await merchant("GET", history(p.id, "?limit=abc")), "limit");
    expectInvalid(await merchant("GET", history(p.id, "?cause=THEFT")), "cause", "INVALID_ENUM_VALUE");
    const missing = await merchant("GET", history("no-such-product"));
    expect(missing.status).toBe(404);
    expect(missing.body.details.applicationError.code).toBe("INVENTORY_ITEM_NOT_FOUND");
  });
});

describe("stock set through the catalogue's product calls", () => {
  it("is logged as a MANUAL change with inventory events, like the inventory calls", async () => {
    const product = await createProduct({
      name: `Catalogue stock ${unique()}`,
      manageVariants: true,
      productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }] }],
      stock: { trackInventory: true, quantity: 4 },
    });
    const patched = await merchant("PATCH", `/v1/products/${product.id}/variants`, {
      variants: [{ choices: { Size: "S" }, stock: { quantity: 0 } }],
    });
    expect(patched.status).toBe(200);
    const viaPatch = await merchant("PATCH", `/v1/products/${product.id}`, { product: { stock: { quantity: 9 } } });
    expect(viaPatch.status).toBe(200);

    const history = await merchant("GET", `/api/v1/inventory/${product.id}/history`);
    expect(history.status).toBe(200);
    const changes = JSON.stringify(history.body);
    expect(changes).toContain("MANUAL");
    const { results } = await env.DB.prepare(
      "SELECT cause, delta, quantity_after FROM inventory_changes WHERE product_id = ? ORDER BY created_date, rowid",
    )
      .bind(product.id)
      .all<{
        cause: string;
        delta: number;
        quantity_after: number;
      }>();
    // S: 4 → 0, then both variants → 9 (S +9, M +5).
    expect(results.map((r) => [r.cause, r.delta, r.quantity_after])).toEqual([
      ["MANUAL", -4, 0],
      ["MANUAL", 9, 9],
      ["MANUAL", 5, 9],
    ]);
    const types = (await outboxRows(product.id)).map((r) => r.type);
    expect(types).toContain("com.wix.ecommerce.inventory.api.v1.InventoryItemChanged");
    expect(types).toContain("com.wix.ecommerce.inventory.api.v1.InventoryVariantsChanged");
  });
});
