/**
 * The pricing face: the engine for the cart, estimate-totals, checkout and order, and the merchant routes.
 *
 * - `priceCart(ctx, input)`: one D1 round trip, then pure computation. Amounts in and out are integer minor units.
 * - `estimateTotalsWire(result)`: the estimate-totals fields in the Wix wire shape (priceSummary, calculatedLineItems,
 *   shippingInfo, appliedDiscounts, additionalFees, taxSummary, violations, calculationErrors...): spread it next to
 *   `cart` and `membershipOptions`. `priceSummaryWire`, `appliedDiscountsWire`, `shippingInfoWire` give the parts.
 * - `toEcomMoney(minor, currency)`: one ecom money object ({amount: "10.50", ...}).
 * - `result.couponProblem`: why an entered coupon code was not applied (COUPON_DOES_NOT_EXIST, COUPON_EXPIRED,
 *   COUPON_USAGE_EXCEEDED, COUPON_MINIMUM_SUBTOTAL_NOT_MET, ...); null when it was applied or none was entered.
 * - Checkout: `pricingReads(db, couponCode, now?)` gives `{statements, finish}`: batch the statements with your own
 *   reads, then `computePricing(finish(theirResults), input, ctx.currency)` prices from them (still one round trip).
 *   `redeemCouponStatement(db, code)` (followed by `assertPreviousChanged`) and `recordRuleUsageStatements(db, result)`
 *   go into the order's write batch.
 */
export { priceCart, pricingReads, loadPricingConfig } from "./load";
export { computePricing } from "./engine/calculate";
export { redeemCouponStatement, recordRuleUsageStatements, appliedCouponCode } from "./redeem";
export { toEcomMoney, estimateTotalsWire, priceSummaryWire, appliedDiscountsWire, shippingInfoWire, type EcomMoney } from "./engine/wire";
export type * from "./engine/types";
export type { PricingConfig } from "./engine/config";
export { pricingRoutes } from "./routes";
export { couponService } from "./coupons";
export { demoPricingStatements } from "./demo";
export { discountRuleService } from "./discounts";
export { codeKey } from "./engine/discounts";
export { additionalFeeService } from "./fees";
export { pricingSettingsPatchSchema } from "./schemas";
export { getPricingSettings, updatePricingSettings } from "./settings";
export { shippingRegionService } from "./shipping";
export { coupons, discountRuleCodes, discountRules } from "./tables";
export { taxGroupService, taxRegionService } from "./taxes";
