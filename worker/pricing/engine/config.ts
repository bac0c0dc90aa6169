import type { StoredDiscount, StoredShippingOption, StoredTrigger } from "../tables";
import type { PricingAddress, TaxableAddressType } from "./types";

/**
 * Everything the engine reads, as plain data: loaded from D1 in one batch (load.ts) or built by hand in tests.
 * The pure parts (discounts, shipping, tax, fees) only ever see this.
 */

export interface PricingSettings {
  /** Prices are entered with tax included: tax is extracted from them and totals do not change. Default false. */
  pricesIncludeTax: boolean;
  /** Which address decides the tax region. SHIPPING (default) falls back to billing, BILLING to shipping; both then to the business address. */
  taxableAddress: TaxableAddressType;
  /** The store's address: tax region for BUSINESS, and the last fallback for the others; its country picks the default shipping region. */
  businessAddress: PricingAddress | null;
  /** MANUAL (default): manual rates everywhere. AUTO: automatic tax, which this store has no provider for, so manual rates apply (AUTO_TAX_DEACTIVATED) except in regions set to MANUAL. */
  taxCalculation: "MANUAL" | "AUTO";
  /** Shipping region whose options show before the shopper gives an address; default: the region of the business address. */
  defaultShippingRegionId: string | null;
}

export const DEFAULT_PRICING_SETTINGS: PricingSettings = {
  pricesIncludeTax: false,
  taxableAddress: "SHIPPING",
  businessAddress: null,
  taxCalculation: "MANUAL",
  defaultShippingRegionId: null,
};

export interface RuleConfig {
  id: string;
  name: string;
  active: boolean;
  startDate: string | null;
  endDate: string | null;
  trigger: StoredTrigger | null;
  discount: StoredDiscount;
  createdDate: string;
}

export interface CouponConfig {
  id: string;
  code: string;
  name: string;
  active: boolean;
  startTime: string | null;
  expirationTime: string | null;
  usageLimit: number | null;
  timesUsed: number;
  minimumSubtotal: number | null;
  discount: StoredDiscount;
}

export interface ShippingRegionConfig {
  id: string;
  name: string;
  countries: string[];
  subdivisions: string[];
  restOfWorld: boolean;
  options: StoredShippingOption[];
  createdDate: string;
}

export interface TaxGroupConfig {
  id: string;
  name: string;
  catalogItemIds: string[];
  collectionIds: string[];
  createdDate: string;
}

export interface TaxRegionConfig {
  id: string;
  name: string;
  country: string;
  /** "" for the whole country. */
  subdivision: string;
  defaultRate: number;
  groupRates: { taxGroupId: string; rate: number }[];
  taxShipping: boolean;
  calculation: "DEFAULT" | "MANUAL";
}

export interface FeeConfig {
  id: string;
  code: string;
  name: string;
  type: "HANDLING_FEE" | "INSURANCE";
  amount: number | null;
  percentage: number | null;
  minimumSubtotal: number | null;
  createdDate: string;
}

export interface PricingConfig {
  settings: PricingSettings;
  /** Rules the merchant has switched on that have not ended (plus any naming the entered code), oldest first. */
  rules: RuleConfig[];
  /** The coupon whose code was entered, if one exists. */
  coupon: CouponConfig | null;
  shippingRegions: ShippingRegionConfig[];
  taxGroups: TaxGroupConfig[];
  taxRegions: TaxRegionConfig[];
  /** Active fees, oldest first. */
  fees: FeeConfig[];
}

/** An empty store: no rules, coupons, regions or fees, default settings. */
export function emptyPricingConfig(overrides: Partial<PricingConfig> = {}): PricingConfig {
  return { settings: DEFAULT_PRICING_SETTINGS, rules: [], coupon: null, shippingRegions: [], taxGroups: [], taxRegions: [], fees: [], ...overrides };
}

/** Settings from the stored "pricing" row over the defaults (unknown or mistyped keys are ignored). */
export function pricingSettingsFrom(value: unknown): PricingSettings {
  const v = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const out: PricingSettings = { ...DEFAULT_PRICING_SETTINGS };
  if (typeof v.pricesIncludeTax === "boolean") out.pricesIncludeTax = v.pricesIncludeTax;
  if (v.taxableAddress === "BUSINESS" || v.taxableAddress === "BILLING" || v.taxableAddress === "SHIPPING") out.taxableAddress = v.taxableAddress;
  if (v.businessAddress && typeof v.businessAddress === "object") out.businessAddress = v.businessAddress as PricingAddress;
  if (v.taxCalculation === "MANUAL" || v.taxCalculation === "AUTO") out.taxCalculation = v.taxCalculation;
  if (typeof v.defaultShippingRegionId === "string") out.defaultShippingRegionId = v.defaultShippingRegionId;
  return out;
}
