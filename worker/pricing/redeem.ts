import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "#worker/platform/db";
import { codeKey } from "./engine/discounts";
import { coupons, discountRules } from "./tables";
import type { PricingResult } from "./engine/types";

/**
 * Counts one use of a coupon, only while it has uses left: a guarded
 * `UPDATE coupons SET times_used = times_used + 1 WHERE code_key = ? AND (usage_limit IS NULL OR times_used < usage_limit)`.
 * Put it in the order's batch followed by `assertPreviousChanged(db)` (platform/batch.ts), so the last use of a
 * coupon goes to exactly one order and a racing checkout fails as a whole. Only call it when the pricing applied a
 * coupon (`result.appliedDiscounts` has an entry with `coupon`): a code that only triggered a discount rule has no
 * coupon row, and the statement would change nothing.
 */
export function redeemCouponStatement(db: Db, code: string): BatchItem<"sqlite"> {
  return db
    .update(coupons)
    .set({ timesUsed: sql`${coupons.timesUsed} + 1` })
    .where(and(eq(coupons.codeKey, codeKey(code)), or(isNull(coupons.usageLimit), lt(coupons.timesUsed, coupons.usageLimit))));
}

/** Counts one use of every discount rule the pricing applied (their usageCount); unguarded, rules have no limit. */
export function recordRuleUsageStatements(db: Db, result: PricingResult): BatchItem<"sqlite">[] {
  const ids = [...new Set(result.appliedDiscounts.flatMap((d) => (d.discountRule ? [d.discountRule.id] : [])))];
  if (!ids.length) return [];
  return [
    db
      .update(discountRules)
      .set({ usageCount: sql`${discountRules.usageCount} + 1` })
      .where(sql`${discountRules.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`),
  ];
}

/** The coupon code a pricing applied, if any (what checkout passes to redeemCouponStatement). */
export function appliedCouponCode(result: PricingResult): string | null {
  return result.appliedDiscounts.find((d) => d.coupon)?.coupon?.code ?? null;
}
