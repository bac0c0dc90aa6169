import { z } from "zod";
import type { EventEnvelope } from "./outbox";

/**
 * The EVENTS queue consumer. Each message is one event envelope from the outbox; processors registered for its
 * type run in turn. Delivery is at least once, so processors must be idempotent (they key their work on the
 * event id). A failing message is retried alone with a growing delay; after the queue's max_retries it goes to
 * the dead-letter queue.
 */

export const envelopeSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  entityId: z.string(),
  // An ISO-8601 string (as the outbox writes it); null or a number must not turn into 1970.
  eventTime: z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO-8601 date").transform((s) => new Date(s)),
  actor: z.object({ type: z.string(), id: z.string().nullable() }),
  data: z.record(z.string(), z.unknown()),
});

export type Processor = (event: EventEnvelope, env: Env, ctx: ExecutionContext) => Promise<void>;

/** Processors by event type. Catalogue events have none yet: outgoing webhooks and automations register here. */
export const processors: Record<string, Processor[]> = {};

export async function handleEventBatch(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext): Promise<void> {
  const deadLetters = batch.queue.endsWith("-dlq");
  for (const message of batch.messages) {
    const parsed = envelopeSchema.safeParse(message.body);
    if (!parsed.success) {
      // A message that can never be processed: keep it visible in the log and stop redelivering it.
      console.error("event consumer: malformed envelope", message.id, parsed.error.message);
      message.ack();
      continue;
    }
    const event = { ...parsed.data, eventTime: parsed.data.eventTime.toISOString() } as EventEnvelope;
    if (deadLetters) {
      console.error("event dead after retries", event.id, event.type);
      message.ack();
      continue;
    }
    try {
      for (const processor of processors[event.type] ?? []) await processor(event, env, ctx);
      message.ack();
    } catch (err) {
      console.error("event processing failed; retrying", event.id, event.type, err);
      message.retry({ delaySeconds: Math.min(60 * 2 ** (message.attempts - 1), 3600) });
    }
  }
}
