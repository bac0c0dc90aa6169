import { roundMinor, toMinor } from "#worker/platform/money";

/** Catalogue pricing rules in minor units: discounts, price per unit, profit. Pure functions. */

export type DiscountType = "NONE" | "AMOUNT" | "PERCENT";

/**
 * Price after the product's discount. AMOUNT takes a fixed sum off (never below zero); PERCENT takes a share off,
 * rounded half away from zero. The same formula runs in SQL (products.ts, refreshSummary), so both must agree.
 */
export function discountedPrice(price: number, type: DiscountType, value: number, currency: string): number {
  if (type === "AMOUNT") return Math.max(0, price - toMinor(value, currency));
  if (type === "PERCENT") return roundMinor((price * (100 - value)) / 100);
  return price;
}

const UNIT_FACTORS: Record<string, [dimension: string, factor: number]> = {
  MG: ["mass", 0.001],
  G: ["mass", 1],
  KG: ["mass", 1000],
  OZ: ["mass", 28.349523125],
  LB: ["mass", 453.59237],
  ML: ["volume", 1],
  CL: ["volume", 10],
  L: ["volume", 1000],
  CBM: ["volume", 1_000_000],
  FLOZ: ["volume", 29.5735295625],
  PT: ["volume", 473.176473],
  QT: ["volume", 946.352946],
  GAL: ["volume", 3785.411784],
  MM: ["length", 1],
  CM: ["length", 10],
  M: ["length", 1000],
  IN: ["length", 25.4],
  FT: ["length", 304.8],
  YD: ["length", 914.4],
  SQM: ["area", 1],
  SQFT: ["area", 0.09290304],
};

export interface PricePerUnitData {
  totalQuantity: number;
  totalMeasurementUnit: string;
  baseQuantity: number;
  baseMeasurementUnit: string;
}

/** True when both units measure the same thing (mass, volume, length or area). */
export function unitsCompatible(a: string, b: string): boolean {
  return UNIT_FACTORS[a]?.[0] !== undefined && UNIT_FACTORS[a][0] === UNIT_FACTORS[b]?.[0];
}

/** Price per base quantity: a 250 g bag at $12.00 with base 100 g costs $4.80 per 100 g. */
export function pricePerUnit(price: number, data: PricePerUnitData): number {
  const total = data.totalQuantity * UNIT_FACTORS[data.totalMeasurementUnit][1];
  const base = data.baseQuantity * UNIT_FACTORS[data.baseMeasurementUnit][1];
  return roundMinor((price * base) / total);
}

/** Profit and margin of selling at `price` what costs `cost` (minor units). Margin is a fraction of the price. */
export function profitOf(price: number, cost: number): { profit: number; profitMargin: number } {
  const profit = price - cost;
  const profitMargin = price > 0 ? Math.round((profit / price) * 10_000) / 10_000 : 0;
  return { profit, profitMargin };
}
