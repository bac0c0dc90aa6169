import { AutomationEventType } from "../../automations/events";
import { CartEventType } from "../../cart/shapes";
import { OrderEventType } from "../../orders/shapes";
import { EventType } from "../types";

/**
 * The event types the shop emits, grouped as a merchant thinks of them: what an outgoing subscription can pick.
 * `inventory.updated` is left out: it only comes in (from a warehouse's webhook), and incoming events are never
 * sent out again.
 */
export const EMITTED_EVENT_TYPES: { group: string; types: string[] }[] = [
  {
    group: "Catalogue",
    types: [EventType.productCreated, EventType.productChanged, EventType.productDeleted, EventType.variantsChanged, EventType.collectionCreated, EventType.collectionChanged, EventType.collectionDeleted],
  },
  {
    group: "Inventory",
    types: [EventType.inventoryItemChanged, EventType.inventoryVariantsChanged, EventType.inventoryStockStatusUpdated, EventType.inventoryItemUpdatedWithReason],
  },
  { group: "Orders", types: Object.values(OrderEventType) },
  { group: "Carts and checkouts", types: Object.values(CartEventType) },
  {
    group: "Automations",
    types: Object.values(AutomationEventType).filter((t) => t !== AutomationEventType.inventoryUpdated),
  },
];

/** Every type above, in one list. */
export const emittedEventTypes = (): string[] => EMITTED_EVENT_TYPES.flatMap((g) => g.types);
