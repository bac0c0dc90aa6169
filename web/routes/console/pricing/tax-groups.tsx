import { Link } from "react-router";
import { taxGroupService } from "#worker/pricing";
import { PricingList } from "#web/components/console/pricing-list";
import { listPage } from "#web/components/console/pricing.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { TaxGroup } from "#web/components/console/pricing-items";
import type { Route } from "./+types/tax-groups";

export const meta = consoleMeta("Tax groups — Tax — Pricing — Console");

/** Tax groups: the query the API answers (2 D1 round trips with the session). */
export const loader = staffOnly(({ context, request }: Route.LoaderArgs) =>
  listPage<TaxGroup>(taxGroupService, context.services, new URL(request.url), "taxGroups"),
);

export default function PricingTaxGroups({ loaderData }: Route.ComponentProps) {
  const { total } = loaderData;
  return (
    <PricingList
      heading="Tax groups"
      title="Tax groups"
      back={["/console/pricing/tax", "Tax"]}
      create={["/console/pricing/tax/groups/new", "New tax group"]}
      list={loaderData}
      status={
        total === 0
          ? "No tax groups: every product pays its region's rate."
          : `${total} ${total === 1 ? "group" : "groups"}. Each tax region can give a group a rate of its own.`
      }
      columns={[
        { header: "Group", rowHeader: true, cell: (g) => <Link to={`/console/pricing/tax/groups/${g.id}`}>{g.name}</Link> },
        { header: "Products", num: true, cell: (g) => g.catalogItemIds.length },
        { header: "Collections", num: true, cell: (g) => g.collectionIds.length },
      ]}
    />
  );
}
