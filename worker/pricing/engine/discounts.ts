import { allocate, percentOf } from "./rounding";
import type { StoredDiscount, StoredTrigger } from "../tables";
import type { PricingLine } from "./types";

/**
 * Cart discounts, pure. How they combine (the documented rule):
 * 1. Discount rules that are switched on, LIVE at `now`, and whose trigger holds, apply in creation order (oldest
 *    first); then the coupon; then the merchant's discounts in the order given. They STACK: each one works on what
 *    the earlier ones left of a line, so a line never goes below zero and percentages compound.
 * 2. Triggers are measured on the cart before any cart discount (so the order of rules never changes whether one
 *    fires): a SPECIFIC_ITEMS rule measures its own items, GLOBAL and SHIPPING rules the whole cart.
 * 3. GLOBAL: a percentage takes percent × (what is left of the order), rounded once; a fixed amount comes off the
 *    order once. Either is spread over the lines in proportion to what is left of each (largest remainder).
 *    SPECIFIC_ITEMS: a percentage works like GLOBAL over the matching lines; a fixed amount comes off EACH UNIT of
 *    each matching line (capped at what is left of the line). SHIPPING: off the shipping price (after the items).
 * 4. A coupon's minimum subtotal is compared with the cart subtotal before cart discounts; an entered code that is
 *    unknown, switched off, not yet or no longer valid, used up, short of its minimum or for none of the items is
 *    not applied, and the result says why (couponProblem).
 */

export type RuleStatus = "LIVE" | "PENDING" | "EXPIRED";

/** LIVE between start (inclusive) and end (exclusive); PENDING before; EXPIRED after. Open ends never bind. */
export function timeStatus(start: string | null, end: string | null, now: Date): RuleStatus {
  const t = now.getTime();
  if (start && Date.parse(start) > t) return "PENDING";
  if (end && Date.parse(end) <= t) return "EXPIRED";
  return "LIVE";
}

/** A coupon code as compared: trimmed, lower case. */
export function codeKey(code: string): string {
  return code.trim().toLowerCase();
}

/** A line inside the engine: what it costs and what cart discounts have left of it. */
export interface WorkingLine {
  line: PricingLine;
  subtotal: number;
  remaining: number;
}

/** True when a SPECIFIC_ITEMS discount reaches the line (by product, or by one of its collections). */
export function lineInScope(d: Pick<StoredDiscount, "catalogItemIds" | "collectionIds">, line: PricingLine): boolean {
  if (line.catalogItemId && d.catalogItemIds.includes(line.catalogItemId)) return true;
  return line.collectionIds.some((c) => d.collectionIds.includes(c));
}

/** The lines a discount reaches (SHIPPING reaches none; its triggers measure the whole cart). */
export function linesInScope<T extends { line: PricingLine }>(d: StoredDiscount, lines: T[]): T[] {
  if (d.targetType === "SPECIFIC_ITEMS") return lines.filter((l) => lineInScope(d, l.line));
  return lines;
}

/** The coupon codes a trigger names (a rule with one only fires when its code is entered). */
export function triggerCodes(t: StoredTrigger | null): string[] {
  if (!t) return [];
  if (t.conditionType === "COUPON_CODE") return [codeKey(t.code)];
  if (t.conditionType === "AND" || t.conditionType === "OR") return t.triggers.flatMap(triggerCodes);
  return [];
}

/** Whether a trigger holds for the measured lines (before cart discounts) and the entered code (already a codeKey). */
export function triggerHolds(t: StoredTrigger | null, measured: WorkingLine[], enteredCode: string | null): boolean {
  if (!t) return true;
  const inRange = (v: number, from: number | null, to: number | null) => (from === null || v >= from) && (to === null || v <= to);
  switch (t.conditionType) {
    case "SUBTOTAL_RANGE":
      return inRange(
        measured.reduce((a, l) => a + l.subtotal, 0),
        t.from,
        t.to,
      );
    case "ITEM_QUANTITY_RANGE":
      return inRange(
        measured.reduce((a, l) => a + l.line.quantity, 0),
        t.from,
        t.to,
      );
    case "COUPON_CODE":
      return enteredCode !== null && codeKey(t.code) === enteredCode;
    case "AND":
      return t.triggers.every((s) => triggerHolds(s, measured, enteredCode));
    case "OR":
      return t.triggers.some((s) => triggerHolds(s, measured, enteredCode));
  }
}

/**
 * Takes an item discount (GLOBAL or SPECIFIC_ITEMS) off the lines it reaches, updating `remaining`. Returns the
 * amount per line id (only lines that lost something) and the total.
 */
export function applyItemDiscount(d: StoredDiscount, lines: WorkingLine[]): { total: number; shares: Map<string, number> } {
  const targets = linesInScope(d, lines);
  const shares = new Map<string, number>();
  let amounts: number[];
  if (d.discountType === "FIXED_AMOUNT" && d.targetType === "SPECIFIC_ITEMS") {
    const perUnit = d.fixedAmount ?? 0;
    amounts = targets.map((l) => Math.min(l.remaining, perUnit * l.line.quantity));
  } else {
    const base = targets.reduce((a, l) => a + l.remaining, 0);
    const wanted = d.discountType === "PERCENTAGE" ? percentOf(base, d.percentage ?? 0) : (d.fixedAmount ?? 0);
    amounts = allocate(
      Math.min(base, wanted),
      targets.map((l) => l.remaining),
    );
  }
  let total = 0;
  targets.forEach((l, i) => {
    const a = amounts[i];
    if (a <= 0) return;
    l.remaining -= a;
    total += a;
    shares.set(l.line.id, (shares.get(l.line.id) ?? 0) + a);
  });
  return { total, shares };
}

/** What a SHIPPING discount takes off a shipping price (never more than the price). */
export function shippingDiscount(d: StoredDiscount, price: number): number {
  if (price <= 0) return 0;
  const wanted = d.discountType === "PERCENTAGE" ? percentOf(price, d.percentage ?? 0) : (d.fixedAmount ?? 0);
  return Math.max(0, Math.min(price, wanted));
}
