import { Link } from "react-router";
import { couponService } from "#worker/pricing";
import { money, schedule, StatusBadge } from "#web/components/console/pricing";
import { listPage } from "#web/components/console/pricing.server";
import { consoleMeta } from "#web/components/console/title";
import { PricingList } from "#web/components/console/pricing-list";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Coupon } from "#web/components/console/pricing-items";
import type { Route } from "./+types/coupons";

export const meta = consoleMeta("Coupons — Pricing — Console");

/** Coupon codes shoppers enter on their cart: the coupon query the API answers (2 D1 round trips with the session). */
export const loader = staffOnly(({ context, request }: Route.LoaderArgs) =>
  listPage<Coupon>(couponService, context.services, new URL(request.url), "coupons"),
);

function couponDiscount(c: Pick<Coupon, "moneyOffAmount" | "percentOffRate" | "freeShipping" | "scope">, currency: string): string {
  const what = c.freeShipping ? "Free shipping" : c.percentOffRate != null ? `${c.percentOffRate}% off` : `${money(c.moneyOffAmount, currency)} off`;
  return c.scope.type === "SPECIFIC_ITEMS" && !c.freeShipping ? `${what} some items` : what;
}

export default function PricingCoupons({ loaderData }: Route.ComponentProps) {
  const { total, currency } = loaderData;
  return (
    <PricingList
      heading="Coupons"
      create={["/console/pricing/coupons/new", "New coupon"]}
      list={loaderData}
      status={
        total === 0 ? "No coupons yet." : `${total} ${total === 1 ? "coupon" : "coupons"}. Shoppers enter the code on their cart; codes ignore case.`
      }
      columns={[
        {
          header: "Code",
          rowHeader: true,
          cell: (c) => (
            <Link to={`/console/pricing/coupons/${c.id}`} className="pricing-code">
              {c.code}
            </Link>
          ),
        },
        { header: "Name", cell: (c) => c.name },
        { header: "Discount", cell: (c) => couponDiscount(c, currency) },
        { header: "Minimum subtotal", num: true, cell: (c) => money(c.minimumSubtotal, currency) },
        { header: "Used", num: true, cell: (c) => (c.usageLimit === null ? `${c.timesUsed} (no limit)` : `${c.timesUsed} of ${c.usageLimit}`) },
        { header: "Schedule", cell: (c) => schedule(c.startTime, c.expirationTime) },
        {
          header: "Status",
          cell: (c) => <StatusBadge active={c.active} status={c.status} usedUp={c.usageLimit !== null && c.timesUsed >= c.usageLimit} />,
        },
      ]}
    />
  );
}
