import { taxGroupService, taxRegionService } from "#worker/pricing";
import type { Ctx } from "#worker/platform/context";
import { editorMeta, TAX_REGION } from "#web/components/console/pricing/editors";
import { editAction, editLoader } from "#web/components/console/pricing/editors.server";
import { DecimalField } from "#web/components/console/pricing/fields";
import { PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { conflictAt, numberOrRaw, queryPage, text, ticked } from "#web/components/console/pricing.server";
import { atRow, fieldAt } from "#web/components/ui/form.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax-region";
import type { TaxRegion } from "#web/components/console/pricing-items";
import type { TaxGroup } from "#web/components/console/pricing-items";

/** Tax groups are few; a region's form offers a rate for each of the first 100. */
const GROUPS = 100;

/** The tax groups a region can rate. */
async function groupsOf(ctx: Ctx) {
  const groups = await queryPage<TaxGroup>(taxGroupService, ctx, "taxGroups", 1, GROUPS);
  return { groups: groups.items.map((g) => ({ id: g.id, name: g.name })) };
}

const CALCULATIONS = [
  ["DEFAULT", "As the store is set"],
  ["MANUAL", "Always these rates"],
] as const;

export const meta = editorMeta(TAX_REGION);

/** One tax region to edit ("new": a blank one) and the tax groups it can rate (3 D1 round trips with the session). */
export const loader = editLoader<TaxRegion, Awaited<ReturnType<typeof groupsOf>>>(taxRegionService, "taxRegion", groupsOf);

const TR = "taxRegion";
const RATES = `${TR}.groupRates`;

/** The form's rows of group rates (each `taxRegion.groupRates[i]`, its group's id hidden) with a rate typed. */
function ratedRows(v: Record<string, string>): { at: number; taxGroupId: string; rate: string }[] {
  const rows: { at: number; taxGroupId: string; rate: string }[] = [];
  for (let at = 0; `${RATES}[${at}].taxGroupId` in v; at++)
    rows.push({ at, taxGroupId: text(v, `${RATES}[${at}].taxGroupId`), rate: text(v, `${RATES}[${at}].rate`) });
  return rows.filter((r) => r.rate !== "");
}

/** The form's fields (named by API path) as the tax-region service's request (worker/pricing/schemas.ts taxRegionInputSchema). */
function regionRequest(v: Record<string, string>) {
  return {
    name: text(v, `${TR}.name`) || null,
    country: text(v, `${TR}.country`),
    subdivision: text(v, `${TR}.subdivision`) || null,
    defaultRate: numberOrRaw(text(v, `${TR}.defaultRate`)),
    groupRates: ratedRows(v).map((r) => ({ taxGroupId: r.taxGroupId, rate: numberOrRaw(r.rate) })),
    taxShipping: ticked(v, `${TR}.taxShipping`),
    calculation: text(v, `${TR}.calculation`),
  };
}

/** The service names a group rate by its place among the rated groups; the form, by its row, at the rate. */
function regionField(path: string, v: Record<string, string>) {
  const rows = ratedRows(v).map((r) => r.at);
  const shownAt = Object.fromEntries(rows.flatMap((at) => [`${RATES}[${at}]`, `${RATES}[${at}].taxGroupId`].map((p) => [p, `${RATES}[${at}].rate`])));
  return fieldAt(v, shownAt)(atRow(path, RATES, rows));
}

/** Create, save or delete through the tax-region service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = editAction(taxRegionService, TR, TAX_REGION, {
  request: regionRequest,
  label: (v) => `tax region ${text(v, `${TR}.subdivision`) || text(v, `${TR}.country`) || ""}`.trim(),
  fieldOf: regionField,
  remap: conflictAt("DUPLICATE_TAX_REGION", `${TR}.country`),
});

export default function PricingTaxRegion({ loaderData, actionData }: Route.ComponentProps) {
  const { item: r, groups } = loaderData;
  const { frame, field, check } = usePricingEditor(actionData, r, TAX_REGION);
  return (
    <PricingEditor {...frame}>
      <div className="console-row">
        <Field {...field(`${TR}.country`, r?.country)} label="Country" hint="Two-letter code, e.g. US." autoComplete="off" />
        <Field
          {...field(`${TR}.subdivision`, r?.subdivision)}
          label="State or province"
          hint="Optional, e.g. US-CA; empty: the whole country."
          autoComplete="off"
        />
        <Field {...field(`${TR}.name`, r?.name)} label="Name" hint="Optional; the place's code if empty." />
      </div>
      <div className="console-row">
        <DecimalField {...field(`${TR}.defaultRate`, r?.defaultRate)} label="Tax rate (%)" hint="For products in no tax group, e.g. 8.25." />
        <Select {...field(`${TR}.calculation`, r?.calculation ?? "DEFAULT")} label="Calculation" options={CALCULATIONS} />
      </div>
      <Checkbox {...check(`${TR}.taxShipping`, r?.taxShipping ?? false)} label="Tax shipping too" />
      {groups.map((g, i) => (
        <input key={g.id} type="hidden" name={`${RATES}[${i}].taxGroupId`} value={g.id} />
      ))}
      {groups.length > 0 && (
        <fieldset>
          <legend>Rates of tax groups</legend>
          <p className="hint console-muted">Empty: the group's products pay the rate above.</p>
          <div className="console-row">
            {groups.map((g, i) => (
              <DecimalField
                key={g.id}
                {...field(`${RATES}[${i}].rate`, r?.groupRates.find((x) => x.taxGroupId === g.id)?.rate)}
                label={`${g.name} (%)`}
              />
            ))}
          </div>
        </fieldset>
      )}
    </PricingEditor>
  );
}
