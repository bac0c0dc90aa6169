import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { customerPageSql, exportCustomersCsv } from "#worker/customers";
import { api, merchant, OWNER_KEY, queryPlan, serviceCtx, staffWith, unique } from "../helpers";
import { createPlain, roundTrips } from "../cart/cart-fixtures";
import { fillCheckout, placeOrder, visitorCheckout } from "../orders/order-fixtures";

/**
 * Customers: guests by the email on their orders and members by their login email, one customer per email; lifetime
 * spend counts paid orders less their refunds, the average is over paid orders; the list pages through indexes
 * (no table scan); staff notes need orders.write and keep their author.
 */

const CARD = { card: { number: "4242424242424242", expiry: "12/40", cvc: "123" } };

/** A placed order of `quantity` units for `email`, paid with the test card or left unpaid (offline). */
async function orderFor(productId: string, email: string, quantity: number, paid: boolean) {
  const v = await visitorCheckout(productId, quantity);
  await fillCheckout(v.token, v.checkoutId, email);
  const res = await placeOrder(v.token, v.checkoutId, paid ? { paymentOption: CARD } : { id: v.checkoutId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const order = (await merchant("GET", `/ecom/v1/orders/${res.body.orderId}`)).body.order;
  return { id: order.id as string, total: Math.round(Number(order.priceSummary.total.amount) * 100), paymentStatus: order.paymentStatus as string };
}

/** A member identity with this email, a name and an address in its profile. */
async function member(email: string) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const profile = {
    firstName: "Grace",
    lastName: "Hopper",
    addresses: [{ address: { addressLine: "9 Navy Way", city: "Arlington", country: "US" } }],
  };
  await env.DB.prepare(
    "INSERT INTO identities (id, email, status, role, permissions, email_verified, profile, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'MEMBER', '[]', 1, ?, ?, ?)",
  )
    .bind(id, email, JSON.stringify(profile), now, now)
    .run();
  return id;
}

describe("customers", () => {
  it("merges a member with their guest orders by email; lifetime spend is paid orders less refunds", async () => {
    const product = await createPlain(10);
    const email = `grace-${unique()}@example.com`;
    const a = await orderFor(product.id, email, 2, true);
    const b = await orderFor(product.id, email, 1, true);
    await orderFor(product.id, email, 1, false);
    const refund = await api("POST", `/ecom/v1/orders/${a.id}/refunds`, { key: OWNER_KEY, body: { amount: "5.00" } });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    const memberId = await member(email);

    const spent = a.total + b.total - 500;
    const list = await merchant("GET", `/api/v1/customers?q=${encodeURIComponent(email)}`);
    expect(list.status).toBe(200);
    expect(list.body.customers).toHaveLength(1);
    const c = list.body.customers[0];
    expect(c).toMatchObject({ email, name: "Grace Hopper", memberId, orders: 3, paidOrders: 2, spent, refunded: 500 });
    expect(c.averageOrder).toBe(Math.round(spent / 2));

    const page = await merchant("GET", `/api/v1/customers/${encodeURIComponent(email)}`);
    expect(page.status).toBe(200);
    const detail = page.body.customer;
    expect(detail.spent).toBe(spent);
    expect(detail.orderList).toHaveLength(3);
    expect(detail.orderList.find((o: any) => o.id === a.id).refunded).toBe("$5.00");
    expect(detail.addresses).toEqual(expect.arrayContaining(["9 Navy Way, Arlington, US", "1 Main St, New York 10001, US-NY, US"]));
    expect(detail.marketing).toEqual({ consent: true, unsubscribedDate: null });
    expect(detail.carts.length).toBeGreaterThanOrEqual(3);
    expect(roundTrips(page.headers)).toBeLessThanOrEqual(3);
  });

  it("lists guests and members without orders in email order, a page at a time", async () => {
    const tag = unique();
    const product = await createPlain(10);
    const emails = [`p-${tag}-a@example.com`, `p-${tag}-b@example.com`, `p-${tag}-c@example.com`];
    await orderFor(product.id, emails[0], 1, true);
    await member(emails[1]);
    await orderFor(product.id, emails[2], 1, false);
    const first = await merchant("GET", `/api/v1/customers?q=p-${tag}-&limit=2`);
    expect(first.body.customers.map((c: any) => c.email)).toEqual(emails.slice(0, 2));
    expect(first.body.next).toBe(emails[1]);
    const second = await merchant("GET", `/api/v1/customers?q=p-${tag}-&limit=2&cursor=${encodeURIComponent(first.body.next)}`);
    expect(second.body.customers.map((c: any) => c.email)).toEqual([emails[2]]);
    expect(second.body.next).toBeNull();
    expect(second.body.customers[0]).toMatchObject({ orders: 1, paidOrders: 0, spent: 0, memberId: null });
    expect((await merchant("GET", `/api/v1/customers/${encodeURIComponent(`nobody-${tag}@example.com`)}`)).status).toBe(404);
    for (const limit of ["abc", "0", "1.5", "201"]) {
      const bad = await merchant("GET", `/api/v1/customers?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(bad.body.details.validationError.fieldViolations[0].field).toBe("limit");
    }
  });

  it("reads a page of customers through indexes, never scanning orders or identities", async () => {
    const { ctx } = serviceCtx();
    for (const [after, q] of [
      ["", ""],
      ["m@example.com", ""],
      ["", "ada"],
    ]) {
      const plan = await queryPlan(ctx.db.run(customerPageSql("USD", after, q, 26)).getQuery());
      // Only the page itself (its 25 rows) and the merge of its two halves are scanned, never a table.
      expect(plan.split("\n").filter((line) => line.startsWith("SCAN") && !/^SCAN (p|\(subquery-\d+\))$/.test(line))).toEqual([]);
      expect(plan).toContain("identities_role_email_idx");
      expect(plan).toContain("orders_buyer_email_idx");
    }
  });

  it("exports customers as CSV, streamed", async () => {
    const product = await createPlain(10);
    const email = `csv-${unique()}@example.com`;
    await orderFor(product.id, email, 1, true);
    const { ctx } = serviceCtx();
    const text = await new Response(exportCustomersCsv(ctx, email)).text();
    const lines = text.trim().split("\r\n");
    expect(lines[0]).toBe("email,name,kind,orders,lifetime_spend,refunded,average_order,first_order,last_order,currency");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(new RegExp(`^${email},Ada Lovelace,guest,1,\\d+\\.\\d\\d,0\\.00,`));
  });

  it("keeps staff notes with their author; writing one needs orders.write", async () => {
    const product = await createPlain(10);
    const email = `notes-${unique()}@example.com`;
    await orderFor(product.id, email, 1, false);
    const path = `/api/v1/customers/${encodeURIComponent(email)}/notes`;
    const reader = await staffWith([]);
    const refused = await api("POST", path, { key: reader.token, body: { body: "Prefers phone calls" } });
    expect(refused.status).toBe(403);
    const writer = await staffWith(["orders.write"]);
    expect((await api("POST", path, { key: writer.token, body: { body: "  " } })).status).toBe(400);
    const made = await api("POST", path, { key: writer.token, body: { body: "Prefers phone calls" } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.note).toMatchObject({ body: "Prefers phone calls", author: `staff-${writer.id}@example.com` });
    const notes = (await api("GET", `/api/v1/customers/${encodeURIComponent(email)}`, { key: reader.token })).body.customer.notes;
    expect(notes).toEqual([expect.objectContaining({ body: "Prefers phone calls", author: `staff-${writer.id}@example.com` })]);
  });
});
