import { z } from "zod";
import {
  decrementInventory,
  incrementInventory,
  loadProduct,
  productNames,
  readStockAvailability,
  variantLabels,
  updateInventoryItem,
} from "#worker/catalog";
import { isStepClaimed, PermanentFailure, type ProcessorContext } from "#worker/events";
import type { EventEnvelope, Statement } from "#worker/events";
import type { Db } from "#worker/platform/db";
import { loadAutomationSettings } from "./settings";
import { taskStatement } from "#worker/tasks";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Inventory updates from a warehouse or ERP (incoming webhooks of type `inventory.updated`, actor APP named after
 * the source): each item sets or adjusts a variant's stock through the inventory service (cause MANUAL, the source
 * named in the reason), whose events then drive back-in-stock; a tracked quantity that ends below the store's
 * threshold opens a LOW_STOCK task.
 */

const count = z.coerce.number().int();

/** `{ items: [{ productId, variantId?, setQuantity? | adjustBy?, sku? }] }`, numbers coerced (the incoming check uses it too). */
export const inventoryUpdatedSchema = z.object({
  items: z
    .array(
      z
        .object({
          productId: z.string().trim().min(1).max(100),
          variantId: z.string().trim().min(1).max(100).optional(),
          setQuantity: count.min(0).max(99_999_999).optional(),
          adjustBy: count
            .min(-99_999)
            .max(99_999)
            .refine((n) => n !== 0, "must not be 0")
            .optional(),
          sku: z.string().max(100).optional(),
        })
        .refine((i) => (i.setQuantity === undefined) !== (i.adjustBy === undefined), {
          message: "give setQuantity or adjustBy (one of them)",
          path: ["setQuantity"],
        }),
    )
    .min(1)
    .max(300),
});

export type InventoryUpdatedData = z.output<typeof inventoryUpdatedSchema>;

/** Applies an inventory.updated event: each adjustment and set at most once, however often the event arrives. */
export async function processInventoryUpdated(event: EventEnvelope, data: InventoryUpdatedData, p: ProcessorContext): Promise<void> {
  const { db, ctx } = p;
  const source = event.actor.id ?? "an inventory source";
  const setReason = `Inventory update from ${source} (event ${event.id})`;
  const adjustReason = `Inventory adjustment from ${source} (event ${event.id})`;

  // Items without a variant name the product's only variant.
  const touched: { productId: string; variantId: string }[] = [];
  const variantOf = new Map<string, string>();
  for (const item of data.items) {
    if (item.variantId || variantOf.has(item.productId)) continue;
    const product = await loadProduct(db, item.productId);
    if (!product) throw new PermanentFailure(`inventory.updated names an unknown product ${item.productId}`);
    if (product.variants.length !== 1)
      throw new PermanentFailure(
        `inventory.updated item for product ${item.productId} needs a variantId: the product has ${product.variants.length} variants`,
      );
    variantOf.set(item.productId, product.variants[0].id);
  }
  const resolved = data.items.map((i) => ({ ...i, variantId: i.variantId ?? variantOf.get(i.productId)! }));

  // Each change is one batch with its own step claim, so none is applied twice, even by two copies of the event
  // processed at the same instant (the second copy's claim fails its batch; sets would be harmless, adjustments not).
  const once = async (step: string, change: (also: Statement[]) => Promise<void>) => {
    if (p.claimedSteps.has(step)) return;
    try {
      await change([p.claimStep(step)]);
    } catch (err) {
      if (!isStepClaimed(err)) throw err;
    }
  };
  const ups = resolved.filter((i) => i.adjustBy !== undefined && i.adjustBy > 0);
  const downs = resolved.filter((i) => i.adjustBy !== undefined && i.adjustBy < 0);
  if (ups.length)
    await once("adjust-up", (also) =>
      incrementInventory(
        ctx,
        ups.map((i) => ({ productId: i.productId, variantId: i.variantId, by: i.adjustBy! })),
        adjustReason,
        { also },
      ),
    );
  if (downs.length)
    await once("adjust-down", (also) =>
      decrementInventory(
        ctx,
        downs.map((i) => ({ productId: i.productId, variantId: i.variantId, by: -i.adjustBy! })),
        adjustReason,
        { also },
      ),
    );

  const sets = new Map<string, { variantId: string; quantity: number }[]>();
  for (const i of resolved) {
    if (i.setQuantity === undefined) continue;
    sets.set(i.productId, [
      ...(sets.get(i.productId) ?? []).filter((v) => v.variantId !== i.variantId),
      { variantId: i.variantId, quantity: i.setQuantity },
    ]);
  }
  // A warehouse that sends a count means the product's quantity is tracked.
  for (const [productId, variants] of sets)
    await once(`set:${productId}`, (also) => updateInventoryItem(ctx, productId, { trackQuantity: true, variants }, setReason, { also }));

  for (const i of resolved) touched.push({ productId: i.productId, variantId: i.variantId });
  const tasks = await lowStockTasks(db, touched);
  await runBatch(db, [p.done(), ...tasks]);
}

/** LOW_STOCK task statements for the tracked variants among `refs` whose quantity is now below the threshold. */
export async function lowStockTasks(db: Db, refs: { productId: string; variantId: string }[]): Promise<Statement[]> {
  const settings = await loadAutomationSettings(db);
  if (settings.lowStockThreshold === null || !refs.length) return [];
  const stock = await readStockAvailability(db, refs);
  const low = stock.filter((s) => s.exists && s.trackQuantity && (s.quantity ?? 0) < settings.lowStockThreshold!);
  if (!low.length) return [];
  const [names, labels] = await Promise.all([
    productNames(
      db,
      low.map((s) => s.productId),
    ),
    variantLabels(db, low),
  ]);
  return low.map((s) => {
    const label = labels.get(`${s.productId}/${s.variantId}`);
    const which = [label?.choices, label?.sku ? `SKU ${label.sku}` : ""].filter(Boolean).join(", ");
    return taskStatement(db, {
      kind: "LOW_STOCK",
      title: `Low stock: ${names.get(s.productId) ?? s.productId}${label?.choices ? ` — ${label.choices}` : ""} (${s.quantity} left)`,
      description: `Only ${s.quantity} left of ${names.get(s.productId) ?? "this product"}${which ? ` (${which})` : ""}, below the store's low-stock threshold of ${settings.lowStockThreshold}. Restock it before it sells out.`,
      entityId: s.productId,
      dedupeKey: `low-stock:${s.productId}:${s.variantId}`,
    });
  });
}

/** The variants-changed data the low-stock check reads. */
const variantsChangedSchema = z
  .object({
    productId: z.string().min(1),
    variants: z
      .array(
        z
          .object({
            variantId: z.string(),
            quantity: z.number().nullish(),
            oldValue: z.object({ quantity: z.number().nullish() }).loose().optional(),
          })
          .loose(),
      )
      .default([]),
  })
  .loose();

/** Any stock change (orders too): a tracked variant whose quantity fell below the threshold opens a LOW_STOCK task. */
export async function processVariantsChanged(_event: EventEnvelope, raw: Record<string, unknown>, p: ProcessorContext): Promise<void> {
  const parsed = variantsChangedSchema.safeParse(raw);
  if (!parsed.success) return;
  const fell = parsed.data.variants.filter((v) => typeof v.quantity === "number" && (v.oldValue?.quantity ?? Infinity) > v.quantity);
  if (!fell.length) return;
  const tasks = await lowStockTasks(
    p.db,
    fell.map((v) => ({ productId: parsed.data.productId, variantId: v.variantId })),
  );
  await runBatch(p.db, [p.done(), ...tasks]);
}
