import { ApiKeyStrategy, createClient } from "@wix/sdk";
import { inventory } from "@wix/stores";
import { describe, expect, it } from "vitest";
import { redirectWixHosts } from "../wix-sdk-host";
import { OWNER_KEY } from "../helpers";
import { DEFAULT_VARIANT_ID, logRows, sizedProduct, stockOf, trackedProduct, variantOf } from "./inventory-fixtures";

/** The unmodified Wix SDK's `inventory` module (ApiKeyStrategy) against the Worker, only the host redirected. */

const sent = redirectWixHosts();

const client = () => createClient({ modules: { inventory }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });

describe("@wix/stores inventory through the unmodified SDK", () => {
  it("queryInventory sends filter as a JSON string and reads the items", async () => {
    const p = await sizedProduct(4);
    const res = await client().inventory.queryInventory({ query: { filter: JSON.stringify({ productId: p.id }), paging: { limit: 5 } } });
    expect(sent[0]).toMatchObject({ method: "POST", path: "/stores-reader/v2/inventoryItems/query" });
    expect(JSON.parse(sent[0].body).query.filter).toBe(JSON.stringify({ productId: p.id }));
    expect(res.inventoryItems).toHaveLength(1);
    const item = res.inventoryItems![0];
    expect(item._id).toBe(p.id);
    expect(item).toMatchObject({ productId: p.id, trackQuantity: true, numericId: String(p.numericId), preorderInfo: { enabled: false } });
    expect(item.variants!.map((v) => v.quantity)).toEqual([4, 4]);
    expect(res.metadata).toMatchObject({ items: 1, offset: 0 });
  });

  it("getInventoryVariants, updateInventoryVariants, incrementInventory and decrementInventory", async () => {
    const p = await sizedProduct(2);
    const s = variantOf(p, "S").id;
    const sdk = client().inventory;

    const got = await sdk.getInventoryVariants(p.id, { variantIds: [s] });
    expect(sent.at(-1)).toMatchObject({ method: "POST", path: `/stores-reader/v2/inventoryItems/${p.id}/getVariants` });
    expect(got.inventoryItem!.variants).toEqual([expect.objectContaining({ variantId: s, quantity: 2, inStock: true })]);

    await sdk.updateInventoryVariants(p.id, { trackQuantity: true, variants: [{ variantId: s, quantity: 7 }] });
    expect(sent.at(-1)).toMatchObject({ method: "PATCH", path: `/stores/v2/inventoryItems/product/${p.id}` });
    expect(await stockOf(p.id, s)).toMatchObject({ quantity: 7 });

    await sdk.incrementInventory([{ productId: p.id, variantId: s, incrementBy: 3 }]);
    await sdk.decrementInventory([{ productId: p.id, variantId: s, decrementBy: 9 }]);
    expect(sent.slice(-2).map((r) => r.path)).toEqual(["/stores/v2/inventoryItems/increment", "/stores/v2/inventoryItems/decrement"]);
    expect(await stockOf(p.id, s)).toMatchObject({ quantity: 1 });
    expect((await logRows(p.id)).map((r) => r.delta)).toEqual([5, 3, -9]);
  });

  it("surfaces the 409 of a decrement below zero as an application error naming the item", async () => {
    const p = await trackedProduct(1);
    const err: any = await client()
      .inventory.decrementInventory([{ productId: p.id, variantId: DEFAULT_VARIANT_ID, decrementBy: 2 }])
      .catch((e) => e);
    expect(err.details.applicationError).toMatchObject({ code: "INSUFFICIENT_INVENTORY", data: { productId: p.id, available: 1, requested: 2 } });
    expect(await stockOf(p.id)).toMatchObject({ quantity: 1 });
  });
});
