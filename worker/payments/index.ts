/** Payments: the Stripe client (Checkout Sessions, webhooks), the local test card provider, and their records. */
export { checkCard, paymentProvider, TEST_CARDS, testProvider, type CardInput, type ChargeResult, type PaymentProvider } from "./test-provider";
export {
  createCheckoutSession,
  createRefund,
  expireCheckoutSession,
  isProviderDown,
  listRefunds as listProviderRefunds,
  providerDown,
  retrieveCheckoutSession,
  sessionLineItems,
  stripeSettings,
  type CreatedSession,
  type ListedRefund,
  type ProviderRefund,
  type SessionInput,
  type SessionLine,
  type SessionState,
  type StripeSettings,
} from "./stripe";
export { paymentsOverview, receiveStripeWebhook, STRIPE_EVENT_TYPES, stripeEventType, StripeEventTypes, type StripeEventData } from "./webhook";
export { stripeWebhookRoutes } from "./routes";
export { paymentEvents } from "./tables";
