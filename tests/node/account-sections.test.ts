import { describe, expect, it } from "vitest";
import { accountSections, holdings, orderHolds } from "#web/components/account/sections";
import type { OrderShape } from "#worker/orders/shapes";

/** Which account sections a member sees, from what their orders hold. */

const order = (...lineItems: Record<string, unknown>[]) => ({ lineItems }) as unknown as OrderShape;
const tee = { catalogReference: { appId: "215238eb-22a5-4c36-9e7b-e7c08025e04e", catalogItemId: "p1" }, itemType: { preset: "PHYSICAL" } };
const booking = { catalogReference: { appId: "13d21c63-b5ec-5912-8397-c3a5ddb27a97", catalogItemId: "s1" }, itemType: { preset: "SERVICE" } };
const ticket = { catalogReference: { appId: "140603ad-af8d-84a5-2c80-a0f60cb47351", catalogItemId: "e1" } };
const subscription = { ...tee, subscriptionOptionInfo: { subscriptionSettings: { frequency: "MONTH" } } };

describe("account sections", () => {
  it("are ACCOUNT_INFO and ORDERS for a shopper of physical goods", () => {
    expect(accountSections(holdings([order(tee), order(tee)])).map((s) => s.section)).toEqual(["ACCOUNT_INFO", "ORDERS"]);
    expect(accountSections(holdings([])).map((s) => s.section)).toEqual(["ACCOUNT_INFO", "ORDERS"]);
  });

  it("add SUBSCRIPTIONS, BOOKINGS and EVENTS only when orders hold such items, each listing those orders", () => {
    const sections = accountSections(holdings([order(tee, subscription), order(booking), order(ticket)]));
    expect(sections.map((s) => [s.section, s.to])).toEqual([
      ["ACCOUNT_INFO", "/account"],
      ["ORDERS", "/account/orders"],
      ["SUBSCRIPTIONS", "/account/orders?section=SUBSCRIPTIONS"],
      ["BOOKINGS", "/account/orders?section=BOOKINGS"],
      ["EVENTS", "/account/orders?section=EVENTS"],
    ]);
    expect(accountSections(holdings([order(booking)])).map((s) => s.section)).toEqual(["ACCOUNT_INFO", "ORDERS", "BOOKINGS"]);
    expect(orderHolds(order(tee, subscription), "subscriptions")).toBe(true);
    expect(orderHolds(order(tee), "subscriptions")).toBe(false);
    expect(orderHolds(order(ticket), "bookings")).toBe(false);
  });
});
