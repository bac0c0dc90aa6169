import { and, asc, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { settings } from "#worker/platform/tables";
import { pricingSettingsFrom, type PricingConfig } from "./engine/config";
import { codeKey } from "./engine/discounts";
import { computePricing } from "./engine/calculate";
import { additionalFees, coupons, discountRuleCodes, discountRules, liveRuleEnd, shippingRegions, taxGroups, taxRegions } from "./tables";
import type { PricingInput, PricingResult } from "./engine/types";
import { now as clockNow } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

/** The "pricing" key of the settings table. */
export const PRICING_SETTINGS_KEY = "pricing";

/** How many rows of each configuration table one pricing read takes (stores have a handful; this bounds a runaway one). */
const CONFIG_LIMIT = 500;

/**
 * The reads one pricing needs, to run as one D1 batch, possibly together with the caller's own reads (checkout
 * batches them with its cart and stock reads). Call `finish` with the results of exactly these statements, in order.
 */
export function pricingReads(db: Db, couponCode: string | null | undefined, now: Date = clockNow()) {
  const statements = configStatements(db, couponCode?.trim() ? codeKey(couponCode) : "", now);
  const finish = (results: unknown[]): PricingConfig => configFrom(results as unknown as ConfigResults);
  return { statements: [...statements] as BatchItem<"sqlite">[], finish };
}

/** The configuration's reads: settings, rules, the entered coupon, shipping regions, tax groups and regions, fees. */
function configStatements(db: Db, code: string, now: Date) {
  // Switched-on rules that have not ended, plus any rule naming the entered code (so an ended one can be reported
  // as COUPON_EXPIRED rather than unknown). Both come from an index (discount_rules_live_idx, discount_rule_codes):
  // ended rules are never read, nor any rule's trigger JSON.
  const live = and(eq(discountRules.active, true), sql`${liveRuleEnd(discountRules.endDate)} > ${now.toISOString()}`);
  const ruleFilter = code
    ? // A UNION of two index lookups: an OR of the two makes SQLite walk every switched-on rule instead. (The outer
      // test on active is written `+active` so it is checked on the rows found, not used to scan for them.)
      sql`${discountRules.id} IN (SELECT ${discountRules.id} FROM ${discountRules} WHERE ${live} UNION SELECT ${discountRuleCodes.ruleId} FROM ${discountRuleCodes} WHERE ${discountRuleCodes.codeKey} = ${code}) AND +${discountRules.active} = 1`
    : live;
  return [
    db.select().from(settings).where(eq(settings.key, PRICING_SETTINGS_KEY)),
    db.select().from(discountRules).where(ruleFilter).orderBy(asc(discountRules.createdDate), asc(discountRules.id)).limit(CONFIG_LIMIT),
    // An unknown or absent code matches no row (keys are never empty).
    db.select().from(coupons).where(eq(coupons.codeKey, code)).limit(1),
    db.select().from(shippingRegions).orderBy(asc(shippingRegions.createdDate), asc(shippingRegions.id)).limit(CONFIG_LIMIT),
    db.select().from(taxGroups).orderBy(asc(taxGroups.createdDate), asc(taxGroups.id)).limit(CONFIG_LIMIT),
    db.select().from(taxRegions).limit(CONFIG_LIMIT),
    db
      .select()
      .from(additionalFees)
      .where(eq(additionalFees.active, true))
      .orderBy(asc(additionalFees.createdDate), asc(additionalFees.id))
      .limit(CONFIG_LIMIT),
  ] as const;
}

type ConfigStatements = ReturnType<typeof configStatements>;
type ConfigResults = { [K in keyof ConfigStatements]: Awaited<ConfigStatements[K]> };

/** The engine's configuration from the rows the reads returned. */
function configFrom(results: ConfigResults): PricingConfig {
  const [settingRows, ruleRows, couponRows, regionRows, groupRows, taxRegionRows, feeRows] = results;
  const c = couponRows[0];
  return {
    settings: pricingSettingsFrom(settingRows[0]?.value),
    rules: ruleRows.map((r) => ({
      id: r.id,
      name: r.name,
      active: r.active,
      startDate: r.startDate,
      endDate: r.endDate,
      trigger: r.trigger ?? null,
      discount: r.discount,
      createdDate: r.createdDate,
    })),
    coupon: c
      ? {
          id: c.id,
          code: c.code,
          name: c.name,
          active: c.active,
          startTime: c.startTime,
          expirationTime: c.expirationTime,
          usageLimit: c.usageLimit,
          timesUsed: c.timesUsed,
          minimumSubtotal: c.minimumSubtotal,
          discount: c.discount,
        }
      : null,
    shippingRegions: regionRows.map((r) => ({
      id: r.id,
      name: r.name,
      countries: r.countries,
      subdivisions: r.subdivisions,
      restOfWorld: r.restOfWorld,
      options: r.options,
      createdDate: r.createdDate,
    })),
    taxGroups: groupRows.map((g) => ({
      id: g.id,
      name: g.name,
      catalogItemIds: g.catalogItemIds,
      collectionIds: g.collectionIds,
      createdDate: g.createdDate,
    })),
    taxRegions: taxRegionRows.map((r) => ({
      id: r.id,
      name: r.name,
      country: r.country,
      subdivision: r.subdivision,
      defaultRate: r.defaultRate,
      groupRates: r.groupRates,
      taxShipping: r.taxShipping,
      calculation: r.calculation,
    })),
    fees: feeRows.map((f) => ({
      id: f.id,
      code: f.code,
      name: f.name,
      type: f.type,
      amount: f.amount,
      percentage: f.percentage,
      minimumSubtotal: f.minimumSubtotal,
      createdDate: f.createdDate,
    })),
  };
}

/** Loads the pricing configuration in one D1 round trip. */
export async function loadPricingConfig(ctx: Ctx, couponCode: string | null | undefined, now?: Date): Promise<PricingConfig> {
  const reads = pricingReads(ctx.db, couponCode, now);
  return reads.finish(await runBatch(ctx.db, reads.statements));
}

/**
 * Prices a cart or checkout: one D1 round trip (a batch reading the live rules, the entered coupon, shipping
 * regions, tax groups and regions, fees and settings), then pure computation (engine.ts).
 */
export async function priceCart(ctx: Ctx, input: PricingInput): Promise<PricingResult> {
  const config = await loadPricingConfig(ctx, input.couponCode, input.now);
  return computePricing(config, input, ctx.currency);
}
