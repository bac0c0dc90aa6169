import { Link } from "react-router";
import { additionalFeeService } from "#worker/pricing";
import { Badge } from "#web/components/console/badge";
import { money } from "#web/components/console/pricing";
import { listPage } from "#web/components/console/pricing.server";
import { consoleMeta } from "#web/components/console/title";
import { PricingList } from "#web/components/console/pricing-list";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { AdditionalFee } from "#web/components/console/pricing-items";
import type { Route } from "./+types/fees";

export const meta = consoleMeta("Additional fees — Pricing — Console");

/** Handling and insurance fees: the query the API answers (2 D1 round trips with the session). */
export const loader = staffOnly(({ context, request }: Route.LoaderArgs) =>
  listPage<AdditionalFee>(additionalFeeService, context.services, new URL(request.url), "additionalFees"),
);

export default function PricingFees({ loaderData }: Route.ComponentProps) {
  const { total, currency } = loaderData;
  return (
    <PricingList
      heading="Additional fees"
      create={["/console/pricing/fees/new", "New fee"]}
      list={loaderData}
      status={
        total === 0 ? "No additional fees." : `${total} ${total === 1 ? "fee" : "fees"}, added to every order that reaches their minimum (not taxed).`
      }
      columns={[
        { header: "Name", rowHeader: true, cell: (f) => <Link to={`/console/pricing/fees/${f.id}`}>{f.name}</Link> },
        { header: "Code", className: "pricing-code", cell: (f) => f.code },
        { header: "Kind", cell: (f) => (f.type === "INSURANCE" ? "Insurance" : "Handling") },
        { header: "Charge", num: true, cell: (f) => (f.amount != null ? money(f.amount, currency) : `${f.percentage}% of the subtotal`) },
        { header: "From a subtotal of", num: true, cell: (f) => money(f.minimumSubtotal, currency) },
        { header: "Status", cell: (f) => (f.active ? <Badge tone="good">Active</Badge> : <Badge>Off</Badge>) },
      ]}
    />
  );
}
