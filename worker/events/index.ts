/** The event bus: the envelope, the outbox, the queue consumer and its processor types, failures and retention. */
export { EventType, type EventTypeName } from "./types";
export {
  commit,
  flushEvents,
  flushPending,
  flushRecorded,
  flushStoredEvents,
  newEvent,
  outboxInsert,
  outboxInsertIfChanged,
  unflushedRowsOf,
  type CommitScope,
  type EventEnvelope,
  type Statement,
} from "./outbox";
export {
  consumerStalled,
  MAX_RESENDS,
  processStalled,
  queueLag,
  queueLagOf,
  queueLagRead,
  RESEND_AFTER_SECONDS,
  resendWaiting,
  STALLED_CONSUMER_MS,
  type QueueLag,
} from "./acks";
export {
  handleEventBatch,
  isStepClaimed,
  PermanentFailure,
  processInline,
  processorsFor,
  retryDelaySeconds,
  type EventRegistry,
  type JobHandler,
  type Processor,
  type ProcessorContext,
} from "./consumer";
export {
  attentionCountsRead,
  deadFailureTypes,
  failureShape,
  listFailures,
  replayAllFailures,
  replayFailure,
  type FailureState,
  type ReplayGuard,
} from "./failures";
export { RETENTION_DAYS, retentionDue, runRetention } from "./retention";
export {
  eventFailures,
  outbox,
  processedEvents,
  webhookAttempts,
  webhookDeliveries,
  webhookEvents,
  webhookSources,
  webhookSubscriptions,
  type SourceConfigurer,
  type WebhookKey,
} from "./tables";
