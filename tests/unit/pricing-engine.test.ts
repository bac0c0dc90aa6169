import { describe, expect, it } from "vitest";
import type { CouponConfig, PricingConfig } from "#worker/pricing/engine/config";
import { timeStatus } from "#worker/pricing/engine/discounts";
import { allocate, percentOf, taxInGross, taxOnNet } from "#worker/pricing/engine/rounding";
import type { StoredShippingRule } from "#worker/pricing/tables";
import type { PricingInput } from "#worker/pricing/engine/types";
import { toEcomMoney } from "#worker/pricing/engine/wire";
import { discount, line, NOW, option, price, rule, settingsWith, shippingRegion, taxRegion, US } from "./pricing-fixtures";

/** The pricing engine, pure: table-driven cases over discounts, shipping, tax, fees and rounding. */

// A: 2 × $10.00, 1 kg each, shipped; B: 1 × $5.00 digital. Subtotal $25.00.
const cart = () => [
  line("A", { quantity: 2, unitPrice: 1000, weight: 1, catalogItemId: "prod-A", collectionIds: ["col-shirts"] }),
  line("B", { unitPrice: 500, itemType: "DIGITAL", catalogItemId: "prod-B" }),
];
const usShipping = shippingRegion({ options: [option({ rate: 500 })] });

describe("discount × shipping × tax", () => {
  const cases: {
    name: string;
    config: Partial<PricingConfig>;
    input?: Partial<PricingInput>;
    summary: { subtotal: number; discount: number; shipping: number; tax: number; total: number };
    lineDiscounts?: number[];
    lineTax?: number[];
  }[] = [
    {
      name: "nothing configured: the subtotal is the total",
      config: {},
      summary: { subtotal: 2500, discount: 0, shipping: 0, tax: 0, total: 2500 },
    },
    {
      name: "10% off the order, flat $5 shipping, 10% tax added (shipping taxed)",
      config: {
        rules: [rule({ discount: discount({ percentage: 10 }) })],
        shippingRegions: [usShipping],
        taxRegions: [taxRegion({ taxShipping: true })],
      },
      // 250 off, spread 200/50 by line; tax 180 + 45 on lines and 50 on shipping.
      summary: { subtotal: 2500, discount: 250, shipping: 500, tax: 275, total: 3025 },
      lineDiscounts: [200, 50],
      lineTax: [180, 45],
    },
    {
      name: "$3 off the order, shipping untaxed, 10% tax included in prices",
      config: {
        settings: settingsWith({ pricesIncludeTax: true }),
        rules: [rule({ discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 300 }) })],
        shippingRegions: [usShipping],
        taxRegions: [taxRegion()],
      },
      // 300 spread 240/60; tax extracted: 1760 × 10/110 = 160, 440 × 10/110 = 40; total unchanged by tax.
      summary: { subtotal: 2500, discount: 300, shipping: 500, tax: 200, total: 2700 },
      lineDiscounts: [240, 60],
      lineTax: [160, 40],
    },
    {
      name: "free-shipping coupon, taxed shipping becomes untaxed zero",
      config: {
        coupon: coupon({ discount: discount({ targetType: "SHIPPING", percentage: 100 }) }),
        shippingRegions: [usShipping],
        taxRegions: [taxRegion({ taxShipping: true })],
      },
      input: { couponCode: "SAVE" },
      summary: { subtotal: 2500, discount: 500, shipping: 500, tax: 250, total: 2750 },
    },
    {
      name: "$1 off each unit of product A, free shipping from $15, 8.25% tax rounded per line",
      config: {
        rules: [
          rule({ discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-A"], discountType: "FIXED_AMOUNT", fixedAmount: 100 }) }),
        ],
        shippingRegions: [shippingRegion({ options: [option({ rate: 500, freeShippingThreshold: 1500 })] })],
        taxRegions: [taxRegion({ defaultRate: 8.25 })],
      },
      // A: 1800 × 8.25% = 148.5 → 149; B: 500 × 8.25% = 41.25 → 41.
      summary: { subtotal: 2500, discount: 200, shipping: 0, tax: 190, total: 2490 },
      lineDiscounts: [200, 0],
      lineTax: [149, 41],
    },
    {
      name: "20% coupon on a collection, weight-priced shipping, NY subdivision rate over the country rate",
      config: {
        coupon: coupon({ discount: discount({ targetType: "SPECIFIC_ITEMS", collectionIds: ["col-shirts"], percentage: 20 }) }),
        shippingRegions: [shippingRegion({ options: [option({ rate: 900, rules: [{ basis: "WEIGHT", operator: "LTE", value: 2, rate: 700 }] })] })],
        taxRegions: [taxRegion({ defaultRate: 5 }), taxRegion({ id: "tax-ny", subdivision: "US-NY", defaultRate: 8 })],
      },
      input: { couponCode: "save" },
      // A: 2000 − 400 = 1600, tax 128; B: 500, tax 40; 2 kg ≤ 2 → $7.
      summary: { subtotal: 2500, discount: 400, shipping: 700, tax: 168, total: 2968 },
      lineDiscounts: [400, 0],
      lineTax: [128, 40],
    },
  ];

  it.each(cases)("$name", ({ config, input, summary, lineDiscounts, lineTax }) => {
    const r = price(config, { lines: cart(), shippingAddress: US, ...input });
    expect(r.priceSummary).toMatchObject(summary);
    expect(r.priceSummary.total).toBe(
      r.priceSummary.subtotal -
        r.priceSummary.discount +
        r.priceSummary.shipping +
        r.priceSummary.additionalFees +
        (r.taxIncludedInPrices ? 0 : r.priceSummary.tax),
    );
    if (lineDiscounts) expect(r.lines.map((l) => l.discount)).toEqual(lineDiscounts);
    if (lineTax) expect(r.lines.map((l) => l.tax)).toEqual(lineTax);
    expect(r.lines.reduce((a, l) => a + l.discount, 0)).toBeLessThanOrEqual(r.priceSummary.discount);
  });
});

function coupon(o: Partial<CouponConfig> = {}): CouponConfig {
  return {
    id: "coupon-1",
    code: "SAVE",
    name: "Save",
    active: true,
    startTime: null,
    expirationTime: null,
    usageLimit: null,
    timesUsed: 0,
    minimumSubtotal: null,
    discount: discount({ percentage: 10 }),
    ...o,
  };
}

describe("coupons", () => {
  const cases: {
    name: string;
    coupon: CouponConfig | null;
    code: string;
    rules?: ReturnType<typeof rule>[];
    problem: string | null;
    discount: number;
  }[] = [
    { name: "a valid code, entered in another case", coupon: coupon(), code: "  save ", problem: null, discount: 250 },
    { name: "an unknown code", coupon: null, code: "NOPE", problem: "COUPON_DOES_NOT_EXIST", discount: 0 },
    { name: "a switched-off coupon", coupon: coupon({ active: false }), code: "SAVE", problem: "COUPON_IS_DISABLED", discount: 0 },
    {
      name: "a coupon not active yet",
      coupon: coupon({ startTime: "2026-03-02T00:00:00.000Z" }),
      code: "SAVE",
      problem: "COUPON_IS_NOT_ACTIVE_YET",
      discount: 0,
    },
    {
      name: "an expired coupon",
      coupon: coupon({ expirationTime: "2026-03-01T12:00:00.000Z" }),
      code: "SAVE",
      problem: "COUPON_EXPIRED",
      discount: 0,
    },
    { name: "a used-up coupon", coupon: coupon({ usageLimit: 5, timesUsed: 5 }), code: "SAVE", problem: "COUPON_USAGE_EXCEEDED", discount: 0 },
    { name: "a coupon with uses left", coupon: coupon({ usageLimit: 5, timesUsed: 4 }), code: "SAVE", problem: null, discount: 250 },
    {
      name: "a minimum subtotal not met",
      coupon: coupon({ minimumSubtotal: 2501 }),
      code: "SAVE",
      problem: "COUPON_MINIMUM_SUBTOTAL_NOT_MET",
      discount: 0,
    },
    { name: "a minimum subtotal met exactly", coupon: coupon({ minimumSubtotal: 2500 }), code: "SAVE", problem: null, discount: 250 },
    {
      name: "a coupon for items not in the cart",
      coupon: coupon({ discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-Z"], percentage: 10 }) }),
      code: "SAVE",
      problem: "COUPON_NOT_APPLICABLE",
      discount: 0,
    },
    {
      name: "a code that triggers a discount rule",
      coupon: null,
      code: "vip",
      rules: [rule({ trigger: { conditionType: "COUPON_CODE", code: "VIP" }, discount: discount({ percentage: 20 }) })],
      problem: null,
      discount: 500,
    },
    {
      name: "a code whose rule has expired",
      coupon: null,
      code: "VIP",
      rules: [rule({ endDate: "2026-02-01T00:00:00.000Z", trigger: { conditionType: "COUPON_CODE", code: "VIP" } })],
      problem: "COUPON_EXPIRED",
      discount: 0,
    },
    {
      name: "a code whose rule needs a bigger cart",
      coupon: null,
      code: "VIP",
      rules: [
        rule({
          trigger: {
            conditionType: "AND",
            triggers: [
              { conditionType: "COUPON_CODE", code: "VIP" },
              { conditionType: "SUBTOTAL_RANGE", from: 10_000, to: null },
            ],
          },
        }),
      ],
      problem: "COUPON_NOT_APPLICABLE",
      discount: 0,
    },
  ];

  it.each(cases)("$name → $problem", ({ coupon: c, code, rules, problem, discount: expected }) => {
    const r = price({ coupon: c, rules: rules ?? [] }, { lines: cart(), couponCode: code });
    expect(r.couponProblem?.code ?? null).toBe(problem);
    if (problem) expect(r.couponProblem!.description).toContain(code.trim());
    expect(r.priceSummary.discount).toBe(expected);
    expect(r.appliedDiscounts.some((d) => d.coupon)).toBe(c !== null && problem === null);
  });

  it("says the minimum in money", () => {
    const r = price({ coupon: coupon({ minimumSubtotal: 5000 }) }, { lines: cart(), couponCode: "SAVE" });
    expect(r.couponProblem?.description).toContain("$50.00");
  });

  it("lists a valid coupon even when it takes nothing off, and names it in appliedDiscounts", () => {
    const r = price(
      { coupon: coupon({ discount: discount({ targetType: "SHIPPING", percentage: 100 }) }) },
      { lines: [line("D", { itemType: "DIGITAL" })], couponCode: "SAVE" },
    );
    expect(r.couponProblem).toBeNull();
    expect(r.appliedDiscounts).toEqual([
      { discountType: "SHIPPING", amount: 0, lineItemIds: [], coupon: { id: "coupon-1", code: "SAVE", name: "Save" } },
    ]);
  });
});

describe("discount rules", () => {
  it.each([
    { start: null, end: null, status: "LIVE" },
    { start: "2026-03-01T12:00:00.000Z", end: null, status: "LIVE" }, // start is inclusive
    { start: "2026-03-01T12:00:00.001Z", end: null, status: "PENDING" },
    { start: null, end: "2026-03-01T12:00:00.001Z", status: "LIVE" },
    { start: null, end: "2026-03-01T12:00:00.000Z", status: "EXPIRED" }, // end is exclusive
    { start: "2026-01-01T00:00:00.000Z", end: "2026-12-31T00:00:00.000Z", status: "LIVE" },
  ] as const)("start $start, end $end → $status, and applies only when LIVE", ({ start, end, status }) => {
    expect(timeStatus(start, end, NOW)).toBe(status);
    const r = price({ rules: [rule({ startDate: start, endDate: end })] }, { lines: cart() });
    expect(r.priceSummary.discount).toBe(status === "LIVE" ? 250 : 0);
  });

  it("ignores a rule the merchant switched off", () => {
    expect(price({ rules: [rule({ active: false })] }, { lines: cart() }).priceSummary.discount).toBe(0);
  });

  it("reaches specific items by product and by collection, and nothing else", () => {
    const lines = [
      line("A", { catalogItemId: "prod-A", collectionIds: [] }),
      line("B", { catalogItemId: "prod-B", collectionIds: ["col-sale"] }),
      line("C", { catalogItemId: "prod-C", collectionIds: ["col-other"] }),
      line("X", { catalogItemId: null, collectionIds: [] }),
    ];
    const byProduct = price(
      { rules: [rule({ discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-A"], percentage: 50 }) })] },
      { lines },
    );
    expect(byProduct.lines.map((l) => l.discount)).toEqual([500, 0, 0, 0]);
    expect(byProduct.appliedDiscounts[0]).toMatchObject({ discountType: "SPECIFIC_ITEMS", amount: 500, lineItemIds: ["A"] });
    const byCollection = price(
      { rules: [rule({ discount: discount({ targetType: "SPECIFIC_ITEMS", collectionIds: ["col-sale"], percentage: 50 }) })] },
      { lines },
    );
    expect(byCollection.lines.map((l) => l.discount)).toEqual([0, 500, 0, 0]);
    const both = price(
      {
        rules: [
          rule({ discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-A"], collectionIds: ["col-sale"], percentage: 50 }) }),
        ],
      },
      { lines },
    );
    expect(both.lines.map((l) => l.discount)).toEqual([500, 500, 0, 0]);
  });

  it("stacks in creation order on what is left, compounding percentages, never below zero", () => {
    const lines = [line("A", { unitPrice: 1000 })];
    const twoTens = price({ rules: [rule({ discount: discount({ percentage: 10 }) }), rule({ discount: discount({ percentage: 10 }) })] }, { lines });
    expect(twoTens.priceSummary.discount).toBe(190);
    expect(twoTens.appliedDiscounts.map((d) => d.amount)).toEqual([100, 90]);
    const fixedThenPercent = price(
      {
        rules: [
          rule({ name: "first", discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 400 }) }),
          rule({ name: "second", discount: discount({ percentage: 50 }) }),
        ],
      },
      { lines },
    );
    expect(fixedThenPercent.appliedDiscounts.map((d) => [d.discountRule?.name, d.amount])).toEqual([
      ["first", 400],
      ["second", 300],
    ]);
    const tooMuch = price(
      {
        rules: [
          rule({ discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 800 }) }),
          rule({ discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 800 }) }),
        ],
      },
      { lines },
    );
    expect(tooMuch.priceSummary).toMatchObject({ discount: 1000, total: 0 });
    expect(tooMuch.lines[0].total).toBe(0);
    const perUnit = price(
      {
        rules: [
          rule({ discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-A"], discountType: "FIXED_AMOUNT", fixedAmount: 1500 }) }),
        ],
      },
      { lines },
    );
    expect(perUnit.priceSummary.discount).toBe(1000);
  });

  it("fires on subtotal and quantity triggers measured before discounts (its own items for SPECIFIC_ITEMS), with AND / OR", () => {
    const lines = [line("A", { quantity: 3, unitPrice: 1000 }), line("B", { unitPrice: 500, catalogItemId: "prod-B" })];
    const cases: [Parameters<typeof rule>[0], number][] = [
      [{ trigger: { conditionType: "SUBTOTAL_RANGE", from: 3500, to: null } }, 350],
      [{ trigger: { conditionType: "SUBTOTAL_RANGE", from: 3501, to: null } }, 0],
      [{ trigger: { conditionType: "SUBTOTAL_RANGE", from: null, to: 3000 } }, 0],
      [{ trigger: { conditionType: "ITEM_QUANTITY_RANGE", from: 4, to: 4 } }, 350],
      [{ trigger: { conditionType: "ITEM_QUANTITY_RANGE", from: 5, to: null } }, 0],
      // Only B's own quantity (1) counts for a rule on B.
      [
        {
          trigger: { conditionType: "ITEM_QUANTITY_RANGE", from: 2, to: null },
          discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-B"], percentage: 10 }),
        },
        0,
      ],
      [
        {
          trigger: { conditionType: "ITEM_QUANTITY_RANGE", from: 1, to: 1 },
          discount: discount({ targetType: "SPECIFIC_ITEMS", catalogItemIds: ["prod-B"], percentage: 10 }),
        },
        50,
      ],
      [
        {
          trigger: {
            conditionType: "AND",
            triggers: [
              { conditionType: "SUBTOTAL_RANGE", from: 1000, to: null },
              { conditionType: "ITEM_QUANTITY_RANGE", from: 10, to: null },
            ],
          },
        },
        0,
      ],
      [
        {
          trigger: {
            conditionType: "OR",
            triggers: [
              { conditionType: "SUBTOTAL_RANGE", from: 1000, to: null },
              { conditionType: "ITEM_QUANTITY_RANGE", from: 10, to: null },
            ],
          },
        },
        350,
      ],
      [{ trigger: { conditionType: "COUPON_CODE", code: "VIP" } }, 0],
    ];
    for (const [r, expected] of cases) {
      expect(price({ rules: [rule(r)] }, { lines }).priceSummary.discount, JSON.stringify(r)).toBe(expected);
    }
  });
});

describe("merchant discounts", () => {
  it("take an amount off the whole cart or a percentage off named lines", () => {
    const lines = [line("A", { unitPrice: 3000 }), line("B", { unitPrice: 1000 })];
    const amount = price({}, { lines, merchantDiscounts: [{ amount: 400 }] });
    expect(amount.lines.map((l) => l.discount)).toEqual([300, 100]);
    expect(amount.appliedDiscounts).toEqual([{ discountType: "GLOBAL", amount: 400, lineItemIds: ["A", "B"], merchantDiscount: {} }]);
    const pct = price({}, { lines, merchantDiscounts: [{ percentage: 25, lineItemIds: ["B"] }] });
    expect(pct.lines.map((l) => l.discount)).toEqual([0, 250]);
    expect(pct.appliedDiscounts[0]).toMatchObject({ discountType: "SPECIFIC_ITEMS", merchantDiscount: { percentage: 25 } });
  });
});

describe("shipping", () => {
  // 2 units of 1.5 kg at $20.00: weight 3, price 4000, quantity 2.
  const lines = [line("A", { quantity: 2, unitPrice: 2000, weight: 1.5 })];
  const rateWith = (rules: StoredShippingRule[], lns = lines) =>
    price({ shippingRegions: [shippingRegion({ options: [option({ rate: 999, rules })] })] }, { lines: lns, shippingAddress: US }).priceSummary
      .shipping;

  const comparators: [StoredShippingRule["basis"], StoredShippingRule["operator"], number, boolean][] = [
    ["WEIGHT", "EQ", 3, true],
    ["WEIGHT", "EQ", 2.9, false],
    ["WEIGHT", "GT", 3, false],
    ["WEIGHT", "GT", 2.999, true],
    ["WEIGHT", "GTE", 3, true],
    ["WEIGHT", "GTE", 3.001, false],
    ["WEIGHT", "LT", 3, false],
    ["WEIGHT", "LT", 3.001, true],
    ["WEIGHT", "LTE", 3, true],
    ["WEIGHT", "LTE", 2.999, false],
    ["PRICE", "EQ", 4000, true],
    ["PRICE", "GT", 4000, false],
    ["PRICE", "GTE", 4000, true],
    ["PRICE", "LT", 4000, false],
    ["PRICE", "LTE", 4000, true],
    ["QUANTITY", "EQ", 2, true],
    ["QUANTITY", "GT", 1, true],
    ["QUANTITY", "GTE", 3, false],
    ["QUANTITY", "LT", 2, false],
    ["QUANTITY", "LTE", 2, true],
  ];
  it.each(comparators)("%s %s %s matches: %s", (basis, operator, value, matches) => {
    expect(rateWith([{ basis, operator, value, rate: 111 }])).toBe(matches ? 111 : 999);
  });

  it("takes the first matching rule, else the flat rate; weight sums do not drift (0.1 × 3 = 0.3)", () => {
    const rules: StoredShippingRule[] = [
      { basis: "WEIGHT", operator: "LT", value: 1, rate: 100 },
      { basis: "WEIGHT", operator: "LT", value: 5, rate: 200 },
      { basis: "WEIGHT", operator: "LT", value: 50, rate: 300 },
    ];
    expect(rateWith(rules)).toBe(200);
    expect(rateWith(rules, [line("A", { quantity: 40, weight: 1.5 })])).toBe(999);
    expect(rateWith([{ basis: "WEIGHT", operator: "EQ", value: 0.3, rate: 1 }], [line("A", { quantity: 3, weight: 0.1 })])).toBe(1);
  });

  it("measures only shipped (PHYSICAL) lines, on their price after discounts", () => {
    const lns = [line("A", { unitPrice: 4000, weight: 1 }), line("D", { unitPrice: 9000, itemType: "DIGITAL", weight: 5 })];
    const r = price(
      {
        rules: [rule({ discount: discount({ percentage: 50 }) })],
        shippingRegions: [shippingRegion({ options: [option({ rate: 999, rules: [{ basis: "PRICE", operator: "EQ", value: 2000, rate: 1 }] })] })],
      },
      { lines: lns, shippingAddress: US },
    );
    expect(r.priceSummary.shipping).toBe(1);
  });

  it("is free from the threshold on (after discounts), whatever the rules say", () => {
    const region = (threshold: number) =>
      shippingRegion({
        options: [option({ rate: 500, freeShippingThreshold: threshold, rules: [{ basis: "QUANTITY", operator: "GTE", value: 1, rate: 800 }] })],
      });
    expect(price({ shippingRegions: [region(4000)] }, { lines, shippingAddress: US }).priceSummary.shipping).toBe(0);
    expect(price({ shippingRegions: [region(4001)] }, { lines, shippingAddress: US }).priceSummary.shipping).toBe(800);
    const discounted = price(
      { shippingRegions: [region(4000)], rules: [rule({ discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 1 }) })] },
      { lines, shippingAddress: US },
    );
    expect(discounted.priceSummary.shipping).toBe(800);
  });

  it("offers store pickup with its address, and taxes a pickup order where it is picked up", () => {
    const pickup = option({
      code: "pickup",
      title: "Pick up in Albany",
      kind: "PICKUP",
      rate: 0,
      deliveryTime: "Ready tomorrow",
      pickupDetails: { address: { country: "US", subdivision: "US-CA", city: "Albany", addressLine: "5 Store Rd" }, pickupMethod: "STORE_PICKUP" },
    });
    const config = {
      shippingRegions: [shippingRegion({ options: [option(), pickup] })],
      taxRegions: [taxRegion({ defaultRate: 5 }), taxRegion({ id: "tax-ca", subdivision: "US-CA", defaultRate: 7 })],
    };
    const r = price(config, { lines, shippingAddress: US, selectedShippingOption: { code: "pickup" } });
    const sel = r.shippingInfo.selectedCarrierServiceOption!;
    expect(sel).toMatchObject({
      code: "pickup",
      title: "Pick up in Albany",
      logistics: { pickupDetails: { pickupMethod: "STORE_PICKUP", address: { city: "Albany" } } },
    });
    expect(r.priceSummary.shipping).toBe(0);
    expect(r.taxSummary.region?.id).toBe("tax-ca");
    expect(r.priceSummary.tax).toBe(280);
    const delivered = price(config, { lines, shippingAddress: US });
    expect(delivered.shippingInfo.selectedCarrierServiceOption?.code).toBe("std");
    expect(delivered.shippingInfo.carrierServiceOptions[0].shippingOptions.map((o) => o.code)).toEqual(["std", "pickup"]);
    expect(delivered.priceSummary.tax).toBe(200);
  });

  it("picks the most specific region: subdivision, then country, then rest of world", () => {
    const regions = [
      shippingRegion({ id: "row", name: "World", countries: [], restOfWorld: true, options: [option({ rate: 3000 })] }),
      shippingRegion({ id: "us", countries: ["US"], options: [option({ rate: 500 })] }),
      shippingRegion({ id: "west", name: "West coast", countries: ["US"], subdivisions: ["US-CA", "US-OR"], options: [option({ rate: 700 })] }),
    ];
    const at = (address: PricingInput["shippingAddress"]) => price({ shippingRegions: regions }, { lines, shippingAddress: address });
    expect(at({ country: "US", subdivision: "CA" }).shippingInfo.region?.id).toBe("west");
    expect(at({ country: "us", subdivision: "US-OR" }).priceSummary.shipping).toBe(700);
    expect(at({ country: "US", subdivision: "NY" }).shippingInfo.region?.id).toBe("us");
    expect(at({ country: "FR" }).shippingInfo.region).toEqual({ id: "row", name: "World" });
    expect(at({ country: "FR" }).priceSummary.shipping).toBe(3000);
  });

  it("asks for an address, or says it does not ship there, or falls back to the default region", () => {
    const noAddress = price({ shippingRegions: [usShipping] }, { lines });
    expect(noAddress.violations).toEqual([
      { severity: "WARNING", target: { other: { name: "OTHER_DEFAULT" } }, code: "SHIPPING_ADDRESS_REQUIRED", description: expect.any(String) },
    ]);
    expect(noAddress.priceSummary.shipping).toBe(0);
    const elsewhere = price({ shippingRegions: [usShipping] }, { lines, shippingAddress: { country: "DE" } });
    expect(elsewhere.violations[0]).toMatchObject({ severity: "ERROR", code: "NO_SHIPPING_TO_DESTINATION" });
    const byBusiness = price({ shippingRegions: [usShipping], settings: settingsWith({ businessAddress: { country: "US" } }) }, { lines });
    expect(byBusiness.violations).toEqual([]);
    expect(byBusiness.shippingInfo.region?.id).toBe("region-us");
    expect(byBusiness.priceSummary.shipping).toBe(500);
    const byDefault = price(
      {
        shippingRegions: [usShipping, shippingRegion({ id: "eu", countries: ["DE"], options: [option({ rate: 1500 })] })],
        settings: settingsWith({ defaultShippingRegionId: "eu" }),
      },
      { lines },
    );
    expect(byDefault.priceSummary.shipping).toBe(1500);
  });

  it("ships nothing when nothing is physical, or when shipping is not asked for", () => {
    const digital = price({ shippingRegions: [usShipping] }, { lines: [line("D", { itemType: "DIGITAL" })] });
    expect(digital.shippingInfo).toEqual({ region: null, carrierServiceOptions: [], selectedCarrierServiceOption: null });
    expect(digital.violations).toEqual([]);
    const skipped = price({ shippingRegions: [usShipping] }, { lines, shippingAddress: US, calculateShipping: false });
    expect(skipped.priceSummary.shipping).toBe(0);
    expect(skipped.shippingInfo.carrierServiceOptions).toEqual([]);
  });

  it("selects the chosen option, warns about an unknown one, and hides delivery slots that have ended", () => {
    const slots = shippingRegion({
      options: [
        option({ code: "past", title: "Yesterday", deliveryTimeSlot: { from: "2026-02-28T09:00:00.000Z", to: "2026-02-28T12:00:00.000Z" } }),
        option({
          code: "am",
          title: "Tomorrow morning",
          rate: 900,
          deliveryTimeSlot: { from: "2026-03-02T09:00:00.000Z", to: "2026-03-02T12:00:00.000Z" },
        }),
        option({
          code: "pm",
          title: "Tomorrow afternoon",
          rate: 700,
          deliveryTimeSlot: { from: "2026-03-02T13:00:00.000Z", to: "2026-03-02T17:00:00.000Z" },
        }),
      ],
    });
    const chosen = price({ shippingRegions: [slots] }, { lines, shippingAddress: US, selectedShippingOption: { code: "pm" } });
    expect(chosen.shippingInfo.carrierServiceOptions[0].shippingOptions.map((o) => o.code)).toEqual(["am", "pm"]);
    expect(chosen.shippingInfo.selectedCarrierServiceOption).toMatchObject({
      code: "pm",
      carrierId: expect.any(String),
      logistics: { deliveryTimeSlot: { from: "2026-03-02T13:00:00.000Z" } },
    });
    expect(chosen.priceSummary.shipping).toBe(700);
    const unknown = price({ shippingRegions: [slots] }, { lines, shippingAddress: US, selectedShippingOption: { code: "past" } });
    expect(unknown.shippingInfo.selectedCarrierServiceOption?.code).toBe("am");
    expect(unknown.violations).toMatchObject([{ severity: "WARNING", code: "SHIPPING_OPTION_NOT_AVAILABLE" }]);
  });

  it("discounts shipping (after item discounts), showing each option's own discount and tax", () => {
    const r = price(
      {
        rules: [rule({ discount: discount({ targetType: "SHIPPING", discountType: "FIXED_AMOUNT", fixedAmount: 300 }) })],
        shippingRegions: [shippingRegion({ options: [option({ code: "std", rate: 500 }), option({ code: "cheap", rate: 200 })] })],
        taxRegions: [taxRegion({ taxShipping: true })],
      },
      { lines, shippingAddress: US },
    );
    const [std, cheap] = r.shippingInfo.carrierServiceOptions[0].shippingOptions;
    expect(std.cost).toEqual({
      price: 500,
      totalDiscount: 300,
      totalPriceBeforeTax: 200,
      totalPriceAfterTax: 220,
      taxDetails: { taxableAmount: 200, taxRate: 10, totalTax: 20 },
    });
    expect(cheap.cost).toMatchObject({ price: 200, totalDiscount: 200, totalPriceAfterTax: 0 });
    expect(r.priceSummary).toMatchObject({ subtotal: 4000, shipping: 500, discount: 300, tax: 420, total: 4000 - 300 + 500 + 420 });
    expect(r.appliedDiscounts).toMatchObject([{ discountType: "SHIPPING", amount: 300, lineItemIds: [] }]);
  });
});

describe("tax", () => {
  const lines = [line("A", { unitPrice: 1100 })];
  const ny = taxRegion({ id: "ny", country: "US", subdivision: "US-NY", defaultRate: 10 });
  const ca = taxRegion({ id: "ca", country: "CA", defaultRate: 5 });
  const de = taxRegion({ id: "de", country: "DE", defaultRate: 19 });

  it("adds tax when prices exclude it and extracts it (total unchanged) when they include it", () => {
    const exclusive = price({ taxRegions: [ny] }, { lines, shippingAddress: US });
    expect(exclusive.priceSummary).toMatchObject({ subtotal: 1100, tax: 110, total: 1210 });
    expect(exclusive.lines[0]).toMatchObject({ taxableAmount: 1100, tax: 110, taxRate: 10, total: 1210 });
    const inclusive = price({ taxRegions: [ny], settings: settingsWith({ pricesIncludeTax: true }) }, { lines, shippingAddress: US });
    expect(inclusive.priceSummary).toMatchObject({ subtotal: 1100, tax: 100, total: 1100 });
    expect(inclusive.lines[0]).toMatchObject({ taxableAmount: 1000, tax: 100, total: 1100 });
    expect(inclusive.taxIncludedInPrices).toBe(true);
    expect(inclusive.taxSummary.taxableAmount).toBe(1000);
  });

  const addresses = { shippingAddress: { country: "US", subdivision: "NY" }, billingAddress: { country: "CA" } };
  it.each([
    { taxableAddress: "SHIPPING", input: addresses, region: "ny", type: "SHIPPING" },
    { taxableAddress: "SHIPPING", input: { billingAddress: { country: "CA" } }, region: "ca", type: "BILLING" },
    { taxableAddress: "BILLING", input: addresses, region: "ca", type: "BILLING" },
    { taxableAddress: "BILLING", input: { shippingAddress: { country: "US", subdivision: "US-NY" } }, region: "ny", type: "SHIPPING" },
    { taxableAddress: "BUSINESS", input: addresses, region: "de", type: "BUSINESS" },
    { taxableAddress: "SHIPPING", input: {}, region: "de", type: "BUSINESS" },
  ] as const)(
    "taxable address $taxableAddress with $input.shippingAddress.country / $input.billingAddress.country → $region ($type)",
    ({ taxableAddress, input, region, type }) => {
      const r = price(
        { taxRegions: [ny, ca, de], settings: settingsWith({ taxableAddress, businessAddress: { country: "DE" } }) },
        { lines, ...input },
      );
      expect(r.taxSummary.region?.id).toBe(region);
      expect(r.taxSummary.taxableAddressType).toBe(type);
    },
  );

  it("collects no tax where no region matches, or without any address, or when not asked", () => {
    for (const input of [{ shippingAddress: { country: "JP" } }, {}, { shippingAddress: US, calculateTax: false }]) {
      const r = price({ taxRegions: [ny] }, { lines, ...input });
      expect(r.priceSummary.tax).toBe(0);
      expect(r.taxSummary.calculationDetails).toEqual({ rateType: "NO_TAX_COLLECTED" });
    }
  });

  it("gives the manual-rate reason: global setting, region setting, or automatic tax unavailable", () => {
    const reason = (taxCalculation: "MANUAL" | "AUTO", calculation: "DEFAULT" | "MANUAL") =>
      price({ taxRegions: [{ ...ny, calculation }], settings: settingsWith({ taxCalculation }) }, { lines, shippingAddress: US }).taxSummary
        .calculationDetails;
    expect(reason("MANUAL", "DEFAULT")).toEqual({ rateType: "MANUAL_RATE", manualRateReason: "GLOBAL_SETTING_TO_MANUAL" });
    expect(reason("AUTO", "MANUAL")).toEqual({ rateType: "MANUAL_RATE", manualRateReason: "REGION_SETTING_TO_MANUAL" });
    expect(reason("AUTO", "DEFAULT")).toEqual({ rateType: "MANUAL_RATE", manualRateReason: "AUTO_TAX_DEACTIVATED" });
  });

  it("taxes each tax group at its own rate (by the line's group, or the group listing its product or collection); gift cards never", () => {
    const region = taxRegion({
      id: "ny",
      subdivision: "US-NY",
      defaultRate: 10,
      groupRates: [
        { taxGroupId: "food", rate: 2 },
        { taxGroupId: "books", rate: 0 },
      ],
    });
    const groups = [
      { id: "food", name: "Food", catalogItemIds: ["prod-bread"], collectionIds: [], createdDate: "2026-01-01T00:00:00.000Z" },
      { id: "books", name: "Books", catalogItemIds: [], collectionIds: ["col-books"], createdDate: "2026-01-02T00:00:00.000Z" },
    ];
    const r = price(
      { taxRegions: [region], taxGroups: groups },
      {
        shippingAddress: US,
        lines: [
          line("explicit", { taxGroupId: "food" }),
          line("bread", { catalogItemId: "prod-bread" }),
          line("novel", { collectionIds: ["col-books"] }),
          line("other"),
          line("gift", { itemType: "GIFT_CARD" }),
        ],
      },
    );
    expect(r.lines.map((l) => [l.id, l.taxGroupId, l.taxRate, l.tax])).toEqual([
      ["explicit", "food", 2, 20],
      ["bread", "food", 2, 20],
      ["novel", "books", 0, 0],
      ["other", null, 10, 100],
      ["gift", null, 0, 0],
    ]);
  });
});

describe("additional fees", () => {
  const fee = (o: Partial<PricingConfig["fees"][number]>) => ({
    id: "f",
    code: "handling",
    name: "Handling",
    type: "HANDLING_FEE" as const,
    amount: null,
    percentage: null,
    minimumSubtotal: null,
    createdDate: "",
    ...o,
  });
  it("charges fixed and percentage fees from their minimum subtotal, untaxed, and adds them to the total", () => {
    const lines = [line("A", { unitPrice: 2000 })];
    const r = price(
      {
        fees: [
          fee({ amount: 150 }),
          fee({ code: "insurance", name: "Insurance", type: "INSURANCE", percentage: 2.5, minimumSubtotal: 1800 }),
          fee({ code: "big", amount: 999, minimumSubtotal: 5000 }),
        ],
        rules: [rule({ discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 100 }) })],
        taxRegions: [taxRegion()],
      },
      { lines, shippingAddress: US },
    );
    // 2.5% of 1900 = 47.5 → 48.
    expect(r.additionalFees).toEqual([
      { code: "handling", name: "Handling", type: "HANDLING_FEE", price: 150, source: "MANUAL" },
      { code: "insurance", name: "Insurance", type: "INSURANCE", price: 48, source: "MANUAL" },
    ]);
    expect(r.priceSummary).toMatchObject({ additionalFees: 198, tax: 190, total: 1900 + 198 + 190 });
    expect(price({ fees: [fee({ amount: 150 })] }, { lines, calculateAdditionalFees: false }).priceSummary.additionalFees).toBe(0);
    expect(price({ fees: [fee({ amount: 150 })] }, { lines: [] }).priceSummary).toMatchObject({ additionalFees: 0, total: 0 });
  });
});

describe("rounding", () => {
  it("rounds half away from zero at half-cent boundaries", () => {
    expect(percentOf(5, 10)).toBe(1); // 0.5
    expect(percentOf(15, 10)).toBe(2); // 1.5
    expect(percentOf(25, 10)).toBe(3); // 2.5
    expect(percentOf(4, 10)).toBe(0); // 0.4
    expect(taxOnNet(50, 7)).toBe(4); // 3.5
    expect(taxOnNet(150, 7)).toBe(11); // 10.5
    expect(taxOnNet(1005, 10)).toBe(101); // 100.5
    expect(taxOnNet(1999, 8.875)).toBe(177); // 177.41125
    expect(taxInGross(1155, 10)).toBe(105); // 105.0
    expect(taxInGross(1050, 5)).toBe(50);
  });

  it("rounds tax per line: three 5-cent lines at 10% pay 3 cents, not 2", () => {
    const r = price({ taxRegions: [taxRegion()] }, { lines: ["a", "b", "c"].map((id) => line(id, { unitPrice: 5 })), shippingAddress: US });
    expect(r.lines.map((l) => l.tax)).toEqual([1, 1, 1]);
    expect(r.priceSummary.tax).toBe(3);
  });

  it("splits an order discount into whole cents that add up exactly (largest remainder)", () => {
    expect(allocate(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocate(5, [0, 10, 10])).toEqual([0, 3, 2]);
    expect(allocate(7, [0, 0])).toEqual([0, 0]);
    expect(allocate(10 ** 12, [3 * 10 ** 12, 10 ** 12])).toEqual([750_000_000_000, 250_000_000_000]);
    const r = price(
      { rules: [rule({ discount: discount({ discountType: "FIXED_AMOUNT", fixedAmount: 100 }) })] },
      { lines: ["a", "b", "c"].map((id) => line(id, { unitPrice: 333 })) },
    );
    expect(r.lines.map((l) => l.discount)).toEqual([34, 33, 33]);
    expect(r.priceSummary.total).toBe(899);
  });

  it("works in whole yen for JPY (zero decimals)", () => {
    // 5% of ¥1,050 = 52.5 → 53; 8% tax on ¥997 = 79.76 → 80.
    const r = price(
      { rules: [rule({ discount: discount({ percentage: 5 }) })], taxRegions: [taxRegion({ country: "JP", defaultRate: 8 })] },
      { lines: [line("A", { unitPrice: 1050 })], shippingAddress: { country: "JP" } },
      "JPY",
    );
    expect(r.priceSummary).toMatchObject({ subtotal: 1050, discount: 53, tax: 80, total: 1077, shipping: 0 });
    expect(r.currency).toBe("JPY");
    expect(toEcomMoney(1077, "JPY")).toEqual({
      amount: "1077",
      convertedAmount: "1077",
      formattedAmount: "¥1,077",
      formattedConvertedAmount: "¥1,077",
    });
    expect(toEcomMoney(105, "USD")).toEqual({ amount: "1.05", convertedAmount: "1.05", formattedAmount: "$1.05", formattedConvertedAmount: "$1.05" });
  });
});
