import { describe, expect, it } from "vitest";
import { getEmail, listEmails } from "#worker/email";
import { merchant, serviceCtx, unique } from "../helpers";
import { deliver, emailsTo, outboxEvents } from "../automations/fixtures";
import { trackedProduct } from "./inventory-fixtures";
import { placedOrder } from "./order-fixtures";

/** The buyer hears when their order ships and when it is canceled: once each, through the event processors. */

const CANCELED = "wix.ecom.v1.order_canceled";
const UPDATED = "wix.ecom.v1.order_updated";

async function order(email: string, quantity = 1) {
  const p = await trackedProduct(10, { priceData: { price: 12 } });
  return placedOrder(p.id, quantity, email);
}

describe("buyer emails after the order", () => {
  it("sends a shipping confirmation per shipment with the carrier and tracking link, once even when events come twice", async () => {
    const email = `ships-${unique()}@example.com`;
    const { orderId } = await order(email, 3);
    const lineId = (await merchant("GET", `/ecom/v1/orders/${orderId}`)).body.order.lineItems[0].id;
    const first = await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {
      fulfillment: {
        lineItems: [{ id: lineId, quantity: 2 }],
        trackingInfo: { shippingProvider: "UPS", trackingNumber: "1Z999", trackingLink: "https://ups.example/track/1Z999" },
      },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const updates = await outboxEvents(orderId, UPDATED);
    await deliver(updates);
    await deliver(updates, 2);
    let shipped = (await emailsTo(email)).filter((e) => e.template === "order-shipped");
    expect(shipped).toHaveLength(1);
    expect(shipped[0].subject).toMatch(/order #\d+ has partly shipped/);
    expect(shipped[0].text).toContain("2 × ");
    expect(shipped[0].text).toContain("Carrier: UPS. Tracking number: 1Z999.");
    expect(shipped[0].text).toContain("Track your parcel: https://ups.example/track/1Z999");
    expect(shipped[0].html).toContain('href="https://ups.example/track/1Z999"');

    // The rest ships: one more email, for that shipment.
    expect((await merchant("POST", `/ecom/v1/orders/${orderId}/fulfillments`, {})).status).toBe(200);
    await deliver(await outboxEvents(orderId, UPDATED));
    shipped = (await emailsTo(email)).filter((e) => e.template === "order-shipped");
    expect(shipped).toHaveLength(2);
    expect(shipped[1].subject).toMatch(/has shipped$/);
    expect(shipped[1].text).toContain("1 × ");
    expect(shipped[1].text).not.toContain("Track your parcel");

    // The merchant previews it in the outbox, found by its template.
    const { ctx } = serviceCtx();
    const listed = await listEmails(ctx, { template: "order-shipped", recipient: email, limit: 10, offset: 0 });
    expect(listed.total).toBe(2);
    expect((await getEmail(ctx, shipped[0].id)).email.html).toContain("Track your parcel");
  });

  it("sends one cancellation email when the order is canceled, none when the merchant asks for none", async () => {
    const email = `cancel-${unique()}@example.com`;
    const { orderId } = await order(email, 2);
    expect((await merchant("POST", `/ecom/v1/orders/${orderId}/cancel`, { restockAllItems: true })).status).toBe(200);
    const events = await outboxEvents(orderId);
    await deliver(events);
    await deliver(
      events.filter((e) => e.type === CANCELED),
      2,
    );
    const canceled = (await emailsTo(email)).filter((e) => e.template === "order-canceled");
    expect(canceled).toHaveLength(1);
    expect(canceled[0].subject).toMatch(/order #\d+ was canceled/);
    expect(canceled[0].text).toContain("2 × ");
    expect(canceled[0].text).toContain("You were not charged for it.");
    expect((await emailsTo(email)).filter((e) => e.template === "order-shipped")).toEqual([]);

    const quiet = `quiet-${unique()}@example.com`;
    const other = await order(quiet);
    expect((await merchant("POST", `/ecom/v1/orders/${other.orderId}/cancel`, { sendOrderCanceledEmail: false })).status).toBe(200);
    await deliver(await outboxEvents(other.orderId));
    expect((await emailsTo(quiet)).filter((e) => e.template === "order-canceled")).toEqual([]);
  });
});
