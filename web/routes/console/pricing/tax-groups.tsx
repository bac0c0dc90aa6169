import { Link } from "react-router";
import { taxGroupService } from "#worker/pricing";
import { Pager } from "#web/components/console/pager";
import { Notice, NOTICE_PARAMS, PricingNav, useCanManagePricing } from "#web/components/console/pricing";
import { noticeOf, pageOf, queryPage } from "#web/components/console/pricing.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax-groups";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Tax groups — Tax — Pricing — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/** A tax group as the service answers it (worker/pricing/taxes.ts `shape`). */
export interface TaxGroup {
  id: string;
  revision: string;
  name: string;
  catalogItemIds: string[];
  collectionIds: string[];
}

/** Tax groups, 25 a page: the query the API answers (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  return { ...(await queryPage<TaxGroup>(taxGroupService, context.services, "taxGroups", pageOf(url), PAGE_SIZE)), notice: noticeOf(url) };
}

export default function PricingTaxGroups({ loaderData }: Route.ComponentProps) {
  const { items: groups, total, page, pages, notice } = loaderData;
  const canWrite = useCanManagePricing();
  return (
    <>
      <p>
        <Link to="/console/pricing/tax">← Tax</Link>
      </p>
      <div className="pricing-head">
        <h1>Tax groups</h1>
        {canWrite && (
          <Link to="/console/pricing/tax/groups/new" className="console-button primary">
            New tax group
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={notice} />
      <p className="console-muted" role="status">
        {total === 0
          ? "No tax groups: every product pays its region's rate."
          : `${total} ${total === 1 ? "group" : "groups"}. Each tax region can give a group a rate of its own.`}
      </p>
      {groups.length > 0 && (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Tax groups</caption>
            <thead>
              <tr>
                <th scope="col">Group</th>
                <th scope="col" className="num">
                  Products
                </th>
                <th scope="col" className="num">
                  Collections
                </th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.id}>
                  <th scope="row">
                    <Link to={`/console/pricing/tax/groups/${g.id}`}>{g.name}</Link>
                  </th>
                  <td className="num">{g.catalogItemIds.length}</td>
                  <td className="num">{g.collectionIds.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of tax groups" without={NOTICE_PARAMS} />
    </>
  );
}
