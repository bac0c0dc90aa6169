/** Orders: checkouts, placing an order, payments, order changes, and their routes. */
export { orderRoutes } from "./routes";
export { cancelExpiredUnpaidOrders } from "./unpaid";
export { orderTotalRead } from "./orders";
export { refundsByHourRead, salesByHourRead } from "./orders";
export { buyerEmailProcessor } from "./buyer-emails";
export { OrderEventType } from "./shapes";
export { getOrder, listOwnOrders } from "./orders";
export { unpaidExpiry, type OrderShape } from "./shapes";
export { createOrder, placeOrderFrom, type PlacedOrder } from "./place-order";
export {
  applyStripeEvent,
  confirmHostedReturn,
  hostedPaymentProcessor,
  markOrderPaid,
  PAYMENT_NOT_COMPLETED,
  releasePendingOnlineOrders,
  resumeHostedPayment,
} from "./hosted-payment";
export { isOwner, readCheckout, shapeOfRead, updateCheckout, updateCheckoutFrom, type CheckoutRead } from "./checkout";
export { createOrderRequest, updateCheckoutRequest } from "./schemas";
export { searchOrders } from "./orders";
export { UNPAID_CANCEL_REASON } from "./shapes";
export { cancelOrder, createFulfillment, markAsPaid, setRefundStatus } from "./orders";
export { fulfillmentRequest } from "./schemas";
export { listRefunds, orderWithRefunds, reconcileStartedRefunds, refundOrder, refundShape, type RefundShape } from "./refunds";
export { refundRequest, type RefundRequest } from "./schemas";
export { leftToShip, orderActionVerdicts, orderState, ORDER_ACTIONS, type ActionVerdicts, type OrderAction } from "./actions";
export { loadOrders } from "./orders";
export type { LoadedOrder } from "./shapes";
export { addOrderNote } from "./notes";
export { orderLineItems, orders } from "./tables";
