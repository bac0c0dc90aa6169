/** The cart: one current cart per visitor or member, its lines and totals, checkouts made from it, and its routes. */
export { mergeVisitorCart } from "./merge";
export { currentCartRoutes } from "./routes";
export { ecomMoney } from "./shapes";
export { addToCurrentCart, cartOwnerOf, loadCarts, ownerKey, type CartOwner } from "./cart";
export { checkoutEmailRead, resolveAll, totalsFor } from "./cart";
export { cartShape, type CartRow, type CartShape } from "./shapes";
export { cartSummaryRead } from "./cart";
export { STORES_APP_ID } from "./schemas";
export { CartEventType } from "./shapes";
export { cartReads, pricingReadsFor, resolveLine, type CartTotals } from "./cart";
export { cleanAddress, lineItemShape, type CatalogProduct, type LineRow, type ResolvedLine } from "./shapes";
export { checkouts, type CheckoutLine, type LineSnapshot, type StoredAddress, type StoredContactDetails } from "./tables";
export { completeCartStatements } from "./cart";
export { orderLimits, type ShopperClient } from "./limits";
export { addressSchema, contactDetailsSchema } from "./schemas";
export { estimateCurrentCart, type estimateTotals, removeCoupon, removeLineItems, updateCurrentCart, updateLineItemsQuantity } from "./cart";
export { addToCartRequest, updateQuantityRequest } from "./schemas";
export { createCheckoutFrom, findCurrentCart, readCurrentCart } from "./cart";
