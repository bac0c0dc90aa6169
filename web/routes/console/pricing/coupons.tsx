import { Link } from "react-router";
import { couponService } from "#worker/pricing/coupons";
import { Pager } from "#web/components/console/pager";
import { money, Notice, NOTICE_PARAMS, PricingNav, schedule, StatusBadge, useCanManagePricing } from "#web/components/console/pricing";
import { noticeOf, pageOf, queryPage } from "#web/components/console/pricing.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/coupons";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Coupons — Pricing — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/** Coupon codes shoppers enter on their cart, 25 a page: the coupon query the API answers (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageOf(url);
  const { items, total, pages } = await queryPage<CouponRow>(couponService, context.services, "coupons", page, PAGE_SIZE);
  return {
    coupons: items,
    total,
    page,
    pages,
    currency: context.services.currency,
    notice: noticeOf(url),
  };
}

/** The coupon as the service answers it (worker/pricing/coupons.ts `shape`). */
interface CouponRow {
  id: string;
  code: string;
  name: string;
  active: boolean;
  startTime: string | null;
  expirationTime: string | null;
  usageLimit: number | null;
  timesUsed: number;
  minimumSubtotal: string | null;
  scope: { type: string };
  moneyOffAmount?: string;
  percentOffRate?: number;
  freeShipping?: boolean;
  status: string;
}

function couponDiscount(c: Pick<CouponRow, "moneyOffAmount" | "percentOffRate" | "freeShipping" | "scope">, currency: string): string {
  const what = c.freeShipping ? "Free shipping" : c.percentOffRate != null ? `${c.percentOffRate}% off` : `${money(c.moneyOffAmount, currency)} off`;
  return c.scope.type === "SPECIFIC_ITEMS" && !c.freeShipping ? `${what} some items` : what;
}

export default function PricingCoupons({ loaderData }: Route.ComponentProps) {
  const { coupons, total, page, pages, currency, notice } = loaderData;
  const canWrite = useCanManagePricing();
  return (
    <>
      <div className="pricing-head">
        <h1>Pricing</h1>
        {canWrite && (
          <Link to="/console/pricing/coupons/new" className="console-button primary">
            New coupon
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={notice} />
      <h2>Coupons</h2>
      <p className="console-muted" role="status">
        {total === 0 ? "No coupons yet." : `${total} ${total === 1 ? "coupon" : "coupons"}. Shoppers enter the code on their cart; codes ignore case.`}
      </p>
      {coupons.length > 0 && (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Coupons</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Name</th>
                <th scope="col">Discount</th>
                <th scope="col" className="num">
                  Minimum subtotal
                </th>
                <th scope="col" className="num">
                  Used
                </th>
                <th scope="col">Schedule</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {coupons.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <Link to={`/console/pricing/coupons/${c.id}`} className="pricing-code">
                      {c.code}
                    </Link>
                  </th>
                  <td>{c.name}</td>
                  <td>{couponDiscount(c, currency)}</td>
                  <td className="num">{money(c.minimumSubtotal, currency)}</td>
                  <td className="num">{c.usageLimit === null ? `${c.timesUsed} (no limit)` : `${c.timesUsed} of ${c.usageLimit}`}</td>
                  <td>{schedule(c.startTime, c.expirationTime)}</td>
                  <td>
                    <StatusBadge active={c.active} status={c.status} usedUp={c.usageLimit !== null && c.timesUsed >= c.usageLimit} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of coupons" without={NOTICE_PARAMS} />
    </>
  );
}
