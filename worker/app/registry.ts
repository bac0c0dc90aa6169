import type { z } from "zod";
import { catalogCacheProcessors } from "#worker/catalog";
import { importJobHandlers } from "#worker/catalog";
import { automationProcessors, automationSchemas } from "#worker/automations";
import type { EventRegistry, JobHandler, Processor } from "#worker/events";
import { webhookJobs, webhookProcessors } from "#worker/webhooks";
import { digitalDeliveryProcessor } from "#worker/downloads";
import { cmsCacheProcessors } from "#worker/cms";
import { buyerEmailProcessor, hostedPaymentProcessor } from "#worker/orders";

/**
 * Who handles what on the EVENTS queue. Domains export their processors, payload schemas and job handlers; this
 * file only lists them, for the consumer (handed in by the entry) and the incoming webhooks. (Tests may push to and remove from these lists.)
 */

/** Processors by registration order; each names the event types it handles. */
export const processors: Processor<any>[] = [
  ...catalogCacheProcessors,
  ...cmsCacheProcessors,
  ...automationProcessors,
  hostedPaymentProcessor,
  digitalDeliveryProcessor,
  buyerEmailProcessor,
  ...webhookProcessors,
];

/**
 * Payload schemas by event type: the consumer parses `data` with them before any processor runs (dates become
 * Dates, numeric fields numbers), and incoming webhooks validate against them before anything is stored.
 */
export const payloadSchemas: Record<string, z.ZodType> = { ...automationSchemas };

/** Handlers of job messages (`{ kind, id, … }`) by kind. */
export const jobs: Record<string, JobHandler> = { ...webhookJobs, ...importJobHandlers };

/** The three lists as one registry, for the consumer and the incoming webhooks. */
export const eventRegistry: EventRegistry = { processors, payloadSchemas, jobs };
