import { Link } from "react-router";
import { shippingRegionService } from "#worker/pricing";
import { money } from "#web/components/console/pricing";
import { listPage } from "#web/components/console/pricing.server";
import { consoleMeta } from "#web/components/console/title";
import { PricingList } from "#web/components/console/pricing-list";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { ShippingRegion } from "#web/components/console/pricing-items";
import type { Route } from "./+types/shipping";

export const meta = consoleMeta("Shipping — Pricing — Console");

/** Shipping regions with their options: the query the API answers (2 D1 round trips with the session). */
export const loader = staffOnly(({ context, request }: Route.LoaderArgs) =>
  listPage<ShippingRegion>(shippingRegionService, context.services, new URL(request.url), "shippingRegions"),
);

export default function PricingShipping({ loaderData }: Route.ComponentProps) {
  const { total, currency } = loaderData;
  return (
    <PricingList
      heading="Shipping regions"
      create={["/console/pricing/shipping/new", "New shipping region"]}
      list={loaderData}
      status={
        total === 0
          ? "No shipping regions yet: nothing can be shipped."
          : `${total} ${total === 1 ? "region" : "regions"}. A destination takes the options of the region that lists its country (or subdivision), else the rest-of-the-world region.`
      }
      columns={[
        { header: "Region", rowHeader: true, cell: (r) => <Link to={`/console/pricing/shipping/${r.id}`}>{r.name}</Link> },
        { header: "Destinations", cell: (r) => (r.restOfWorld ? "Rest of the world" : [...r.countries, ...r.subdivisions].join(", ")) },
        { header: "Options: rate, free above, rules", cell: (r) => <RegionOptions options={r.options} currency={currency} /> },
      ]}
    />
  );
}

/** A region's delivery options as one line each. */
function RegionOptions({ options, currency }: { options: ShippingRegion["options"]; currency: string }) {
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
