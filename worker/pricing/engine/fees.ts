import type { FeeConfig } from "./config";
import { percentOf } from "./rounding";
import type { AdditionalFee } from "./types";

/**
 * Additional fees, pure: each active fee is a fixed amount or a percentage of the subtotal after cart discounts
 * (rounded half away from zero), charged only when that subtotal reaches its minimum. Fees are not taxed, and an
 * empty cart pays none.
 */
export function computeFees(fees: FeeConfig[], subtotalAfterDiscounts: number, hasLines: boolean): AdditionalFee[] {
  if (!hasLines) return [];
  const out: AdditionalFee[] = [];
  for (const f of fees) {
    if (f.minimumSubtotal !== null && subtotalAfterDiscounts < f.minimumSubtotal) continue;
    const price = f.amount !== null ? f.amount : percentOf(subtotalAfterDiscounts, f.percentage ?? 0);
    out.push({ code: f.code, name: f.name, type: f.type, price, source: "MANUAL" });
  }
  return out;
}
