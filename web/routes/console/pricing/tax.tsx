import { data, Form, Link, useNavigation } from "react-router";
import { z } from "zod";
import { parseWith } from "#worker/platform/validation";
import { getPricingSettings, pricingSettingsPatchSchema, taxRegionService, updatePricingSettings } from "#worker/pricing";
import { Checkbox, ErrorSummary, type Problem, Select } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { errorsOf, formValues, Notice, NOTICE_PARAMS, PricingNav, useCanManagePricing, type FieldPlaces } from "#web/components/console/pricing";
import { noticeOf, pageOf, postedValues, queryPage, text, ticked } from "#web/components/console/pricing.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Tax — Pricing — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/** A tax region as the service answers it (worker/pricing/taxes.ts `shape`). */
export interface TaxRegion {
  id: string;
  revision: string;
  name: string;
  country: string;
  subdivision: string | null;
  defaultRate: number;
  groupRates: { taxGroupId: string; rate: number }[];
  taxShipping: boolean;
  calculation: "DEFAULT" | "MANUAL";
}

/** The tax settings and the tax regions, 25 a page (3 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const [regions, { settings }] = await Promise.all([
    queryPage<TaxRegion>(taxRegionService, context.services, "taxRegions", pageOf(url), PAGE_SIZE),
    getPricingSettings(context.services),
  ]);
  return { ...regions, settings: { pricesIncludeTax: settings.pricesIncludeTax, taxableAddress: settings.taxableAddress }, notice: noticeOf(url) };
}

/** "Prices include tax" and which address picks the tax region: the pricing settings service, as PATCH /api/v1/pricing-settings. */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const values = postedValues(await request.formData());
  try {
    const { settings } = parseWith(z.object({ settings: pricingSettingsPatchSchema }), {
      settings: { pricesIncludeTax: ticked(values, "pricesIncludeTax"), taxableAddress: text(values, "taxableAddress") },
    });
    const saved = await updatePricingSettings(context.services, settings);
    return {
      ok: saved.settings.pricesIncludeTax
        ? "Saved: prices include tax; tax is taken out of them."
        : "Saved: prices exclude tax; tax is added at checkout.",
      problem: null,
      values: null,
    };
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
}

const PLACES: FieldPlaces = [
  ["settings.pricesIncludeTax", "tax-included"],
  ["settings.taxableAddress", "tax-address"],
];

export default function PricingTax({ loaderData, actionData }: Route.ComponentProps) {
  const { items: regions, total, page, pages, settings, notice } = loaderData;
  const canWrite = useCanManagePricing();
  const busy = useNavigation().state === "submitting";
  const { byId, fieldIds } = errorsOf(actionData?.problem, PLACES);
  const f = formValues(actionData?.values);
  return (
    <>
      <div className="pricing-head">
        <h1>Pricing</h1>
        {canWrite && (
          <Link to="/console/pricing/tax/regions/new" className="console-button primary">
            New tax region
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={actionData?.ok ?? notice} />
      <h2>Tax settings</h2>
      <Form method="post" className="console-form pricing-settings" aria-label="Tax settings" noValidate>
        <ErrorSummary problem={actionData?.problem} fieldIds={fieldIds} />
        <fieldset disabled={!canWrite} className="pricing-fields">
          <legend className="visually-hidden">Tax settings</legend>
          <Checkbox
            id="tax-included"
            name="pricesIncludeTax"
            label="Prices include tax (tax is taken out of the price, totals stay as priced)"
            defaultChecked={f.checked("pricesIncludeTax", settings.pricesIncludeTax)}
            error={byId["tax-included"]}
          />
          <Select
            id="tax-address"
            name="taxableAddress"
            label="Tax by the address of"
            defaultValue={f.text("taxableAddress", settings.taxableAddress)}
            error={byId["tax-address"]}
            options={[
              ["SHIPPING", "Shipping (else billing)"],
              ["BILLING", "Billing (else shipping)"],
              ["BUSINESS", "The business (the store's address)"],
            ]}
          />
        </fieldset>
        {canWrite ? (
          <div className="console-actions">
            <button type="submit" className="console-button primary" disabled={busy}>
              Save tax settings
            </button>
          </div>
        ) : (
          <p className="console-muted">Changing pricing needs the permission “settings.manage”.</p>
        )}
      </Form>
      <h2>Tax regions</h2>
      <p className="console-muted" role="status">
        {total === 0
          ? "No tax regions: no tax is charged."
          : `${total} ${total === 1 ? "region" : "regions"}. A subdivision's region wins over its country's.`}{" "}
        <Link to="/console/pricing/tax/groups">Tax groups</Link> give some products a rate of their own.
      </p>
      {regions.length > 0 && (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Tax regions</caption>
            <thead>
              <tr>
                <th scope="col">Region</th>
                <th scope="col">Place</th>
                <th scope="col" className="num">
                  Rate
                </th>
                <th scope="col" className="num">
                  Group rates
                </th>
                <th scope="col">Shipping taxed</th>
              </tr>
            </thead>
            <tbody>
              {regions.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    <Link to={`/console/pricing/tax/regions/${r.id}`}>{r.name}</Link>
                  </th>
                  <td>{r.subdivision ?? r.country}</td>
                  <td className="num">{`${r.defaultRate}%`}</td>
                  <td className="num">{r.groupRates.length ? r.groupRates.map((g) => `${g.rate}%`).join(", ") : "—"}</td>
                  <td>{r.taxShipping ? "Yes" : "No"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} pages={pages} label="Pages of tax regions" without={NOTICE_PARAMS} />
    </>
  );
}
