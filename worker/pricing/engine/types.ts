/**
 * The pricing engine's contract: what the cart, estimate-totals, checkout and order pass in (PricingInput) and get
 * back (PricingResult). Every amount is an integer in minor units of the store currency (cents; yen for JPY).
 * The wire form (ecom money as decimal strings, the Wix estimate-totals shape) comes from `wire.ts`.
 */

export type ItemType = "PHYSICAL" | "DIGITAL" | "GIFT_CARD" | "SERVICE";

/** One cart or checkout line as the engine sees it. */
export interface PricingLine {
  /** The line item id (discounts and violations name lines by it). */
  id: string;
  quantity: number;
  /** Minor units per unit, after the catalogue's own product discount (what the shopper pays before cart discounts). */
  unitPrice: number;
  /** Minor units per unit, before the catalogue's discount (shown struck through; not used in any sum). */
  fullUnitPrice: number;
  /** Kilograms per unit (0 when unknown). */
  weight: number;
  /** Only PHYSICAL lines are shipped. GIFT_CARD lines are never taxed. */
  itemType: ItemType;
  /** The catalogue product id (discount scopes and tax groups match on it); null for custom line items. */
  catalogItemId: string | null;
  /** The product's collections (discount scopes and tax groups match on them). */
  collectionIds: string[];
  /** An explicit tax group; otherwise the tax group listing the product or one of its collections, else the default. */
  taxGroupId?: string | null;
}

export interface PricingAddress {
  /** ISO 3166-1 alpha-2 ("US"). */
  country?: string;
  /** ISO 3166-2 ("US-CA"); a bare "CA" is read as belonging to `country`. */
  subdivision?: string;
  city?: string;
  postalCode?: string;
  addressLine?: string;
}

/** A discount the merchant set on the cart (Wix `merchantDiscounts`): an amount or a percentage, of named lines or the whole cart. */
export interface MerchantDiscountInput {
  /** Minor units off the named lines together (or the whole cart). */
  amount?: number;
  /** Percent (0–100) off the named lines (or the whole cart). */
  percentage?: number;
  /** Lines it applies to; none means the whole cart (GLOBAL). */
  lineItemIds?: string[];
}

export interface PricingInput {
  lines: PricingLine[];
  /** The coupon code the shopper entered (matched without regard to case). */
  couponCode?: string | null;
  merchantDiscounts?: MerchantDiscountInput[];
  shippingAddress?: PricingAddress | null;
  billingAddress?: PricingAddress | null;
  /** The shipping option the shopper chose (by code); otherwise the region's first option is selected. */
  selectedShippingOption?: { code: string } | null;
  /** Default true. When false, no tax is computed (rate type NO_TAX_COLLECTED). */
  calculateTax?: boolean;
  /** Default true. When false, no shipping options are computed and shipping costs nothing. */
  calculateShipping?: boolean;
  /** Default true. When false, no additional fees are charged. */
  calculateAdditionalFees?: boolean;
  /** The moment to price at (discount rule and coupon validity); default: now. */
  now?: Date;
}

export type DiscountTarget = "GLOBAL" | "SPECIFIC_ITEMS" | "SHIPPING";

/** A cart discount that was applied (Wix discount type GLOBAL, SPECIFIC_ITEMS or SHIPPING). */
export interface AppliedDiscount {
  discountType: DiscountTarget;
  /** Minor units this discount took off (lines, or shipping for SHIPPING). */
  amount: number;
  /** Lines it took something off (empty for SHIPPING). */
  lineItemIds: string[];
  /** Exactly one of coupon, discountRule, merchantDiscount says where it came from. */
  coupon?: { id: string; code: string; name: string };
  discountRule?: { id: string; name: string };
  merchantDiscount?: { percentage?: number };
}

export interface PricedLine {
  id: string;
  quantity: number;
  unitPrice: number;
  fullUnitPrice: number;
  /** unitPrice × quantity. */
  subtotal: number;
  /** Cart discounts on this line (rules, coupon, merchant discounts; GLOBAL ones spread over lines). */
  discount: number;
  /** What tax was computed on: subtotal − discount, without tax. */
  taxableAmount: number;
  tax: number;
  /** Percent, e.g. 8.25 (0 when no tax). */
  taxRate: number;
  /** subtotal − discount, plus tax when prices exclude tax. */
  total: number;
  /** The tax group the line was taxed under (null: the default group). */
  taxGroupId: string | null;
}

export interface TaxDetails {
  taxableAmount: number;
  /** Percent. */
  taxRate: number;
  totalTax: number;
}

export interface ShippingOption {
  code: string;
  title: string;
  logistics: {
    deliveryTime?: string;
    instructions?: string;
    deliveryTimeSlot?: { from: string; to: string };
    pickupDetails?: { address: PricingAddress; pickupMethod: "STORE_PICKUP" | "PICKUP_POINT" };
  };
  cost: {
    /** The option's price before any shipping discount. */
    price: number;
    /** SHIPPING discounts that would apply to this option. */
    totalDiscount: number;
    totalPriceBeforeTax: number;
    totalPriceAfterTax: number;
    taxDetails: TaxDetails;
  };
}

export interface CarrierServiceOption {
  carrierId: string;
  shippingOptions: ShippingOption[];
}

export interface ShippingInfo {
  /** The shipping region the destination fell in (null: none, or nothing to ship). */
  region: { id: string; name: string } | null;
  carrierServiceOptions: CarrierServiceOption[];
  /** The option priced into the totals. */
  selectedCarrierServiceOption: (ShippingOption & { carrierId: string }) | null;
}

export type FeeType = "HANDLING_FEE" | "INSURANCE";

export interface AdditionalFee {
  code: string;
  name: string;
  type: FeeType;
  /** Minor units. Fees are not taxed. */
  price: number;
  source: "MANUAL";
}

export type TaxRateType = "NO_TAX_COLLECTED" | "MANUAL_RATE" | "AUTO_RATE" | "FALLBACK_RATE";
export type ManualRateReason = "GLOBAL_SETTING_TO_MANUAL" | "REGION_SETTING_TO_MANUAL" | "AUTO_TAX_FAILED" | "AUTO_TAX_DEACTIVATED";
export type TaxableAddressType = "BUSINESS" | "BILLING" | "SHIPPING";

export interface TaxSummary {
  /** Amount tax was computed on (without tax), lines and taxed shipping. */
  taxableAmount: number;
  totalTax: number;
  /** The tax region applied, and which address chose it. */
  region: { id: string; name: string; country: string; subdivision: string | null } | null;
  taxableAddressType: TaxableAddressType | null;
  calculationDetails: { rateType: TaxRateType; manualRateReason?: ManualRateReason };
}

export interface Violation {
  severity: "WARNING" | "ERROR";
  target: { other: { name: "OTHER_DEFAULT" } } | { lineItem: { id: string; name: "LINE_ITEM_DEFAULT" } };
  description: string;
  /** Machine-readable reason (an extension of the Wix shape), e.g. SHIPPING_ADDRESS_REQUIRED. */
  code?: string;
  suggestedFix?: "REMOVE_LINE_ITEM";
}

export type CouponProblemCode =
  | "COUPON_DOES_NOT_EXIST"
  | "COUPON_IS_DISABLED"
  | "COUPON_IS_NOT_ACTIVE_YET"
  | "COUPON_EXPIRED"
  | "COUPON_USAGE_EXCEEDED"
  | "COUPON_MINIMUM_SUBTOTAL_NOT_MET"
  | "COUPON_NOT_APPLICABLE";

export interface PricingResult {
  currency: string;
  /** Store setting: prices entered with tax (tax is extracted, totals unchanged) or without (tax is added). */
  taxIncludedInPrices: boolean;
  weightUnit: "KG";
  /**
   * subtotal: Σ line subtotals. discount: every cart discount (lines and shipping). shipping: the selected option's
   * price before shipping discounts. total = subtotal − discount + shipping + additionalFees (+ tax when prices
   * exclude tax).
   */
  priceSummary: { subtotal: number; discount: number; shipping: number; tax: number; additionalFees: number; total: number };
  lines: PricedLine[];
  appliedDiscounts: AppliedDiscount[];
  shippingInfo: ShippingInfo;
  additionalFees: AdditionalFee[];
  taxSummary: TaxSummary;
  violations: Violation[];
  /** Why the entered coupon code was not applied (null when it was, or none was entered). */
  couponProblem: { code: CouponProblemCode; description: string } | null;
}
