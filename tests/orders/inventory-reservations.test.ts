import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { outboxRows, createProduct, merchant, unique } from "../helpers";
import {
  explainStockFailure,
  flushStockEvents,
  readStockAvailability,
  releaseStock,
  releaseStockStatements,
  reserveStock,
  reserveStockStatements,
  type StockLine,
} from "#worker/catalog/stock-changes";
import { clearAssertions } from "#worker/platform/batch";
import { ApiError } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { settings } from "#worker/platform/tables";
import {
  DEFAULT_VARIANT_ID,
  EVENT,
  logRows,
  merchantCtx,
  publicProduct,
  sizedProduct,
  stockOf,
  stockSnapshot,
  trackedProduct,
  variantOf,
} from "./inventory-fixtures";

/** The primitives checkout and cancel call: reserve (never oversell, all lines or none) and release. */

const line = (product: { id: string; name: string }, quantity: number, variantId = DEFAULT_VARIANT_ID): StockLine => ({
  productId: product.id,
  variantId,
  quantity,
  name: product.name,
});

/** Runs a reservation the way checkout will: inside a batch with the order's own statements. */
async function reserveInOrderBatch(lines: StockLine[], orderId = newId()) {
  const ctx = merchantCtx();
  const change = reserveStockStatements(ctx, lines, "ORDER", orderId);
  // Stand-in for the order row the checkout writes in the same batch.
  const orderRow = ctx.db.insert(settings).values({ key: `test-order-${orderId}`, value: {}, updatedDate: new Date().toISOString() });
  try {
    await ctx.db.batch([orderRow, ...change.statements, clearAssertions(ctx.db)]);
  } catch (err) {
    throw await explainStockFailure(ctx, err, lines);
  }
  flushStockEvents(ctx, change);
  await ctx.settle();
  return orderId;
}

const orderRowExists = async (orderId: string) =>
  !!(await env.DB.prepare("SELECT 1 FROM settings WHERE key = ?").bind(`test-order-${orderId}`).first());

describe("reserveStockStatements", () => {
  it("takes every line in the order's batch, logs cause ORDER with the order id, writes the events and refreshes the product", async () => {
    const mug = await trackedProduct(5);
    const tee = await sizedProduct(2);
    const m = variantOf(tee, "M").id;
    const orderId = await reserveInOrderBatch([line(mug, 2), line(tee, 2, m)]);
    expect(await orderRowExists(orderId)).toBe(true);
    expect(await stockOf(mug.id)).toMatchObject({ quantity: 3 });
    expect(await stockOf(tee.id, m)).toMatchObject({ quantity: 0 });
    expect(await logRows(mug.id)).toEqual([expect.objectContaining({ delta: -2, quantity_after: 3, cause: "ORDER", order_id: orderId })]);
    expect(await logRows(tee.id)).toEqual([
      expect.objectContaining({ variant_id: m, delta: -2, quantity_after: 0, in_stock_after: 0, cause: "ORDER" }),
    ]);

    const teeEvents = await outboxRows(tee.id);
    const types = teeEvents.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining([EVENT.itemChanged, EVENT.variantsChanged, EVENT.stockStatus, EVENT.withReason]));
    expect(teeEvents.find((e) => e.type === EVENT.withReason)!.data).toMatchObject({ reason: "ORDER", orderId });
    expect(teeEvents.find((e) => e.type === EVENT.stockStatus)!.data.variants).toEqual([
      expect.objectContaining({ variantId: m, inStock: false, quantity: 0 }),
    ]);
    // The events were flushed to the queue after the batch.
    for (const e of teeEvents.filter((e) => e.type.includes("inventory"))) expect(e.flushed_at, e.type).not.toBeNull();
    expect((await outboxRows(mug.id)).map((e) => e.type)).not.toContain(EVENT.stockStatus);

    expect((await publicProduct(tee.id)).stock).toMatchObject({ quantity: 2, inventoryStatus: "PARTIALLY_OUT_OF_STOCK" });
    expect((await publicProduct(mug.id)).stock).toMatchObject({ quantity: 3, inStock: true });
  });

  it("changes NOTHING when one line of several lacks stock: no line taken, no order row, no log, no event", async () => {
    const a = await trackedProduct(5);
    const b = await sizedProduct(1);
    const c = await trackedProduct(9);
    const s = variantOf(b, "S").id;
    const before = await stockSnapshot();
    const lines = [line(a, 2), line(b, 2, s), line(c, 1)];
    const err = await reserveInOrderBatch(lines).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(409);
    expect(err.code).toBe("INSUFFICIENT_INVENTORY");
    expect(err.data).toEqual({ productId: b.id, variantId: s, name: b.name, available: 1, requested: 2 });
    expect(await stockSnapshot()).toEqual(before);
  });

  it("treats an unknown variant or a deleted product as out of stock", async () => {
    const a = await trackedProduct(5);
    const before = await stockSnapshot();
    const err = await reserveInOrderBatch([line(a, 1), { productId: a.id, variantId: "ghost", quantity: 1, name: "Ghost" }]).catch((e) => e);
    expect(err.code).toBe("INSUFFICIENT_INVENTORY");
    expect(err.data).toMatchObject({ variantId: "ghost", name: "Ghost", available: 0 });
    expect(await stockSnapshot()).toEqual(before);
  });

  it("untracked items: in stock is reserved without a log row; out of stock refuses the batch", async () => {
    const open = await createProduct({ name: `Open ${unique()}`, stock: { trackInventory: false, inStock: true } });
    const gone = await createProduct({ name: `Gone ${unique()}`, stock: { trackInventory: false, inStock: false } });
    await reserveInOrderBatch([line(open, 50)]);
    expect(await stockOf(open.id)).toEqual({ quantity: null, in_stock: 1 });
    expect(await logRows(open.id)).toEqual([]);
    expect((await outboxRows(open.id)).filter((e) => e.type.includes("inventory"))).toEqual([]);

    const before = await stockSnapshot();
    const err = await reserveInOrderBatch([line(open, 1), line(gone, 1)]).catch((e) => e);
    expect(err.code).toBe("INSUFFICIENT_INVENTORY");
    expect(err.data).toMatchObject({ productId: gone.id, available: 0 });
    expect(err.description).toBe(`"${gone.name}" is out of stock (asked for 1)`);
    expect(await stockSnapshot()).toEqual(before);
  });

  it("gives back a non-stock failure of the caller's batch unchanged", async () => {
    const a = await trackedProduct(5);
    const ctx = merchantCtx();
    const boom = new Error("D1_ERROR: something else");
    expect(await explainStockFailure(ctx, boom, [line(a, 1)])).toBe(boom);
  });

  it("the concurrency test: 20 parallel reservations of 1 unit from 3 — exactly 3 succeed, 17 get the clear error", async () => {
    const p = await trackedProduct(3);
    const attempts = Array.from({ length: 20 }, async (_, i) => {
      const ctx = merchantCtx();
      try {
        await reserveStock(ctx, [line(p, 1)], `order-${i}`);
        await ctx.settle();
        return "ok" as const;
      } catch (err) {
        return err as ApiError;
      }
    });
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r === "ok")).toHaveLength(3);
    const refused = results.filter((r): r is ApiError => r !== "ok");
    expect(refused).toHaveLength(17);
    for (const err of refused) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(409);
      expect(err.code).toBe("INSUFFICIENT_INVENTORY");
      expect(err.data).toMatchObject({ productId: p.id, variantId: DEFAULT_VARIANT_ID, name: p.name, available: 0, requested: 1 });
    }
    expect(await stockOf(p.id)).toMatchObject({ quantity: 0 });
    const log = await logRows(p.id);
    expect(log).toHaveLength(3);
    expect(log.every((r) => r.cause === "ORDER" && r.delta === -1)).toBe(true);
    expect(log.map((r) => r.quantity_after).sort()).toEqual([0, 1, 2]);
    expect(new Set(log.map((r) => r.order_id)).size).toBe(3);
    expect((await publicProduct(p.id)).stock).toMatchObject({ quantity: 0, inStock: false });
    // Exactly one of the three took the last unit: one stock status event.
    expect((await outboxRows(p.id)).filter((e) => e.type === EVENT.stockStatus)).toHaveLength(1);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM stock_snapshots").first("n")).toBe(0);
  });

  it("refuses a quantity below 1", async () => {
    const p = await trackedProduct(3);
    expect(() => reserveStockStatements(merchantCtx(), [line(p, 0)], "ORDER", "o")).toThrow(ApiError);
  });
});

describe("releaseStockStatements", () => {
  it("returns what the order took with cause REVERT_INVENTORY_CHANGE, once", async () => {
    const p = await trackedProduct(2);
    const tee = await sizedProduct(4);
    const s = variantOf(tee, "S").id;
    const orderId = await reserveInOrderBatch([line(p, 2), line(tee, 3, s)]);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 0 });

    const ctx = merchantCtx();
    await releaseStock(ctx, [line(p, 2), line(tee, 3, s)], orderId, "order canceled");
    await ctx.settle();
    expect(await stockOf(p.id)).toMatchObject({ quantity: 2 });
    expect(await stockOf(tee.id, s)).toMatchObject({ quantity: 4 });
    expect((await logRows(p.id)).map((r) => [r.cause, r.delta, r.quantity_after, r.order_id, r.reason])).toEqual([
      ["ORDER", -2, 0, orderId, null],
      ["REVERT_INVENTORY_CHANGE", 2, 2, orderId, "order canceled"],
    ]);
    const statuses = (await outboxRows(p.id)).filter((e) => e.type === EVENT.stockStatus).map((e) => e.data.inStock);
    expect(statuses).toEqual([false, true]);
    expect((await publicProduct(p.id)).stock).toMatchObject({ quantity: 2, inStock: true });

    // A second release (a repeated cancel) changes nothing.
    const before = await stockSnapshot();
    await releaseStock(merchantCtx(), [line(p, 2)], orderId);
    expect(await stockSnapshot()).toEqual(before);
  });

  it("returns nothing for an order that never reserved, and never more than the order took", async () => {
    const p = await trackedProduct(5);
    const before = await stockSnapshot();
    await releaseStock(merchantCtx(), [line(p, 3)], "never-reserved");
    expect(await stockSnapshot()).toEqual(before);

    const orderId = await reserveInOrderBatch([line(p, 1)]);
    const ctx = merchantCtx();
    const [first, ...rest] = releaseStockStatements(ctx, [line(p, 4)], orderId).statements;
    await ctx.db.batch([first, ...rest]);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 5 });
  });
});

describe("preorder", () => {
  const preorder = (productId: string, preorderInfo: Record<string, unknown>) =>
    merchant("PATCH", `/stores/v2/inventoryItems/product/${productId}`, { inventoryItem: { trackQuantity: true, preorderInfo } });

  it("lets a variant be reserved below zero up to the limit, and shows it in the inventory item", async () => {
    const p = await trackedProduct(1);
    const res = await preorder(p.id, { enabled: true, message: "Ships in May", limit: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [changed] = (await outboxRows(p.id)).filter((e) => e.type === EVENT.itemChanged);
    expect(changed.data).toMatchObject({
      fieldMask: { paths: ["preorderInfo"] },
      preorderInfo: { enabled: true, message: "Ships in May", limit: 2 },
    });
    expect(await logRows(p.id)).toEqual([]);

    await reserveInOrderBatch([line(p, 3)]);
    expect(await stockOf(p.id)).toMatchObject({ quantity: -2 });
    const err = await reserveInOrderBatch([line(p, 1)]).catch((e) => e);
    expect(err.code).toBe("INSUFFICIENT_INVENTORY");
    expect(err.data).toMatchObject({ available: 0 });

    const item = (await merchant("POST", `/stores-reader/v2/inventoryItems/${p.id}/getVariants`, {})).body.inventoryItem;
    expect(item.preorderInfo).toEqual({ enabled: true, message: "Ships in May", limit: 2 });
    expect(item.preorderStatus).toBe("ENABLED");
    // The limit is used up: out of stock, no longer preorderable.
    expect(item.variants[0]).toMatchObject({ inStock: false, quantity: -2, availableForPreorder: false, availabilityStatus: "OUT_OF_STOCK" });
  });

  it("reports PREORDER availability while under the limit, and a merchant decrement goes below zero only with preorderRequest", async () => {
    const p = await trackedProduct(0);
    await preorder(p.id, { enabled: true, limit: 5 });
    const [a] = await readStockAvailability(merchantCtx().db, [{ productId: p.id, variantId: DEFAULT_VARIANT_ID }]);
    expect(a).toMatchObject({ quantity: 0, inStock: false, availableForPreorder: true, available: 5 });
    const item = (await merchant("POST", `/v2/inventoryItems/${p.id}/getVariants`, {})).body.inventoryItem;
    expect(item.variants[0]).toMatchObject({ availableForPreorder: true, availabilityStatus: "PREORDER" });
    expect(item.preorderAvailability).toBe("ALL_VARIANTS");
    const found = await merchant("POST", "/stores-reader/v2/inventoryItems/query", {
      query: { filter: JSON.stringify({ "preorderInfo.enabled": true, productId: p.id }) },
    });
    expect(found.body.inventoryItems.map((i: any) => i.id)).toEqual([p.id]);

    const plain = await merchant("POST", "/stores/v2/inventoryItems/decrement", { decrementData: [{ productId: p.id, decrementBy: 1 }] });
    expect(plain.status).toBe(409);
    expect(plain.body.details.applicationError.data).toMatchObject({ available: 0 });
    const pre = await merchant("POST", "/stores/v2/inventoryItems/decrement", {
      decrementData: [{ productId: p.id, decrementBy: 2, preorderRequest: true }],
    });
    expect(pre.status, JSON.stringify(pre.body)).toBe(200);
    expect(await stockOf(p.id)).toMatchObject({ quantity: -2 });
    const over = await merchant("POST", "/stores/v2/inventoryItems/decrement", {
      decrementData: [{ productId: p.id, decrementBy: 4, preorderRequest: true }],
    });
    expect(over.status).toBe(409);
    expect(over.body.details.applicationError.data).toMatchObject({ available: 3, requested: 4 });
  });

  it("turning preorder off restores the zero floor", async () => {
    const p = await trackedProduct(0);
    await preorder(p.id, { enabled: true });
    await preorder(p.id, { enabled: false });
    const err = await reserveInOrderBatch([line(p, 1)]).catch((e) => e);
    expect(err.code).toBe("INSUFFICIENT_INVENTORY");
    const item = (await merchant("POST", `/v2/inventoryItems/${p.id}/getVariants`, {})).body.inventoryItem;
    expect(item).toMatchObject({ preorderInfo: { enabled: false }, preorderStatus: "DISABLED", preorderAvailability: "NO_VARIANTS" });
  });
});
