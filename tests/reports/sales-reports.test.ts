import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { REPORTS, reportPageSql } from "#worker/reports";
import { api, merchant, OWNER_KEY, queryPlan, serviceCtx, staffWith, unique } from "../helpers";
import { cartCalls, createPlain, item, newVisitor, roundTrips } from "../cart/cart-fixtures";
import { fillCheckout, placeOrder } from "../orders/order-fixtures";

/**
 * The sales reports: by product, collection and customer, refunds, taxes and discounts over a period. Paid orders
 * count, an unpaid one does not; a partial refund comes off; the CSV holds the same figures; each query reaches its
 * tables through indexes; any staff member may read them, a shopper may not.
 */

const CARD = { card: { number: "4242424242424242", expiry: "12/40", cvc: "123" } };
// The scenario's orders are moved to a day of their own, so other tests' orders (placed today) stay out of it.
const DAY = "2020-03-11";
const PERIOD = `from=${DAY}&to=${DAY}`;

const ok = async (p: Promise<{ status: number; body: any }>) => {
  const res = await p;
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const minor = (money: { amount: string }) => Math.round(Number(money.amount) * 100);

/** A visitor's order of `lines` for `email` (a coupon applied first when given), paid with the test card or left unpaid. */
async function order(lines: [string, number][], email: string, opts: { paid: boolean; coupon?: string }) {
  const visitor = await newVisitor();
  const cart = cartCalls(visitor.token);
  await ok(cart.add({ lineItems: lines.map(([id, quantity]) => item(id, quantity)) }));
  if (opts.coupon) await ok(cart.patch({ couponCode: opts.coupon }));
  const checkoutId = (await ok(cart.checkout())).checkoutId as string;
  await fillCheckout(visitor.token, checkoutId, email);
  const placed = await ok(placeOrder(visitor.token, checkoutId, opts.paid ? { paymentOption: CARD } : { id: checkoutId }));
  return (await ok(merchant("GET", `/ecom/v1/orders/${placed.orderId}`))).order;
}

const report = (kind: string, query = PERIOD, key = OWNER_KEY) => api("GET", `/api/v1/reports/${kind}?${query}`, { key });
const rowOf = (page: any, key: string, value: string) => page.rows.find((r: any) => r[key] === value);

let s: { a: any; b: any; collection: string; coupon: string; paid1: any; paid2: any; unpaid: any; refund: number };

beforeAll(async () => {
  const uid = unique();
  const coupon = `RPT${uid}`.toUpperCase();
  await ok(merchant("POST", "/api/v1/tax-regions", { taxRegion: { country: "US", defaultRate: 10 } }));
  await ok(merchant("POST", "/api/v1/coupons", { coupon: { code: coupon, name: "A fifth off", percentOffRate: 20 } }));
  const a = await createPlain(10);
  const b = await createPlain(25);
  const collection = (await ok(merchant("POST", "/v1/collections", { collection: { name: `Mugs ${uid}` } }))).collection.id;
  await ok(merchant("POST", `/v1/collections/${collection}/productIds`, { productIds: [a.id] }));

  const paid1 = await order([[a.id, 2]], `one-${uid}@example.com`, { paid: true });
  const paid2 = await order(
    [
      [a.id, 1],
      [b.id, 1],
    ],
    `two-${uid}@example.com`,
    { paid: true, coupon },
  );
  const unpaid = await order([[a.id, 4]], `three-${uid}@example.com`, { paid: false });
  expect(unpaid.paymentStatus).toBe("NOT_PAID");
  const refunded = await ok(
    merchant("POST", `/ecom/v1/orders/${paid1.id}/refunds`, { lineItems: [{ lineItemId: paid1.lineItems[0].id, quantity: 1 }] }),
  );
  const refund = await env.DB.prepare("SELECT amount, status FROM order_refunds WHERE order_id = ?")
    .bind(paid1.id)
    .first<{ amount: number; status: string }>();
  expect(refund, JSON.stringify(refunded)).toMatchObject({ amount: 1000, status: "SUCCEEDED" });

  const ids = [paid1.id, paid2.id, unpaid.id];
  await env.DB.prepare(`UPDATE orders SET purchased_date = ? WHERE id IN (?, ?, ?)`)
    .bind(`${DAY}T12:00:00.000Z`, ...ids)
    .run();
  await env.DB.prepare("UPDATE order_refunds SET created_date = ? WHERE order_id = ?").bind(`${DAY}T15:00:00.000Z`, paid1.id).run();
  s = { a, b, collection, coupon, paid1, paid2, unpaid, refund: refund!.amount };
});

describe("sales reports", () => {
  it("by product and by collection: paid orders' lines, the refunded unit off, the unpaid order left out", async () => {
    const res = await report("products");
    expect(res.status).toBe(200);
    // The page's rows and its totals: one D1 round trip.
    expect(roundTrips(res.headers)).toBe(1);
    const products = res.body.report;
    expect(products).toMatchObject({ from: DAY, to: DAY, timeZone: "UTC", currency: "USD", page: 1, hasMore: false });
    expect(rowOf(products, "id", s.a.id)).toMatchObject({ orders: 2, units: 3, gross: 3000, refunded_units: 1, refunds: 1000, net: 2000 });
    expect(rowOf(products, "id", s.b.id)).toMatchObject({ orders: 1, units: 1, gross: 2500, refunded_units: 0, refunds: 0, net: 2500 });
    expect(products.totals).toEqual({ rows: 2, orders: 3, units: 4, gross: 5500, refunded_units: 1, refunds: 1000, net: 4500 });

    const collections = (await ok(report("collections"))).report;
    expect(collections.rows).toEqual([expect.objectContaining({ id: s.collection, units: 3, gross: 3000, refunds: 1000, net: 2000 })]);
    expect(collections.totals).toMatchObject({ rows: 1, gross: 3000, net: 2000 });
  });

  it("by customer, refunds, taxes and discounts match the orders' own figures", async () => {
    const total1 = minor(s.paid1.priceSummary.total);
    const total2 = minor(s.paid2.priceSummary.total);
    const customers = (await ok(report("customers"))).report;
    expect(customers.totals).toEqual({ rows: 2, orders: 2, gross: total1 + total2, refunds: 1000, net: total1 + total2 - 1000 });
    expect(rowOf(customers, "email", s.paid1.buyerInfo.email)).toMatchObject({ orders: 1, gross: total1, refunds: 1000, net: total1 - 1000 });

    const refunds = (await ok(report("refunds"))).report;
    expect(refunds.rows).toEqual([
      expect.objectContaining({ order: `#${s.paid1.number}`, email: s.paid1.buyerInfo.email, lines: 1, amount: 1000, date: `${DAY}T15:00:00.000Z` }),
    ]);
    expect(refunds.totals).toEqual({ rows: 1, lines: 1, amount: 1000 });

    const tax = minor(s.paid1.priceSummary.tax) + minor(s.paid2.priceSummary.tax);
    expect(tax).toBeGreaterThan(0);
    const taxes = (await ok(report("taxes"))).report;
    expect(taxes.totals).toMatchObject({ orders: 2, tax });

    const discount = minor(s.paid2.priceSummary.discount);
    expect(discount).toBeGreaterThan(0);
    const discounts = (await ok(report("discounts"))).report;
    expect(discounts.rows).toEqual([{ name: s.coupon, type: "Coupon", orders: 1, amount: discount }]);
  });

  it("the CSV holds the same figures, with a totals line", async () => {
    const res = await api<string>("GET", `/api/v1/reports/products?${PERIOD}&format=csv`, { key: OWNER_KEY });
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toContain(`products-${DAY}-to-${DAY}.csv`);
    const lines = res.body.trimEnd().split("\r\n");
    expect(lines[0]).toBe("name,orders,units,gross,refunded_units,refunds,net,currency");
    expect(lines).toContain(`${s.a.name},2,3,30.00,1,10.00,20.00,USD`);
    expect(lines.at(-1)).toBe("Total,3,4,55.00,1,10.00,45.00,USD");
    const refunds = (await api<string>("GET", `/api/v1/reports/refunds?${PERIOD}&format=csv`, { key: OWNER_KEY })).body;
    expect(refunds).toContain(`#${s.paid1.number},${s.paid1.buyerInfo.email},1,10.00,USD`);
  });

  it("an empty period answers zero totals; bad dates and a reversed period answer 400", async () => {
    const empty = (await ok(report("products", "from=2019-01-01&to=2019-01-31"))).report;
    expect(empty.rows).toEqual([]);
    expect(empty.totals).toMatchObject({ rows: 0, gross: 0, net: 0 });
    for (const [query, field] of [
      ["from=2020-02-30&to=2020-03-01", "from"],
      ["from=2020-03-01&to=tomorrow", "to"],
      ["from=2020-03-12&to=2020-03-11", "from"],
    ]) {
      const res = await report("products", query);
      expect(res.status, query).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0].field).toBe(field);
    }
    const unknown = await report("margins");
    expect(unknown.status).toBe(404);
    expect(unknown.body.details.applicationError.code).toBe("REPORT_NOT_FOUND");
  });

  it("any staff member may read them; a shopper may not", async () => {
    const staff = await staffWith([]);
    expect((await ok(report("products", PERIOD, staff.token))).report.totals.gross).toBe(5500);
    const shopper = await newVisitor();
    expect((await report("products", PERIOD, shopper.token)).status).toBe(403);
    expect((await report("products", PERIOD, "")).status).toBe(401);
  });

  it("every report's queries reach their tables through indexes", async () => {
    const { ctx } = serviceCtx();
    const period = { from: DAY, to: DAY, timeZone: "UTC", start: `${DAY}T00:00:00.000Z`, end: "2020-03-12T00:00:00.000Z" };
    for (const kind of REPORTS) {
      const q = reportPageSql(kind, period, "USD", 2, 50);
      for (const statement of [q.rowsSql, q.totalsSql]) {
        const plan = await queryPlan(ctx.db.run(statement).getQuery());
        const scans = plan.split("\n").filter((line) => /\bSCAN\b/.test(line) && !/VIRTUAL TABLE|SCAN g\b|SUBQUERY/.test(line));
        expect(scans, `${kind}:\n${plan}`).toEqual([]);
        expect(plan, kind).toMatch(kind === "refunds" ? /order_refunds_succeeded_idx/ : /orders_purchased_idx/);
      }
    }
  });
});
