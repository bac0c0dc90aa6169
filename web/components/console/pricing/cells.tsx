import { money } from "../pricing";
import type { Coupon, DiscountValue, ShippingRegion, Trigger } from "../pricing-items";

/** How the pricing lists read a coupon's discount, a discount rule's discount and condition, and a region's options. */

/** A coupon's discount as one phrase ("10% off some items"). */
export function couponDiscount(c: Pick<Coupon, "moneyOffAmount" | "percentOffRate" | "freeShipping" | "scope">, currency: string): string {
  const what = c.freeShipping ? "Free shipping" : c.percentOffRate != null ? `${c.percentOffRate}% off` : `${money(c.moneyOffAmount, currency)} off`;
  return c.scope.type === "SPECIFIC_ITEMS" && !c.freeShipping ? `${what} some items` : what;
}

/** A discount rule's discount as one phrase ("$5.00 off the order"). */
export function discountText(d: DiscountValue, currency: string): string {
  const amount = d.discountType === "PERCENTAGE" ? `${d.percentage}%` : money(d.fixedAmount, currency);
  const target =
    d.targetType === "SHIPPING"
      ? "shipping"
      : d.targetType === "SPECIFIC_ITEMS"
        ? d.discountType === "PERCENTAGE"
          ? "some items"
          : "each unit of some items"
        : "the order";
  return `${amount} off ${target}`;
}

function range(from: string | number | null | undefined, to: string | number | null | undefined, show: (x: string | number) => string): string {
  if (from != null && to != null) return `${show(from)} to ${show(to)}`;
  if (from != null) return `at least ${show(from)}`;
  if (to != null) return `up to ${show(to)}`;
  return "any";
}

/** A discount rule's condition as it reads in the list. */
export function triggerText(t: Trigger | null, currency: string): string {
  if (!t) return "Always";
  switch (t.conditionType) {
    case "SUBTOTAL_RANGE":
      return `Subtotal ${range(t.subtotalRange?.from, t.subtotalRange?.to, (x) => money(x, currency))}`;
    case "ITEM_QUANTITY_RANGE":
      return `Items in the cart: ${range(t.itemQuantityRange?.from, t.itemQuantityRange?.to, String)}`;
    case "COUPON_CODE":
      return `With the code ${t.couponCode?.code}`;
    case "AND":
      return (t.and?.triggers ?? []).map((s) => triggerText(s, currency)).join(" and ");
    case "OR":
      return (t.or?.triggers ?? []).map((s) => triggerText(s, currency)).join(" or ");
    default:
      return t.conditionType;
  }
}

/** A region's delivery options as one line each. */
export function RegionOptions({ options, currency }: { options: ShippingRegion["options"]; currency: string }) {
  if (options.length === 0) return <span className="console-muted">No options</span>;
  return (
    <ul className="pricing-options">
      {options.map((o) => (
        <li key={o.code}>
          {`${o.title}: ${money(o.rate, currency)}`}
          {o.freeShippingThreshold !== null && `, free from ${money(o.freeShippingThreshold, currency)}`}
          {o.rules.length > 0 && `, ${o.rules.length} ${o.rules.length === 1 ? "rule" : "rules"}`}
          {o.kind === "PICKUP" && " (pickup)"}
        </li>
      ))}
    </ul>
  );
}
