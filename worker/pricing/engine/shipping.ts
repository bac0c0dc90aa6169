import type { ShippingRegionConfig } from "./config";
import type { ShippingRuleOperator, StoredShippingOption } from "../tables";
import type { PricingAddress } from "./types";

/**
 * Shipping, pure. A destination falls in the most specific region that names it: a region listing its subdivision,
 * else a region listing its whole country, else the "rest of world" region (ties: the oldest region). Each option of
 * the region is priced by its rules over the shipped lines (PHYSICAL only): WEIGHT (kg), PRICE (their subtotal
 * after cart discounts) or QUANTITY (units), compared with EQ, GT, GTE, LT or LTE; the first rule that matches sets
 * the rate, otherwise the option's flat rate. A free-shipping threshold, when the shipped subtotal reaches it,
 * makes the option free whatever the rules say.
 */

/** Upper-case country code, or null. */
export function countryOf(address: PricingAddress | null | undefined): string | null {
  const c = address?.country?.trim().toUpperCase();
  return c ? c : null;
}

/** ISO 3166-2 subdivision ("US-CA"); a bare "CA" is taken as a subdivision of the country. */
export function subdivisionOf(address: PricingAddress | null | undefined): string | null {
  const country = countryOf(address);
  const s = address?.subdivision?.trim().toUpperCase();
  if (!s || !country) return null;
  return s.includes("-") ? s : `${country}-${s}`;
}

/** The region a destination falls in (regions oldest first), or null. */
export function matchShippingRegion(regions: ShippingRegionConfig[], address: PricingAddress | null | undefined): ShippingRegionConfig | null {
  const country = countryOf(address);
  if (!country) return null;
  const sub = subdivisionOf(address);
  const ofCountry = regions.filter((r) => r.countries.includes(country));
  return (
    (sub ? ofCountry.find((r) => r.subdivisions.includes(sub)) : undefined) ??
    ofCountry.find((r) => r.subdivisions.length === 0) ??
    regions.find((r) => r.restOfWorld) ??
    null
  );
}

export interface ShipmentMeasures {
  /** kg, rounded to the milligram so 0.1 × 3 equals 0.3 */
  weight: number;
  /** Subtotal of the shipped lines after cart discounts, minor units. */
  price: number;
  quantity: number;
}

export function compare(value: number, op: ShippingRuleOperator, bound: number): boolean {
  switch (op) {
    case "EQ":
      return value === bound;
    case "GT":
      return value > bound;
    case "GTE":
      return value >= bound;
    case "LT":
      return value < bound;
    case "LTE":
      return value <= bound;
  }
}

/** An option's price for a shipment, minor units. */
export function optionPrice(option: StoredShippingOption, m: ShipmentMeasures): number {
  if (option.freeShippingThreshold !== null && m.price >= option.freeShippingThreshold) return 0;
  for (const rule of option.rules) {
    const value = rule.basis === "WEIGHT" ? m.weight : rule.basis === "PRICE" ? m.price : m.quantity;
    if (compare(value, rule.operator, rule.value)) return rule.rate;
  }
  return option.rate;
}

/** Options a shopper can still choose at `now`: a delivery slot that has ended is gone. */
export function availableOptions(options: StoredShippingOption[], now: Date): StoredShippingOption[] {
  return options.filter((o) => !o.deliveryTimeSlot || Date.parse(o.deliveryTimeSlot.to) > now.getTime());
}

/** Rounds a weight to the milligram. */
export function roundWeight(kg: number): number {
  return Math.round(kg * 1_000_000) / 1_000_000;
}
