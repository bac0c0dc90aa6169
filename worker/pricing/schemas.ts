import { z } from "zod";

/**
 * Wire schemas of the pricing configuration APIs. Money is written as a decimal string ("5.00") or a number in the
 * store currency's major units and answered as a decimal string; percentages are percent (8.25). Unknown keys are
 * dropped, as the Wix APIs do; read-only fields sent back (id, revision, status, dates) are ignored.
 */

/** Money in major units as written on the wire: "12.50" or 12.5. Converted to minor units (and checked against the currency's precision) by the service. */
export const moneySchema = z.union([
  z.number().finite().min(0).max(999_999_999),
  z
    .string()
    .trim()
    .regex(/^\d{1,9}(\.\d{1,6})?$/, 'must be a decimal amount such as "12.50"')
    .transform(Number),
]);

const percentSchema = z.number().finite().min(0).max(100);
const idSchema = z.string().trim().min(1).max(100);
const idList = z.array(idSchema).max(1000);
const dateSchema = z.iso.datetime({ offset: true, message: "must be an ISO-8601 date-time such as 2026-05-01T00:00:00Z" });
const countrySchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code such as US")
  .transform((s) => s.toUpperCase());
const subdivisionSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{2}-[A-Za-z0-9]{1,3}$/, "must be an ISO 3166-2 subdivision code such as US-CA")
  .transform((s) => s.toUpperCase());
const codeSchema = z
  .string()
  .trim()
  .min(1)
  .max(50)
  .regex(/^[A-Za-z0-9_-]+$/, "may hold only letters, digits, - and _");
const revisionSchema = z.union([z.string().regex(/^\d{1,15}$/), z.number().int().min(0)]).transform(Number);

export const addressSchema = z.object({
  country: countrySchema.optional(),
  subdivision: z.string().trim().max(10).optional(),
  city: z.string().trim().max(100).optional(),
  postalCode: z.string().trim().max(20).optional(),
  addressLine: z.string().trim().max(200).optional(),
});

// ---------- discount rules (Wix ecom Discount Rules shape) ----------

const rangeOf = <T extends z.ZodType>(value: T) => z.object({ from: value.nullish(), to: value.nullish() });

const leafTriggers = [
  z.object({ conditionType: z.literal("SUBTOTAL_RANGE"), subtotalRange: rangeOf(moneySchema) }),
  z.object({ conditionType: z.literal("ITEM_QUANTITY_RANGE"), itemQuantityRange: rangeOf(z.number().int().min(0).max(1_000_000)) }),
  z.object({ conditionType: z.literal("COUPON_CODE"), couponCode: z.object({ code: codeSchema }) }),
] as const;
const leafTrigger = z.discriminatedUnion("conditionType", [...leafTriggers]);
const chained = z.object({ triggers: z.array(leafTrigger).min(1).max(5) });

export const triggerSchema = z.discriminatedUnion("conditionType", [
  ...leafTriggers,
  z.object({ conditionType: z.literal("AND"), and: chained }),
  z.object({ conditionType: z.literal("OR"), or: chained }),
]);
export type TriggerInput = z.output<typeof triggerSchema>;

export const discountValueSchema = z
  .object({
    targetType: z.enum(["GLOBAL", "SPECIFIC_ITEMS", "SHIPPING"]),
    specificItemsInfo: z.object({ catalogItemIds: idList.default([]), collectionIds: idList.default([]) }).nullish(),
    discountType: z.enum(["PERCENTAGE", "FIXED_AMOUNT"]),
    percentage: z.number().finite().gt(0).max(100).nullish(),
    fixedAmount: moneySchema.nullish(),
  })
  .superRefine((d, ctx) => {
    if (d.discountType === "PERCENTAGE" && d.percentage == null)
      ctx.addIssue({ code: "custom", path: ["percentage"], message: "is required for a PERCENTAGE discount" });
    if (d.discountType === "FIXED_AMOUNT" && d.fixedAmount == null)
      ctx.addIssue({ code: "custom", path: ["fixedAmount"], message: "is required for a FIXED_AMOUNT discount" });
    if (d.targetType === "SPECIFIC_ITEMS" && !d.specificItemsInfo?.catalogItemIds.length && !d.specificItemsInfo?.collectionIds.length) {
      ctx.addIssue({
        code: "custom",
        path: ["specificItemsInfo"],
        message: "must name at least one catalogItemId or collectionId for SPECIFIC_ITEMS",
      });
    }
  });
export type DiscountValueInput = z.output<typeof discountValueSchema>;

const activeTimeInfoSchema = z
  .object({ start: dateSchema.nullish(), end: dateSchema.nullish() })
  .refine((t) => !t.start || !t.end || Date.parse(t.start) < Date.parse(t.end), { message: "must start before it ends", path: ["end"] });

export const discountRuleInputSchema = z.object({
  name: z.string().trim().min(1).max(50),
  active: z.boolean().default(true),
  trigger: triggerSchema.nullish(),
  activeTimeInfo: activeTimeInfoSchema.nullish(),
  discounts: z.object({ values: z.array(discountValueSchema).min(1).max(1) }),
  revision: revisionSchema.optional(),
});
export type DiscountRuleInput = z.output<typeof discountRuleInputSchema>;

// ---------- coupons ----------

export const couponInputSchema = z
  .object({
    code: codeSchema,
    name: z.string().trim().min(1).max(100),
    active: z.boolean().default(true),
    startTime: dateSchema.nullish(),
    expirationTime: dateSchema.nullish(),
    /** Total uses across all shoppers; absent: unlimited. */
    usageLimit: z.number().int().min(1).max(1_000_000_000).nullish(),
    minimumSubtotal: moneySchema.nullish(),
    /** Which items the money or percentage comes off: the whole order (default) or some products / collections. */
    scope: z
      .object({ type: z.enum(["GLOBAL", "SPECIFIC_ITEMS"]).default("GLOBAL"), catalogItemIds: idList.default([]), collectionIds: idList.default([]) })
      .nullish(),
    /** Exactly one of: */
    moneyOffAmount: moneySchema.nullish(),
    percentOffRate: z.number().finite().gt(0).max(100).nullish(),
    freeShipping: z.boolean().nullish(),
    revision: revisionSchema.optional(),
  })
  .superRefine((c, ctx) => {
    const kinds = [c.moneyOffAmount != null, c.percentOffRate != null, c.freeShipping === true].filter(Boolean).length;
    if (kinds !== 1)
      ctx.addIssue({
        code: "custom",
        path: ["moneyOffAmount"],
        message: "exactly one of moneyOffAmount, percentOffRate and freeShipping must be given",
      });
    if (c.startTime && c.expirationTime && Date.parse(c.startTime) >= Date.parse(c.expirationTime)) {
      ctx.addIssue({ code: "custom", path: ["expirationTime"], message: "must be after startTime" });
    }
    if (c.scope?.type === "SPECIFIC_ITEMS" && !c.scope.catalogItemIds.length && !c.scope.collectionIds.length) {
      ctx.addIssue({ code: "custom", path: ["scope"], message: "must name at least one catalogItemId or collectionId for SPECIFIC_ITEMS" });
    }
  });
export type CouponInput = z.output<typeof couponInputSchema>;

// ---------- shipping regions ----------

export const shippingRuleSchema = z.object({
  basis: z.enum(["WEIGHT", "PRICE", "QUANTITY"]),
  operator: z.enum(["EQ", "GT", "GTE", "LT", "LTE"]),
  /** kg for WEIGHT, money for PRICE (decimal string or number), units for QUANTITY. */
  value: z.union([
    z.number().finite().min(0).max(999_999_999),
    z
      .string()
      .trim()
      .regex(/^\d{1,9}(\.\d{1,6})?$/)
      .transform(Number),
  ]),
  rate: moneySchema,
});

export const shippingOptionSchema = z
  .object({
    code: codeSchema,
    title: z.string().trim().min(1).max(100),
    kind: z.enum(["DELIVERY", "PICKUP"]).default("DELIVERY"),
    deliveryTime: z.string().trim().max(100).nullish(),
    instructions: z.string().trim().max(500).nullish(),
    deliveryTimeSlot: z
      .object({ from: dateSchema, to: dateSchema })
      .refine((s) => Date.parse(s.from) < Date.parse(s.to), { message: "must start before it ends", path: ["to"] })
      .nullish(),
    pickupDetails: z.object({ address: addressSchema, pickupMethod: z.enum(["STORE_PICKUP", "PICKUP_POINT"]).default("STORE_PICKUP") }).nullish(),
    rate: moneySchema.default(0),
    rules: z.array(shippingRuleSchema).max(50).default([]),
    freeShippingThreshold: moneySchema.nullish(),
  })
  .superRefine((o, ctx) => {
    if (o.kind === "PICKUP" && !o.pickupDetails)
      ctx.addIssue({ code: "custom", path: ["pickupDetails"], message: "is required for a PICKUP option" });
    o.rules.forEach((r, i) => {
      if (r.basis === "QUANTITY" && !Number.isInteger(r.value))
        ctx.addIssue({ code: "custom", path: ["rules", i, "value"], message: "must be a whole number of units" });
    });
  });

export const shippingRegionInputSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    countries: z.array(countrySchema).max(250).default([]),
    subdivisions: z.array(subdivisionSchema).max(500).default([]),
    restOfWorld: z.boolean().default(false),
    options: z.array(shippingOptionSchema).max(50).default([]),
    revision: revisionSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.restOfWorld && (r.countries.length || r.subdivisions.length))
      ctx.addIssue({ code: "custom", path: ["restOfWorld"], message: "a rest-of-world region lists no countries" });
    if (!r.restOfWorld && !r.countries.length)
      ctx.addIssue({ code: "custom", path: ["countries"], message: "must list at least one country (or set restOfWorld)" });
    r.subdivisions.forEach((s, i) => {
      if (!r.countries.includes(s.slice(0, 2)))
        ctx.addIssue({ code: "custom", path: ["subdivisions", i], message: `belongs to ${s.slice(0, 2)}, which is not in countries` });
    });
    const seen = new Set<string>();
    r.options.forEach((o, i) => {
      if (seen.has(o.code)) ctx.addIssue({ code: "custom", path: ["options", i, "code"], message: `repeats the code ${o.code}` });
      seen.add(o.code);
    });
  });
export type ShippingRegionInput = z.output<typeof shippingRegionInputSchema>;

// ---------- tax ----------

export const taxGroupInputSchema = z.object({
  name: z.string().trim().min(1).max(50),
  catalogItemIds: idList.default([]),
  collectionIds: idList.default([]),
  revision: revisionSchema.optional(),
});
export type TaxGroupInput = z.output<typeof taxGroupInputSchema>;

export const taxRegionInputSchema = z
  .object({
    name: z.string().trim().max(100).nullish(),
    country: countrySchema,
    subdivision: subdivisionSchema.nullish(),
    /** Percent for products of the default tax group. */
    defaultRate: percentSchema,
    groupRates: z
      .array(z.object({ taxGroupId: idSchema, rate: percentSchema }))
      .max(100)
      .default([]),
    taxShipping: z.boolean().default(false),
    calculation: z.enum(["DEFAULT", "MANUAL"]).default("DEFAULT"),
    revision: revisionSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.subdivision && r.subdivision.slice(0, 2) !== r.country)
      ctx.addIssue({ code: "custom", path: ["subdivision"], message: `must be a subdivision of ${r.country}` });
    const seen = new Set<string>();
    r.groupRates.forEach((g, i) => {
      if (seen.has(g.taxGroupId)) ctx.addIssue({ code: "custom", path: ["groupRates", i, "taxGroupId"], message: "repeats a tax group" });
      seen.add(g.taxGroupId);
    });
  });
export type TaxRegionInput = z.output<typeof taxRegionInputSchema>;

// ---------- additional fees ----------

export const additionalFeeInputSchema = z
  .object({
    code: codeSchema,
    name: z.string().trim().min(1).max(100),
    type: z.enum(["HANDLING_FEE", "INSURANCE"]),
    amount: moneySchema.nullish(),
    /** Percent of the subtotal after discounts. */
    percentage: z.number().finite().gt(0).max(100).nullish(),
    minimumSubtotal: moneySchema.nullish(),
    active: z.boolean().default(true),
    revision: revisionSchema.optional(),
  })
  .refine((f) => (f.amount != null) !== (f.percentage != null), { message: "exactly one of amount and percentage must be given", path: ["amount"] });
export type AdditionalFeeInput = z.output<typeof additionalFeeInputSchema>;

// ---------- settings ----------

export const pricingSettingsPatchSchema = z.object({
  pricesIncludeTax: z.boolean().optional(),
  taxableAddress: z.enum(["BUSINESS", "BILLING", "SHIPPING"]).optional(),
  businessAddress: addressSchema.nullable().optional(),
  taxCalculation: z.enum(["MANUAL", "AUTO"]).optional(),
  defaultShippingRegionId: idSchema.nullable().optional(),
});
export type PricingSettingsPatch = z.output<typeof pricingSettingsPatchSchema>;

/** A query request: Wix `query` with offset `paging` or `cursorPaging` (the cursor is an opaque offset). */
export const queryRequestSchema = z.object({
  query: z
    .object({
      filter: z.unknown().optional(),
      sort: z.unknown().optional(),
      paging: z.unknown().optional(),
      cursorPaging: z.object({ limit: z.number().int().min(0).max(100).nullish(), cursor: z.string().max(100).nullish() }).nullish(),
    })
    .nullish(),
});
