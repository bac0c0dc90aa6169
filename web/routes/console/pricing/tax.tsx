import { data, Link } from "react-router";
import { z } from "zod";
import { parseWith } from "#worker/platform/validation";
import { getPricingSettings, pricingSettingsPatchSchema, taxRegionService, updatePricingSettings } from "#worker/pricing";
import type { Problem } from "#web/components/ui/form";
import { KindList, TAX_REGIONS } from "#web/components/console/pricing/lists";
import { noticeOf, pageOf, postedValues, queryPage, text, ticked } from "#web/components/console/pricing.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import type { TaxRegion } from "#web/components/console/pricing-items";
import type { Route } from "./+types/tax";
import { TaxSettings } from "./tax-settings";

export const meta = consoleMeta("Tax — Pricing — Console");

const PAGE_SIZE = 25;

/** The tax settings and the tax regions, 25 a page (3 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const url = new URL(request.url);
  const [regions, { settings }] = await Promise.all([
    queryPage<TaxRegion>(taxRegionService, context.services, "taxRegions", pageOf(url), PAGE_SIZE),
    getPricingSettings(context.services),
  ]);
  return { ...regions, settings: { pricesIncludeTax: settings.pricesIncludeTax, taxableAddress: settings.taxableAddress }, notice: noticeOf(url) };
});

/** "Prices include tax" and which address picks the tax region: the pricing settings service, as PATCH /api/v1/pricing-settings. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const values = postedValues(await request.formData());
  try {
    const { settings } = parseWith(z.object({ settings: pricingSettingsPatchSchema }), {
      settings: { pricesIncludeTax: ticked(values, "settings.pricesIncludeTax"), taxableAddress: text(values, "settings.taxableAddress") },
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
});

export default function PricingTax({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <KindList
      kind={TAX_REGIONS}
      list={loaderData}
      notice={actionData?.ok}
      before={
        <>
          <h2>Tax settings</h2>
          <TaxSettings settings={loaderData.settings} actionData={actionData} />
        </>
      }
      more={
        <>
          {" "}
          <Link to="/console/pricing/tax/groups">Tax groups</Link> give some products a rate of their own.
        </>
      }
    />
  );
}
