/**
 * The pricing engine, for the cart, estimate-totals, checkout and order (implemented in worker/pricing/).
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
export { priceCart, pricingReads, loadPricingConfig } from "../pricing/load";
export { computePricing } from "../pricing/engine";
export { redeemCouponStatement, recordRuleUsageStatements, appliedCouponCode } from "../pricing/redeem";
export { toEcomMoney, estimateTotalsWire, priceSummaryWire, appliedDiscountsWire, shippingInfoWire, type EcomMoney } from "../pricing/wire";
export type * from "../pricing/types";
export type { PricingConfig } from "../pricing/config";
