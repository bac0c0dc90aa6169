import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, merchant, outboxRows } from "../helpers";
import { newVisitor } from "../cart/cart-fixtures";
import { expectInvalid, stockOf, trackedProduct } from "./inventory-fixtures";
import { ADDRESS, CONTACT, fillCheckout, orderSnapshot, placeOrder, row, visitorCheckout } from "./order-fixtures";

describe("checkout read and update", () => {
  it("reads the buyer's checkout with live prices, and 404s for another visitor; 401 without a token", async () => {
    const p = await trackedProduct(5, { priceData: { price: 12.5 } });
    const v = await visitorCheckout(p.id, 2);
    const res = await api("GET", `/ecom/v1/checkouts/${v.checkoutId}?id=${v.checkoutId}`, { key: v.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const c = res.body.checkout;
    expect(c.id).toBe(v.checkoutId);
    expect(c.lineItems).toHaveLength(1);
    expect(c.lineItems[0].quantity).toBe(2);
    expect(c.lineItems[0].price.amount).toBe("12.50");
    expect(c.priceSummary.subtotal.amount).toBe("25.00");
    expect(typeof c.priceSummary.total.amount).toBe("string");
    expect(c.buyerInfo.visitorId).toBe(v.visitorId);
    expect(c.shippingInfo).toHaveProperty("carrierServiceOptions");
    expect(Array.isArray(c.violations)).toBe(true);
    expect(c.completed).toBe(false);
    // Spec-style path too.
    expect((await api("GET", `/v1/checkouts/${v.checkoutId}`, { key: v.token })).status).toBe(200);
    // The merchant may read it.
    expect((await merchant("GET", `/ecom/v1/checkouts/${v.checkoutId}`)).status).toBe(200);

    const other = await newVisitor();
    const denied = await api("GET", `/ecom/v1/checkouts/${v.checkoutId}`, { key: other.token });
    expect(denied.status).toBe(404);
    expect(denied.body.details.applicationError.code).toBe("CHECKOUT_NOT_FOUND");
    expect((await api("GET", `/ecom/v1/checkouts/${v.checkoutId}`)).status).toBe(401);
    expect((await api("GET", `/ecom/v1/checkouts/nope`, { key: v.token })).status).toBe(404);
  });

  it("updates email, shipping destination, billing info", async () => {
    const p = await trackedProduct(5);
    const v = await visitorCheckout(p.id);
    const res = await api("PATCH", `/ecom/v1/checkouts/${v.checkoutId}`, {
      key: v.token,
      body: {
        checkout: {
          id: v.checkoutId,
          buyerInfo: { email: "ada@example.com" },
          shippingInfo: { shippingDestination: { address: { ...ADDRESS, country: "us" }, contactDetails: CONTACT } },
          billingInfo: { address: { country: "GB", city: "London", addressLine: "10 Downing St" }, contactDetails: { firstName: "Bill" } },
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const c = res.body.checkout;
    expect(c.buyerInfo.email).toBe("ada@example.com");
    expect(c.shippingInfo.shippingDestination.address.country).toBe("US");
    expect(c.shippingInfo.shippingDestination.contactDetails.firstName).toBe("Ada");
    expect(c.billingInfo.address.city).toBe("London");
    expect(c.billingInfo.contactDetails.firstName).toBe("Bill");
    // Persisted.
    const again = await api("GET", `/ecom/v1/checkouts/${v.checkoutId}`, { key: v.token });
    expect(again.body.checkout.buyerInfo.email).toBe("ada@example.com");
    expect(again.body.checkout.billingInfo.contactDetails.firstName).toBe("Bill");
  });

  it("refuses bad input with field violations and changes nothing", async () => {
    const p = await trackedProduct(5);
    const v = await visitorCheckout(p.id);
    const patch = (checkout: unknown) => api("PATCH", `/ecom/v1/checkouts/${v.checkoutId}`, { key: v.token, body: { checkout } });
    const before = await row("checkouts", v.checkoutId);
    expectInvalid(await patch({ buyerInfo: { email: "not-an-email" } }), "checkout.buyerInfo.email");
    expectInvalid(
      await patch({ shippingInfo: { shippingDestination: { address: { country: "USA" } } } }),
      "checkout.shippingInfo.shippingDestination.address.country",
      "FORMAT",
    );
    expectInvalid(await patch({ billingInfo: { address: { city: "x".repeat(101) } } }), "checkout.billingInfo.address.city", "MAX_LENGTH");
    expectInvalid(
      await patch({ shippingInfo: { selectedCarrierServiceOption: { code: "no-such-option" } } }),
      "checkout.shippingInfo.selectedCarrierServiceOption.code",
    );
    expect(await row("checkouts", v.checkoutId)).toEqual(before);
    const other = await newVisitor();
    expect((await api("PATCH", `/ecom/v1/checkouts/${v.checkoutId}`, { key: other.token, body: { checkout: {} } })).status).toBe(404);
  });
});

describe("placing an order", () => {
  it("offline: writes the order, reserves stock, completes cart and checkout, records the email and events", async () => {
    const p = await trackedProduct(5, { priceData: { price: 20 } });
    const v = await visitorCheckout(p.id, 2);
    await fillCheckout(v.token, v.checkoutId, "offline@example.com");
    const res = await placeOrder(v.token, v.checkoutId, { id: v.checkoutId, paymentOption: "OFFLINE" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const orderId = res.body.orderId;
    expect(typeof orderId).toBe("string");

    const got = await api("GET", `/ecom/v1/orders/${orderId}?id=${orderId}`, { key: v.token });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const o = got.body.order;
    expect(Number(o.number)).toBeGreaterThan(0);
    expect(o.purchasedDate).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(o.buyerInfo).toMatchObject({ visitorId: v.visitorId, email: "offline@example.com" });
    expect(o.lineItems).toHaveLength(1);
    expect(o.lineItems[0]).toMatchObject({ quantity: 2, price: { amount: "20.00" } });
    expect(o.priceSummary.subtotal.amount).toBe("40.00");
    expect(o.shippingInfo.logistics.shippingDestination.address.city).toBe("New York");
    expect(o.billingInfo.address.city).toBe("New York");
    expect(o.recipientInfo.contactDetails.firstName).toBe("Ada");
    expect(o.paymentStatus).toBe("NOT_PAID");
    expect(o.fulfillmentStatus).toBe("NOT_FULFILLED");
    expect(o.status).toBe("APPROVED");
    expect(o.channelInfo.type).toBe("WEB");
    expect(o.activities.map((a: any) => a.type)).toEqual(["ORDER_PLACED"]);

    expect((await stockOf(p.id))!.quantity).toBe(3);
    expect((await row("carts", v.cartId))!.status).toBe("COMPLETED");
    expect((await row("checkouts", v.checkoutId))!.status).toBe("COMPLETED");
    const log = await env.DB.prepare("SELECT * FROM inventory_changes WHERE order_id = ?").bind(orderId).all<any>();
    expect(log.results.map((r) => [r.cause, r.delta])).toEqual([["ORDER", -2]]);

    const mail = await env.DB.prepare("SELECT * FROM emails WHERE template = 'order-confirmation' AND \"to\" = ?")
      .bind("offline@example.com")
      .first<any>();
    expect(mail).not.toBeNull();
    expect(mail.subject).toContain(`#${o.number}`);
    expect(mail.text).toContain("40.00");

    const events = await outboxRows(orderId);
    expect(events.map((e) => e.type)).toContain("wix.ecom.v1.order_created");
    expect(events.find((e) => e.type === "wix.ecom.v1.order_created")!.data.createdEvent.entity.id).toBe(orderId);

    // The checkout shows it is completed; a repeat answers the same order (idempotent) and writes nothing more.
    const co = await api("GET", `/ecom/v1/checkouts/${v.checkoutId}`, { key: v.token });
    expect(co.body.checkout.completed).toBe(true);
    const again = await placeOrder(v.token, v.checkoutId);
    expect(again.status).toBe(200);
    expect(again.body.orderId).toBe(orderId);
    expect((await stockOf(p.id))!.quantity).toBe(3);
    // A completed checkout cannot be changed.
    expect(
      (await api("PATCH", `/ecom/v1/checkouts/${v.checkoutId}`, { key: v.token, body: { checkout: { buyerInfo: { email: "x@example.com" } } } }))
        .status,
    ).toBe(400);

    // Another visitor cannot read the order.
    const other = await newVisitor();
    expect((await api("GET", `/ecom/v1/orders/${orderId}`, { key: other.token })).status).toBe(404);
    expect((await placeOrder(other.token, v.checkoutId)).status).toBe(404);
  });

  it("gives sequential order numbers", async () => {
    const p = await trackedProduct(5);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const v = await visitorCheckout(p.id);
      await fillCheckout(v.token, v.checkoutId);
      ids.push((await placeOrder(v.token, v.checkoutId)).body.orderId);
    }
    const [a, b] = await Promise.all(ids.map((id) => merchant("GET", `/ecom/v1/orders/${id}`)));
    expect(Number(b.body.order.number)).toBeGreaterThan(Number(a.body.order.number));
  });

  it("card approved: order PAID with a transaction", async () => {
    const p = await trackedProduct(5, { priceData: { price: 15 } });
    const v = await visitorCheckout(p.id);
    await fillCheckout(v.token, v.checkoutId);
    const res = await placeOrder(v.token, v.checkoutId, {
      id: v.checkoutId,
      paymentOption: { card: { number: "4242 4242 4242 4242", expiry: "12/40", cvc: "123" } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const o = (await merchant("GET", `/ecom/v1/orders/${res.body.orderId}`)).body.order;
    expect(o.paymentStatus).toBe("PAID");
    expect(o.status).toBe("APPROVED");
    expect(o.activities.map((a: any) => a.type)).toEqual(["ORDER_PLACED", "ORDER_PAID"]);
    const tx = await env.DB.prepare("SELECT * FROM transactions WHERE order_id = ?").bind(o.id).all<any>();
    expect(tx.results).toHaveLength(1);
    expect(tx.results[0]).toMatchObject({ status: "APPROVED", provider: "test", amount: 1500 });
    expect((await outboxRows(o.id)).map((e) => e.type)).toContain("wix.ecom.v1.order_payment_status_updated");
    expect((await stockOf(p.id))!.quantity).toBe(4);
  });

  it("card declined (402) or invalid (400): nothing is written", async () => {
    const p = await trackedProduct(5);
    const v = await visitorCheckout(p.id);
    await fillCheckout(v.token, v.checkoutId);
    const before = await orderSnapshot(v.checkoutId, v.cartId, p.id);
    for (const number of ["4000000000000002", "4000000000009995"]) {
      const res = await placeOrder(v.token, v.checkoutId, { paymentOption: { card: { number, expiry: "12/40", cvc: "123" } } });
      expect(res.status, JSON.stringify(res.body)).toBe(402);
      expect(res.body.details.applicationError.code).toBe("PAYMENT_DECLINED");
      expect(res.body.details.applicationError.description).toMatch(number.endsWith("9995") ? /insufficient_funds/ : /card_declined/);
    }
    expectInvalid(
      await placeOrder(v.token, v.checkoutId, { paymentOption: { card: { number: "1234567812345678", expiry: "12/40", cvc: "123" } } }),
      "paymentOption.card.number",
    );
    expectInvalid(
      await placeOrder(v.token, v.checkoutId, { paymentOption: { card: { number: "4242424242424242", expiry: "13/40", cvc: "123" } } }),
      "paymentOption.card.expiry",
    );
    expectInvalid(
      await placeOrder(v.token, v.checkoutId, { paymentOption: { card: { number: "4242424242424242", expiry: "12/40", cvc: "1" } } }),
      "paymentOption.card.cvc",
    );
    expect(await orderSnapshot(v.checkoutId, v.cartId, p.id)).toEqual(before);
    // It still works afterwards.
    expect((await placeOrder(v.token, v.checkoutId)).status).toBe(200);
  });

  it("refuses a checkout without email or shipping address (400), and an out-of-stock line (409)", async () => {
    const p = await trackedProduct(5);
    const v = await visitorCheckout(p.id);
    const res = await placeOrder(v.token, v.checkoutId);
    expectInvalid(res, "checkout.buyerInfo.email", "REQUIRED_FIELD");
    expectInvalid(res, "checkout.shippingInfo.shippingDestination.address", "REQUIRED_FIELD");
    await fillCheckout(v.token, v.checkoutId);
    await merchant("PATCH", `/stores/v2/inventoryItems/product/${p.id}`, {
      inventoryItem: { trackQuantity: true, variants: [{ variantId: "00000000-0000-0000-0000-000000000000", quantity: 0 }] },
    });
    const before = await orderSnapshot(v.checkoutId, v.cartId, p.id);
    const sold = await placeOrder(v.token, v.checkoutId);
    expect(sold.status, JSON.stringify(sold.body)).toBe(409);
    expect(sold.body.details.applicationError.description).toContain(p.name);
    expect(await orderSnapshot(v.checkoutId, v.cartId, p.id)).toEqual(before);
    expect((await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, { body: {} })).status).toBe(401);
  });

  it("never oversells: 10 buyers race for 3 units → exactly 3 orders, 7 clear 409s", async () => {
    const p = await trackedProduct(3);
    const buyers = [];
    for (let i = 0; i < 10; i++) {
      const v = await visitorCheckout(p.id, 1);
      await fillCheckout(v.token, v.checkoutId, `racer${i}@example.com`);
      buyers.push(v);
    }
    const results = await Promise.all(buyers.map((v) => placeOrder(v.token, v.checkoutId)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(JSON.stringify(r.body)).toContain(p.name);
    }
    expect((await stockOf(p.id))!.quantity).toBe(0);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM orders o JOIN order_line_items l ON l.order_id = o.id WHERE l.catalog_item_id = ?")
      .bind(p.id)
      .first<{ n: number }>();
    expect(count!.n).toBe(3);
  });
});
