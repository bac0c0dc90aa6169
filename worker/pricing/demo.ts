import { sql } from "drizzle-orm";
import type { Statement } from "#worker/events";
import { nowIso, type Ctx } from "#worker/platform/context";
import { newId } from "#worker/platform/ids";
import { toMinor } from "#worker/platform/money";
import { codeKey } from "./engine/discounts";
import { coupons, shippingRegions, type StoredShippingOption } from "./tables";

/**
 * The demo store's pricing, loaded with the demo catalogue (worker/catalog/demo/load.ts): a welcome coupon, and
 * shipping that matches what the demo products' "Shipping & returns" section promises (free over $75, otherwise
 * $5.95), with express delivery and a free pickup at the shop, plus one rate for the rest of the world. Regions are
 * only added to a store that has none, and the coupon only when its code is free, so a merchant's own set-up stays.
 */

export const DEMO_COUPON = "WELCOME10";

function options(ctx: Ctx): { us: StoredShippingOption[]; world: StoredShippingOption[] } {
  const m = (amount: number) => toMinor(amount, ctx.currency);
  const base = { instructions: null, deliveryTimeSlot: null, pickupDetails: null, rules: [], freeShippingThreshold: null };
  return {
    us: [
      {
        ...base,
        code: "standard",
        title: "Standard delivery",
        kind: "DELIVERY",
        deliveryTime: "3–5 business days",
        rate: m(5.95),
        freeShippingThreshold: m(75),
      },
      { ...base, code: "express", title: "Express delivery", kind: "DELIVERY", deliveryTime: "1–2 business days", rate: m(14.95) },
      {
        ...base,
        code: "pickup",
        title: "Pick up at the Fernhill shop",
        kind: "PICKUP",
        deliveryTime: "Ready the next business day",
        rate: 0,
        pickupDetails: {
          address: { country: "US", subdivision: "US-OR", city: "Portland", postalCode: "97205", addressLine: "12 Alder St" },
          pickupMethod: "STORE_PICKUP",
        },
      },
    ],
    world: [
      {
        ...base,
        code: "international",
        title: "International delivery",
        kind: "DELIVERY",
        deliveryTime: "7–14 business days",
        rate: m(19.95),
        freeShippingThreshold: m(150),
      },
    ],
  };
}

/** The statements that add the demo pricing (for the demo catalogue's batch). */
export function demoPricingStatements(ctx: Ctx): Statement[] {
  const now = nowIso();
  const { us, world } = options(ctx);
  // "No region older than this batch": the first demo region must not stop the second one of the same batch.
  const region = (name: string, countries: string[], restOfWorld: boolean, opts: StoredShippingOption[]) =>
    ctx.db.insert(shippingRegions).select(
      sql`SELECT ${newId()}, ${name}, ${JSON.stringify(countries)}, '[]', ${restOfWorld ? 1 : 0}, ${JSON.stringify(opts)}, 1, ${now}, ${now}
        WHERE NOT EXISTS (SELECT 1 FROM shipping_regions WHERE created_date < ${now})`,
    );
  return [
    ctx.db
      .insert(coupons)
      .values({
        id: newId(),
        code: DEMO_COUPON,
        codeKey: codeKey(DEMO_COUPON),
        name: "Welcome: 10% off your order",
        active: true,
        discount: { targetType: "GLOBAL", catalogItemIds: [], collectionIds: [], discountType: "PERCENTAGE", percentage: 10, fixedAmount: null },
        createdDate: now,
        updatedDate: now,
      })
      .onConflictDoNothing(),
    region("United States", ["US"], false, us),
    region("Rest of the world", [], true, world),
  ];
}
