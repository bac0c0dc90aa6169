import { DEFAULT_VARIANT_ID, newId } from "#worker/platform/ids";
import type { StoredOption } from "./tables";

/** Variant generation and availability: pure functions over a product's options and variant rows. */

export interface VariantRow {
  productId: string;
  id: string;
  choices: Record<string, string>;
  position: number;
  price: number | null;
  cost: number | null;
  weight: number | null;
  sku: string | null;
  visible: boolean;
  quantity: number | null;
  inStock: boolean;
}

/** Most variants one product may have (6 options cannot multiply past this). */
export const MAX_VARIANTS = 1000;

/** A canonical key for a set of choices, independent of key order. */
export function choicesKey(choices: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(choices)
      .sort()
      .map((k) => [k, choices[k]]),
  );
}

/** Every combination of the options' choices, in option order (the cartesian product). */
export function combinations(options: StoredOption[]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const option of options) {
    const next: Record<string, string>[] = [];
    for (const partial of out) for (const choice of option.choices) next.push({ ...partial, [option.name]: choice.description });
    out = next;
  }
  return out;
}

/** Number of combinations without building them (to refuse oversized option sets early). */
export function combinationCount(options: { choices: unknown[] }[]): number {
  return options.reduce((n, o) => n * o.choices.length, 1);
}

/**
 * The variant rows a product should have for its options, reusing existing rows (and so their ids, overrides
 * and stock) where the combination still exists. New rows start with `initialStock`.
 */
export function planVariants(
  productId: string,
  options: StoredOption[],
  existing: VariantRow[],
  initialStock: { quantity: number | null; inStock: boolean },
): { keep: VariantRow[]; add: VariantRow[]; remove: VariantRow[] } {
  const byKey = new Map(existing.map((v) => [choicesKey(v.choices), v]));
  const keep: VariantRow[] = [];
  const add: VariantRow[] = [];
  combinations(options).forEach((choices, position) => {
    const found = byKey.get(choicesKey(choices));
    if (found) {
      byKey.delete(choicesKey(choices));
      keep.push({ ...found, position });
    } else {
      add.push({
        productId,
        id: options.length === 0 ? DEFAULT_VARIANT_ID : newId(),
        choices,
        position,
        price: null,
        cost: null,
        weight: null,
        sku: null,
        visible: true,
        quantity: initialStock.quantity,
        inStock: initialStock.inStock,
      });
    }
  });
  return { keep, add, remove: [...byKey.values()] };
}

/** Whether a variant can be bought now. */
export function variantInStock(v: VariantRow, trackInventory: boolean): boolean {
  return trackInventory ? (v.quantity ?? 0) > 0 : v.inStock;
}

/** Variants whose choices include every entry of `selection`. */
export function matching(variants: VariantRow[], selection: Record<string, string>): VariantRow[] {
  const entries = Object.entries(selection);
  return variants.filter((v) => entries.every(([k, val]) => v.choices[k] === val));
}

/**
 * For each option and choice, whether it can still be picked given the other selected options:
 * visible = some visible variant has it together with the rest of the selection; inStock = one of those is in stock.
 */
export function choiceAvailability(
  options: StoredOption[],
  variants: VariantRow[],
  selection: Record<string, string>,
  trackInventory: boolean,
): Map<string, { visible: boolean; inStock: boolean }> {
  const out = new Map<string, { visible: boolean; inStock: boolean }>();
  for (const option of options) {
    const others = Object.fromEntries(Object.entries(selection).filter(([k]) => k !== option.name));
    for (const choice of option.choices) {
      const candidates = matching(variants, { ...others, [option.name]: choice.description }).filter((v) => v.visible);
      out.set(`${option.name}\u0000${choice.description}`, {
        visible: choice.visible && candidates.length > 0,
        inStock: choice.visible && candidates.some((v) => variantInStock(v, trackInventory)),
      });
    }
  }
  return out;
}
