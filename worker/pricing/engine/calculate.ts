import { formatMoney } from "#worker/platform/money";
import type { PricingConfig, RuleConfig, TaxRegionConfig } from "./config";
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
 * (fees.ts) → tax (taxes.ts) → totals.
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
  const discounts = new Discounts(working);

  // 1. Discount rules, 2. the coupon, 3. the merchant's discounts.
  const entered = input.couponCode?.trim() ? codeKey(input.couponCode) : null;
  const codeRules = applyRules(config.rules, discounts, entered, now);
  const couponProblem = applyCoupon(config, input, { entered, codeRules, subtotal, currency, now }, discounts);
  applyMerchantDiscounts(input.merchantDiscounts ?? [], discounts);
  const afterItemDiscounts = working.reduce((a, l) => a + l.remaining, 0);

  // 4. Shipping.
  const { shippingInfo, selected } = shippingOptions(config, input, working, now, violations);
  const shippingPrice = selected ? selected.price : 0;
  const shippingDiscount = discounts.settleShipping(shippingPrice);

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
  const pickupAddress = selected?.option.kind === "PICKUP" ? (selected.option.pickupDetails?.address ?? null) : null;
  const taxable =
    input.calculateTax === false
      ? null
      : taxableAddress(settings, {
          shipping: (pickupAddress as PricingAddress | null) ?? input.shippingAddress ?? null,
          billing: input.billingAddress ?? null,
        });
  const taxRegion = taxable ? matchTaxRegion(config.taxRegions, taxable.address) : null;
  const lines = pricedLines(working, config, taxRegion, inclusive);
  const shippingRate = taxRegion?.taxShipping ? taxRegion.defaultRate : 0;
  taxShippingOptions(shippingInfo, selected?.option ?? null, { rate: shippingRate, inclusive, discounts });
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
  const discount = lines.reduce((a, l) => a + l.discount, 0) + shippingDiscount;
  const total = subtotal - discount + shippingPrice + feesTotal + (inclusive ? 0 : tax);
  return {
    currency,
    taxIncludedInPrices: inclusive,
    weightUnit: "KG",
    priceSummary: { subtotal, discount, shipping: shippingPrice, tax, additionalFees: feesTotal, total },
    lines,
    // A rule that took nothing off (a shipping rule on a cart with nothing to ship) is not listed; a valid coupon is.
    appliedDiscounts: discounts.applied.filter((d) => d.amount > 0 || d.coupon),
    shippingInfo,
    additionalFees: fees,
    taxSummary,
    violations,
    couponProblem,
  };
}

/** The discounts applied so far. Item discounts come off the working lines at once; shipping ones wait for a price. */
class Discounts {
  readonly applied: AppliedDiscount[] = [];
  /** SHIPPING discounts, applied once the shipping price is known. */
  private readonly shipping: { discount: StoredDiscount; entry: AppliedDiscount }[] = [];

  constructor(readonly working: WorkingLine[]) {}

  /** Applies a rule's or coupon's discount; one that takes nothing off is listed only when `keepWhenZero`. */
  apply(d: StoredDiscount, entry: Omit<AppliedDiscount, "amount" | "lineItemIds" | "discountType">, keepWhenZero: boolean): void {
    const base = { discountType: d.targetType, amount: 0, lineItemIds: [] as string[], ...entry };
    if (d.targetType === "SHIPPING") {
      this.shipping.push({ discount: d, entry: base });
      this.applied.push(base);
      return;
    }
    const { total, shares } = applyItemDiscount(d, this.working);
    if (total > 0 || keepWhenZero) this.applied.push({ ...base, amount: total, lineItemIds: [...shares.keys()] });
  }

  /** What the shipping discounts take off a shipping price: in total, and each in turn. */
  offShipping(price: number): { total: number; each: number[] } {
    let left = price;
    const each = this.shipping.map(({ discount }) => {
      const a = shippingDiscount(discount, left);
      left -= a;
      return a;
    });
    return { total: price - left, each };
  }

  /** Records what each shipping discount takes off the chosen shipping price; returns their total. */
  settleShipping(price: number): number {
    const off = this.offShipping(price);
    this.shipping.forEach(({ entry }, i) => (entry.amount = off.each[i] ?? 0));
    return off.total;
  }
}

/** What the coupon step needs to know besides the discounts. */
interface CouponCheck {
  entered: string | null;
  /** The rules naming the entered code, and whether one of them fired. */
  codeRules: { rules: RuleConfig[]; fired: boolean };
  subtotal: number;
  currency: string;
  now: Date;
}

/** 1. Discount rules: switched on, LIVE, trigger holds (measured before cart discounts), oldest first. */
function applyRules(rules: RuleConfig[], discounts: Discounts, entered: string | null, now: Date): CouponCheck["codeRules"] {
  const codeRules: RuleConfig[] = [];
  let fired = false;
  const firing = rules.filter((rule) => {
    if (!rule.active) return false;
    const named = entered !== null && triggerCodes(rule.trigger).includes(entered);
    if (named) codeRules.push(rule);
    if (timeStatus(rule.startDate, rule.endDate, now) !== "LIVE") return false;
    const holds = triggerHolds(rule.trigger, linesInScope(rule.discount, discounts.working), entered);
    if (holds && named) fired = true;
    return holds;
  });
  for (const rule of firing) discounts.apply(rule.discount, { discountRule: { id: rule.id, name: rule.name } }, false);
  return { rules: codeRules, fired };
}

/** 2. The entered code: a coupon, or the code trigger of a discount rule. Returns why it took nothing off, if so. */
function applyCoupon(config: PricingConfig, input: PricingInput, check: CouponCheck, discounts: Discounts): PricingResult["couponProblem"] {
  const { entered, now } = check;
  if (entered === null) return null;
  const shownCode = input.couponCode?.trim() ?? "";
  const problem = (code: CouponProblemCode, description: string) => ({ code, description });
  const coupon = config.coupon && codeKey(config.coupon.code) === entered ? config.coupon : null;
  if (coupon) {
    const status = timeStatus(coupon.startTime, coupon.expirationTime, now);
    if (!coupon.active) return problem("COUPON_IS_DISABLED", `The coupon ${shownCode} is switched off`);
    if (status === "PENDING") return problem("COUPON_IS_NOT_ACTIVE_YET", `The coupon ${shownCode} can be used from ${coupon.startTime}`);
    if (status === "EXPIRED") return problem("COUPON_EXPIRED", `The coupon ${shownCode} expired on ${coupon.expirationTime}`);
    if (coupon.usageLimit !== null && coupon.timesUsed >= coupon.usageLimit)
      return problem("COUPON_USAGE_EXCEEDED", `The coupon ${shownCode} has been used up`);
    if (coupon.minimumSubtotal !== null && check.subtotal < coupon.minimumSubtotal) {
      return problem(
        "COUPON_MINIMUM_SUBTOTAL_NOT_MET",
        `The coupon ${shownCode} needs a subtotal of at least ${formatMoney(coupon.minimumSubtotal, check.currency)}`,
      );
    }
    if (coupon.discount.targetType === "SPECIFIC_ITEMS" && linesInScope(coupon.discount, discounts.working).length === 0) {
      return problem("COUPON_NOT_APPLICABLE", `The coupon ${shownCode} applies to none of the items in the cart`);
    }
    discounts.apply(coupon.discount, { coupon: { id: coupon.id, code: coupon.code, name: coupon.name } }, true);
    return null;
  }
  const { rules, fired } = check.codeRules;
  if (rules.length === 0) return problem("COUPON_DOES_NOT_EXIST", `There is no coupon ${shownCode}`);
  if (fired) return null;
  const statuses = rules.map((r) => timeStatus(r.startDate, r.endDate, now));
  if (statuses.every((s) => s === "EXPIRED")) return problem("COUPON_EXPIRED", `The coupon ${shownCode} has expired`);
  if (statuses.every((s) => s !== "LIVE")) return problem("COUPON_IS_NOT_ACTIVE_YET", `The coupon ${shownCode} is not active yet`);
  return problem("COUPON_NOT_APPLICABLE", `The coupon ${shownCode} does not apply to this cart`);
}

/** 3. The merchant's discounts. They name lines, not products; an amount comes off the named lines (or the cart) together. */
function applyMerchantDiscounts(merchantDiscounts: NonNullable<PricingInput["merchantDiscounts"]>, discounts: Discounts): void {
  const { working } = discounts;
  for (const md of merchantDiscounts) {
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
      discounts.applied.push({
        discountType: ids ? "SPECIFIC_ITEMS" : "GLOBAL",
        amount,
        lineItemIds: [...byId.keys()],
        merchantDiscount: md.percentage !== undefined ? { percentage: md.percentage } : {},
      });
    }
  }
}

/** 4. The shipping region and its options for what is shipped, and the option chosen with its price. */
function shippingOptions(
  config: PricingConfig,
  input: PricingInput,
  working: WorkingLine[],
  now: Date,
  violations: Violation[],
): { shippingInfo: ShippingInfo; selected: { option: StoredShippingOption; price: number } | null } {
  const settings = config.settings;
  const shipped = working.filter((l) => l.line.itemType === "PHYSICAL" && l.line.quantity > 0);
  const measures: ShipmentMeasures = {
    weight: roundWeight(shipped.reduce((a, l) => a + (l.line.weight || 0) * l.line.quantity, 0)),
    price: shipped.reduce((a, l) => a + l.remaining, 0),
    quantity: shipped.reduce((a, l) => a + l.line.quantity, 0),
  };
  const shippingInfo: ShippingInfo = { region: null, carrierServiceOptions: [], selectedCarrierServiceOption: null };
  if (input.calculateShipping === false || shipped.length === 0) return { shippingInfo, selected: null };
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
    return { shippingInfo, selected: null };
  }
  shippingInfo.region = { id: region.id, name: region.name };
  const options = availableOptions(region.options, now);
  const chosen = chooseOption(options, input.selectedShippingOption?.code, region.name, violations);
  shippingInfo.carrierServiceOptions = [
    { carrierId: SHIPPING_CARRIER_ID, shippingOptions: options.map((o) => shapeOption(o, optionPrice(o, measures))) },
  ];
  return { shippingInfo, selected: chosen ? { option: chosen, price: optionPrice(chosen, measures) } : null };
}

/** The option the shopper chose if it is available, else the first one; none when the region has none. */
function chooseOption(
  options: StoredShippingOption[],
  wanted: string | undefined,
  regionName: string,
  violations: Violation[],
): StoredShippingOption | null {
  if (options.length === 0) {
    violations.push({
      severity: "ERROR",
      target: other,
      code: "NO_SHIPPING_OPTIONS",
      description: `No shipping option is available for ${regionName}`,
    });
    return null;
  }
  const chosen = (wanted ? options.find((o) => o.code === wanted) : undefined) ?? options[0];
  if (wanted && chosen.code !== wanted) {
    violations.push({
      severity: "WARNING",
      target: other,
      code: "SHIPPING_OPTION_NOT_AVAILABLE",
      description: `The shipping option ${wanted} is not available here; ${chosen.title} was chosen instead`,
    });
  }
  return chosen;
}

/** 6. Each line after its discounts, with its tax group's rate in the tax region. */
function pricedLines(working: WorkingLine[], config: PricingConfig, taxRegion: TaxRegionConfig | null, inclusive: boolean): PricedLine[] {
  return working.map((l) => {
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
}

/** Every option shows its own tax and discount, so the shopper compares like with like; the chosen one is marked. */
function taxShippingOptions(
  shippingInfo: ShippingInfo,
  selected: StoredShippingOption | null,
  { rate, inclusive, discounts }: { rate: number; inclusive: boolean; discounts: Discounts },
): void {
  for (const carrier of shippingInfo.carrierServiceOptions) {
    for (const o of carrier.shippingOptions) {
      const disc = discounts.offShipping(o.cost.price).total;
      const { tax, taxable: base } = taxOf(o.cost.price - disc, rate, inclusive);
      o.cost.totalDiscount = disc;
      o.cost.totalPriceBeforeTax = base;
      o.cost.totalPriceAfterTax = base + tax;
      o.cost.taxDetails = { taxableAmount: base, taxRate: tax > 0 || rate > 0 ? rate : 0, totalTax: tax };
      if (selected && o.code === selected.code) shippingInfo.selectedCarrierServiceOption = { ...o, carrierId: carrier.carrierId };
    }
  }
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
