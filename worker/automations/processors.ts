import type { z } from "zod";
import { CartEventType } from "#worker/cart";
import type { Processor } from "#worker/events";
import { EventType } from "#worker/events";
import { cartAbandonedSchema, cartRecoveredSchema, processCartAbandoned, processCartCompleted, type CartAbandonedData } from "./abandoned-carts";
import { notifyRequests, requestsForVariants, stockStatusSchema } from "./back-in-stock";
import { AutomationEventType } from "./events";
import { inventoryUpdatedSchema, processInventoryUpdated, processVariantsChanged, type InventoryUpdatedData } from "./inventory-updates";

/** The automations' queue processors (registered in worker/app/registry.ts). Names key the processed-event records. */
export const automationProcessors: Processor<any>[] = [
  {
    name: "abandoned-carts",
    types: [AutomationEventType.cartAbandoned],
    run: (event, data: CartAbandonedData, p) => processCartAbandoned(event, data, p),
  },
  {
    name: "abandoned-carts-recovery",
    types: [CartEventType.deleted],
    run: (event, data: Record<string, unknown>, p) => processCartCompleted(event, data, p),
  },
  {
    // A variant went from out of stock to in stock, whatever moved it (console, API, order cancel, incoming webhook).
    name: "back-in-stock",
    types: [EventType.inventoryStockStatusUpdated],
    async run(event, raw: Record<string, unknown>, p) {
      const parsed = stockStatusSchema.safeParse(raw);
      if (!parsed.success) return;
      const back = parsed.data.variants.filter((v) => v.inStock && v.oldValue?.inStock === false).map((v) => v.variantId);
      if (!back.length) return;
      await notifyRequests(p.ctx, requestsForVariants(parsed.data.productId, back), `event:${event.id}`);
    },
  },
  {
    name: "inventory-updates",
    types: [AutomationEventType.inventoryUpdated],
    run: (event, data: InventoryUpdatedData, p) => processInventoryUpdated(event, data, p),
  },
  {
    name: "low-stock",
    types: [EventType.inventoryVariantsChanged],
    run: (event, data: Record<string, unknown>, p) => processVariantsChanged(event, data, p),
  },
];

/** Payload schemas of the events the automations own (the consumer and incoming webhooks apply them). */
export const automationSchemas: Record<string, z.ZodType> = {
  [AutomationEventType.cartAbandoned]: cartAbandonedSchema,
  [AutomationEventType.cartRecovered]: cartRecoveredSchema,
  [AutomationEventType.inventoryUpdated]: inventoryUpdatedSchema,
};
