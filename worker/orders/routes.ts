import { Hono } from "hono";
import { z } from "zod";
import { pathId, type AppEnv } from "#worker/platform/http";
import { clientAddress } from "#worker/platform/rate-limit";
import { readBody } from "#worker/platform/validation";
import { getCheckout, updateCheckout } from "./checkout";
import { createOrder } from "./place-order";
import { cancelOrder, createFulfillment, getOrder, markAsPaid, searchOrders, setRefundStatus } from "./orders";
import { addOrderNote } from "./notes";
import { listRefunds, refundOrder } from "./refunds";
import {
  cancelOrderRequest,
  createOrderRequest,
  fulfillmentRequest,
  refundRequest,
  refundStatusRequest,
  searchOrdersRequest,
  updateCheckoutRequest,
} from "./schemas";

/**
 * Checkout and order calls, mounted at /ecom/v1 (the Wix SDK's gateway path) and /v1 (the Wix REST path):
 *
 *   GET   /checkouts/{id}                    → {checkout}            buyer (same visitor/member) or merchant
 *   PATCH /checkouts/{id}  {checkout:{buyerInfo, shippingInfo, billingInfo}} → {checkout}
 *   POST  /checkouts/{id}/create-order  {paymentOption?: "OFFLINE" | {card:{number, expiry, cvc}}} → {orderId}
 *         (402 PAYMENT_DECLINED, 409 INSUFFICIENT_INVENTORY / LINE_ITEMS_NOT_AVAILABLE naming the item,
 *         429 TOO_MANY_REQUESTS past a shopper's order limits, limits.ts)
 *   GET   /orders/{id}                       → {order}               buyer or merchant
 *   POST  /orders/search  {search:{filter, sort, cursorPaging}} → {orders, metadata}   merchant: all; buyer: own
 *   POST  /orders/{id}/cancel  {restockAllItems}           → {order}   merchant
 *   POST  /orders/{id}/mark-as-paid                        → {order}   merchant
 *   POST  /orders/{id}/fulfillments  {lineItems?, trackingInfo} → {order}   merchant
 *   POST  /orders/{id}/refund-status  {status}             → {order}   merchant (a refund made outside the store)
 *   POST  /orders/{id}/refunds  {lineItems?: [{lineItemId, quantity}], amount?, restock?} → {refund, order}   merchant
 *   GET   /orders/{id}/refunds                             → {refunds, summary}   buyer or merchant
 *   POST  /orders/{id}/activities  {activity:{merchantComment:{message}}} → {order, activityId}   merchant (a staff note)
 */
export const orderRoutes = new Hono<AppEnv>()
  .get("/checkouts/:id", async (c) => c.json(await getCheckout(c.get("ctx"), pathId(c))))
  .patch("/checkouts/:id", async (c) => c.json(await updateCheckout(c.get("ctx"), pathId(c), await readBody(c, updateCheckoutRequest))))
  .post("/checkouts/:id/create-order", async (c) =>
    c.json(await createOrder(c.get("ctx"), pathId(c), await readBody(c, createOrderRequest), { ip: clientAddress(c.req.raw.headers) })),
  )
  .post("/orders/search", async (c) => c.json(await searchOrders(c.get("ctx"), await readBody(c, searchOrdersRequest))))
  .get("/orders/:id", async (c) => c.json(await getOrder(c.get("ctx"), pathId(c))))
  .post("/orders/:id/cancel", async (c) => c.json(await cancelOrder(c.get("ctx"), pathId(c), await readBody(c, cancelOrderRequest))))
  .post("/orders/:id/mark-as-paid", async (c) => c.json(await markAsPaid(c.get("ctx"), pathId(c))))
  .post("/orders/:id/fulfillments", async (c) => c.json(await createFulfillment(c.get("ctx"), pathId(c), await readBody(c, fulfillmentRequest))))
  .post("/orders/:id/refund-status", async (c) =>
    c.json(await setRefundStatus(c.get("ctx"), pathId(c), (await readBody(c, refundStatusRequest)).status)),
  )
  .post("/orders/:id/refunds", async (c) => c.json(await refundOrder(c.get("ctx"), pathId(c), await readBody(c, refundRequest))))
  .get("/orders/:id/refunds", async (c) => c.json(await listRefunds(c.get("ctx"), pathId(c))))
  .post("/orders/:id/activities", async (c) => {
    const { activityId } = await addOrderNote(c.get("ctx"), pathId(c), await readBody(c, z.unknown()));
    return c.json({ ...(await getOrder(c.get("ctx"), pathId(c))), activityId });
  });
