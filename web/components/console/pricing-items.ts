/**
 * The pricing items as the pricing services answer them (worker/pricing), as the console's lists and edit pages read
 * them.
 */

/** The coupon as the service answers it (worker/pricing/coupons.ts `shape`). */
export interface Coupon {
  id: string;
  revision: string;
  code: string;
  name: string;
  active: boolean;
  startTime: string | null;
  expirationTime: string | null;
  usageLimit: number | null;
  timesUsed: number;
  minimumSubtotal: string | null;
  scope: { type: string; catalogItemIds: string[]; collectionIds: string[] };
  moneyOffAmount?: string;
  percentOffRate?: number;
  freeShipping?: boolean;
  status: string;
}

/** A discount rule as the service answers it (worker/pricing/discount-rules.ts `shape`). */
export interface DiscountRule {
  id: string;
  revision: string;
  name: string;
  active: boolean;
  trigger: Trigger | null;
  activeTimeInfo: { start: string | null; end: string | null };
  discounts: { values: DiscountValue[] };
  status: string;
  usageCount: number;
}

export interface Trigger {
  conditionType: string;
  subtotalRange?: { from: string | null; to: string | null };
  itemQuantityRange?: { from: number | null; to: number | null };
  couponCode?: { code: string };
  and?: { triggers: Trigger[] };
  or?: { triggers: Trigger[] };
}

export interface DiscountValue {
  targetType: string;
  specificItemsInfo?: { catalogItemIds: string[]; collectionIds: string[] };
  discountType: string;
  percentage?: number;
  fixedAmount?: string;
}

/** An additional fee as the service answers it (worker/pricing/additional-fees.ts `shape`). */
export interface AdditionalFee {
  id: string;
  revision: string;
  code: string;
  name: string;
  type: "HANDLING_FEE" | "INSURANCE";
  amount?: string;
  percentage?: number;
  minimumSubtotal: string | null;
  active: boolean;
}

/** A shipping region as the service answers it (worker/pricing/shipping-regions.ts `shape`). */
export interface ShippingRegion {
  id: string;
  revision: string;
  name: string;
  countries: string[];
  subdivisions: string[];
  restOfWorld: boolean;
  options: ShippingOption[];
}

export interface ShippingOption {
  code: string;
  title: string;
  kind: "DELIVERY" | "PICKUP";
  deliveryTime: string | null;
  instructions: string | null;
  deliveryTimeSlot: { from: string; to: string } | null;
  pickupDetails: unknown;
  rate: string;
  rules: { basis: string; operator: string; value: string | number; rate: string }[];
  freeShippingThreshold: string | null;
}

/** A tax region as the service answers it (worker/pricing/taxes.ts `shape`). */
export interface TaxRegion {
  id: string;
  revision: string;
  name: string;
  country: string;
  subdivision: string | null;
  defaultRate: number;
  groupRates: { taxGroupId: string; rate: number }[];
  taxShipping: boolean;
  calculation: "DEFAULT" | "MANUAL";
}

/** A tax group as the service answers it (worker/pricing/taxes.ts `shape`). */
export interface TaxGroup {
  id: string;
  revision: string;
  name: string;
  catalogItemIds: string[];
  collectionIds: string[];
}
