import { consoleMeta, type consoleTitle } from "../title";
import type { AdditionalFee, Coupon, DiscountRule, ShippingRegion, TaxGroup, TaxRegion } from "../pricing-items";

/**
 * How each pricing edit page names its item: the list it goes back to (where a save or delete returns), the noun of
 * its buttons, the heading of a new one, and the section its browser title names. One record per service wrapper.
 */
export interface EditorWords<T> {
  /** The list page and its name; saves and deletes go back there. */
  back: readonly [to: string, label: string];
  noun: string;
  fresh: string;
  /** The browser title of a new one, when it is not `fresh`. */
  freshTitle?: string;
  /** What the browser title says after the item's name ("Tax — Pricing"). */
  section: string;
  title?: (item: T) => string;
  named?: (item: T) => string;
}

export const COUPON: EditorWords<Coupon> = {
  back: ["/console/pricing", "Coupons"],
  noun: "coupon",
  fresh: "New coupon",
  section: "Pricing",
  title: (item) => `Coupon ${item.code}`,
  named: (item) => `coupon ${item.code}`,
};
const RULES = ["/console/pricing/discounts", "Discount rules"] as const;
export const DISCOUNT_RULE: EditorWords<DiscountRule> = { back: RULES, noun: "rule", fresh: "New discount rule", section: "Pricing" };
export const ADDITIONAL_FEE: EditorWords<AdditionalFee> = {
  back: ["/console/pricing/fees", "Additional fees"],
  noun: "fee",
  fresh: "New additional fee",
  freshTitle: "New fee",
  section: "Additional fees — Pricing",
};
export const TAX_GROUP: EditorWords<TaxGroup> = {
  back: ["/console/pricing/tax/groups", "Tax groups"],
  noun: "tax group",
  fresh: "New tax group",
  section: "Tax — Pricing",
};
export const TAX_REGION: EditorWords<TaxRegion> = {
  back: ["/console/pricing/tax", "Tax"],
  noun: "tax region",
  fresh: "New tax region",
  section: "Tax — Pricing",
  named: (item) => `tax region ${item.name}`,
};
const SHIPPING = ["/console/pricing/shipping", "Shipping"] as const;
export const SHIPPING_REGION: EditorWords<ShippingRegion> = {
  back: SHIPPING,
  noun: "region",
  fresh: "New shipping region",
  section: "Shipping — Pricing",
};

/** An edit page's browser title: the item's heading (or the new one's) and its section. */
export function editorMeta<T extends { name: string }>(words: EditorWords<T>) {
  return consoleMeta<{ data?: unknown; matches: Parameters<typeof consoleTitle>[0] }>(({ data }) => {
    const item = (data as { item?: T | null } | undefined)?.item;
    return `${item ? (words.title?.(item) ?? item.name) : (words.freshTitle ?? words.fresh)} — ${words.section} — Console`;
  });
}
