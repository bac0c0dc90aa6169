import {
  emptyPricingConfig,
  type PricingConfig,
  type RuleConfig,
  type ShippingRegionConfig,
  type TaxRegionConfig,
  DEFAULT_PRICING_SETTINGS,
  type PricingSettings,
} from "#worker/pricing/engine/config";
import { computePricing } from "#worker/pricing/engine/calculate";
import type { StoredDiscount, StoredShippingOption } from "#worker/pricing/tables";
import type { PricingInput, PricingLine } from "#worker/pricing/engine/types";

/** Builders for pure pricing cases: a line, a discount, a rule, a shipping region and option, a tax region. */

export const NOW = new Date("2026-03-01T12:00:00.000Z");

export const line = (id: string, o: Partial<PricingLine> = {}): PricingLine => ({
  id,
  quantity: 1,
  unitPrice: 1000,
  fullUnitPrice: o.unitPrice ?? 1000,
  weight: 0,
  itemType: "PHYSICAL",
  catalogItemId: `prod-${id}`,
  collectionIds: [],
  ...o,
});

export const discount = (o: Partial<StoredDiscount> = {}): StoredDiscount => ({
  targetType: "GLOBAL",
  catalogItemIds: [],
  collectionIds: [],
  discountType: "PERCENTAGE",
  percentage: null,
  fixedAmount: null,
  ...o,
});

let ruleSeq = 0;
export const rule = (o: Partial<RuleConfig> = {}): RuleConfig => ({
  id: `rule-${++ruleSeq}`,
  name: o.name ?? `Rule ${ruleSeq}`,
  active: true,
  startDate: null,
  endDate: null,
  trigger: null,
  discount: discount({ percentage: 10 }),
  createdDate: new Date(Date.UTC(2026, 0, 1, 0, 0, ruleSeq)).toISOString(),
  ...o,
});

export const option = (o: Partial<StoredShippingOption> = {}): StoredShippingOption => ({
  code: "std",
  title: "Standard",
  kind: "DELIVERY",
  deliveryTime: "3-5 business days",
  instructions: null,
  deliveryTimeSlot: null,
  pickupDetails: null,
  rate: 500,
  rules: [],
  freeShippingThreshold: null,
  ...o,
});

export const shippingRegion = (o: Partial<ShippingRegionConfig> = {}): ShippingRegionConfig => ({
  id: o.id ?? "region-us",
  name: o.name ?? "United States",
  countries: ["US"],
  subdivisions: [],
  restOfWorld: false,
  options: [option()],
  createdDate: "2026-01-01T00:00:00.000Z",
  ...o,
});

export const taxRegion = (o: Partial<TaxRegionConfig> = {}): TaxRegionConfig => ({
  id: o.id ?? "tax-us",
  name: o.name ?? "US",
  country: "US",
  subdivision: "",
  defaultRate: 10,
  groupRates: [],
  taxShipping: false,
  calculation: "DEFAULT",
  ...o,
});

export const settingsWith = (o: Partial<PricingSettings>): PricingSettings => ({ ...DEFAULT_PRICING_SETTINGS, ...o });

export const US = { country: "US", subdivision: "US-NY", city: "New York", postalCode: "10001", addressLine: "1 Main St" };

/** Prices with a config built from parts and an input (default: now = NOW). */
export function price(config: Partial<PricingConfig>, input: Partial<PricingInput> & { lines: PricingLine[] }, currency = "USD") {
  return computePricing(emptyPricingConfig(config), { now: NOW, ...input }, currency);
}
