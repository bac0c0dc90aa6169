import { AutomationEventType } from "#worker/automations";
import { CartEventType } from "#worker/cart";
import { EventType } from "#worker/events";
import { OrderEventType } from "#worker/orders";
import type { Permission } from "#worker/platform/context";

/**
 * The event types the shop emits, grouped as a merchant thinks of them: what an outgoing subscription can pick.
 * `inventory.updated` is left out: it only comes in (from a warehouse's webhook), and incoming events are never
 * sent out again.
 */
export const EMITTED_EVENT_TYPES: { group: string; types: string[] }[] = [
  {
    group: "Catalogue",
    types: [
      EventType.productCreated,
      EventType.productChanged,
      EventType.productDeleted,
      EventType.variantsChanged,
      EventType.collectionCreated,
      EventType.collectionChanged,
      EventType.collectionDeleted,
    ],
  },
  {
    group: "Inventory",
    types: [
      EventType.inventoryItemChanged,
      EventType.inventoryVariantsChanged,
      EventType.inventoryStockStatusUpdated,
      EventType.inventoryItemUpdatedWithReason,
    ],
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

/** An event type the shop takes from outside, and the permission whoever configures its source must hold. */
export interface IncomingEventType {
  type: string;
  /** What it does, in the merchant's words. */
  label: string;
  /** Needed to create, re-key or allow it on a source, and held by that person when each event arrives. */
  permission: Permission | null;
}

/**
 * The only event types an incoming webhook source may be allowed to send: every other type is the shop's own (or
 * unknown) and is never taken from outside. (Tests may push to this list.)
 */
export const INCOMING_EVENT_TYPES: IncomingEventType[] = [
  { type: AutomationEventType.inventoryUpdated, label: "Set or adjust stock counts (a warehouse or ERP)", permission: "inventory.write" },
];

/** What a source may send when its creator names nothing. */
export const DEFAULT_SOURCE_EVENT_TYPES: readonly string[] = [AutomationEventType.inventoryUpdated];

/** The incoming type of this name, if the shop takes it from outside. */
export const incomingEventType = (type: string): IncomingEventType | undefined => INCOMING_EVENT_TYPES.find((t) => t.type === type);
