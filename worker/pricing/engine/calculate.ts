import { formatMoney } from "#worker/platform/money";
import type { PricingConfig, RuleConfig } from "./config";
import { applyItemDiscount, codeKey, linesInScope, shippingDiscount, timeStatus, triggerCodes, triggerHolds, type WorkingLine } from "./discounts";
import { computeFees } from "./fees";
import { allocate, percentOf } from "./rounding";
import { availableOptions, countryOf, matchShippingRegion, optionPrice, roundWeight, type ShipmentMeasures } from "./shipping";
import type { StoredDiscount, StoredShippingOption } from "../tables";
import { matchTaxRegion, rateFor, rateTypeFor, taxableAddress, taxGroupOf, taxOf } from "./taxes";
import type {
  AppliedDiscount,
  CouponProblemCode,
  PricedLine,
  PricingAddress,
  PricingInput,
  PricingResult,
  ShippingInfo,
  ShippingOption,
  TaxSummary,
  Violation,
} from "./types";
import { now as clockNow } from "#worker/platform/clock";

/** The carrier id of the store's own shipping rules in carrierServiceOptions. */
export const SHIPPING_CARRIER_ID = "storefront-shipping-rules";

const other = { other: { name: "OTHER_DEFAULT" as const } };

/**
 * Prices a cart with a loaded configuration: pure and synchronous, so it can be tested table by table. The order
 * of work: item discounts (discounts.ts) → shipping on what is left (shipping.ts) → shipping discounts → fees
 * (fees.ts) → tax (tax.ts) → totals.
 */
export function computePricing(config: PricingConfig, input: PricingInput, currency: string): PricingResult {
  const now = input.now ?? clockNow();
  const settings = config.settings;
  const inclusive = settings.pricesIncludeTax;
  const violations: Violation[] = [];

  const working: WorkingLine[] = input.lines.map((line) => {
    const quantity = Math.max(0, Math.trunc(line.quantity));
    const subtotal = Math.max(0, Math.round(line.unitPrice)) * quantity;
    return { line: { ...line, quantity }, subtotal, remaining: subtotal };
  });
  const subtotal = working.reduce((a, l) => a + l.subtotal, 0);
  const applied: AppliedDiscount[] = [];
  /** SHIPPING discounts, applied once the shipping price is known. */
  const shippingDiscounts: { discount: StoredDiscount; entry: AppliedDiscount }[] = [];

  const apply = (d: StoredDiscount, entry: Omit<AppliedDiscount, "amount" | "lineItemIds" | "discountType">, keepWhenZero: boolean) => {
    const base = { discountType: d.targetType, amount: 0, lineItemIds: [] as string[], ...entry };
    if (d.targetType === "SHIPPING") {
      shippingDiscounts.push({ discount: d, entry: base });
      applied.push(base);
      return;
    }
    const { total, shares } = applyItemDiscount(d, working);
    if (total > 0 || keepWhenZero) applied.push({ ...base, amount: total, lineItemIds: [...shares.keys()] });
  };

  // The entered code: a coupon, or the code trigger of a discount rule.
  const entered = input.couponCode?.trim() ? codeKey(input.couponCode) : null;
  let couponProblem: PricingResult["couponProblem"] = null;
  const problem = (code: CouponProblemCode, description: string) => (couponProblem = { code, description });
  const shownCode = input.couponCode?.trim() ?? "";

  // 1. Discount rules: switched on, LIVE, trigger holds (measured before cart discounts), oldest first.
  const codeRules: RuleConfig[] = [];
  let codeRuleFired = false;
  const firing = config.rules.filter((rule) => {
    if (!rule.active) return false;
    const named = entered !== null && triggerCodes(rule.trigger).includes(entered);
    if (named) codeRules.push(rule);
    if (timeStatus(rule.startDate, rule.endDate, now) !== "LIVE") return false;
    const holds = triggerHolds(rule.trigger, linesInScope(rule.discount, working), entered);
    if (holds && named) codeRuleFired = true;
    return holds;
  });
  for (const rule of firing) apply(rule.discount, { discountRule: { id: rule.id, name: rule.name } }, false);

  // 2. The coupon.
  const coupon = config.coupon && entered !== null && codeKey(config.coupon.code) === entered ? config.coupon : null;
  if (entered !== null) {
    if (coupon) {
      const status = timeStatus(coupon.startTime, coupon.expirationTime, now);
      if (!coupon.active) problem("COUPON_IS_DISABLED", `The coupon ${shownCode} is switched off`);
      else if (status === "PENDING") problem("COUPON_IS_NOT_ACTIVE_YET", `The coupon ${shownCode} can be used from ${coupon.startTime}`);
      else if (status === "EXPIRED") problem("COUPON_EXPIRED", `The coupon ${shownCode} expired on ${coupon.expirationTime}`);
      else if (coupon.usageLimit !== null && coupon.timesUsed >= coupon.usageLimit)
        problem("COUPON_USAGE_EXCEEDED", `The coupon ${shownCode} has been used up`);
      else if (coupon.minimumSubtotal !== null && subtotal < coupon.minimumSubtotal) {
        problem(
          "COUPON_MINIMUM_SUBTOTAL_NOT_MET",
          `The coupon ${shownCode} needs a subtotal of at least ${formatMoney(coupon.minimumSubtotal, currency)}`,
        );
      } else if (coupon.discount.targetType === "SPECIFIC_ITEMS" && linesInScope(coupon.discount, working).length === 0) {
        problem("COUPON_NOT_APPLICABLE", `The coupon ${shownCode} applies to none of the items in the cart`);
      } else {
        apply(coupon.discount, { coupon: { id: coupon.id, code: coupon.code, name: coupon.name } }, true);
      }
    } else if (codeRules.length === 0) {
      problem("COUPON_DOES_NOT_EXIST", `There is no coupon ${shownCode}`);
    } else if (!codeRuleFired) {
      const statuses = codeRules.map((r) => timeStatus(r.startDate, r.endDate, now));
      if (statuses.every((s) => s === "EXPIRED")) problem("COUPON_EXPIRED", `The coupon ${shownCode} has expired`);
      else if (statuses.every((s) => s !== "LIVE")) problem("COUPON_IS_NOT_ACTIVE_YET", `The coupon ${shownCode} is not active yet`);
      else problem("COUPON_NOT_APPLICABLE", `The coupon ${shownCode} does not apply to this cart`);
    }
  }
  // 3. The merchant's discounts. They name lines, not products; an amount comes off the named lines (or the cart) together.
  for (const md of input.merchantDiscounts ?? []) {
    const ids = md.lineItemIds?.length ? md.lineItemIds : null;
    const targets = ids ? working.filter((l) => ids.includes(l.line.id)) : working;
    const base = targets.reduce((a, l) => a + l.remaining, 0);
    const wanted = md.percentage !== undefined ? percentOf(base, md.percentage) : Math.max(0, Math.round(md.amount ?? 0));
    const shares = allocate(
      Math.min(base, wanted),
      targets.map((l) => l.remaining),
    );
    const byId = new Map<string, number>();
    targets.forEach((l, i) => {
      if (shares[i] <= 0) return;
      l.remaining -= shares[i];
      byId.set(l.line.id, (byId.get(l.line.id) ?? 0) + shares[i]);
    });
    const amount = shares.reduce((a, s) => a + s, 0);
    if (amount > 0) {
      applied.push({
        discountType: ids ? "SPECIFIC_ITEMS" : "GLOBAL",
        amount,
        lineItemIds: [...byId.keys()],
        merchantDiscount: md.percentage !== undefined ? { percentage: md.percentage } : {},
      });
    }
  }

  const afterItemDiscounts = working.reduce((a, l) => a + l.remaining, 0);

  // 4. Shipping.
  const shipped = working.filter((l) => l.line.itemType === "PHYSICAL" && l.line.quantity > 0);
  const measures: ShipmentMeasures = {
    weight: roundWeight(shipped.reduce((a, l) => a + (l.line.weight || 0) * l.line.quantity, 0)),
    price: shipped.reduce((a, l) => a + l.remaining, 0),
    quantity: shipped.reduce((a, l) => a + l.line.quantity, 0),
  };
  const shippingInfo: ShippingInfo = { region: null, carrierServiceOptions: [], selectedCarrierServiceOption: null };
  let selectedStored: StoredShippingOption | null = null;
  const optionDiscounts = (price: number) => {
    let left = price;
    const each = shippingDiscounts.map(({ discount }) => {
      const a = shippingDiscount(discount, left);
      left -= a;
      return a;
    });
    return { total: price - left, each };
  };
  if (input.calculateShipping !== false && shipped.length > 0) {
    const address = input.shippingAddress && countryOf(input.shippingAddress) ? input.shippingAddress : null;
    const region = address
      ? matchShippingRegion(config.shippingRegions, address)
      : (config.shippingRegions.find((r) => r.id === settings.defaultShippingRegionId) ??
        matchShippingRegion(config.shippingRegions, settings.businessAddress));
    if (!region) {
      violations.push(
        address
          ? { severity: "ERROR", target: other, code: "NO_SHIPPING_TO_DESTINATION", description: `This store does not ship to ${countryOf(address)}` }
          : {
              severity: "WARNING",
              target: other,
              code: "SHIPPING_ADDRESS_REQUIRED",
              description: "Enter a shipping address to see the shipping options",
            },
      );
    } else {
      shippingInfo.region = { id: region.id, name: region.name };
      const options = availableOptions(region.options, now);
      if (options.length === 0) {
        violations.push({
          severity: "ERROR",
          target: other,
          code: "NO_SHIPPING_OPTIONS",
          description: `No shipping option is available for ${region.name}`,
        });
      } else {
        const wanted = input.selectedShippingOption?.code;
        selectedStored = (wanted ? options.find((o) => o.code === wanted) : undefined) ?? options[0];
        if (wanted && selectedStored.code !== wanted) {
          violations.push({
            severity: "WARNING",
            target: other,
            code: "SHIPPING_OPTION_NOT_AVAILABLE",
            description: `The shipping option ${wanted} is not available here; ${selectedStored.title} was chosen instead`,
          });
        }
      }
      shippingInfo.carrierServiceOptions = [
        { carrierId: SHIPPING_CARRIER_ID, shippingOptions: options.map((o) => shapeOption(o, optionPrice(o, measures))) },
      ];
    }
  }
  const shippingPrice = selectedStored ? optionPrice(selectedStored, measures) : 0;
  const shipDisc = optionDiscounts(shippingPrice);
  shippingDiscounts.forEach(({ entry }, i) => (entry.amount = shipDisc.each[i] ?? 0));

  // 5. Fees.
  const fees =
    input.calculateAdditionalFees === false
      ? []
      : computeFees(
          config.fees,
          afterItemDiscounts,
          working.some((l) => l.line.quantity > 0),
        );
  const feesTotal = fees.reduce((a, f) => a + f.price, 0);

  // 6. Tax.
  const pickupAddress = selectedStored?.kind === "PICKUP" ? (selectedStored.pickupDetails?.address ?? null) : null;
  const taxable =
    input.calculateTax === false
      ? null
      : taxableAddress(settings, {
          shipping: (pickupAddress as PricingAddress | null) ?? input.shippingAddress ?? null,
          billing: input.billingAddress ?? null,
        });
  const taxRegion = taxable ? matchTaxRegion(config.taxRegions, taxable.address) : null;
  const lines: PricedLine[] = working.map((l) => {
    const groupId = taxGroupOf(l.line, config.taxGroups);
    const rate = taxRegion ? rateFor(taxRegion, groupId, l.line) : 0;
    const { tax, taxable: base } = taxOf(l.remaining, rate, inclusive);
    return {
      id: l.line.id,
      quantity: l.line.quantity,
      unitPrice: l.line.unitPrice,
      fullUnitPrice: l.line.fullUnitPrice,
      subtotal: l.subtotal,
      discount: l.subtotal - l.remaining,
      taxableAmount: base,
      tax,
      taxRate: rate,
      total: l.remaining + (inclusive ? 0 : tax),
      taxGroupId: groupId,
    };
  });
  const shippingRate = taxRegion?.taxShipping ? taxRegion.defaultRate : 0;
  // Every option shows its own tax and discount, so the shopper compares like with like.
  for (const carrier of shippingInfo.carrierServiceOptions) {
    for (const o of carrier.shippingOptions) {
      const disc = optionDiscounts(o.cost.price).total;
      const { tax, taxable: base } = taxOf(o.cost.price - disc, shippingRate, inclusive);
      o.cost.totalDiscount = disc;
      o.cost.totalPriceBeforeTax = base;
      o.cost.totalPriceAfterTax = base + tax;
      o.cost.taxDetails = { taxableAmount: base, taxRate: tax > 0 || shippingRate > 0 ? shippingRate : 0, totalTax: tax };
      if (selectedStored && o.code === selectedStored.code) shippingInfo.selectedCarrierServiceOption = { ...o, carrierId: carrier.carrierId };
    }
  }
  const shippingTax = shippingInfo.selectedCarrierServiceOption?.cost.taxDetails.totalTax ?? 0;
  const shippingTaxable = shippingRate > 0 ? (shippingInfo.selectedCarrierServiceOption?.cost.taxDetails.taxableAmount ?? 0) : 0;
  const lineTax = lines.reduce((a, l) => a + l.tax, 0);
  const tax = lineTax + shippingTax;
  const taxSummary: TaxSummary = {
    taxableAmount: lines.reduce((a, l) => a + (l.taxRate > 0 ? l.taxableAmount : 0), 0) + shippingTaxable,
    totalTax: tax,
    region: taxRegion ? { id: taxRegion.id, name: taxRegion.name, country: taxRegion.country, subdivision: taxRegion.subdivision || null } : null,
    taxableAddressType: taxable?.type ?? null,
    calculationDetails: rateTypeFor(settings, taxRegion),
  };

  // 7. Totals.
  const discount = lines.reduce((a, l) => a + l.discount, 0) + shipDisc.total;
  const total = subtotal - discount + shippingPrice + feesTotal + (inclusive ? 0 : tax);
  return {
    currency,
    taxIncludedInPrices: inclusive,
    weightUnit: "KG",
    priceSummary: { subtotal, discount, shipping: shippingPrice, tax, additionalFees: feesTotal, total },
    lines,
    // A rule that took nothing off (a shipping rule on a cart with nothing to ship) is not listed; a valid coupon is.
    appliedDiscounts: applied.filter((d) => d.amount > 0 || d.coupon),
    shippingInfo,
    additionalFees: fees,
    taxSummary,
    violations,
    couponProblem,
  };
}

function shapeOption(o: StoredShippingOption, price: number): ShippingOption {
  const logistics: ShippingOption["logistics"] = {};
  if (o.deliveryTime) logistics.deliveryTime = o.deliveryTime;
  if (o.instructions) logistics.instructions = o.instructions;
  if (o.deliveryTimeSlot) logistics.deliveryTimeSlot = { ...o.deliveryTimeSlot };
  if (o.kind === "PICKUP" && o.pickupDetails)
    logistics.pickupDetails = { address: { ...o.pickupDetails.address }, pickupMethod: o.pickupDetails.pickupMethod };
  return {
    code: o.code,
    title: o.title,
    logistics,
    cost: {
      price,
      totalDiscount: 0,
      totalPriceBeforeTax: price,
      totalPriceAfterTax: price,
      taxDetails: { taxableAmount: price, taxRate: 0, totalTax: 0 },
    },
  };
}
