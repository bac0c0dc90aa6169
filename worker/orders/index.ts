/** Orders: checkouts, placing an order, payments, order changes, and their routes. */
export { orderRoutes } from "./routes";
export { cancelExpiredUnpaidOrders } from "./unpaid";
export { orderTotalRead } from "./orders";
export { salesByHourRead } from "./orders";
export { OrderEventType } from "./shapes";
