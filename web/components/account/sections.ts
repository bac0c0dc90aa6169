import type { OrderShape } from "../../../worker/orders/shapes";

/**
 * The member account's sections (spec §2: ACCOUNT_INFO, ORDERS, SUBSCRIPTIONS, BOOKINGS, EVENTS). ACCOUNT_INFO and
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

const ALL: SectionLink[] = [
  { section: "ACCOUNT_INFO", label: "Account info", to: "/account" },
  { section: "ORDERS", label: "Orders", to: "/account/orders" },
  { section: "SUBSCRIPTIONS", label: "Subscriptions", to: "/account/orders" },
  { section: "BOOKINGS", label: "Bookings", to: "/account/orders" },
  { section: "EVENTS", label: "Events", to: "/account/orders" },
];

/** What the member has, as far as the sections care. */
export function holdings(orders: OrderShape[]): { subscriptions: boolean; bookings: boolean; events: boolean } {
  const lines = orders.flatMap((o) => o.lineItems as { subscriptionOptionInfo?: unknown; itemType?: { preset?: string }; catalogReference?: { appId?: string } }[]);
  return {
    subscriptions: lines.some((l) => !!l.subscriptionOptionInfo),
    bookings: lines.some((l) => l.itemType?.preset === "SERVICE" || l.catalogReference?.appId === BOOKINGS_APP_ID),
    events: lines.some((l) => l.catalogReference?.appId === EVENTS_APP_ID),
  };
}

/** The sections to show, in order. */
export function accountSections(has: { subscriptions: boolean; bookings: boolean; events: boolean }): SectionLink[] {
  const shown: Record<AccountSection, boolean> = {
    ACCOUNT_INFO: true,
    ORDERS: true,
    SUBSCRIPTIONS: has.subscriptions,
    BOOKINGS: has.bookings,
    EVENTS: has.events,
  };
  return ALL.filter((s) => shown[s.section]);
}
