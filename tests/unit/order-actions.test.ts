import { describe, expect, it } from "vitest";
import { orderActionVerdicts, type OrderState } from "#worker/orders/actions";

/** The one rule table of what an order allows (the API refuses and the console hides by it), state by state. */

const paid: OrderState = {
  id: "o1",
  status: "APPROVED",
  paymentStatus: "PAID",
  fulfillmentStatus: "NOT_FULFILLED",
  total: 2500,
  lines: [{ quantity: 2, fulfilledQuantity: 0, refundedQuantity: 0 }],
  refundable: 2500,
  refundPending: false,
};

const codes = (o: OrderState) => Object.fromEntries(Object.entries(orderActionVerdicts(o)).map(([k, v]) => [k, v?.code ?? null]));

describe("order actions", () => {
  it("a paid order not shipped may be shipped, cancelled and refunded, not marked paid again", () => {
    expect(codes(paid)).toEqual({ fulfil: null, cancel: null, refund: null, "mark-paid": "ORDER_STATUS_IS_NOT_SUPPORTED" });
  });

  it("a fully refunded order ships nothing and takes no refund or payment", () => {
    const o = {
      ...paid,
      paymentStatus: "FULLY_REFUNDED" as const,
      refundable: 0,
      lines: [{ quantity: 2, fulfilledQuantity: 0, refundedQuantity: 2 }],
    };
    expect(codes(o)).toEqual({
      fulfil: "PARTIALLY_OR_FULLY_REFUNDED",
      cancel: null,
      refund: "ALREADY_REFUNDED",
      "mark-paid": "PARTIALLY_OR_FULLY_REFUNDED",
    });
  });

  it("every unit not shipped refunded: nothing left to ship", () => {
    const o = { ...paid, paymentStatus: "PARTIALLY_REFUNDED" as const, lines: [{ quantity: 2, fulfilledQuantity: 1, refundedQuantity: 1 }] };
    expect(codes(o).fulfil).toBe("PARTIALLY_OR_FULLY_REFUNDED");
  });

  it("refund-blocking reasons: pending order, unpaid, free, a refund pending at the provider", () => {
    expect(codes({ ...paid, status: "INITIALIZED", paymentStatus: "NOT_PAID" }).refund).toBe("ORDER_IS_PENDING");
    expect(codes({ ...paid, status: "REJECTED" }).refund).toBe("ORDER_IS_REJECTED");
    expect(codes({ ...paid, paymentStatus: "NOT_PAID" }).refund).toBe("NOT_PAID");
    expect(codes({ ...paid, total: 0, refundable: 0 }).refund).toBe("ZERO_PRICE");
    expect(codes({ ...paid, refundPending: true }).refund).toBe("PENDING_REFUND");
  });

  it("a cancelled order cannot ship or be marked paid, but a paid one can still be refunded", () => {
    expect(codes({ ...paid, status: "CANCELED" })).toEqual({
      fulfil: "ORDER_STATUS_IS_NOT_SUPPORTED",
      cancel: "ORDER_STATUS_IS_NOT_SUPPORTED",
      refund: null,
      "mark-paid": "ORDER_STATUS_IS_NOT_SUPPORTED",
    });
  });
});
