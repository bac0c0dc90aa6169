import { Link } from "react-router";
import { shippingRegionService } from "#worker/pricing/shipping-regions";
import { Pager } from "#web/components/console/pager";
import { money, Notice, NOTICE_PARAMS, PricingNav, useCanManagePricing } from "#web/components/console/pricing";
import { noticeOf, pageOf, queryPage } from "#web/components/console/pricing.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/shipping";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Shipping — Pricing — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/** Shipping regions with their options, 25 a page: the query the API answers (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const { items, total, page, pages } = await queryPage<ShippingRegion>(shippingRegionService, context.services, "shippingRegions", pageOf(url), PAGE_SIZE);
  return { regions: items, total, page, pages, currency: context.services.currency, notice: noticeOf(url) };
}

/** A shipping region as the service answers it (worker/pricing/shipping-regions.ts `shape`). */
export interface ShippingRegion {
  id: string;
  revision: string;
  name: string;
  countries: string[];
  subdivisions: string[];
  restOfWorld: boolean;
  options: ShippingOption[];
}
export interface ShippingOption {
  code: string;
  title: string;
  kind: "DELIVERY" | "PICKUP";
  deliveryTime: string | null;
  instructions: string | null;
  deliveryTimeSlot: { from: string; to: string } | null;
  pickupDetails: unknown;
  rate: string;
  rules: { basis: string; operator: string; value: string | number; rate: string }[];
  freeShippingThreshold: string | null;
}

export default function PricingShipping({ loaderData }: Route.ComponentProps) {
  const { regions, total, page, pages, currency, notice } = loaderData;
  const canWrite = useCanManagePricing();
  return (
    <>
      <div className="pricing-head">
        <h1>Pricing</h1>
        {canWrite && (
          <Link to="/console/pricing/shipping/new" className="console-button primary">
            New shipping region
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={notice} />
      <h2>Shipping regions</h2>
      <p className="console-muted" role="status">
        {total === 0 ? "No shipping regions yet: nothing can be shipped." : `${total} ${total === 1 ? "region" : "regions"}. A destination takes the options of the region that lists its country (or subdivision), else the rest-of-the-world region.`}
      </p>
      {regions.length > 0 && (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Shipping regions</caption>
            <thead>
              <tr>
                <th scope="col">Region</th>
                <th scope="col">Destinations</th>
                <th scope="col">Options: rate, free above, rules</th>
              </tr>
            </thead>
            <tbody>
              {regions.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <Link to={`/console/pricing/shipping/${r.id}`}>{r.name}</Link>
                  </th>
                  <td>{r.restOfWorld ? "Rest of the world" : [...r.countries, ...r.subdivisions].join(", ")}</td>
                  <td>
                    {r.options.length === 0 ? (
                      <span className="console-muted">No options</span>
                    ) : (
                      <ul className="pricing-options">
                        {r.options.map((o) => (
                          <li key={o.code}>
                            {`${o.title}: ${money(o.rate, currency)}`}
                            {o.freeShippingThreshold !== null && `, free from ${money(o.freeShippingThreshold, currency)}`}
                            {o.rules.length > 0 && `, ${o.rules.length} ${o.rules.length === 1 ? "rule" : "rules"}`}
                            {o.kind === "PICKUP" && " (pickup)"}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of shipping regions" without={NOTICE_PARAMS} />
    </>
  );
}
