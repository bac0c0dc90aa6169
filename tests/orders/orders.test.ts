import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, merchant, outboxRows } from "../helpers";
import { cartCalls, item, newVisitor } from "../cart/cart-fixtures";
import { createIdentity, memberTokens } from "../identity/oauth-helpers";
import { expectInvalid, stockOf, trackedProduct } from "./inventory-fixtures";
import { fillCheckout, placedOrder, placeOrder } from "./order-fixtures";

const code = (res: { body: any }) => res.body.details?.applicationError?.code;

describe("merchant order calls", () => {
  it("cancel with restock returns the stock (REVERT_INVENTORY_CHANGE); cancel twice is refused", async () => {
    const p = await trackedProduct(5);
    const { orderId } = await placedOrder(p.id, 2);
    expect((await stockOf(p.id))!.quantity).toBe(3);
    const res = await merchant("POST", `/ecom/v1/orders/${orderId}/cancel`, { id: orderId, sendOrderCanceledEmail: false, restockAllItems: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.order.status).toBe("CANCELED");
    expect(res.body.order.activities.map((a: any) => a.type)).toEqual(["ORDER_PLACED", "ORDER_CANCELED"]);
    expect((await stockOf(p.id))!.quantity).toBe(5);
    const log = await env.DB.prepare("SELECT cause, delta FROM inventory_changes WHERE order_id = ? ORDER BY rowid").bind(orderId).all<any>();
    expect(log.results).toEqual([
      { cause: "ORDER", delta: -2 },
      { cause: "REVERT_INVENTORY_CHANGE", delta: 2 },
    ]);
    const types = (await outboxRows(orderId)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["wix.ecom.v1.order_canceled", "wix.ecom.v1.order_updated"]));

    const again = await merchant("POST", `/ecom/v1/orders/${orderId}/cancel`, { restockAllItems: true });
    expect(again.status).toBe(400);
    expect(code(again)).toBe("ORDER_STATUS_IS_NOT_SUPPORTED");
    expect((await stockOf(p.id))!.quantity).toBe(5);
    // Fulfilling a canceled order is refused.
    const ful = await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {});
    expect(ful.status).toBe(400);
    expect(code(ful)).toBe("ORDER_STATUS_IS_NOT_SUPPORTED");
    expect(code(await merchant("POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {}))).toBe("ORDER_STATUS_IS_NOT_SUPPORTED");
  });

  it("cancel without restock keeps the stock taken", async () => {
    const p = await trackedProduct(5);
    const { orderId } = await placedOrder(p.id, 1);
    const res = await merchant("POST", `/v1/orders/${orderId}/cancel`, { restockAllItems: false });
    expect(res.status).toBe(200);
    expect((await stockOf(p.id))!.quantity).toBe(4);
  });

  it("mark as paid, refund status, and their refusals", async () => {
    const p = await trackedProduct(5, { priceData: { price: 30 } });
    const { orderId } = await placedOrder(p.id);
    const notPaid = await merchant("POST", `/ecom/v1/orders/${orderId}/refund-status`, { status: "FULLY_REFUNDED" });
    expect(notPaid.status).toBe(400);
    expect(code(notPaid)).toBe("NOT_PAID");

    const paid = await merchant("POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.order.paymentStatus).toBe("PAID");
    expect(paid.body.order.activities.map((a: any) => a.type)).toEqual(["ORDER_PLACED", "ORDER_PAID"]);
    expect(paid.body.order.transactions[0]).toMatchObject({ status: "APPROVED", provider: "offline", amount: 3000 });
    expect((await outboxRows(orderId)).map((e) => e.type)).toContain("wix.ecom.v1.order_payment_status_updated");
    const twice = await merchant("POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {});
    expect(twice.status).toBe(400);
    expect(code(twice)).toBe("ORDER_STATUS_IS_NOT_SUPPORTED");

    const partial = await merchant("POST", `/ecom/v1/orders/${orderId}/refund-status`, { status: "PARTIALLY_REFUNDED" });
    expect(partial.status).toBe(200);
    expect(partial.body.order.paymentStatus).toBe("PARTIALLY_REFUNDED");
    const full = await merchant("POST", `/ecom/v1/orders/${orderId}/refund-status`, { status: "FULLY_REFUNDED" });
    expect(full.body.order.paymentStatus).toBe("FULLY_REFUNDED");
    const already = await merchant("POST", `/ecom/v1/orders/${orderId}/refund-status`, { status: "FULLY_REFUNDED" });
    expect(already.status).toBe(400);
    expect(code(already)).toBe("ALREADY_REFUNDED");
    expect(code(await merchant("POST", `/ecom/v1/orders/${orderId}/mark-as-paid`, {}))).toBe("PARTIALLY_OR_FULLY_REFUNDED");
    expectInvalid(await merchant("POST", `/ecom/v1/orders/${orderId}/refund-status`, { status: "REFUNDED" }), "status", "INVALID_ENUM_VALUE");
  });

  it("fulfils partly then fully, with tracking; a fulfilled order cannot be canceled", async () => {
    const p = await trackedProduct(10);
    const { orderId } = await placedOrder(p.id, 3);
    const order = (await merchant("GET", `/ecom/v1/orders/${orderId}`)).body.order;
    const lineId = order.lineItems[0].id;
    expectInvalid(
      await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, { lineItems: [{ id: lineId, quantity: 4 }] }),
      "lineItems[0].quantity",
      "MAX",
    );
    expectInvalid(await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, { lineItems: [{ id: "nope", quantity: 1 }] }), "lineItems[0].id");
    const part = await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {
      lineItems: [{ id: lineId, quantity: 1 }],
      trackingInfo: { trackingNumber: "1Z999", shippingProvider: "UPS", trackingLink: "https://ups.example/1Z999" },
    });
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    expect(part.body.order.fulfillmentStatus).toBe("PARTIALLY_FULFILLED");
    expect(part.body.order.fulfillments[0].trackingInfo.trackingNumber).toBe("1Z999");
    const rest = await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {
      trackingInfo: { trackingNumber: "1Z998", shippingProvider: "UPS" },
    });
    expect(rest.status).toBe(200);
    expect(rest.body.order.fulfillmentStatus).toBe("FULFILLED");
    expect(rest.body.order.fulfillments).toHaveLength(2);
    expect(rest.body.order.activities.map((a: any) => a.type)).toEqual(
      expect.arrayContaining(["ORDER_PLACED", "ORDER_PARTIALLY_FULFILLED", "ORDER_FULFILLED", "TRACKING_NUMBER_ADDED"]),
    );
    expect((await outboxRows(orderId)).map((e) => e.type)).toContain("wix.ecom.v1.order_fulfilled");
    const cancel = await merchant("POST", `/ecom/v1/orders/${orderId}/cancel`, { restockAllItems: true });
    expect(cancel.status).toBe(400);
    expect(code(cancel)).toBe("ORDER_STATUS_IS_NOT_SUPPORTED");
    expect(code(await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {}))).toBe("ORDER_STATUS_IS_NOT_SUPPORTED");
    expect(code(await merchant("POST", `/ecom/v1/orders/nope/cancel`, {}))).toBe("ORDER_NOT_FOUND");
  });

  it("needs a merchant: 401 without a token, 403 for a visitor", async () => {
    const p = await trackedProduct(5);
    const { orderId, token } = await placedOrder(p.id);
    for (const path of ["cancel", "mark-as-paid", "fulfillments", "refund-status"]) {
      const body = path === "refund-status" ? { status: "FULLY_REFUNDED" } : {};
      expect((await api("POST", `/ecom/v1/orders/${orderId}/${path}`, { body })).status).toBe(401);
      expect((await api("POST", `/ecom/v1/orders/${orderId}/${path}`, { body, key: token })).status).toBe(403);
    }
    expect((await api("GET", `/ecom/v1/orders/${orderId}`)).status).toBe(401);
    expect((await api("POST", `/ecom/v1/orders/search`, { body: {} })).status).toBe(401);
  });
});

describe("search", () => {
  it("merchant sees all orders with filters, sort and cursor paging; a member only their own", async () => {
    const p = await trackedProduct(50, { priceData: { price: 7 } });
    const tag = `s${crypto.randomUUID().slice(0, 6)}`;
    const a = await placedOrder(p.id, 1, `${tag}-a@example.com`);
    const b = await placedOrder(p.id, 2, `${tag}-b@example.com`);
    await merchant("POST", `/ecom/v1/orders/${b.orderId}/mark-as-paid`, {});

    const byEmail = await merchant("POST", "/ecom/v1/orders/search", { search: { filter: { "buyerInfo.email": `${tag}-a@example.com` } } });
    expect(byEmail.status, JSON.stringify(byEmail.body)).toBe(200);
    expect(byEmail.body.orders.map((o: any) => o.id)).toEqual([a.orderId]);
    const paid = await merchant("POST", "/ecom/v1/orders/search", {
      search: { filter: { "buyerInfo.email": { $startsWith: tag }, paymentStatus: "PAID" } },
    });
    expect(paid.body.orders.map((o: any) => o.id)).toEqual([b.orderId]);
    const sorted = await merchant("POST", "/ecom/v1/orders/search", {
      search: { filter: { "buyerInfo.email": { $startsWith: tag } }, sort: [{ fieldName: "number", order: "ASC" }], cursorPaging: { limit: 1 } },
    });
    expect(sorted.body.orders.map((o: any) => o.id)).toEqual([a.orderId]);
    expect(sorted.body.metadata.hasNext).toBe(true);
    const next = await merchant("POST", "/ecom/v1/orders/search", {
      search: {
        filter: { "buyerInfo.email": { $startsWith: tag } },
        sort: [{ fieldName: "number", order: "ASC" }],
        cursorPaging: { limit: 1, cursor: sorted.body.metadata.cursors.next },
      },
    });
    expect(next.body.orders.map((o: any) => o.id)).toEqual([b.orderId]);
    const total = await merchant("POST", "/ecom/v1/orders/search", {
      search: { filter: { "priceSummary.total.amount": { $gte: 14 }, "buyerInfo.email": { $startsWith: tag } } },
    });
    expect(total.body.orders.map((o: any) => o.id)).toEqual([b.orderId]);
    expectInvalid(await merchant("POST", "/ecom/v1/orders/search", { search: { filter: { secret: 1 } } }), "search.filter.secret");

    // A member: places an order as a member and only finds that one.
    const member = await createIdentity();
    const tokens = await memberTokens(member.id);
    const cart = cartCalls(tokens.access_token);
    expect((await cart.add({ lineItems: [item(p.id, 1)] })).status).toBe(200);
    const co = await cart.checkout();
    await fillCheckout(tokens.access_token, co.body.checkoutId, member.email);
    const mine = await placeOrder(tokens.access_token, co.body.checkoutId);
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    const own = await api("POST", "/ecom/v1/orders/search", { key: tokens.access_token, body: { search: {} } });
    expect(own.status).toBe(200);
    expect(own.body.orders.map((o: any) => o.id)).toEqual([mine.body.orderId]);
    expect(own.body.orders[0].buyerInfo.memberId).toBe(member.id);
    expect((await api("GET", `/ecom/v1/orders/${mine.body.orderId}`, { key: tokens.access_token })).status).toBe(200);
    expect((await api("GET", `/ecom/v1/orders/${a.orderId}`, { key: tokens.access_token })).status).toBe(404);
    // A visitor who placed an order finds it too, and only it.
    const vis = await api("POST", "/ecom/v1/orders/search", { key: a.token, body: {} });
    expect(vis.body.orders.map((o: any) => o.id)).toEqual([a.orderId]);
    const stranger = await newVisitor();
    expect((await api("POST", "/ecom/v1/orders/search", { key: stranger.token, body: {} })).body.orders).toEqual([]);
  });
});
