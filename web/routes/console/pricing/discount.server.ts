import { R, T, V } from "./discount-paths";
import { moneyOrNull, numberOrRaw, text, ticked, utcOrRaw } from "#web/components/console/pricing.server";

/** The discount rule form's inputs, named by their API paths, and how they become the service's request. */

/** The products and collections of a SPECIFIC_ITEMS rule, carried through the form unchanged (they are set through the API). */
function itemsOf(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** The form's fields (named by API path) as the discount-rule service's request (worker/pricing/schemas.ts discountRuleInputSchema). */
export function ruleRequest(v: Record<string, string>) {
  const type = text(v, `${V}.discountType`);
  const target = text(v, `${V}.targetType`);
  const value = text(v, `${V}.percentage`);
  const condition = text(v, `${T}.conditionType`);
  const from = text(v, `${T}.subtotalRange.from`);
  const to = text(v, `${T}.subtotalRange.to`);
  const trigger =
    condition === "SUBTOTAL_RANGE"
      ? { conditionType: condition, subtotalRange: { from: moneyOrNull(from), to: moneyOrNull(to) } }
      : condition === "ITEM_QUANTITY_RANGE"
        ? { conditionType: condition, itemQuantityRange: { from: numberOrRaw(from), to: numberOrRaw(to) } }
        : condition === "COUPON_CODE"
          ? { conditionType: condition, couponCode: { code: text(v, `${T}.couponCode.code`) } }
          : null;
  return {
    name: text(v, `${R}.name`),
    active: ticked(v, `${R}.active`),
    activeTimeInfo: { start: utcOrRaw(text(v, `${R}.activeTimeInfo.start`)), end: utcOrRaw(text(v, `${R}.activeTimeInfo.end`)) },
    discounts: {
      values: [
        {
          targetType: target,
          discountType: type,
          ...(type === "FIXED_AMOUNT" ? { fixedAmount: moneyOrNull(value) } : { percentage: numberOrRaw(value) }),
          ...(target === "SPECIFIC_ITEMS" ? { specificItemsInfo: itemsOf(v[`${V}.specificItemsInfo`] ?? "") } : {}),
        },
      ],
    },
    // Conditions combined with AND / OR are made through the API; the form keeps them unless another is chosen.
    ...(condition === "KEEP" ? {} : { trigger }),
  };
}

/** Where the paths no input is named by show: one input takes the percent or amount, one pair either range. */
export const SHOWN_AT = {
  [`${R}.discounts`]: `${V}.percentage`,
  [`${V}.fixedAmount`]: `${V}.percentage`,
  [V]: `${V}.targetType`,
  [`${V}.specificItemsInfo`]: `${V}.targetType`,
  [T]: `${T}.conditionType`,
  [`${T}.itemQuantityRange.from`]: `${T}.subtotalRange.from`,
  [`${T}.itemQuantityRange.to`]: `${T}.subtotalRange.to`,
  [`${R}.activeTimeInfo`]: `${R}.activeTimeInfo.end`,
};
