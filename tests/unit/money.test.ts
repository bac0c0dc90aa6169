import { describe, expect, it } from "vitest";
import { discountedPrice, pricePerUnit, profitOf, unitsCompatible } from "#worker/catalog/pricing";
import { currencyDigits, formatMoney, toDecimalString, toMajor, toMinor } from "#worker/platform/money";

describe("money in minor units", () => {
  it("converts wire floats to minor units without float drift", () => {
    expect(toMinor(10.5, "USD")).toBe(1050);
    expect(toMinor(1.005, "USD")).toBe(101);
    expect(toMinor(0.1 + 0.2, "USD")).toBe(30);
    expect(toMinor(1500, "JPY")).toBe(1500);
    expect(toMinor(1.2345, "KWD")).toBe(1235);
    expect(currencyDigits("JPY")).toBe(0);
  });

  it("converts back to floats, decimal strings and formatted prices", () => {
    expect(toMajor(1050, "USD")).toBe(10.5);
    expect(toDecimalString(1050, "USD")).toBe("10.50");
    expect(toDecimalString(1500, "JPY")).toBe("1500");
    expect(formatMoney(123456, "USD")).toBe("$1,234.56");
    expect(formatMoney(1500, "EUR", "de-DE")).toBe("15,00\u00a0€");
  });
});

describe("catalogue pricing", () => {
  it("applies AMOUNT and PERCENT discounts, never below zero", () => {
    expect(discountedPrice(2000, "AMOUNT", 5, "USD")).toBe(1500);
    expect(discountedPrice(300, "AMOUNT", 5, "USD")).toBe(0);
    expect(discountedPrice(1999, "PERCENT", 15, "USD")).toBe(1699);
    expect(discountedPrice(1999, "NONE", 15, "USD")).toBe(1999);
  });

  it("prices per unit across units of the same kind", () => {
    expect(pricePerUnit(1200, { totalQuantity: 250, totalMeasurementUnit: "G", baseQuantity: 100, baseMeasurementUnit: "G" })).toBe(480);
    expect(pricePerUnit(1000, { totalQuantity: 1, totalMeasurementUnit: "KG", baseQuantity: 100, baseMeasurementUnit: "G" })).toBe(100);
    expect(unitsCompatible("KG", "G")).toBe(true);
    expect(unitsCompatible("KG", "L")).toBe(false);
  });

  it("computes profit and margin", () => {
    expect(profitOf(2000, 800)).toEqual({ profit: 1200, profitMargin: 0.6 });
    expect(profitOf(0, 100)).toEqual({ profit: -100, profitMargin: 0 });
  });
});
