import type { OrderShape } from "#worker/orders";

/**
 * The member account's sections (ACCOUNT_INFO, ORDERS, SUBSCRIPTIONS, BOOKINGS, EVENTS). ACCOUNT_INFO and
 * ORDERS are always there; SUBSCRIPTIONS only when the member has a subscription, BOOKINGS and EVENTS only when the
 * member has bought such items. This store sells physical and digital products, so those three stay hidden unless
 * orders hold them.
 */

export type AccountSection = "ACCOUNT_INFO" | "ORDERS" | "SUBSCRIPTIONS" | "BOOKINGS" | "EVENTS";

/** Wix app ids of the catalogues whose items make a section appear (a line's catalogReference.appId). */
const BOOKINGS_APP_ID = "13d21c63-b5ec-5912-8397-c3a5ddb27a97";
const EVENTS_APP_ID = "140603ad-af8d-84a5-2c80-a0f60cb47351";

export interface SectionLink {
  section: AccountSection;
  label: string;
  to: string;
}

/** The kinds of item that give a member a section of their own: the orders that hold them, listed under it. */
export type Holding = "subscriptions" | "bookings" | "events";

/** The sections listing the orders that hold one kind of item (/account/orders?section=…). */
export const SECTION_HOLDINGS: Partial<Record<AccountSection, { holding: Holding; title: string }>> = {
  SUBSCRIPTIONS: { holding: "subscriptions", title: "Subscriptions" },
  BOOKINGS: { holding: "bookings", title: "Bookings" },
  EVENTS: { holding: "events", title: "Events" },
};

const ALL: SectionLink[] = [
  { section: "ACCOUNT_INFO", label: "Account info", to: "/account" },
  { section: "ORDERS", label: "Orders", to: "/account/orders" },
  { section: "SUBSCRIPTIONS", label: "Subscriptions", to: "/account/orders?section=SUBSCRIPTIONS" },
  { section: "BOOKINGS", label: "Bookings", to: "/account/orders?section=BOOKINGS" },
  { section: "EVENTS", label: "Events", to: "/account/orders?section=EVENTS" },
];

type HoldingLine = { subscriptionOptionInfo?: unknown; itemType?: { preset?: string }; catalogReference?: { appId?: string } };

/** Whether an order holds that kind of item. */
export function orderHolds(order: OrderShape, holding: Holding): boolean {
  return (order.lineItems as HoldingLine[]).some((l) =>
    holding === "subscriptions"
      ? !!l.subscriptionOptionInfo
      : holding === "bookings"
        ? l.itemType?.preset === "SERVICE" || l.catalogReference?.appId === BOOKINGS_APP_ID
        : l.catalogReference?.appId === EVENTS_APP_ID,
  );
}

/** What the member has, as far as the sections care. */
export function holdings(orders: OrderShape[]): Record<Holding, boolean> {
  return {
    subscriptions: orders.some((o) => orderHolds(o, "subscriptions")),
    bookings: orders.some((o) => orderHolds(o, "bookings")),
    events: orders.some((o) => orderHolds(o, "events")),
  };
}

/** The sections to show, in order. */
export function accountSections(has: Record<Holding, boolean>): SectionLink[] {
  const shown: Record<AccountSection, boolean> = {
    ACCOUNT_INFO: true,
    ORDERS: true,
    SUBSCRIPTIONS: has.subscriptions,
    BOOKINGS: has.bookings,
    EVENTS: has.events,
  };
  return ALL.filter((s) => shown[s.section]);
}
