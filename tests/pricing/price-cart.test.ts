import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { assertPreviousChanged, clearAssertions, isAssertionFailure } from "#worker/platform/batch";
import { storeCurrency, type Ctx } from "#worker/platform/context";
import { sql } from "drizzle-orm";
import { openDb, rawStatement, type RoundTrips } from "#worker/platform/db";
import {
  appliedCouponCode,
  computePricing,
  loadPricingConfig,
  estimateTotalsWire,
  priceCart,
  pricingReads,
  recordRuleUsageStatements,
  redeemCouponStatement,
  type PricingLine,
} from "#worker/pricing";
import { couponService } from "#worker/pricing/coupons";
import { merchant, unique } from "../helpers";

/**
 * priceCart against D1: the configuration written through the merchant API is what prices a cart, in exactly one
 * D1 round trip; coupons are redeemed with a guarded update; JPY prices in whole yen.
 */

const uid = unique();
const PRODUCT = `prod-${uid}`;
const COLLECTION = `col-${uid}`;
const NZ = { country: "NZ", subdivision: "NZ-AUK", city: "Auckland" };

function ctxFor(currency = "USD", trips?: RoundTrips): Ctx {
  const e = { ...env, STORE_CURRENCY: currency } as Env;
  return {
    db: openDb(env.DB, trips),
    env: e,
    auth: { kind: "apiKey", keyId: "owner", role: "OWNER" },
    currency: storeCurrency(e),
    origin: "https://shop.test",
    waitUntil: () => {},
  };
}

const lines = (): PricingLine[] => [
  {
    id: "li-1",
    quantity: 2,
    unitPrice: 2500,
    fullUnitPrice: 3000,
    weight: 0.5,
    itemType: "PHYSICAL",
    catalogItemId: PRODUCT,
    collectionIds: [COLLECTION],
  },
  { id: "li-2", quantity: 1, unitPrice: 1000, fullUnitPrice: 1000, weight: 0, itemType: "DIGITAL", catalogItemId: `other-${uid}`, collectionIds: [] },
];

async function ok(res: Promise<{ status: number; body: any }>) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

beforeAll(async () => {
  await ok(
    merchant("PATCH", "/api/v1/pricing-settings", {
      settings: {
        pricesIncludeTax: false,
        taxableAddress: "SHIPPING",
        businessAddress: null,
        taxCalculation: "MANUAL",
        defaultShippingRegionId: null,
      },
    }),
  );
  await ok(
    merchant("POST", "/api/v1/shipping-regions", {
      shippingRegion: {
        name: "New Zealand",
        countries: ["NZ"],
        options: [
          {
            code: "courier",
            title: "Courier",
            deliveryTime: "1-2 days",
            rate: "9.00",
            rules: [{ basis: "WEIGHT", operator: "LTE", value: 1, rate: "6.00" }],
            freeShippingThreshold: "100.00",
          },
          {
            code: "pickup",
            title: "Pick up in Auckland",
            kind: "PICKUP",
            pickupDetails: { address: { country: "NZ", city: "Auckland", addressLine: "1 Queen St" } },
          },
        ],
      },
    }),
  );
  await ok(merchant("POST", "/api/v1/tax-regions", { taxRegion: { country: "NZ", defaultRate: 15, taxShipping: true } }));
  await ok(
    merchant("POST", "/ecom/v1/discount-rules", {
      discountRule: {
        name: `Collection ${uid}`,
        discounts: {
          values: [{ targetType: "SPECIFIC_ITEMS", specificItemsInfo: { collectionIds: [COLLECTION] }, discountType: "PERCENTAGE", percentage: 10 }],
        },
      },
    }),
  );
  await ok(merchant("POST", "/api/v1/coupons", { coupon: { code: `Kiwi${uid}`, name: "Kiwi", moneyOffAmount: "5.00", usageLimit: 1 } }));
  await ok(
    merchant("POST", "/api/v1/additional-fees", {
      additionalFee: { code: `ins-${uid}`, name: "Insurance", type: "INSURANCE", percentage: 1, minimumSubtotal: "50.00" },
    }),
  );
});

describe("priceCart", () => {
  it("prices with the stored rules, coupon, shipping, tax and fees in exactly one D1 round trip", async () => {
    const trips: RoundTrips = { count: 0, ms: 0 };
    const r = await priceCart(ctxFor("USD", trips), { lines: lines(), couponCode: `KIWI${uid}`, shippingAddress: NZ });
    expect(trips.count).toBe(1);
    // 10% off li-1 (500), then $5 off the order spread 5000−500 : 1000 → 409 / 91.
    expect(r.lines.map((l) => l.discount)).toEqual([909, 91]);
    expect(r.appliedDiscounts.map((d) => [d.discountType, d.amount, d.discountRule?.name ?? d.coupon?.code])).toEqual([
      ["SPECIFIC_ITEMS", 500, `Collection ${uid}`],
      ["GLOBAL", 500, `Kiwi${uid}`],
    ]);
    // 1 kg ≤ 1 → $6.00; shipping taxed at 15%: 90; lines (4091 + 909) × 15%: 614 + 136; fee 1% of 5000 = 50.
    expect(r.shippingInfo.selectedCarrierServiceOption).toMatchObject({ code: "courier", cost: { price: 600, totalPriceAfterTax: 690 } });
    expect(r.shippingInfo.region?.name).toBe("New Zealand");
    expect(r.additionalFees).toEqual([{ code: `ins-${uid}`, name: "Insurance", type: "INSURANCE", price: 50, source: "MANUAL" }]);
    expect(r.priceSummary).toEqual({ subtotal: 6000, discount: 1000, shipping: 600, tax: 840, additionalFees: 50, total: 6490 });
    expect(r.taxSummary.calculationDetails).toEqual({ rateType: "MANUAL_RATE", manualRateReason: "GLOBAL_SETTING_TO_MANUAL" });
    expect(r.couponProblem).toBeNull();
  });

  it("makes one round trip for a cart without a coupon or address too, and reports a missing address", async () => {
    const trips: RoundTrips = { count: 0, ms: 0 };
    const r = await priceCart(ctxFor("USD", trips), { lines: lines() });
    expect(trips.count).toBe(1);
    expect(r.violations.map((v) => v.code)).toEqual(["SHIPPING_ADDRESS_REQUIRED"]);
    expect(r.taxSummary.calculationDetails.rateType).toBe("NO_TAX_COLLECTED");
  });

  it("lets checkout batch the pricing reads with its own and price from them", async () => {
    const db = openDb(env.DB);
    const reads = pricingReads(db, null);
    const results = await db.batch([rawStatement(db, sql`SELECT 1`), ...reads.statements] as never);
    const config = reads.finish((results as unknown[]).slice(1));
    const r = computePricing(config, { lines: lines(), shippingAddress: NZ, selectedShippingOption: { code: "pickup" } }, "USD");
    expect(r.shippingInfo.selectedCarrierServiceOption).toMatchObject({
      code: "pickup",
      logistics: { pickupDetails: { pickupMethod: "STORE_PICKUP", address: { city: "Auckland" } } },
    });
    expect(r.priceSummary.shipping).toBe(0);
  });

  it("gives the wire shape of estimate-totals: ecom money strings, applied discounts, calculation errors", async () => {
    const r = await priceCart(ctxFor(), { lines: lines(), couponCode: "no-such-code", shippingAddress: NZ });
    const wire = estimateTotalsWire(r);
    expect(wire.priceSummary.subtotal).toEqual({
      amount: "60.00",
      convertedAmount: "60.00",
      formattedAmount: "$60.00",
      formattedConvertedAmount: "$60.00",
    });
    expect(wire.calculationErrors).toEqual({
      couponCalculationError: { applicationError: { code: "COUPON_DOES_NOT_EXIST", description: "There is no coupon no-such-code", data: {} } },
    });
    expect(wire.appliedDiscounts[0]).toMatchObject({
      discountType: "SPECIFIC_ITEMS",
      lineItemIds: ["li-1"],
      discountRule: { name: { original: `Collection ${uid}` }, amount: { amount: "5.00" } },
    });
    expect(wire.calculatedLineItems[0]).toMatchObject({
      lineItemId: "li-1",
      pricesBreakdown: {
        price: { amount: "25.00" },
        fullPrice: { amount: "30.00" },
        lineItemPrice: { amount: "50.00" },
        totalDiscount: { amount: "5.00" },
        taxDetails: { taxRate: "0.15", totalTax: { amount: "6.75" } },
      },
    });
    expect(wire.shippingInfo.carrierServiceOptions[0].shippingOptions.map((o) => [o.code, o.cost.price.amount])).toEqual([
      ["courier", "6.00"],
      ["pickup", "0.00"],
    ]);
    expect(wire.taxSummary.calculationDetails.rateType).toBe("MANUAL_RATE");
  });
});

describe("which rules a pricing reads", () => {
  it("skips rules that have ended, except one naming the entered code, which is reported as expired", async () => {
    const ended = { start: "2025-01-01T00:00:00Z", end: "2025-02-01T00:00:00Z" };
    const values = { values: [{ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: 50 }] };
    await ok(merchant("POST", "/ecom/v1/discount-rules", { discountRule: { name: `Ended ${uid}`, activeTimeInfo: ended, discounts: values } }));
    await ok(
      merchant("POST", "/ecom/v1/discount-rules", {
        discountRule: {
          name: `Ended code ${uid}`,
          activeTimeInfo: ended,
          trigger: { conditionType: "AND", and: { triggers: [{ conditionType: "COUPON_CODE", couponCode: { code: `Old${uid}` } }] } },
          discounts: values,
        },
      }),
    );
    const names = async (code: string | null) => (await loadPricingConfig(ctxFor(), code)).rules.map((r) => r.name).filter((n) => n.includes(uid));
    expect(await names(null)).toEqual([`Collection ${uid}`]);
    expect(await names(`OLD${uid}`)).toEqual([`Collection ${uid}`, `Ended code ${uid}`]);
    const r = await priceCart(ctxFor(), { lines: lines(), couponCode: `old${uid}` });
    expect(r.couponProblem?.code).toBe("COUPON_EXPIRED");
    expect(r.priceSummary.discount).toBe(500);
  });
});

describe("coupon redemption", () => {
  it("counts a use with a guarded update: the last use goes to one order, the next pricing says it is used up", async () => {
    const code = `Last${uid}`;
    await ok(merchant("POST", "/api/v1/coupons", { coupon: { code, name: "Last one", percentOffRate: 10, usageLimit: 1 } }));
    const ctx = ctxFor();
    const before = await priceCart(ctx, { lines: lines(), couponCode: code.toLowerCase() });
    expect(appliedCouponCode(before)).toBe(code);
    const order = () =>
      ctx.db.batch([
        redeemCouponStatement(ctx.db, code.toLowerCase()),
        assertPreviousChanged(ctx.db),
        clearAssertions(ctx.db),
        ...recordRuleUsageStatements(ctx.db, before),
      ] as never);
    await order();
    const second = await order().then(
      () => null,
      (err) => err,
    );
    expect(isAssertionFailure(second)).toBe(true);
    const after = await priceCart(ctx, { lines: lines(), couponCode: code });
    expect(after.couponProblem?.code).toBe("COUPON_USAGE_EXCEEDED");
    const stored = await ok(merchant("POST", "/api/v1/coupons/query", { query: { filter: { code: code.toUpperCase() } } }));
    expect(stored.coupons.map((c: any) => c.timesUsed)).toEqual([1]);
    const rules = await ok(merchant("POST", "/ecom/v1/discount-rules/query", { query: { filter: { name: `Collection ${uid}` } } }));
    expect(rules.discountRules[0].usageCount).toBe(1);
  });

  it("reports the minimum subtotal of a stored coupon", async () => {
    const code = `Min${uid}`;
    await ok(merchant("POST", "/api/v1/coupons", { coupon: { code, name: "Big baskets", freeShipping: true, minimumSubtotal: "75.00" } }));
    const r = await priceCart(ctxFor(), { lines: lines(), couponCode: code, shippingAddress: NZ });
    expect(r.couponProblem).toEqual({
      code: "COUPON_MINIMUM_SUBTOTAL_NOT_MET",
      description: `The coupon ${code} needs a subtotal of at least $75.00`,
    });
  });
});

describe("a zero-decimal currency (STORE_CURRENCY=JPY)", () => {
  it("takes money in whole yen, refuses fractions of a yen, and prices in yen", async () => {
    const jpy = ctxFor("JPY");
    expect(jpy.currency).toBe("JPY");
    const code = `Yen${uid}`;
    const refused = await couponService.create(jpy, { coupon: { code, name: "Yen", moneyOffAmount: "12.5" } }).catch((e) => e);
    expect(refused.status).toBe(400);
    expect(refused.fieldViolations).toMatchObject([
      { field: "coupon.moneyOffAmount", violatedRule: "FORMAT", description: "has more decimal places than JPY allows (0)" },
    ]);
    const { coupon } = await couponService.create(jpy, { coupon: { code, name: "Yen", moneyOffAmount: "105" } });
    expect(coupon.moneyOffAmount).toBe("105");
    // ¥1,001 and ¥1,000 (digital): 10% off the collection line = 100.1 → 100; then ¥105 spread 901 : 1000 → 50 / 55.
    const r = await priceCart(jpy, {
      lines: [
        { ...lines()[0], quantity: 1, unitPrice: 1001, fullUnitPrice: 1001 },
        { ...lines()[1], unitPrice: 1000, fullUnitPrice: 1000 },
      ],
      couponCode: code,
      shippingAddress: { country: "NZ" },
      calculateShipping: false,
    });
    expect(r.lines.map((l) => l.discount)).toEqual([150, 55]);
    // 15% of 851 = 127.65 → 128; 15% of 945 = 141.75 → 142. The fee's minimum (stored as 5000 minor units) is ¥5,000: not met.
    expect(r.priceSummary).toEqual({ subtotal: 2001, discount: 205, shipping: 0, tax: 270, additionalFees: 0, total: 2066 });
    expect(estimateTotalsWire(r).priceSummary.total).toEqual({
      amount: "2066",
      convertedAmount: "2066",
      formattedAmount: "¥2,066",
      formattedConvertedAmount: "¥2,066",
    });
  });
});
