import { sql } from "drizzle-orm";
import { isUniqueViolation } from "#worker/platform/batch";
import { ApiError } from "#worker/platform/errors";
import type { FieldMap } from "#worker/platform/query";
import { codeKey, timeStatus } from "./engine/discounts";
import { isoOrNull, moneyOut, MoneyReader, resource } from "./resource";
import { couponInputSchema, type CouponInput } from "./schemas";
import { coupons, type StoredDiscount } from "./tables";
import { now } from "#worker/platform/clock";

/**
 * Coupons (merchant API at /api/v1/coupons): a code (unique without regard to case), exactly one of money off,
 * percent off or free shipping, a scope (whole order or some products / collections), an optional minimum subtotal,
 * a usage limit with the number of times used, and a validity window. Shoppers enter the code on their cart;
 * checkout counts a use with redeemCouponStatement (redeem.ts).
 */

type Row = typeof coupons.$inferSelect;
type Values = Omit<Row, "id" | "revision" | "createdDate" | "updatedDate" | "timesUsed">;

const KINDS = ["moneyOffAmount", "percentOffRate", "freeShipping"] as const;

function storedCouponDiscount(input: CouponInput, money: MoneyReader): StoredDiscount {
  const specific = input.scope?.type === "SPECIFIC_ITEMS";
  const scope = {
    catalogItemIds: specific ? [...new Set(input.scope!.catalogItemIds)] : [],
    collectionIds: specific ? [...new Set(input.scope!.collectionIds)] : [],
  };
  if (input.freeShipping)
    return { targetType: "SHIPPING", catalogItemIds: [], collectionIds: [], discountType: "PERCENTAGE", percentage: 100, fixedAmount: null };
  if (input.percentOffRate != null)
    return {
      targetType: specific ? "SPECIFIC_ITEMS" : "GLOBAL",
      ...scope,
      discountType: "PERCENTAGE",
      percentage: input.percentOffRate,
      fixedAmount: null,
    };
  return {
    targetType: specific ? "SPECIFIC_ITEMS" : "GLOBAL",
    ...scope,
    discountType: "FIXED_AMOUNT",
    percentage: null,
    fixedAmount: money.minor(input.moneyOffAmount!, "coupon.moneyOffAmount"),
  };
}

export const couponService = resource<Row, CouponInput, Values>({
  entity: "Coupon",
  notFoundCode: "COUPON_NOT_FOUND",
  wrapper: "coupon",
  plural: "coupons",
  table: coupons,
  schema: couponInputSchema,
  createDefaults: { timesUsed: 0 },
  toValues(ctx, input) {
    const money = new MoneyReader(ctx.currency);
    const values: Values = {
      code: input.code,
      codeKey: codeKey(input.code),
      name: input.name,
      active: input.active,
      startTime: isoOrNull(input.startTime),
      expirationTime: isoOrNull(input.expirationTime),
      usageLimit: input.usageLimit ?? null,
      minimumSubtotal: money.minorOrNull(input.minimumSubtotal, "coupon.minimumSubtotal"),
      discount: storedCouponDiscount(input, money),
    };
    money.check();
    return values;
  },
  // Naming one kind of discount in a patch replaces the other kinds.
  merge(current, patch) {
    const base = { ...current };
    if (KINDS.some((k) => k in patch)) for (const k of KINDS) delete base[k];
    return { ...base, ...patch };
  },
  conflict(err, values) {
    if (!isUniqueViolation(err, "coupons.code_key")) return null;
    return new ApiError(409, "DUPLICATE_COUPON_CODE", `Another coupon already uses the code ${values.code} (codes ignore case)`, {
      data: { code: values.code },
      message: "Coupon code already in use",
    });
  },
  shape(ctx, row) {
    const d = row.discount;
    const kind =
      d.targetType === "SHIPPING"
        ? { freeShipping: true }
        : d.discountType === "PERCENTAGE"
          ? { percentOffRate: d.percentage }
          : { moneyOffAmount: moneyOut(d.fixedAmount, ctx.currency) };
    return {
      id: row.id,
      revision: String(row.revision),
      createdDate: row.createdDate,
      updatedDate: row.updatedDate,
      code: row.code,
      name: row.name,
      active: row.active,
      startTime: row.startTime,
      expirationTime: row.expirationTime,
      usageLimit: row.usageLimit,
      timesUsed: row.timesUsed,
      minimumSubtotal: moneyOut(row.minimumSubtotal, ctx.currency),
      scope: {
        type: d.targetType === "SPECIFIC_ITEMS" ? "SPECIFIC_ITEMS" : "GLOBAL",
        catalogItemIds: d.catalogItemIds,
        collectionIds: d.collectionIds,
      },
      ...kind,
      status: timeStatus(row.startTime, row.expirationTime, now()),
      expired: timeStatus(row.startTime, row.expirationTime, now()) === "EXPIRED",
    };
  },
  fields(): FieldMap {
    return {
      id: { sql: coupons.id, type: "string", sortable: true },
      // Codes compare without regard to case, as shoppers enter them.
      code: { sql: sql`${coupons.code} COLLATE NOCASE`, type: "string", sortable: true },
      name: { sql: coupons.name, type: "string", sortable: true },
      active: { sql: coupons.active, type: "boolean" },
      timesUsed: { sql: coupons.timesUsed, type: "number", sortable: true },
      usageLimit: { sql: coupons.usageLimit, type: "number", sortable: true },
      startTime: { sql: coupons.startTime, type: "date", sortable: true },
      expirationTime: { sql: coupons.expirationTime, type: "date", sortable: true },
      createdDate: { sql: coupons.createdDate, type: "date", sortable: true },
      updatedDate: { sql: coupons.updatedDate, type: "date", sortable: true },
    };
  },
  defaultSort: () => [sql`${coupons.createdDate} ASC`],
});
