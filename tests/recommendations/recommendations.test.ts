import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { rankedProductIds } from "#worker/catalog";
import { ALGORITHMS, BEST_SELLERS, BOUGHT_TOGETHER, SAME_COLLECTIONS } from "#worker/recommendations";
import { openDb } from "#worker/platform/db";
import { api, createProduct, merchant, queryPlan, unique } from "../helpers";

/**
 * The Recommendations API (/v1/recommendations and /ecom/v1/recommendations): the algorithms listed, each algorithm
 * ranking from the shop's own data (collections, paid orders' lines, units sold), the first algorithm with enough
 * items answering, unknown algorithms reported, the items asked about and hidden products never recommended.
 */

const STORES = "215238eb-22a5-4c36-9e7b-e7c08025e04e";
const tag = unique();

const ask = (body: Record<string, unknown>, base = "/ecom/v1") => api("POST", `${base}/recommendations/get`, { body });
const algo = (id: string) => ({ id, appId: STORES });
const item = (id: string) => ({ catalogItemId: id, appId: STORES });
const idsOf = (res: { body: { recommendation: { items: { catalogItemId: string }[] } } }) =>
  res.body.recommendation.items.map((i) => i.catalogItemId);

let orderNumber = 900_000 + Math.floor(Math.random() * 90_000);

/** A paid (or other payment status) order of these products and quantities, written as placing an order writes it. */
async function order(lines: [productId: string, quantity: number][], paymentStatus = "PAID", daysAgo = 0) {
  const id = crypto.randomUUID();
  const when = new Date(Date.now() - daysAgo * 86_400_000).toISOString();
  const stmts = [
    env.DB.prepare(
      `INSERT INTO orders (id, number, checkout_id, cart_id, owner_kind, owner_id, status, payment_status, currency, subtotal, total, details,
        purchased_date, created_date, updated_date) VALUES (?, ?, ?, ?, 'visitor', ?, 'APPROVED', ?, 'USD', 1000, 1000, '{}', ?, ?, ?)`,
    ).bind(id, orderNumber++, crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), paymentStatus, when, when, when),
    ...lines.map(([productId, quantity], position) =>
      env.DB.prepare(
        `INSERT INTO order_line_items (id, order_id, position, catalog_item_id, name, quantity, price, details) VALUES (?, ?, ?, ?, 'x', ?, 100, '{}')`,
      ).bind(crypto.randomUUID(), id, position, productId, quantity),
    ),
  ];
  await env.DB.batch(stmts);
}

async function collection(name: string, productIds: string[]) {
  const res = await merchant("POST", "/v1/collections", { collection: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const made = (await merchant("POST", `/v1/collections/${res.body.collection.id}/productIds`, { productIds })).status;
  expect(made).toBe(200);
  return res.body.collection.id as string;
}

const p: Record<string, string> = {};

beforeAll(async () => {
  for (const name of ["mug", "cup", "saucer", "spoon", "hidden", "tea", "kettle", "lonely"]) {
    p[name] = (await createProduct({ name: `Rec ${name} ${tag}`, visible: name !== "hidden" })).id;
  }
  // The mug shares two collections with the cup, one with the saucer, the spoon and the hidden product.
  await collection(`Rec tableware ${tag}`, [p.mug, p.cup, p.saucer, p.spoon, p.hidden]);
  await collection(`Rec drinking ${tag}`, [p.mug, p.cup]);
  // Paid orders: the mug with the tea twice, with the kettle once; an unpaid and a refunded one do not count.
  await order([
    [p.mug, 1],
    [p.tea, 1],
  ]);
  await order([
    [p.mug, 2],
    [p.tea, 1],
    [p.kettle, 1],
  ]);
  await order([
    [p.mug, 1],
    [p.hidden, 1],
  ]);
  await order(
    [
      [p.mug, 1],
      [p.spoon, 5],
    ],
    "NOT_PAID",
  );
  await order(
    [
      [p.mug, 1],
      [p.saucer, 5],
    ],
    "FULLY_REFUNDED",
  );
  // Best sellers: the kettle sells most units, then the tea; a sale older than the window does not count.
  await order([[p.kettle, 500]]);
  await order([[p.tea, 300]]);
  await order([[p.lonely, 9000]], "PAID", 200);
});

describe("the algorithms", () => {
  it("lists the algorithms it runs, for the Stores catalogue, at both paths", async () => {
    for (const base of ["/v1", "/ecom/v1"]) {
      const res = await api("GET", `${base}/recommendations/algorithms`);
      expect(res.status).toBe(200);
      expect(res.body.availableAlgorithms.map((a: { config: { algorithmId: string } }) => a.config.algorithmId)).toEqual([
        SAME_COLLECTIONS,
        BOUGHT_TOGETHER,
        BEST_SELLERS,
      ]);
      expect(res.body.availableAlgorithms[0]).toEqual({
        config: { name: "From the same collections", description: expect.any(String), algorithmType: "RELATED_ITEMS", algorithmId: SAME_COLLECTIONS },
        appId: STORES,
        catalogAppIds: [STORES],
      });
      expect(res.body.availableAlgorithms[2].config.algorithmType).toBe("GLOBAL");
    }
  });

  it("from the same collections: those sharing most collections first, never the item itself or a hidden product", async () => {
    const res = await ask({ algorithms: [algo(SAME_COLLECTIONS)], items: [item(p.mug)], minimumRecommendedItems: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      recommendation: { items: expect.any(Array), algorithm: { id: SAME_COLLECTIONS, appId: STORES } },
      algorithmErrors: [],
    });
    const ids = idsOf(res);
    expect(ids[0]).toBe(p.cup);
    expect(new Set(ids)).toEqual(new Set([p.cup, p.saucer, p.spoon]));
    // Ties go to the newest product.
    expect(ids.slice(1)).toEqual([p.spoon, p.saucer]);
  });

  it("bought together: products in the same paid orders, the most orders first, through an index", async () => {
    const res = await ask({ algorithms: [algo(BOUGHT_TOGETHER)], items: [item(p.mug)] }, "/v1");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Not the spoon (unpaid), the saucer (refunded) or the hidden product.
    expect(idsOf(res)).toEqual([p.tea, p.kettle]);
    const algorithm = ALGORITHMS.find((a) => a.id === BOUGHT_TOGETHER)!;
    const items = sql`SELECT value FROM json_each(${JSON.stringify([p.mug])})`;
    const plan = await queryPlan(rankedProductIds(openDb(env.DB), algorithm.ranking(items), 16));
    expect(plan).toMatch(/SEARCH mine USING COVERING INDEX order_line_items_item_idx/);
    expect(plan).toMatch(/SEARCH other USING INDEX order_line_items_order_idx/);
    expect(plan).not.toMatch(/SCAN (mine|other|order_line_items)\b/);
  });

  it("best sellers: units sold in recent paid orders, with no item needed", async () => {
    const res = await ask({ algorithms: [algo(BEST_SELLERS)], items: [] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = idsOf(res);
    expect(ids.slice(0, 2)).toEqual([p.kettle, p.tea]);
    expect(ids).not.toContain(p.lonely);
    expect(ids).not.toContain(p.hidden);
    // The items asked about are left out.
    expect(idsOf(await ask({ algorithms: [algo(BEST_SELLERS)], items: [item(p.kettle)] }))[0]).toBe(p.tea);
  });
});

describe("choosing among algorithms", () => {
  it("answers with the first algorithm that finds the minimum, and reports algorithms it does not run", async () => {
    const viewedTogether = { id: "5dd69f67-9ab9-478e-ba7c-10c6c6e7285f", appId: STORES };
    const otherApp = { id: SAME_COLLECTIONS, appId: "1380b703-ce81-ff05-f115-39571d94dfcd" };
    const res = await ask({
      algorithms: [viewedTogether, algo(BOUGHT_TOGETHER), otherApp, algo(SAME_COLLECTIONS), algo(BEST_SELLERS)],
      items: [item(p.mug)],
      minimumRecommendedItems: 3,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Bought together finds two: not enough; the same collections find three.
    expect(res.body.recommendation.algorithm).toEqual({ id: SAME_COLLECTIONS, appId: STORES });
    expect(idsOf(res)).toHaveLength(3);
    expect(res.body.algorithmErrors).toEqual([
      { algorithm: viewedTogether, errorCode: "RECOMMENDATION_ALGORITHM_NOT_SUPPORTED", errorMessage: expect.any(String) },
      { algorithm: otherApp, errorCode: "RECOMMENDATION_ALGORITHM_NOT_SUPPORTED", errorMessage: expect.any(String) },
    ]);
  });

  it("answers no items when no algorithm finds the minimum", async () => {
    const res = await ask({ algorithms: [algo(SAME_COLLECTIONS), algo(BOUGHT_TOGETHER)], items: [item(p.lonely)], minimumRecommendedItems: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ recommendation: { items: [] }, algorithmErrors: [] });
  });

  it("refuses a request without algorithms or with a bad minimum", async () => {
    expect((await ask({ algorithms: [], items: [item(p.mug)] })).status).toBe(400);
    expect((await ask({ algorithms: [algo(SAME_COLLECTIONS)], minimumRecommendedItems: -1 })).status).toBe(400);
    expect((await ask({ algorithms: [{ appId: STORES }] })).body.details.validationError.fieldViolations[0].field).toBe("algorithms[0].id");
  });
});
