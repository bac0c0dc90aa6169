import { describe, expect, it } from "vitest";
import { api, merchant, staffWith } from "../helpers";
import { createPlain } from "../cart/cart-fixtures";
import { placedOrder } from "./order-fixtures";

/** Staff notes on an order: a MERCHANT_COMMENT activity with its author and time; writing one needs orders.write. */

const note = (message: string) => ({ activity: { merchantComment: { message } } });

describe("order notes", () => {
  it("adds a staff note to the order's history with its author; others are refused and nothing is written", async () => {
    const product = await createPlain(10);
    const { orderId } = await placedOrder(product.id);
    const path = `/ecom/v1/orders/${orderId}/activities`;

    const reader = await staffWith([]);
    const refused = await api("POST", path, { key: reader.token, body: note("Gift wrap it") });
    expect(refused.status).toBe(403);

    const writer = await staffWith(["orders.write"]);
    const empty = await api("POST", path, { key: writer.token, body: note("  ") });
    expect(empty.status).toBe(400);
    expect(empty.body.details.validationError.fieldViolations[0].field).toBe("activity.merchantComment.message");

    const made = await api("POST", path, { key: writer.token, body: note("Gift wrap it") });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const activity = made.body.order.activities.find((a: any) => a.id === made.body.activityId);
    expect(activity).toMatchObject({
      type: "MERCHANT_COMMENT",
      merchantComment: { message: "Gift wrap it" },
      author: `staff-${writer.id}@example.com`,
    });
    expect(Date.parse(activity.createdDate)).toBeGreaterThan(Date.now() - 60_000);

    const byKey = await merchant("POST", `/v1/orders/${orderId}/activities`, note("Called the buyer"));
    expect(byKey.body.order.activities.filter((a: any) => a.type === "MERCHANT_COMMENT").map((a: any) => a.author)).toEqual([
      `staff-${writer.id}@example.com`,
      "API key",
    ]);
    expect((await merchant("POST", "/v1/orders/00000000-0000-4000-8000-00000000dead/activities", note("x"))).status).toBe(404);
  });
});
