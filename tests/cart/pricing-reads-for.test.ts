import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pricingReadsFor } from "#worker/cart/cart";
import { loadPricingConfig } from "#worker/pricing";
import { storeCurrency, type Ctx } from "#worker/platform/context";
import { openDb } from "#worker/platform/db";
import { merchant, unique } from "../helpers";

/**
 * The pages read the cart (or checkout) and its pricing rules in one batch, before the coupon code is known: the
 * rules must be exactly those loadPricingConfig reads for that code, ended rules naming the code included.
 */

const uid = unique();

function ctx(): Ctx {
  return {
    db: openDb(env.DB),
    env,
    auth: { kind: "apiKey", keyId: "owner", role: "OWNER" },
    currency: storeCurrency(env),
    origin: "https://shop.test",
    waitUntil: () => {},
  };
}

describe("pricingReadsFor", () => {
  it("reads the same configuration as loadPricingConfig for the code the batch reads, or says to read it alone", async () => {
    const ok = async (p: Promise<{ status: number; body: unknown }>) => expect((await p).status, JSON.stringify((await p).body)).toBe(200);
    const ended = { start: "2025-01-01T00:00:00Z", end: "2025-02-01T00:00:00Z" };
    const values = { values: [{ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: 50 }] };
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
    await ok(merchant("POST", "/ecom/v1/discount-rules", { discountRule: { name: `Live ${uid}`, discounts: values } }));
    await ok(merchant("POST", "/api/v1/coupons", { coupon: { code: `Save${uid}`, name: "Save", percentOffRate: 10 } }));

    const c = ctx();
    const now = new Date();
    const codes = [null, `OLD${uid}`, ` old${uid} `, `save${uid}`, `Nope${uid}`, ""];
    const reads = pricingReadsFor(
      c.db,
      codes.map((code) => sql`${code}`),
      now,
    );
    const results = (await c.db.batch(reads.statements as never)) as unknown[];
    const configs = reads.finish(results, codes);
    for (const [i, code] of codes.entries()) {
      expect(configs[i], `code ${JSON.stringify(code)}`).toEqual(await loadPricingConfig(c, code, now));
    }
    expect(configs[1]!.rules.map((r) => r.name)).toContain(`Ended code ${uid}`);
    expect(configs[3]!.coupon?.code).toBe(`Save${uid}`);

    // A code SQLite's lower() would not key like the pricing does is left to loadPricingConfig.
    const exotic = pricingReadsFor(c.db, [sql`${`ÉTÉ${uid}`}`], now);
    expect(exotic.finish((await c.db.batch(exotic.statements as never)) as unknown[], [`ÉTÉ${uid}`])).toEqual([null]);
  });
});
