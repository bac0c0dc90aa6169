import { sql } from "drizzle-orm";
import { now } from "#worker/platform/clock";
import { nowIso } from "#worker/platform/context";
import type { FieldMap } from "#worker/platform/query";
import { timeStatus } from "./engine/discounts";
import { isoOrNull, moneyOut, MoneyReader, resource } from "./resource";
import { discountRuleInputSchema, type DiscountRuleInput, type DiscountValueInput, type TriggerInput } from "./schemas";
import { discountRules, type StoredDiscount, type StoredTrigger } from "./tables";

/**
 * Discount rules (Wix ecom Discount Rules: POST/GET/PATCH/DELETE /ecom/v1/discount-rules, POST .../query), merchant
 * only. `status` is computed from activeTimeInfo at the moment of the call: PENDING before start, EXPIRED from end,
 * LIVE between. A rule applies to carts when it is `active` and LIVE and its trigger holds (discounts.ts).
 */

type Row = typeof discountRules.$inferSelect;

function storedTrigger(t: TriggerInput, money: MoneyReader, at: string): StoredTrigger {
  switch (t.conditionType) {
    case "SUBTOTAL_RANGE":
      return {
        conditionType: "SUBTOTAL_RANGE",
        from: money.minorOrNull(t.subtotalRange.from, `${at}.subtotalRange.from`),
        to: money.minorOrNull(t.subtotalRange.to, `${at}.subtotalRange.to`),
      };
    case "ITEM_QUANTITY_RANGE":
      return { conditionType: "ITEM_QUANTITY_RANGE", from: t.itemQuantityRange.from ?? null, to: t.itemQuantityRange.to ?? null };
    case "COUPON_CODE":
      return { conditionType: "COUPON_CODE", code: t.couponCode.code };
    case "AND":
      return { conditionType: "AND", triggers: t.and.triggers.map((s, i) => storedTrigger(s, money, `${at}.and.triggers[${i}]`)) };
    case "OR":
      return { conditionType: "OR", triggers: t.or.triggers.map((s, i) => storedTrigger(s, money, `${at}.or.triggers[${i}]`)) };
  }
}

function triggerWire(t: StoredTrigger, currency: string): Record<string, unknown> {
  switch (t.conditionType) {
    case "SUBTOTAL_RANGE":
      return { conditionType: t.conditionType, subtotalRange: { from: moneyOut(t.from, currency), to: moneyOut(t.to, currency) } };
    case "ITEM_QUANTITY_RANGE":
      return { conditionType: t.conditionType, itemQuantityRange: { from: t.from, to: t.to } };
    case "COUPON_CODE":
      return { conditionType: t.conditionType, couponCode: { code: t.code } };
    case "AND":
      return { conditionType: "AND", and: { triggers: t.triggers.map((s) => triggerWire(s, currency)) } };
    case "OR":
      return { conditionType: "OR", or: { triggers: t.triggers.map((s) => triggerWire(s, currency)) } };
  }
}

/** A wire discount value (rules and coupons share the stored form). */
export function storedDiscount(d: DiscountValueInput, money: MoneyReader, at: string): StoredDiscount {
  const specific = d.targetType === "SPECIFIC_ITEMS";
  return {
    targetType: d.targetType,
    catalogItemIds: specific ? [...new Set(d.specificItemsInfo?.catalogItemIds ?? [])] : [],
    collectionIds: specific ? [...new Set(d.specificItemsInfo?.collectionIds ?? [])] : [],
    discountType: d.discountType,
    percentage: d.discountType === "PERCENTAGE" ? (d.percentage ?? null) : null,
    fixedAmount: d.discountType === "FIXED_AMOUNT" ? money.minorOrNull(d.fixedAmount, `${at}.fixedAmount`) : null,
  };
}

function discountWire(d: StoredDiscount, currency: string) {
  return {
    targetType: d.targetType,
    ...(d.targetType === "SPECIFIC_ITEMS" ? { specificItemsInfo: { catalogItemIds: d.catalogItemIds, collectionIds: d.collectionIds } } : {}),
    discountType: d.discountType,
    ...(d.discountType === "PERCENTAGE" ? { percentage: d.percentage } : { fixedAmount: moneyOut(d.fixedAmount, currency) }),
  };
}

export const discountRuleService = resource<Row, DiscountRuleInput, Omit<Row, "id" | "revision" | "createdDate" | "updatedDate" | "usageCount">>({
  entity: "Discount rule",
  notFoundCode: "DISCOUNT_RULE_NOT_FOUND",
  wrapper: "discountRule",
  plural: "discountRules",
  table: discountRules,
  schema: discountRuleInputSchema,
  createDefaults: { usageCount: 0 },
  toValues(ctx, input) {
    const money = new MoneyReader(ctx.currency);
    const values = {
      name: input.name,
      active: input.active,
      startDate: isoOrNull(input.activeTimeInfo?.start),
      endDate: isoOrNull(input.activeTimeInfo?.end),
      trigger: input.trigger ? storedTrigger(input.trigger, money, "discountRule.trigger") : null,
      discount: storedDiscount(input.discounts.values[0], money, "discountRule.discounts.values[0]"),
    };
    money.check();
    return values;
  },
  shape(ctx, row) {
    return {
      id: row.id,
      revision: String(row.revision),
      createdDate: row.createdDate,
      updatedDate: row.updatedDate,
      name: row.name,
      active: row.active,
      trigger: row.trigger ? triggerWire(row.trigger, ctx.currency) : null,
      activeTimeInfo: { start: row.startDate, end: row.endDate },
      discounts: { values: [discountWire(row.discount, ctx.currency)] },
      status: timeStatus(row.startDate, row.endDate, now()),
      usageCount: row.usageCount,
    };
  },
  fields(): FieldMap {
    const now = nowIso();
    const status = sql`(CASE WHEN ${discountRules.startDate} IS NOT NULL AND ${discountRules.startDate} > ${now} THEN 'PENDING'
      WHEN ${discountRules.endDate} IS NOT NULL AND ${discountRules.endDate} <= ${now} THEN 'EXPIRED' ELSE 'LIVE' END)`;
    return {
      id: { sql: discountRules.id, type: "string", sortable: true },
      name: { sql: discountRules.name, type: "string", sortable: true },
      active: { sql: discountRules.active, type: "boolean" },
      revision: { sql: discountRules.revision, type: "number" },
      status: { sql: status, type: "string", sortable: true },
      usageCount: { sql: discountRules.usageCount, type: "number", sortable: true },
      "activeTimeInfo.start": { sql: discountRules.startDate, type: "date", sortable: true },
      "activeTimeInfo.end": { sql: discountRules.endDate, type: "date", sortable: true },
      createdDate: { sql: discountRules.createdDate, type: "date", sortable: true },
      updatedDate: { sql: discountRules.updatedDate, type: "date", sortable: true },
    };
  },
  defaultSort: () => [sql`${discountRules.createdDate} ASC`],
});
