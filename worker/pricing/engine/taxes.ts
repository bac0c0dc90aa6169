import type { PricingSettings, TaxGroupConfig, TaxRegionConfig } from "./config";
import { taxInGross, taxOnNet } from "./rounding";
import { countryOf, subdivisionOf } from "./shipping";
import type { ManualRateReason, PricingAddress, PricingLine, TaxableAddressType, TaxRateType } from "./types";

/**
 * Tax, pure. The taxable address (store setting) picks the tax region: a region for its subdivision, else for its
 * whole country; no region means no tax is collected (NO_TAX_COLLECTED). A line's rate is its tax group's rate in
 * that region, else the region's default rate. Tax is rounded per line (rounding.ts). With prices that include
 * tax, the tax is extracted from the line's amount after discounts and the totals stay as they are; otherwise it is
 * added on top. Shipping is taxed at the region's default rate when the region says so. Fees are not taxed.
 */

/**
 * The address that decides tax. SHIPPING: the shipping address (the pickup address for a pickup option), else the
 * billing address; BILLING: billing, else shipping; then, and always for BUSINESS, the store's address.
 */
export function taxableAddress(
  settings: PricingSettings,
  addresses: { shipping: PricingAddress | null; billing: PricingAddress | null },
): { address: PricingAddress; type: TaxableAddressType } | null {
  const usable = (a: PricingAddress | null | undefined) => (a && countryOf(a) ? a : null);
  const order: [PricingAddress | null, TaxableAddressType][] =
    settings.taxableAddress === "BUSINESS"
      ? []
      : settings.taxableAddress === "BILLING"
        ? [
            [addresses.billing, "BILLING"],
            [addresses.shipping, "SHIPPING"],
          ]
        : [
            [addresses.shipping, "SHIPPING"],
            [addresses.billing, "BILLING"],
          ];
  order.push([settings.businessAddress, "BUSINESS"]);
  for (const [a, type] of order) {
    const ok = usable(a);
    if (ok) return { address: ok, type };
  }
  return null;
}

/** The tax region of an address: its subdivision's, else its country's. */
export function matchTaxRegion(regions: TaxRegionConfig[], address: PricingAddress | null): TaxRegionConfig | null {
  const country = countryOf(address);
  if (!country) return null;
  const sub = subdivisionOf(address);
  return (
    (sub ? regions.find((r) => r.country === country && r.subdivision === sub) : undefined) ??
    regions.find((r) => r.country === country && r.subdivision === "") ??
    null
  );
}

/** The tax group of a line: its own, else the oldest group listing its product, else one listing a collection of it. */
export function taxGroupOf(line: PricingLine, groups: TaxGroupConfig[]): string | null {
  if (line.taxGroupId) return line.taxGroupId;
  const byProduct = line.catalogItemId ? groups.find((g) => g.catalogItemIds.includes(line.catalogItemId!)) : undefined;
  if (byProduct) return byProduct.id;
  return groups.find((g) => line.collectionIds.some((c) => g.collectionIds.includes(c)))?.id ?? null;
}

/** The rate (percent) for a tax group in a region. Gift cards are never taxed. */
export function rateFor(region: TaxRegionConfig, groupId: string | null, line?: PricingLine): number {
  if (line?.itemType === "GIFT_CARD") return 0;
  const g = groupId ? region.groupRates.find((r) => r.taxGroupId === groupId) : undefined;
  return g ? g.rate : region.defaultRate;
}

/** Tax on an amount after discounts: extracted when prices include tax, added otherwise. `taxable` is the amount without tax. */
export function taxOf(amount: number, rate: number, pricesIncludeTax: boolean): { tax: number; taxable: number } {
  if (amount <= 0 || rate <= 0) return { tax: 0, taxable: Math.max(0, amount) };
  if (pricesIncludeTax) {
    const tax = taxInGross(amount, rate);
    return { tax, taxable: amount - tax };
  }
  return { tax: taxOnNet(amount, rate), taxable: amount };
}

/** Rate type and manual reason (the Wix tax fields) for a matched region, or none. */
export function rateTypeFor(
  settings: PricingSettings,
  region: TaxRegionConfig | null,
): { rateType: TaxRateType; manualRateReason?: ManualRateReason } {
  if (!region) return { rateType: "NO_TAX_COLLECTED" };
  if (settings.taxCalculation === "MANUAL") return { rateType: "MANUAL_RATE", manualRateReason: "GLOBAL_SETTING_TO_MANUAL" };
  if (region.calculation === "MANUAL") return { rateType: "MANUAL_RATE", manualRateReason: "REGION_SETTING_TO_MANUAL" };
  // Automatic tax is switched on, but this store has no automatic tax provider: the manual rates stand in.
  return { rateType: "MANUAL_RATE", manualRateReason: "AUTO_TAX_DEACTIVATED" };
}
