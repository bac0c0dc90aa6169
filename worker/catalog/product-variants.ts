import type { Ctx } from "#worker/platform/context";
import { badField, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { DEFAULT_VARIANT_ID } from "#worker/platform/ids";
import type { VariantOverride } from "./schemas";
import { v1Variant } from "./shapes";
import { choicesKey, variantInStock, type VariantRow } from "./variants";
import { applyOverrides } from "./product-input";
import { shapeOptions } from "./product-reads";
import { loadForWrite, variantsChangedEvent, variantStatements, writeProductColumns } from "./product-store";

/** Per-variant data of one product: overrides, reset, and dropping the options. */

/** PATCH …/variants: per-variant price, cost, weight, SKU, visibility and stock. Needs manageVariants. */
export async function updateProductVariants(ctx: Ctx, id: string, overrides: VariantOverride[]) {
  const current = await loadForWrite(ctx, id);
  if (!current.row.manageVariants) throw badField("manageVariants", "is false for this product: turn it on to give variants their own data");
  const rows = current.variants.map((v) => ({ ...v }));
  const violations: FieldViolation[] = [];
  applyOverrides(rows, overrides, current.row.trackInventory, ctx.currency, "variants", violations);
  if (violations.length) throw invalidArgument(violations);
  const change = variantStatements(ctx, current.variants, rows);
  const loaded = await writeProductColumns(ctx, current, {}, ["variants"], {
    statements: change.statements,
    events: [variantsChangedEvent(ctx, id, change.changed, [])],
    movesStock: overrides.some((o) => o.stock !== undefined),
  });
  const opts = shapeOptions(ctx, true);
  return { variants: loaded.variants.map((v) => v1Variant(loaded.row, v, opts)) };
}

/** Resets every variant to the product's own price, cost, weight and SKU, and makes them visible again. */
export async function resetProductVariants(ctx: Ctx, id: string): Promise<void> {
  const current = await loadForWrite(ctx, id);
  const rows = current.variants.map((v) => ({ ...v, price: null, cost: null, weight: null, sku: null, visible: true }));
  const change = variantStatements(ctx, current.variants, rows);
  await writeProductColumns(ctx, current, {}, ["variants"], {
    statements: change.statements,
    events: [variantsChangedEvent(ctx, id, change.changed, [])],
  });
}

/** Deletes all options: the product keeps one default variant holding its whole stock. */
export async function deleteProductOptions(ctx: Ctx, id: string): Promise<void> {
  const current = await loadForWrite(ctx, id);
  const { row } = current;
  const total = current.variants.reduce((n, v) => n + (v.quantity ?? 0), 0);
  const anyInStock = current.variants.some((v) => variantInStock(v, row.trackInventory));
  const single: VariantRow = {
    productId: id,
    id: DEFAULT_VARIANT_ID,
    choices: {},
    position: 0,
    price: null,
    cost: null,
    weight: null,
    sku: null,
    visible: true,
    quantity: row.trackInventory ? total : null,
    inStock: anyInStock,
  };
  const existing = current.variants.find((v) => v.id === DEFAULT_VARIANT_ID && choicesKey(v.choices) === choicesKey({}));
  const change = variantStatements(ctx, current.variants, [existing ? { ...existing, ...single } : single]);
  await writeProductColumns(ctx, current, { productOptions: [], manageVariants: false }, ["productOptions", "manageVariants"], {
    statements: change.statements,
    events: [variantsChangedEvent(ctx, id, change.changed, change.removed)],
    movesStock: true,
  });
}
