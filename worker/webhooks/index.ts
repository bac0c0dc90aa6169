/** Incoming and outgoing webhooks: what the composition root, the pages and other folders use. */
export type { KnownEvents } from "./authority";
export {
  DEFAULT_SOURCE_EVENT_TYPES,
  EMITTED_EVENT_TYPES,
  emittedEventTypes,
  INCOMING_EVENT_TYPES,
  incomingEventType,
  type IncomingEventType,
} from "./event-types";
export { requeueOverdueDeliveries, webhookJobs, webhookProcessors } from "./outgoing";
export { incomingWebhookRoutes, webhookAdminRoutes } from "./routes";
export {
  createSource,
  createSourceRequest,
  deleteSource,
  listSourceEvents,
  listSources,
  removeSourceKey,
  rotateKeyRequest,
  rotateSourceKey,
  updateSource,
  updateSourceRequest,
  type SourceEventStatus,
} from "./sources";
export {
  createSubscription,
  createSubscriptionRequest,
  deleteSubscription,
  listDeliveries,
  listSubscriptions,
  redeliver,
  rotateSubscriptionSecret,
  sendTestEvent,
  updateSubscription,
} from "./subscriptions";
