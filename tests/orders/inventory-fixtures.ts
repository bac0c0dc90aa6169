import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { Ctx } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { catalogueSnapshot, createProduct, merchant, unique } from "../helpers";

/** Shared fixtures of the inventory suites. */

export const DEFAULT_VARIANT_ID = "00000000-0000-0000-0000-000000000000";

export const EVENT = {
  itemChanged: "com.wix.ecommerce.inventory.api.v1.InventoryItemChanged",
  variantsChanged: "com.wix.ecommerce.inventory.api.v1.InventoryVariantsChanged",
  stockStatus: "wix.stores.catalog.v3.inventory_item_stock_status_updated",
  withReason: "wix.stores.catalog.v3.inventory_item_updated_with_reason",
};

/** A simple tracked product (one default variant) with `quantity` units. */
export async function trackedProduct(quantity: number, extra: Record<string, unknown> = {}) {
  return createProduct({ name: `Inventory Mug ${unique()}`, stock: { trackInventory: true, quantity }, ...extra });
}

/** A tracked 2-size tee: S and M, `quantity` each. */
export async function sizedProduct(quantity: number) {
  return createProduct({
    name: `Inventory Tee ${unique()}`,
    stock: { trackInventory: true, quantity },
    productOptions: [{ name: "Size", choices: [{ value: "S" }, { value: "M" }] }],
  });
}

export const variantOf = (product: { variants: any[] }, size: string) => product.variants.find((v) => v.choices.Size === size);

/** A merchant service context on its own D1 handle; `settle()` waits for what it left running (event flushes). */
export function merchantCtx(): Ctx & { settle(): Promise<void> } {
  const pending: Promise<unknown>[] = [];
  return {
    db: openDb(env.DB),
    env,
    auth: { kind: "apiKey", keyId: "test-key", role: "OWNER" },
    currency: "USD",
    origin: "https://shop.test",
    waitUntil: (p) => void pending.push(p.catch(() => undefined)),
    async settle() {
      await Promise.all(pending);
    },
  };
}

/** A variant's stock straight from D1. */
export async function stockOf(productId: string, variantId = DEFAULT_VARIANT_ID) {
  return env.DB.prepare("SELECT quantity, in_stock FROM variants WHERE product_id = ? AND id = ?")
    .bind(productId, variantId)
    .first<{ quantity: number | null; in_stock: number }>();
}

/** The change log of a product, oldest first. */
export async function logRows(productId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM inventory_changes WHERE product_id = ? ORDER BY rowid")
    .bind(productId)
    .all<Record<string, any>>();
  return results;
}

/** Every table a stock change writes, to assert that a refused change wrote nothing (delivery columns left out). */
export async function stockSnapshot() {
  const snap = await catalogueSnapshot();
  snap.outbox = snap.outbox.map((row) => {
    const { flushed_at: _f, attempts: _a, ...rest } = row as Record<string, unknown>;
    return rest;
  });
  for (const t of ["inventory_changes", "preorder_settings", "stock_snapshots", "batch_assertions"]) {
    snap[t] = (await env.DB.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()).results;
  }
  return snap;
}

/** The product as a shopper reads it (GET /v1/products/{id}). */
export async function publicProduct(id: string) {
  const res = await merchant("GET", `/v1/products/${id}`);
  expect(res.status).toBe(200);
  return res.body.product;
}

export function expectInvalid(res: { status: number; body: any }, field: string, rule?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.message).toMatch(/^INVALID_ARGUMENT: "/);
  const violations: { field: string; violatedRule: string }[] = res.body.details.validationError.fieldViolations;
  const hit = violations.find((v) => v.field === field);
  expect(hit, `${field} not among ${violations.map((v) => v.field).join(", ")}`).toBeDefined();
  if (rule) expect(hit!.violatedRule).toBe(rule);
}
