import { describe, expect, it } from "vitest";
import { consoleSearchSql } from "#worker/reports";
import { api, createProduct, merchant, OWNER_KEY, queryPlan, serviceCtx, staffWith, unique } from "../helpers";
import { roundTrips } from "../cart/cart-fixtures";
import { activeMember, memberToken } from "../identity/member-fixtures";
import { fillCheckout, placeOrder, visitorCheckout } from "../orders/order-fixtures";

/**
 * The console's search: products by name, orders by number or buyer email, customers by email and collections by name
 * or slug, five of each at most, for any staff member, in one D1 round trip, every read through an index.
 */

/** A placed (unpaid, offline) order for `email`, with its number. */
async function orderFor(productId: string, email: string) {
  const v = await visitorCheckout(productId, 1);
  await fillCheckout(v.token, v.checkoutId, email);
  const res = await placeOrder(v.token, v.checkoutId, { id: v.checkoutId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const order = (await merchant("GET", `/ecom/v1/orders/${res.body.orderId}`)).body.order;
  return { id: order.id as string, number: Number(order.number) };
}

const search = (q: string, key?: string) => api("GET", `/api/v1/console-search?q=${encodeURIComponent(q)}`, { key: key ?? undefined });

describe("console search", () => {
  it("finds each kind by what a merchant types, in one round trip, for any staff member", async () => {
    const tag = unique();
    const product = await createProduct({ name: `Lantern ${tag} Brass` });
    const email = `finder-${tag}@example.com`;
    const order = await orderFor(product.id, email);
    const col = await merchant("POST", "/v1/collections", { collection: { name: `Autumn ${tag} Picks` } });
    expect(col.status).toBe(200);
    const collection = col.body.collection;
    const staff = await staffWith([]);

    const byName = await search(`lantern ${tag}`, staff.token);
    expect(byName.status, JSON.stringify(byName.body)).toBe(200);
    expect(byName.body.products).toEqual([
      expect.objectContaining({ kind: "products", id: product.id, title: `Lantern ${tag} Brass`, href: `/console/products/${product.id}` }),
    ]);
    // The search itself is one batch; a staff token adds the read of the staff member's permissions.
    expect(roundTrips((await search(`lantern ${tag}`, OWNER_KEY)).headers)).toBe(1);
    expect(roundTrips(byName.headers)).toBe(2);

    for (const q of [String(order.number), `#${order.number}`]) {
      const byNumber = await search(q, staff.token);
      expect(byNumber.body.orders[0]).toMatchObject({
        kind: "orders",
        id: order.id,
        title: `Order #${order.number}`,
        href: `/console/orders/${order.id}`,
      });
      expect(byNumber.body.orders[0].subtitle).toContain(email);
    }

    const byEmail = await search(`FINDER-${tag}`, staff.token);
    expect(byEmail.body.orders.map((o: { id: string }) => o.id)).toEqual([order.id]);
    expect(byEmail.body.customers).toEqual([
      expect.objectContaining({ kind: "customers", id: email, href: `/console/customers/${encodeURIComponent(email)}` }),
    ]);
    expect(byEmail.body.customers[0].subtitle).toContain("Guest · 1 order");

    const byCollectionName = await search(`autumn ${tag}`, staff.token);
    expect(byCollectionName.body.collections).toEqual([
      expect.objectContaining({
        kind: "collections",
        id: collection.id,
        title: `Autumn ${tag} Picks`,
        href: `/console/collections/${collection.id}`,
      }),
    ]);
    const bySlug = await search(collection.slug, staff.token);
    expect(bySlug.body.collections.map((c: { id: string }) => c.id)).toEqual([collection.id]);

    const empty = await search("   ", staff.token);
    expect(empty.body).toEqual({ q: "", products: [], orders: [], customers: [], collections: [] });
    // Punctuation alone has no words to look for: no product, and no error from the full-text index.
    const punctuation = await search("#-", staff.token);
    expect(punctuation.status, JSON.stringify(punctuation.body)).toBe(200);
    expect(punctuation.body.products).toEqual([]);
  });

  it("returns at most five of each kind", async () => {
    const tag = unique();
    for (let i = 0; i < 7; i++) await createProduct({ name: `Pebble ${tag} ${i}` });
    const res = await search(`pebble ${tag}`, (await staffWith([])).token);
    expect(res.body.products).toHaveLength(5);
  });

  it("is for staff only: no answer for visitors or members", async () => {
    expect((await search("mug")).status).toBe(401);
    const m = await activeMember();
    expect((await search("mug", await memberToken(m.id))).status).toBe(403);
  });

  it("reads every kind through an index, never scanning a table", async () => {
    const { ctx } = serviceCtx();
    for (const q of ["1042", "ada@example.com", "summer sale"]) {
      for (const statement of consoleSearchSql("USD", q)) {
        const plan = await queryPlan(ctx.db.run(statement).getQuery());
        // Only small intermediate results are scanned (a subquery's rows, the customers page), never a stored table.
        const scans = plan
          .split("\n")
          .filter((line) => line.startsWith("SCAN") && !/^SCAN (p|s VIRTUAL TABLE INDEX \d+:.*|\(subquery-\d+\))$/.test(line));
        expect(scans, plan).toEqual([]);
      }
    }
    const plans = await Promise.all(consoleSearchSql("USD", "ada").map((s) => queryPlan(ctx.db.run(s).getQuery())));
    expect(plans[0]).toContain("products_numeric_id_unique");
    expect(plans[1]).toContain("orders_number_unique");
    expect(plans[1]).toContain("orders_buyer_email_idx");
    expect(plans[2]).toContain("orders_buyer_email_idx");
    expect(plans[3]).toContain("collections_slug_unique");
    expect(plans[3]).toContain("collections_name_nocase_idx");
  });
});
