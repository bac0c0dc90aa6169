import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pricingReadsFor } from "#worker/cart/cart";
import { loadPricingConfig, pricingReads } from "#worker/pricing";
import { merchant, queryPlan, serviceCtx, unique } from "../helpers";

/**
 * Pricing a cart reads the discount rules that are live and those naming the cart's coupon code. A store keeps its
 * ended sales (and their codes) for good, so both reads must come from an index: never a scan of the rules, never a
 * walk through every rule's trigger JSON, whatever the code.
 */

const ctx = () => serviceCtx().ctx;
const plan = (statement: unknown) => queryPlan(statement as Parameters<typeof queryPlan>[0]);

function expectIndexed(p: string) {
  expect(p).not.toMatch(/SCAN (discount_rules|discount_rule_codes)\b/);
  expect(p).not.toContain("json_tree");
}

const codesOf = async (ruleId: string) =>
  (
    await env.DB.prepare("SELECT code_key FROM discount_rule_codes WHERE rule_id = ? ORDER BY code_key").bind(ruleId).all<{ code_key: string }>()
  ).results.map((r) => r.code_key);

describe("discount rule reads", () => {
  it("find the live rules through the live-rules index, without reading the ended ones", async () => {
    const p = await plan(pricingReads(ctx().db, null).statements[1]);
    expect(p).toContain("discount_rules_live_idx");
    expectIndexed(p);
  });

  it("find the rules naming an entered code through the codes index", async () => {
    const p = await plan(pricingReads(ctx().db, "WELCOME10").statements[1]);
    expect(p).toContain("discount_rules_live_idx");
    expect(p).toMatch(/SEARCH discount_rule_codes/);
    expect(p).toMatch(/SEARCH discount_rules USING INDEX sqlite_autoindex_discount_rules_1 \(id=\?\)/);
    expectIndexed(p);
  });

  it("find the rules naming a code read in the same batch (the cart's or checkout's) through the codes index", async () => {
    const db = ctx().db;
    const reads = pricingReadsFor(db, [sql`(SELECT ck.coupon_code FROM checkouts ck WHERE ck.id = ${"ck-1"})`]);
    const naming = reads.statements[reads.statements.length - 1];
    const p = await plan(naming);
    expect(p).toMatch(/SEARCH discount_rule_codes/);
    expect(p).toMatch(/SEARCH discount_rules USING INDEX sqlite_autoindex_discount_rules_1 \(id=\?\)/);
    expectIndexed(p);
  });

  it("know every code a rule's trigger names, as the rule is created, changed and deleted", async () => {
    const uid = unique();
    const discounts = { values: [{ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: 10 }] };
    const code = (c: string) => ({ conditionType: "COUPON_CODE", couponCode: { code: c } });
    const created = await merchant("POST", "/ecom/v1/discount-rules", {
      discountRule: {
        name: `Codes ${uid}`,
        // Ended: the pricing reads it only for a code it names.
        activeTimeInfo: { start: "2025-01-01T00:00:00Z", end: "2025-02-01T00:00:00Z" },
        trigger: { conditionType: "OR", or: { triggers: [code(`Spring${uid}`), code(`VIP${uid}`)] } },
        discounts,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.discountRule.id as string;
    expect(await codesOf(id)).toEqual([`spring${uid}`, `vip${uid}`]);

    // Renamed only: the codes stay.
    const renamed = await merchant("PATCH", `/ecom/v1/discount-rules/${id}`, { discountRule: { revision: "1", name: `Codes ${uid} renamed` } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await codesOf(id)).toEqual([`spring${uid}`, `vip${uid}`]);

    const changed = await merchant("PATCH", `/ecom/v1/discount-rules/${id}`, {
      discountRule: {
        revision: "2",
        trigger: {
          conditionType: "AND",
          and: { triggers: [code(`Summer${uid}`), { conditionType: "SUBTOTAL_RANGE", subtotalRange: { from: "50" } }] },
        },
      },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(await codesOf(id)).toEqual([`summer${uid}`]);
    // The pricing finds the rule by its new code (in any case), and not by an old one.
    expect((await loadPricingConfig(ctx(), ` SUMMER${uid}`)).rules.map((r) => r.id)).toContain(id);
    expect((await loadPricingConfig(ctx(), `spring${uid}`)).rules.map((r) => r.id)).not.toContain(id);

    expect((await merchant("DELETE", `/ecom/v1/discount-rules/${id}`)).status).toBe(200);
    expect(await codesOf(id)).toEqual([]);
  });
});
