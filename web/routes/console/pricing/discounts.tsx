import { Link } from "react-router";
import { discountRuleService } from "#worker/pricing/discount-rules";
import { Pager } from "#web/components/console/pager";
import { money, Notice, NOTICE_PARAMS, PricingNav, schedule, StatusBadge, useCanManagePricing } from "#web/components/console/pricing";
import { noticeOf, pageOf, queryPage } from "#web/components/console/pricing.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/discounts";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Discount rules — Pricing — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/** Automatic discounts, 25 a page: the discount-rule query the API answers (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const { items, total, page, pages } = await queryPage<DiscountRule>(discountRuleService, context.services, "discountRules", pageOf(url), PAGE_SIZE);
  return { rules: items, total, page, pages, currency: context.services.currency, notice: noticeOf(url) };
}

/** A discount rule as the service answers it (worker/pricing/discount-rules.ts `shape`). */
export interface DiscountRule {
  id: string;
  revision: string;
  name: string;
  active: boolean;
  trigger: Trigger | null;
  activeTimeInfo: { start: string | null; end: string | null };
  discounts: { values: DiscountValue[] };
  status: string;
  usageCount: number;
}
export interface Trigger {
  conditionType: string;
  subtotalRange?: { from: string | null; to: string | null };
  itemQuantityRange?: { from: number | null; to: number | null };
  couponCode?: { code: string };
  and?: { triggers: Trigger[] };
  or?: { triggers: Trigger[] };
}
export interface DiscountValue {
  targetType: string;
  specificItemsInfo?: { catalogItemIds: string[]; collectionIds: string[] };
  discountType: string;
  percentage?: number;
  fixedAmount?: string;
}

function discountText(d: DiscountValue, currency: string): string {
  const amount = d.discountType === "PERCENTAGE" ? `${d.percentage}%` : money(d.fixedAmount, currency);
  const target = d.targetType === "SHIPPING" ? "shipping" : d.targetType === "SPECIFIC_ITEMS" ? (d.discountType === "PERCENTAGE" ? "some items" : "each unit of some items") : "the order";
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
  const { rules, total, page, pages, currency, notice } = loaderData;
  const canWrite = useCanManagePricing();
  return (
    <>
      <div className="pricing-head">
        <h1>Pricing</h1>
        {canWrite && (
          <Link to="/console/pricing/discounts/new" className="console-button primary">
            New discount rule
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={notice} />
      <h2>Discount rules</h2>
      <p className="console-muted" role="status">
        {total === 0
          ? "No discount rules yet."
          : `${total} ${total === 1 ? "rule" : "rules"}. Rules that are on and within their dates apply by themselves when their condition holds, oldest first, before a coupon.`}
      </p>
      {rules.length > 0 && (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Discount rules</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Discount</th>
                <th scope="col">Condition</th>
                <th scope="col">Schedule</th>
                <th scope="col" className="num">
                  Orders
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <Link to={`/console/pricing/discounts/${r.id}`}>{r.name}</Link>
                  </th>
                  <td>{discountText(r.discounts.values[0], currency)}</td>
                  <td>{triggerText(r.trigger, currency)}</td>
                  <td>{schedule(r.activeTimeInfo.start, r.activeTimeInfo.end)}</td>
                  <td className="num">{r.usageCount}</td>
                  <td>
                    <StatusBadge active={r.active} status={r.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of discount rules" without={NOTICE_PARAMS} />
    </>
  );
}
