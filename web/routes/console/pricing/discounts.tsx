import { Link } from "react-router";
import { discountRuleService } from "#worker/pricing";
import { money, schedule, StatusBadge } from "#web/components/console/pricing";
import { listPage } from "#web/components/console/pricing.server";
import { consoleMeta } from "#web/components/console/title";
import { PricingList } from "#web/components/console/pricing-list";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { DiscountRule, Trigger, DiscountValue } from "#web/components/console/pricing-items";
import type { Route } from "./+types/discounts";

export const meta = consoleMeta("Discount rules — Pricing — Console");

/** Automatic discounts: the discount-rule query the API answers (2 D1 round trips with the session). */
export const loader = staffOnly(({ context, request }: Route.LoaderArgs) =>
  listPage<DiscountRule>(discountRuleService, context.services, new URL(request.url), "discountRules"),
);

function discountText(d: DiscountValue, currency: string): string {
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

function triggerText(t: Trigger | null, currency: string): string {
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

export default function PricingDiscounts({ loaderData }: Route.ComponentProps) {
  const { total, currency } = loaderData;
  return (
    <PricingList
      heading="Discount rules"
      create={["/console/pricing/discounts/new", "New discount rule"]}
      list={loaderData}
      status={
        total === 0
          ? "No discount rules yet."
          : `${total} ${total === 1 ? "rule" : "rules"}. Rules that are on and within their dates apply by themselves when their condition holds, oldest first, before a coupon.`
      }
      columns={[
        { header: "Name", rowHeader: true, cell: (r) => <Link to={`/console/pricing/discounts/${r.id}`}>{r.name}</Link> },
        { header: "Discount", cell: (r) => discountText(r.discounts.values[0], currency) },
        { header: "Condition", cell: (r) => triggerText(r.trigger, currency) },
        { header: "Schedule", cell: (r) => schedule(r.activeTimeInfo.start, r.activeTimeInfo.end) },
        { header: "Orders", num: true, cell: (r) => r.usageCount },
        { header: "Status", cell: (r) => <StatusBadge active={r.active} status={r.status} /> },
      ]}
    />
  );
}
