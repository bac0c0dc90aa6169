import { taxGroupService, taxRegionService } from "#worker/pricing";
import { consoleTitle } from "#web/components/console/title";
import type { Problem } from "#web/components/ui/form";
import { PricingEditor, usePricingEditor, type FieldPlaces } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { conflictAt, itemOf, listOf, numberOrRaw, queryPage, saveOrDelete, text, ticked } from "#web/components/console/pricing.server";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax-region";
import type { TaxRegion } from "./tax";
import type { TaxGroup } from "./tax-groups";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, `${d?.region ? d.region.name : "New tax region"} — Tax — Pricing — Console`) }];
}

export const headers = () => consoleHeaders;

/** Tax groups are few; a region's form offers a rate for each of the first 100. */
const GROUPS = 100;

/** One tax region to edit ("new": a blank one) and the tax groups it can rate (3 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const [region, groups] = await Promise.all([
    params.id === "new" ? null : orRefuse(taxRegionService.get(context.services, params.id)).then((r) => itemOf<TaxRegion>(r, "taxRegion")),
    queryPage<TaxGroup>(taxGroupService, context.services, "taxGroups", 1, GROUPS),
  ]);
  return { region, groups: groups.items.map((g) => ({ id: g.id, name: g.name })) };
}

/** The groups with a rate typed, in form order: `groups` lists the form's group ids, each rate is `g-<id>`. */
function ratedGroups(v: Record<string, string>): string[] {
  return listOf(v.groups ?? "").filter((id) => text(v, `g-${id}`) !== "");
}

/** The form's fields as the tax-region service's request (worker/pricing/schemas.ts taxRegionInputSchema). */
function regionRequest(v: Record<string, string>) {
  return {
    name: text(v, "name") || null,
    country: text(v, "country"),
    subdivision: text(v, "subdivision") || null,
    defaultRate: numberOrRaw(text(v, "rate")),
    groupRates: ratedGroups(v).map((id) => ({ taxGroupId: id, rate: numberOrRaw(text(v, `g-${id}`)) })),
    taxShipping: ticked(v, "taxShipping"),
    calculation: text(v, "calculation"),
  };
}

/** The service names a group rate by its place among the rated groups; the form, by the group. */
function toGroupFields(problem: Problem, v: Record<string, string>) {
  conflictAt("DUPLICATE_TAX_REGION", "taxRegion.country")(problem);
  const rated = ratedGroups(v);
  problem.fields = Object.fromEntries(
    Object.entries(problem.fields).map(([path, message]) => {
      const m = /^taxRegion\.groupRates\[(\d+)\]/.exec(path);
      return [m && rated[Number(m[1])] ? `taxRegion.groupRate.${rated[Number(m[1])]}` : path, message];
    }),
  );
}

/** Create, save or delete through the tax-region service the API calls (settings.manage; 400 and 409 write nothing). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  return saveOrDelete({
    ctx: context.services,
    form: await request.formData(),
    id: params.id,
    service: taxRegionService,
    wrapper: "taxRegion",
    listPath: "/console/pricing/tax",
    request: regionRequest,
    label: (v) => `tax region ${text(v, "subdivision") || text(v, "country") || ""}`.trim(),
    remap: toGroupFields,
  });
}

export default function PricingTaxRegion({ loaderData, actionData }: Route.ComponentProps) {
  const { region: r, groups } = loaderData;
  const places: FieldPlaces = [
    ["taxRegion.name", "tr-name"],
    ["taxRegion.country", "tr-country"],
    ["taxRegion.subdivision", "tr-subdivision"],
    ["taxRegion.defaultRate", "tr-rate"],
    ["taxRegion.taxShipping", "tr-shipping"],
    ["taxRegion.calculation", "tr-calculation"],
    ...groups.map((g) => [`taxRegion.groupRate.${g.id}*`, `tr-g-${g.id}`] as const),
  ];
  const { result, canWrite, fieldIds, field, check } = usePricingEditor(actionData, places);
  const title = r ? r.name : "New tax region";
  return (
    <PricingEditor
      back={["/console/pricing/tax", "Tax"]}
      title={title}
      result={result}
      fieldIds={fieldIds}
      revision={r?.revision ?? null}
      canWrite={canWrite}
      submitLabel={r ? "Save tax region" : "Create tax region"}
      deleteWhat={r ? `tax region ${r.name}` : null}
    >
      <div className="console-row">
        <Field {...field("tr-country", "country", r?.country)} label="Country" hint="Two-letter code, e.g. US." autoComplete="off" />
        <Field
          {...field("tr-subdivision", "subdivision", r?.subdivision)}
          label="State or province"
          hint="Optional, e.g. US-CA; empty: the whole country."
          autoComplete="off"
        />
        <Field {...field("tr-name", "name", r?.name)} label="Name" hint="Optional; the place's code if empty." />
      </div>
      <div className="console-row">
        <Field
          {...field("tr-rate", "rate", r?.defaultRate)}
          label="Tax rate (%)"
          inputMode="decimal"
          hint="For products in no tax group, e.g. 8.25."
        />
        <Select
          {...field("tr-calculation", "calculation", r?.calculation ?? "DEFAULT")}
          label="Calculation"
          options={[
            ["DEFAULT", "As the store is set"],
            ["MANUAL", "Always these rates"],
          ]}
        />
      </div>
      <Checkbox {...check("tr-shipping", "taxShipping", r?.taxShipping ?? false)} label="Tax shipping too" />
      <input type="hidden" name="groups" value={groups.map((g) => g.id).join(",")} />
      {groups.length > 0 && (
        <fieldset>
          <legend>Rates of tax groups</legend>
          <p className="hint console-muted">Empty: the group's products pay the rate above.</p>
          <div className="console-row">
            {groups.map((g) => (
              <Field
                key={g.id}
                {...field(`tr-g-${g.id}`, `g-${g.id}`, r?.groupRates.find((x) => x.taxGroupId === g.id)?.rate)}
                label={`${g.name} (%)`}
                inputMode="decimal"
              />
            ))}
          </div>
        </fieldset>
      )}
    </PricingEditor>
  );
}
