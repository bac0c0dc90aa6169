import { formatMoney, toDecimalString } from "#worker/platform/money";
import { percentToFraction } from "./rounding";
import type { PricingAddress, PricingResult, ShippingOption, TaxDetails } from "./types";

/**
 * The pricing result in the Wix ecom wire shape: ecom money as decimal strings, tax rates as
 * fraction strings ("0.0825"), the estimate-totals fields next to `cart`.
 */

export interface EcomMoney {
  amount: string;
  convertedAmount: string;
  formattedAmount: string;
  formattedConvertedAmount: string;
}

/** Minor units to the Wix ecom money object ({amount: "10.50", formattedAmount: "$10.50", ...}); no currency conversion. */
export function toEcomMoney(minor: number, currency: string): EcomMoney {
  const amount = toDecimalString(minor, currency);
  const formatted = formatMoney(minor, currency);
  return { amount, convertedAmount: amount, formattedAmount: formatted, formattedConvertedAmount: formatted };
}

function taxDetailsWire(t: TaxDetails, currency: string) {
  return {
    taxableAmount: toEcomMoney(t.taxableAmount, currency),
    taxRate: percentToFraction(t.taxRate),
    totalTax: toEcomMoney(t.totalTax, currency),
  };
}

function addressWire(a: PricingAddress) {
  return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined && v !== null && v !== ""));
}

function optionWire(o: ShippingOption, currency: string) {
  const logistics: Record<string, unknown> = {};
  if (o.logistics.deliveryTime) logistics.deliveryTime = o.logistics.deliveryTime;
  if (o.logistics.instructions) logistics.instructions = o.logistics.instructions;
  if (o.logistics.deliveryTimeSlot) logistics.deliveryTimeSlot = { ...o.logistics.deliveryTimeSlot };
  if (o.logistics.pickupDetails)
    logistics.pickupDetails = { address: addressWire(o.logistics.pickupDetails.address), pickupMethod: o.logistics.pickupDetails.pickupMethod };
  return {
    code: o.code,
    title: o.title,
    logistics,
    cost: {
      price: toEcomMoney(o.cost.price, currency),
      totalDiscount: toEcomMoney(o.cost.totalDiscount, currency),
      totalPriceBeforeTax: toEcomMoney(o.cost.totalPriceBeforeTax, currency),
      totalPriceAfterTax: toEcomMoney(o.cost.totalPriceAfterTax, currency),
      taxDetails: taxDetailsWire(o.cost.taxDetails, currency),
    },
  };
}

/** The priceSummary object in ecom money. */
export function priceSummaryWire(r: PricingResult) {
  const m = (v: number) => toEcomMoney(v, r.currency);
  const s = r.priceSummary;
  return {
    subtotal: m(s.subtotal),
    shipping: m(s.shipping),
    tax: m(s.tax),
    discount: m(s.discount),
    total: m(s.total),
    additionalFees: m(s.additionalFees),
  };
}

/** appliedDiscounts in the Wix shape (coupon / discountRule / merchantDiscount, each with its amount). */
export function appliedDiscountsWire(r: PricingResult) {
  return r.appliedDiscounts.map((d) => {
    const amount = toEcomMoney(d.amount, r.currency);
    const base = { discountType: d.discountType, lineItemIds: d.lineItemIds };
    if (d.coupon) return { ...base, coupon: { ...d.coupon, amount } };
    if (d.discountRule)
      return { ...base, discountRule: { id: d.discountRule.id, name: { original: d.discountRule.name, translated: d.discountRule.name }, amount } };
    return {
      ...base,
      merchantDiscount: { amount, ...(d.merchantDiscount?.percentage !== undefined ? { percentage: d.merchantDiscount.percentage } : {}) },
    };
  });
}

/** shippingInfo: region, selectedCarrierServiceOption and carrierServiceOptions (delivery slot dates as ISO strings). */
export function shippingInfoWire(r: PricingResult) {
  const sel = r.shippingInfo.selectedCarrierServiceOption;
  return {
    region: r.shippingInfo.region,
    selectedCarrierServiceOption: sel ? { ...optionWire(sel, r.currency), carrierId: sel.carrierId } : null,
    carrierServiceOptions: r.shippingInfo.carrierServiceOptions.map((c) => ({
      carrierId: c.carrierId,
      shippingOptions: c.shippingOptions.map((o) => optionWire(o, r.currency)),
    })),
  };
}

/**
 * Every estimate-totals field the pricing knows, in the wire shape: spread it next to `cart` and
 * `membershipOptions` (the cart's part) to answer POST /ecom/v1/carts/current/estimate-totals.
 */
export function estimateTotalsWire(r: PricingResult) {
  const m = (v: number) => toEcomMoney(v, r.currency);
  return {
    calculatedLineItems: r.lines.map((l) => ({
      lineItemId: l.id,
      pricesBreakdown: {
        price: m(l.unitPrice),
        fullPrice: m(l.fullUnitPrice),
        priceBeforeDiscounts: m(l.unitPrice),
        lineItemPrice: m(l.subtotal),
        totalDiscount: m(l.discount),
        totalPriceBeforeTax: m(l.taxableAmount),
        totalPriceAfterTax: m(l.taxableAmount + l.tax),
        taxDetails: taxDetailsWire({ taxableAmount: l.taxableAmount, taxRate: l.taxRate, totalTax: l.tax }, r.currency),
      },
      paymentOption: "FULL_PAYMENT_ONLINE",
    })),
    priceSummary: priceSummaryWire(r),
    shippingInfo: shippingInfoWire(r),
    appliedDiscounts: appliedDiscountsWire(r),
    additionalFees: r.additionalFees.map((f) => ({
      code: f.code,
      name: f.name,
      type: f.type,
      price: m(f.price),
      priceBeforeTax: m(f.price),
      priceAfterTax: m(f.price),
      taxDetails: taxDetailsWire({ taxableAmount: 0, taxRate: 0, totalTax: 0 }, r.currency),
      source: f.source,
      lineItemIds: [] as string[],
    })),
    taxSummary: {
      taxableAmount: m(r.taxSummary.taxableAmount),
      totalTax: m(r.taxSummary.totalTax),
      region: r.taxSummary.region,
      taxableAddressType: r.taxSummary.taxableAddressType,
      calculationDetails: r.taxSummary.calculationDetails,
    },
    taxIncludedInPrices: r.taxIncludedInPrices,
    violations: r.violations,
    calculationErrors: r.couponProblem
      ? { couponCalculationError: { applicationError: { code: r.couponProblem.code, description: r.couponProblem.description, data: {} } } }
      : {},
    weightUnit: r.weightUnit,
    currency: r.currency,
    payNow: priceSummaryWire(r),
    payLater: priceSummaryWire({ ...r, priceSummary: { subtotal: 0, discount: 0, shipping: 0, tax: 0, additionalFees: 0, total: 0 } }),
  };
}
