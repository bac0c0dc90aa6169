import { Link } from "react-router";
import { additionalFeeService } from "#worker/pricing/additional-fees";
import { Badge } from "#web/components/console/badge";
import { Pager } from "#web/components/console/pager";
import { money, Notice, NOTICE_PARAMS, PricingNav, useCanManagePricing } from "#web/components/console/pricing";
import { noticeOf, pageOf, queryPage } from "#web/components/console/pricing.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/fees";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Additional fees — Pricing — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/** Handling and insurance fees, 25 a page: the query the API answers (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const { items, total, page, pages } = await queryPage<AdditionalFee>(additionalFeeService, context.services, "additionalFees", pageOf(url), PAGE_SIZE);
  return { fees: items, total, page, pages, currency: context.services.currency, notice: noticeOf(url) };
}

/** An additional fee as the service answers it (worker/pricing/additional-fees.ts `shape`). */
export interface AdditionalFee {
  id: string;
  revision: string;
  code: string;
  name: string;
  type: "HANDLING_FEE" | "INSURANCE";
  amount?: string;
  percentage?: number;
  minimumSubtotal: string | null;
  active: boolean;
}


export default function PricingFees({ loaderData }: Route.ComponentProps) {
  const { fees, total, page, pages, currency, notice } = loaderData;
  const canWrite = useCanManagePricing();
  return (
    <>
      <div className="pricing-head">
        <h1>Pricing</h1>
        {canWrite && (
          <Link to="/console/pricing/fees/new" className="console-button primary">
            New fee
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={notice} />
      <h2>Additional fees</h2>
      <p className="console-muted" role="status">
        {total === 0 ? "No additional fees." : `${total} ${total === 1 ? "fee" : "fees"}, added to every order that reaches their minimum (not taxed).`}
      </p>
      {fees.length > 0 && (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Additional fees</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Code</th>
                <th scope="col">Kind</th>
                <th scope="col" className="num">
                  Charge
                </th>
                <th scope="col" className="num">
                  From a subtotal of
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {fees.map((f) => (
                <tr key={f.id}>
                  <th scope="row">
                    <Link to={`/console/pricing/fees/${f.id}`}>{f.name}</Link>
                  </th>
                  <td className="pricing-code">{f.code}</td>
                  <td>{f.type === "INSURANCE" ? "Insurance" : "Handling"}</td>
                  <td className="num">{f.amount != null ? money(f.amount, currency) : `${f.percentage}% of the subtotal`}</td>
                  <td className="num">{money(f.minimumSubtotal, currency)}</td>
                  <td>{f.active ? <Badge tone="good">Active</Badge> : <Badge>Off</Badge>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of additional fees" without={NOTICE_PARAMS} />
    </>
  );
}
