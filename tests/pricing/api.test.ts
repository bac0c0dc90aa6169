import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, getQuery, merchant, unique } from "../helpers";
import { visitorTokens } from "../identity/oauth-helpers";

/** The merchant API of the pricing configuration: who may call it, what it refuses, and CRUD for each resource. */

const uid = unique();
const N = `Px${uid}`;

async function ok<T = any>(res: Promise<{ status: number; body: T }>): Promise<T> {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

const violations = (res: { body: any }) =>
  (res.body.details?.validationError?.fieldViolations ?? []) as { field: string; violatedRule: string; description: string }[];

/** Every pricing table and the pricing settings, to show a refused call changed nothing. */
async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const t of ["discount_rules", "coupons", "shipping_regions", "tax_groups", "tax_regions", "additional_fees"]) {
    out[t] = (await env.DB.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()).results;
  }
  out.settings = (await env.DB.prepare("SELECT * FROM settings WHERE key = 'pricing'").all()).results;
  return out;
}

const ruleBody = (o: Record<string, unknown> = {}) => ({
  discountRule: {
    name: `${N} rule`,
    discounts: { values: [{ targetType: "GLOBAL", discountType: "FIXED_AMOUNT", fixedAmount: 5 }] },
    ...o,
  },
});

describe("who may call", () => {
  let ids: Record<string, string>;
  let visitor: string;

  beforeAll(async () => {
    visitor = (await visitorTokens()).access_token;
    const group = await ok(merchant("POST", "/api/v1/tax-groups", { taxGroup: { name: `${N} auth` } }));
    ids = {
      "discount-rules": (await ok(merchant("POST", "/ecom/v1/discount-rules", ruleBody()))).discountRule.id,
      coupons: (await ok(merchant("POST", "/api/v1/coupons", { coupon: { code: `AUTH${uid}`, name: "Auth", percentOffRate: 5 } }))).coupon.id,
      "shipping-regions": (await ok(merchant("POST", "/api/v1/shipping-regions", { shippingRegion: { name: "Auth", countries: ["IS"] } })))
        .shippingRegion.id,
      "tax-groups": group.taxGroup.id,
      "tax-regions": (await ok(merchant("POST", "/api/v1/tax-regions", { taxRegion: { country: "IS", defaultRate: 24 } }))).taxRegion.id,
      "additional-fees": (
        await ok(
          merchant("POST", "/api/v1/additional-fees", { additionalFee: { code: `auth-${uid}`, name: "Auth", type: "HANDLING_FEE", amount: 1 } }),
        )
      ).additionalFee.id,
    };
  });

  function routes(): [string, string, unknown][] {
    const bases: [string, string, unknown][] = [
      ["discount-rules", "/ecom/v1/discount-rules", ruleBody()],
      ["coupons", "/api/v1/coupons", { coupon: { code: `X${uid}`, name: "X", percentOffRate: 5 } }],
      ["shipping-regions", "/api/v1/shipping-regions", { shippingRegion: { name: "X", countries: ["FO"] } }],
      ["tax-groups", "/api/v1/tax-groups", { taxGroup: { name: "X" } }],
      ["tax-regions", "/api/v1/tax-regions", { taxRegion: { country: "FO", defaultRate: 1 } }],
      ["additional-fees", "/api/v1/additional-fees", { additionalFee: { code: `x-${uid}`, name: "X", type: "INSURANCE", amount: 1 } }],
    ];
    const out: [string, string, unknown][] = [];
    for (const [key, base, body] of bases) {
      const wrapper = Object.keys(body as object)[0];
      out.push(
        ["POST", base, body],
        ["GET", base, undefined],
        ["POST", `${base}/query`, { query: {} }],
        ["GET", `${base}/query`, undefined],
        ["GET", `${base}/${ids[key]}`, undefined],
        ["PATCH", `${base}/${ids[key]}`, { [wrapper]: { name: "Defaced" } }],
        ["DELETE", `${base}/${ids[key]}`, undefined],
      );
    }
    out.push(["GET", "/api/v1/pricing-settings", undefined], ["PATCH", "/api/v1/pricing-settings", { settings: { pricesIncludeTax: true } }]);
    return out;
  }

  it("answers 401 without credentials and 403 to a visitor, on every call, and changes nothing", async () => {
    const before = await snapshot();
    for (const [method, path, body] of routes()) {
      const anonymous = await api(method, path, { body });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.body.details.applicationError.code).toBe("UNAUTHENTICATED");
      const asVisitor = await api(method, path, { body, key: visitor });
      expect(asVisitor.status, `visitor ${method} ${path}`).toBe(403);
      expect(asVisitor.body.details.applicationError.code).toBe("PERMISSION_DENIED");
    }
    expect(await snapshot()).toEqual(before);
  });

  it("checks the caller before the body: a bad body from nobody is 401, not a validation error", async () => {
    expect((await api("POST", "/ecom/v1/discount-rules", { rawBody: "{not json" })).status).toBe(401);
    expect((await api("POST", "/api/v1/coupons", { body: { coupon: { code: "" } } })).status).toBe(401);
  });

  it("lets the merchant reach every call", async () => {
    for (const [method, path, body] of routes()) {
      if (method === "DELETE" || method === "PATCH" || (method === "POST" && !path.endsWith("/query"))) continue;
      const res = await merchant(method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(200);
    }
  });
});

describe("discount rules", () => {
  it("creates, reads, patches (with revisions) and deletes a rule, in the Wix shape", async () => {
    const created = await ok(
      merchant(
        "POST",
        "/ecom/v1/discount-rules",
        ruleBody({
          name: `${N} crud`,
          trigger: { conditionType: "SUBTOTAL_RANGE", subtotalRange: { from: "50" } },
          activeTimeInfo: { start: "2020-01-01T00:00:00+02:00" },
        }),
      ),
    );
    const rule = created.discountRule;
    expect(rule).toMatchObject({
      name: `${N} crud`,
      active: true,
      revision: "1",
      status: "LIVE",
      usageCount: 0,
      activeTimeInfo: { start: "2019-12-31T22:00:00.000Z", end: null },
      trigger: { conditionType: "SUBTOTAL_RANGE", subtotalRange: { from: "50.00", to: null } },
      discounts: { values: [{ targetType: "GLOBAL", discountType: "FIXED_AMOUNT", fixedAmount: "5.00" }] },
    });
    expect(rule.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(rule.createdDate).toISOString()).toBe(rule.createdDate);

    expect((await ok(merchant("GET", `/ecom/v1/discount-rules/${rule.id}?id=${rule.id}`))).discountRule).toEqual(rule);

    const patched = (
      await ok(
        merchant("PATCH", `/ecom/v1/discount-rules/${rule.id}`, {
          discountRule: { id: rule.id, revision: "1", name: `${N} renamed`, active: false },
        }),
      )
    ).discountRule;
    expect(patched).toMatchObject({ name: `${N} renamed`, active: false, revision: "2", trigger: rule.trigger, discounts: rule.discounts });
    expect(patched.updatedDate >= rule.updatedDate).toBe(true);

    const before = await snapshot();
    const stale = await merchant("PATCH", `/ecom/v1/discount-rules/${rule.id}`, { discountRule: { revision: "1", name: "Stale" } });
    expect(stale.status).toBe(409);
    expect(stale.body.details.applicationError.code).toBe("REVISION_MISMATCH");
    const wrongId = await merchant("PATCH", `/ecom/v1/discount-rules/${rule.id}`, { discountRule: { id: "another", name: "X" } });
    expect(wrongId.status).toBe(400);
    expect(await snapshot()).toEqual(before);

    expect(await ok(merchant("DELETE", `/ecom/v1/discount-rules/${rule.id}`))).toEqual({});
    const gone = await merchant("GET", `/ecom/v1/discount-rules/${rule.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.details.applicationError).toMatchObject({ code: "DISCOUNT_RULE_NOT_FOUND", data: { id: rule.id } });
    expect((await merchant("DELETE", `/ecom/v1/discount-rules/${rule.id}`)).status).toBe(404);
    expect((await merchant("PATCH", `/ecom/v1/discount-rules/${rule.id}`, { discountRule: { name: "X" } })).status).toBe(404);
  });

  it("computes LIVE, PENDING and EXPIRED from activeTimeInfo, and queries by status, sort and paging (POST, GET .r, cursors)", async () => {
    const day = 86_400_000;
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const make = async (name: string, start: string | null, end: string | null) =>
      (await ok(merchant("POST", "/ecom/v1/discount-rules", ruleBody({ name, activeTimeInfo: { start, end } })))).discountRule;
    const live = await make(`${N} q live`, at(-day), at(day));
    const pending = await make(`${N} q pending`, at(day), null);
    const expired = await make(`${N} q expired`, null, at(-day));
    expect([live.status, pending.status, expired.status]).toEqual(["LIVE", "PENDING", "EXPIRED"]);

    const byStatus = await ok(
      merchant("POST", "/ecom/v1/discount-rules/query", { query: { filter: { name: { $startsWith: `${N} q` }, status: "PENDING" } } }),
    );
    expect(byStatus.discountRules.map((r: any) => r.id)).toEqual([pending.id]);

    const q = { query: { filter: { name: { $startsWith: `${N} q` } }, sort: [{ fieldName: "name", order: "DESC" }], cursorPaging: { limit: 2 } } };
    const first = await ok(merchant("POST", "/ecom/v1/discount-rules/query", q));
    expect(first.discountRules.map((r: any) => r.name)).toEqual([`${N} q pending`, `${N} q live`]);
    expect(first.metadata).toMatchObject({ count: 2, total: 3, hasNext: true, cursors: { next: "2" } });
    const second = await ok(
      getQuery(
        "/ecom/v1/discount-rules/query",
        { query: { ...q.query, cursorPaging: { limit: 2, cursor: first.metadata.cursors.next } } },
        "test-owner-key",
      ),
    );
    expect(second.discountRules.map((r: any) => r.name)).toEqual([`${N} q expired`]);
    expect(second.metadata).toMatchObject({ count: 1, hasNext: false, cursors: { next: null, prev: "0" } });
    expect(second.pagingMetadata).toEqual({ count: 1, offset: 2, total: 3, hasNext: false, cursors: { next: null, prev: "0" } });

    const bad = await merchant("POST", "/ecom/v1/discount-rules/query", { query: { filter: { colour: "red" }, sort: [{ fieldName: "discounts" }] } });
    expect(bad.status).toBe(400);
    expect(violations(bad).map((v) => v.field)).toEqual(["query.filter.colour", "query.sort[0].fieldName"]);
  });

  it("refuses bad rules with every violation, sorted by field, and changes nothing", async () => {
    const before = await snapshot();
    const cases: [unknown, string[]][] = [
      [{}, ["discountRule"]],
      [{ discountRule: { discounts: { values: [] } } }, ["discountRule.discounts.values", "discountRule.name"]],
      [
        ruleBody({ discounts: { values: [{ targetType: "EVERYTHING", discountType: "PERCENTAGE", percentage: 10 }] } }),
        ["discountRule.discounts.values[0].targetType"],
      ],
      [
        ruleBody({ discounts: { values: [{ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: 150 }] } }),
        ["discountRule.discounts.values[0].percentage"],
      ],
      [ruleBody({ discounts: { values: [{ targetType: "GLOBAL", discountType: "PERCENTAGE" }] } }), ["discountRule.discounts.values[0].percentage"]],
      [
        ruleBody({ discounts: { values: [{ targetType: "SPECIFIC_ITEMS", discountType: "FIXED_AMOUNT", fixedAmount: "1.00" }] } }),
        ["discountRule.discounts.values[0].specificItemsInfo"],
      ],
      [
        ruleBody({ discounts: { values: [{ targetType: "GLOBAL", discountType: "FIXED_AMOUNT", fixedAmount: "1.005" }] } }),
        ["discountRule.discounts.values[0].fixedAmount"],
      ],
      [ruleBody({ activeTimeInfo: { start: "2026-05-01T00:00:00Z", end: "2026-04-01T00:00:00Z" } }), ["discountRule.activeTimeInfo.end"]],
      [ruleBody({ activeTimeInfo: { start: "tomorrow" } }), ["discountRule.activeTimeInfo.start"]],
      [ruleBody({ trigger: { conditionType: "SOMETIMES" } }), ["discountRule.trigger.conditionType"]],
      [ruleBody({ trigger: { conditionType: "AND", and: { triggers: [] } } }), ["discountRule.trigger.and.triggers"]],
      [ruleBody({ name: "x".repeat(51) }), ["discountRule.name"]],
    ];
    for (const [body, fields] of cases) {
      const res = await merchant("POST", "/ecom/v1/discount-rules", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.applicationError.code).toBe("INVALID_ARGUMENT");
      expect(
        violations(res).map((v) => v.field),
        JSON.stringify(res.body),
      ).toEqual(fields);
    }
    const rule = (await ok(merchant("POST", "/ecom/v1/discount-rules", ruleBody({ name: `${N} keep` })))).discountRule;
    const snap = await snapshot();
    const res = await merchant("PATCH", `/ecom/v1/discount-rules/${rule.id}`, {
      discountRule: { name: "", discounts: { values: [{ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: -1 }] } },
    });
    expect(res.status).toBe(400);
    expect(violations(res).map((v) => v.field)).toEqual(["discountRule.discounts.values[0].percentage", "discountRule.name"]);
    expect(await snapshot()).toEqual(snap);
    expect(before.discount_rules.length + 1).toBe(snap.discount_rules.length);
  });
});

describe("coupons", () => {
  it("creates a coupon, keeps codes unique without regard to case, switches its kind of discount, and deletes it", async () => {
    const coupon = (
      await ok(
        merchant("POST", "/api/v1/coupons", {
          coupon: {
            code: `Spring${uid}`,
            name: "Spring",
            moneyOffAmount: 7.5,
            minimumSubtotal: "30",
            usageLimit: 100,
            scope: { type: "SPECIFIC_ITEMS", collectionIds: ["col-spring"] },
          },
        }),
      )
    ).coupon;
    expect(coupon).toMatchObject({
      code: `Spring${uid}`,
      moneyOffAmount: "7.50",
      minimumSubtotal: "30.00",
      usageLimit: 100,
      timesUsed: 0,
      status: "LIVE",
      expired: false,
      scope: { type: "SPECIFIC_ITEMS", catalogItemIds: [], collectionIds: ["col-spring"] },
      revision: "1",
    });
    const before = await snapshot();
    const dup = await merchant("POST", "/api/v1/coupons", { coupon: { code: `SPRING${uid}`, name: "Again", percentOffRate: 10 } });
    expect(dup.status).toBe(409);
    expect(dup.body.details.applicationError.code).toBe("DUPLICATE_COUPON_CODE");
    const both = await merchant("POST", "/api/v1/coupons", { coupon: { code: `Both${uid}`, name: "Both", percentOffRate: 10, freeShipping: true } });
    expect(both.status).toBe(400);
    expect(violations(both).map((v) => v.field)).toEqual(["coupon.moneyOffAmount"]);
    const badCode = await merchant("POST", "/api/v1/coupons", { coupon: { code: "no spaces!", name: "Bad", percentOffRate: 10, usageLimit: 0 } });
    expect(violations(badCode).map((v) => v.field)).toEqual(["coupon.code", "coupon.usageLimit"]);
    expect(await snapshot()).toEqual(before);

    const switched = (await ok(merchant("PATCH", `/api/v1/coupons/${coupon.id}`, { coupon: { percentOffRate: 15 } }))).coupon;
    expect(switched).toMatchObject({ percentOffRate: 15, revision: "2", minimumSubtotal: "30.00" });
    expect(switched.moneyOffAmount).toBeUndefined();
    const free = (await ok(merchant("PATCH", `/api/v1/coupons/${coupon.id}`, { coupon: { freeShipping: true } }))).coupon;
    expect(free).toMatchObject({ freeShipping: true, scope: { type: "GLOBAL" } });

    const found = await ok(merchant("POST", "/api/v1/coupons/query", { query: { filter: { code: `spring${uid}` } } }));
    expect(found.coupons.map((c: any) => c.id)).toEqual([coupon.id]);
    expect(await ok(merchant("DELETE", `/api/v1/coupons/${coupon.id}`))).toEqual({});
    expect((await merchant("GET", `/api/v1/coupons/${coupon.id}`)).body.details.applicationError.code).toBe("COUPON_NOT_FOUND");
  });
});

describe("shipping regions", () => {
  it("stores options with rules, pickup and thresholds in money strings, and round-trips a patch", async () => {
    const region = (
      await ok(
        merchant("POST", "/api/v1/shipping-regions", {
          shippingRegion: {
            name: `${N} Nordics`,
            countries: ["se", "NO"],
            subdivisions: ["SE-AB"],
            options: [
              {
                code: "std",
                title: "Standard",
                rate: "4.90",
                deliveryTime: "2-4 days",
                rules: [
                  { basis: "PRICE", operator: "GTE", value: "50", rate: "2" },
                  { basis: "WEIGHT", operator: "GT", value: 10.5, rate: 15 },
                ],
                freeShippingThreshold: 99.99,
              },
              { code: "slot", title: "Evening", deliveryTimeSlot: { from: "2026-06-01T17:00:00Z", to: "2026-06-01T21:00:00Z" } },
              { code: "pickup", title: "Store", kind: "PICKUP", pickupDetails: { address: { country: "SE", city: "Stockholm" } } },
            ],
          },
        }),
      )
    ).shippingRegion;
    expect(region).toMatchObject({
      countries: ["SE", "NO"],
      subdivisions: ["SE-AB"],
      restOfWorld: false,
      options: [
        {
          code: "std",
          kind: "DELIVERY",
          rate: "4.90",
          rules: [
            { basis: "PRICE", operator: "GTE", value: "50.00", rate: "2.00" },
            { basis: "WEIGHT", operator: "GT", value: 10.5, rate: "15.00" },
          ],
          freeShippingThreshold: "99.99",
        },
        { code: "slot", rate: "0.00", deliveryTimeSlot: { from: "2026-06-01T17:00:00.000Z", to: "2026-06-01T21:00:00.000Z" } },
        { code: "pickup", kind: "PICKUP", pickupDetails: { pickupMethod: "STORE_PICKUP", address: { country: "SE", city: "Stockholm" } } },
      ],
    });
    const patched = (await ok(merchant("PATCH", `/api/v1/shipping-regions/${region.id}`, { shippingRegion: { name: `${N} Nordics 2` } })))
      .shippingRegion;
    expect(patched.options).toEqual(region.options);
    const found = await ok(merchant("POST", "/api/v1/shipping-regions/query", { query: { filter: { countries: { $hasSome: ["NO"] } } } }));
    expect(found.shippingRegions.map((r: any) => r.id)).toContain(region.id);
    expect(await ok(merchant("DELETE", `/api/v1/shipping-regions/${region.id}`))).toEqual({});
  });

  it("refuses regions that cannot work, naming each field", async () => {
    const before = await snapshot();
    // Structure first: a region with malformed parts is refused for those parts.
    const res = await merchant("POST", "/api/v1/shipping-regions", {
      shippingRegion: {
        name: "Broken",
        countries: ["DK", "Denmark"],
        options: [{ code: "a", title: "A", rules: [{ basis: "QUANTITY", operator: "ABOUT", value: 1, rate: 1 }] }],
      },
    });
    expect(res.status).toBe(400);
    expect(violations(res).map((v) => [v.field, v.violatedRule])).toEqual([
      ["shippingRegion.countries[1]", "FORMAT"],
      ["shippingRegion.options[0].rules[0].operator", "INVALID_ENUM_VALUE"],
    ]);
    const option = await merchant("POST", "/api/v1/shipping-regions", {
      shippingRegion: {
        name: "Broken",
        countries: ["DK"],
        options: [{ code: "b", title: "B", kind: "PICKUP", rules: [{ basis: "QUANTITY", operator: "GT", value: 1.5, rate: 1 }] }],
      },
    });
    expect(violations(option).map((v) => v.field)).toEqual(["shippingRegion.options[0].pickupDetails", "shippingRegion.options[0].rules[0].value"]);
    // Then how the parts fit together.
    const second = await merchant("POST", "/api/v1/shipping-regions", {
      shippingRegion: {
        name: "Broken",
        countries: ["DK"],
        subdivisions: ["SE-AB"],
        options: [
          { code: "a", title: "A" },
          { code: "a", title: "A again" },
        ],
      },
    });
    expect(violations(second).map((v) => v.field)).toEqual(["shippingRegion.options[1].code", "shippingRegion.subdivisions[0]"]);
    const world = await merchant("POST", "/api/v1/shipping-regions", { shippingRegion: { name: "World", restOfWorld: true, countries: ["DK"] } });
    expect(violations(world).map((v) => v.field)).toEqual(["shippingRegion.restOfWorld"]);
    const none = await merchant("POST", "/api/v1/shipping-regions", { shippingRegion: { name: "Nowhere" } });
    expect(violations(none).map((v) => v.field)).toEqual(["shippingRegion.countries"]);
    expect(await snapshot()).toEqual(before);
  });
});

describe("tax groups and regions", () => {
  it("rates tax groups per region, one region per place", async () => {
    const group = (
      await ok(merchant("POST", "/api/v1/tax-groups", { taxGroup: { name: `${N} food`, catalogItemIds: ["p1", "p1"], collectionIds: ["c1"] } }))
    ).taxGroup;
    expect(group).toMatchObject({ name: `${N} food`, catalogItemIds: ["p1"], collectionIds: ["c1"], revision: "1" });
    const region = (
      await ok(
        merchant("POST", "/api/v1/tax-regions", {
          taxRegion: { country: "pt", defaultRate: 23, groupRates: [{ taxGroupId: group.id, rate: 6 }], taxShipping: true },
        }),
      )
    ).taxRegion;
    expect(region).toMatchObject({
      name: "PT",
      country: "PT",
      subdivision: null,
      defaultRate: 23,
      groupRates: [{ taxGroupId: group.id, rate: 6 }],
      taxShipping: true,
      calculation: "DEFAULT",
    });
    const madeira = (
      await ok(
        merchant("POST", "/api/v1/tax-regions", {
          taxRegion: { name: "Madeira", country: "PT", subdivision: "PT-30", defaultRate: 22, calculation: "MANUAL" },
        }),
      )
    ).taxRegion;
    expect(madeira).toMatchObject({ subdivision: "PT-30", calculation: "MANUAL" });

    const before = await snapshot();
    const dup = await merchant("POST", "/api/v1/tax-regions", { taxRegion: { country: "PT", defaultRate: 5 } });
    expect(dup.status).toBe(409);
    expect(dup.body.details.applicationError.code).toBe("DUPLICATE_TAX_REGION");
    const unknownGroup = await merchant("POST", "/api/v1/tax-regions", {
      taxRegion: { country: "ES", defaultRate: 21, groupRates: [{ taxGroupId: "no-such-group", rate: 4 }] },
    });
    expect(violations(unknownGroup).map((v) => v.field)).toEqual(["taxRegion.groupRates[0].taxGroupId"]);
    const tooHigh = await merchant("POST", "/api/v1/tax-regions", { taxRegion: { country: "ES", defaultRate: 101 } });
    expect(violations(tooHigh).map((v) => [v.field, v.violatedRule])).toEqual([["taxRegion.defaultRate", "MAX"]]);
    const wrongPlace = await merchant("POST", "/api/v1/tax-regions", { taxRegion: { country: "ES", subdivision: "PT-30", defaultRate: 21 } });
    expect(violations(wrongPlace).map((v) => [v.field, v.violatedRule])).toEqual([["taxRegion.subdivision", "VALIDATION"]]);
    const moveOntoOther = await merchant("PATCH", `/api/v1/tax-regions/${madeira.id}`, { taxRegion: { subdivision: null } });
    expect(moveOntoOther.status).toBe(409);
    expect(await snapshot()).toEqual(before);

    const listed = await ok(merchant("GET", "/api/v1/tax-regions"));
    expect(listed.taxRegions.filter((r: any) => r.country === "PT").map((r: any) => r.subdivision)).toEqual([null, "PT-30"]);
    expect((await ok(merchant("PATCH", `/api/v1/tax-regions/${region.id}`, { taxRegion: { defaultRate: 13 } }))).taxRegion).toMatchObject({
      defaultRate: 13,
      revision: "2",
      groupRates: region.groupRates,
    });
    await ok(merchant("DELETE", `/api/v1/tax-regions/${madeira.id}`));
    await ok(merchant("DELETE", `/api/v1/tax-regions/${region.id}`));
    await ok(merchant("DELETE", `/api/v1/tax-groups/${group.id}`));
  });
});

describe("additional fees", () => {
  it("creates fixed and percentage fees, keeps codes unique, switches amount to percentage", async () => {
    const fixed = (
      await ok(
        merchant("POST", "/api/v1/additional-fees", {
          additionalFee: { code: `handling-${uid}`, name: "Handling", type: "HANDLING_FEE", amount: "2.5" },
        }),
      )
    ).additionalFee;
    expect(fixed).toMatchObject({ code: `handling-${uid}`, type: "HANDLING_FEE", amount: "2.50", minimumSubtotal: null, active: true });
    const before = await snapshot();
    expect(
      (
        await merchant("POST", "/api/v1/additional-fees", {
          additionalFee: { code: `handling-${uid}`, name: "Again", type: "HANDLING_FEE", amount: 1 },
        })
      ).status,
    ).toBe(409);
    const badType = await merchant("POST", "/api/v1/additional-fees", {
      additionalFee: { code: `n-${uid}`, name: "Packing", type: "PACKING", amount: 1 },
    });
    expect(violations(badType).map((v) => [v.field, v.violatedRule])).toEqual([["additionalFee.type", "INVALID_ENUM_VALUE"]]);
    const neither = await merchant("POST", "/api/v1/additional-fees", { additionalFee: { code: `n-${uid}`, name: "Neither", type: "INSURANCE" } });
    expect(violations(neither).map((v) => v.field)).toEqual(["additionalFee.amount"]);
    expect(await snapshot()).toEqual(before);
    const pct = (await ok(merchant("PATCH", `/api/v1/additional-fees/${fixed.id}`, { additionalFee: { percentage: 1.5, minimumSubtotal: 20 } })))
      .additionalFee;
    expect(pct).toMatchObject({ percentage: 1.5, minimumSubtotal: "20.00", revision: "2" });
    expect(pct.amount).toBeUndefined();
    await ok(merchant("DELETE", `/api/v1/additional-fees/${fixed.id}`));
  });
});

describe("pricing settings", () => {
  let original: any;
  beforeAll(async () => {
    original = (await ok(merchant("GET", "/api/v1/pricing-settings"))).settings;
  });
  afterAll(async () => {
    await ok(merchant("PATCH", "/api/v1/pricing-settings", { settings: original }));
  });

  it("reads the defaults, changes only the fields given, and refuses bad values without changing anything", async () => {
    expect(original).toEqual({
      pricesIncludeTax: false,
      taxableAddress: "SHIPPING",
      businessAddress: null,
      taxCalculation: "MANUAL",
      defaultShippingRegionId: null,
    });
    const region = (await ok(merchant("POST", "/api/v1/shipping-regions", { shippingRegion: { name: `${N} home`, countries: ["LU"] } })))
      .shippingRegion;
    const changed = await ok(
      merchant("PATCH", "/api/v1/pricing-settings", {
        settings: { pricesIncludeTax: true, businessAddress: { country: "lu", city: "Luxembourg" }, defaultShippingRegionId: region.id },
      }),
    );
    expect(changed.settings).toEqual({
      pricesIncludeTax: true,
      taxableAddress: "SHIPPING",
      businessAddress: { country: "LU", city: "Luxembourg" },
      taxCalculation: "MANUAL",
      defaultShippingRegionId: region.id,
    });
    expect((await ok(merchant("GET", "/api/v1/pricing-settings"))).settings).toEqual(changed.settings);

    const before = await snapshot();
    for (const [settings, field] of [
      [{ taxableAddress: "HOME" }, "settings.taxableAddress"],
      [{ defaultShippingRegionId: "no-such-region" }, "settings.defaultShippingRegionId"],
      [{ businessAddress: { city: "Nowhere" } }, "settings.businessAddress.country"],
      [{ pricesIncludeTax: "yes" }, "settings.pricesIncludeTax"],
    ] as const) {
      const res = await merchant("PATCH", "/api/v1/pricing-settings", { settings });
      expect(res.status, JSON.stringify(settings)).toBe(400);
      expect(violations(res).map((v) => v.field)).toEqual([field]);
    }
    expect(await snapshot()).toEqual(before);
    expect(
      (await ok(merchant("PATCH", "/api/v1/pricing-settings", { settings: { businessAddress: null, defaultShippingRegionId: null } }))).settings,
    ).toMatchObject({
      businessAddress: null,
      defaultShippingRegionId: null,
      pricesIncludeTax: true,
    });
  });
});
