import { shippingRegionService } from "#worker/pricing";
import { consoleTitle } from "#web/components/console/title";
import type { Problem } from "#web/components/ui/form";
import { PricingEditor, usePricingEditor, type FieldPlaces } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { itemOf, listOf, moneyOrNull, saveOrDelete, text, ticked, type PricingActionData } from "#web/components/console/pricing.server";
import { orRefuse } from "#web/components/console/problem.server";
import { isBlankOption, isBlankRule, rowsFromOptions, rowsFromValues, type OptionRow } from "#web/components/console/shipping-rows";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/shipping-region";
import type { ShippingRegion } from "./shipping";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, `${d?.region ? d.region.name : "New shipping region"} — Shipping — Pricing — Console`) }];
}

export const headers = () => consoleHeaders;

/** One shipping region to edit ("new": a blank one). 2 D1 round trips with the session. */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const region =
    params.id === "new" ? null : itemOf<ShippingRegion>(await orRefuse(shippingRegionService.get(context.services, params.id)), "shippingRegion");
  return { region, currency: context.services.currency };
}

function kept(raw: string): Record<string, unknown> {
  try {
    const value = JSON.parse(raw) as Record<string, unknown> | null;
    if (!value || typeof value !== "object") return {};
    return Object.fromEntries(
      Object.entries(value).filter(([k, x]) => ["instructions", "deliveryTimeSlot", "pickupDetails"].includes(k) && x !== null),
    );
  } catch {
    return {};
  }
}

/** The rows that go into the request (not blank, not removed), with where each came from in the form. */
function usedRows(v: Record<string, string>) {
  return rowsFromValues(v)
    .map((row, at) => ({ row, at, rules: row.rules.map((rule, ruleAt) => ({ rule, at: ruleAt })).filter(({ rule }) => !isBlankRule(rule)) }))
    .filter(({ row }) => !row.remove && !isBlankOption(row));
}

/** The form's fields as the shipping-region service's request (worker/pricing/schemas.ts shippingRegionInputSchema). */
function regionRequest(v: Record<string, string>) {
  const world = ticked(v, "restOfWorld");
  return {
    name: text(v, "name"),
    countries: listOf(text(v, "countries")),
    subdivisions: listOf(text(v, "subdivisions")),
    restOfWorld: world,
    options: usedRows(v).map(({ row, rules }) => ({
      ...kept(row.keep),
      code: row.code.trim(),
      title: row.title.trim(),
      kind: row.kind,
      deliveryTime: row.time.trim() || null,
      ...(row.rate.trim() ? { rate: moneyOrNull(row.rate.trim()) } : {}),
      freeShippingThreshold: moneyOrNull(row.free.trim()),
      rules: rules.map(({ rule }) => ({ basis: rule.basis, operator: rule.op, value: rule.value.trim(), rate: moneyOrNull(rule.rate.trim()) })),
    })),
  };
}

/** The service names options and rules by their place in the request; the form, by their row (blank rows were skipped). */
function toFormRows(problem: Problem, v: Record<string, string>) {
  const used = usedRows(v);
  const fields: Record<string, string> = {};
  for (const [path, message] of Object.entries(problem.fields)) {
    const m = /^shippingRegion\.options\[(\d+)\](?:\.rules\[(\d+)\])?(.*)$/.exec(path);
    const option = m ? used[Number(m[1])] : undefined;
    if (!m || !option) {
      fields[path] = message;
      continue;
    }
    const rule = m[2] !== undefined ? option.rules[Number(m[2])] : undefined;
    fields[`shippingRegion.options[${option.at}]${rule ? `.rules[${rule.at}]` : ""}${m[3]}`] = message;
  }
  problem.fields = fields;
}

/** Create, save or delete through the shipping-region service the API calls (settings.manage; 400 and 409 write nothing). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  return saveOrDelete({
    ctx: context.services,
    form: await request.formData(),
    id: params.id,
    service: shippingRegionService,
    wrapper: "shippingRegion",
    listPath: "/console/pricing/shipping",
    request: regionRequest,
    label: (v) => `shipping region “${text(v, "name") || "unnamed"}”`,
    remap: toFormRows,
  });
}

function placesFor(rows: OptionRow[]): FieldPlaces {
  const places: [string, string][] = [
    ["shippingRegion.name", "sr-name"],
    ["shippingRegion.countries*", "sr-countries"],
    ["shippingRegion.subdivisions*", "sr-subdivisions"],
    ["shippingRegion.restOfWorld", "sr-world"],
  ];
  rows.forEach((row, i) => {
    const o = `shippingRegion.options[${i}]`;
    places.push([`${o}.code`, `o${i}-code`], [`${o}.title`, `o${i}-title`], [`${o}.kind`, `o${i}-kind`], [`${o}.pickupDetails*`, `o${i}-kind`]);
    places.push(
      [`${o}.deliveryTime`, `o${i}-time`],
      [`${o}.rate`, `o${i}-rate`],
      [`${o}.freeShippingThreshold`, `o${i}-free`],
      [`${o}*`, `o${i}-code`],
    );
    row.rules.forEach((_r, j) => {
      const r = `${o}.rules[${j}]`;
      places.push(
        [`${r}.basis`, `o${i}-r${j}-basis`],
        [`${r}.operator`, `o${i}-r${j}-op`],
        [`${r}.rate`, `o${i}-r${j}-rate`],
        [`${r}*`, `o${i}-r${j}-value`],
      );
    });
  });
  return places;
}

const BASES = [
  ["WEIGHT", "Weight (kg)"],
  ["PRICE", "Subtotal"],
  ["QUANTITY", "Number of items"],
] as const;
const OPERATORS = [
  ["GT", "more than"],
  ["GTE", "at least"],
  ["LT", "less than"],
  ["LTE", "at most"],
  ["EQ", "exactly"],
] as const;

export default function PricingShippingRegion({ loaderData, actionData }: Route.ComponentProps) {
  const { region: r, currency } = loaderData;
  const typed = (actionData as PricingActionData | undefined)?.values;
  const rows = typed ? rowsFromValues(typed) : rowsFromOptions(r?.options ?? []);
  const { result, canWrite, byId, fieldIds, field, check } = usePricingEditor(actionData, placesFor(rows));
  const title = r ? r.name : "New shipping region";
  return (
    <PricingEditor
      back={["/console/pricing/shipping", "Shipping"]}
      title={title}
      result={result}
      fieldIds={fieldIds}
      revision={r?.revision ?? null}
      canWrite={canWrite}
      submitLabel={r ? "Save region" : "Create region"}
      deleteWhat={r ? `region “${r.name}”` : null}
    >
      <Field {...field("sr-name", "name", r?.name)} label="Name" />
      <div className="console-row">
        <Field
          {...field("sr-countries", "countries", r?.countries.join(", "))}
          label="Countries"
          hint="Two-letter codes separated by commas: US, CA."
          autoComplete="off"
        />
        <Field
          {...field("sr-subdivisions", "subdivisions", r?.subdivisions.join(", "))}
          label="Only these states or provinces"
          hint="Optional, e.g. US-CA, US-OR; empty: the whole of each country."
          autoComplete="off"
        />
      </div>
      <Checkbox
        {...check("sr-world", "restOfWorld", r?.restOfWorld ?? false)}
        label="Rest of the world (every destination no other region lists; leave the countries empty)"
      />
      <input type="hidden" name="optionRows" value={rows.length} />
      {rows.map((o, i) => (
        <fieldset key={i} className="pricing-option">
          <legend>{o.code || o.title ? `Option ${o.title || o.code}` : "Add an option"}</legend>
          <div className="console-row">
            <Field
              id={`o${i}-code`}
              name={`o${i}-code`}
              label="Code"
              defaultValue={o.code}
              error={byId[`o${i}-code`]}
              autoComplete="off"
              spellCheck={false}
            />
            <Field
              id={`o${i}-title`}
              name={`o${i}-title`}
              label="Title"
              defaultValue={o.title}
              error={byId[`o${i}-title`]}
              hint="What the shopper picks."
            />
            <Select
              id={`o${i}-kind`}
              name={`o${i}-kind`}
              label="Kind"
              defaultValue={o.kind}
              error={byId[`o${i}-kind`]}
              options={[
                ["DELIVERY", "Delivery"],
                ["PICKUP", "Pickup (address set through the API)"],
              ]}
            />
          </div>
          <div className="console-row">
            <Field
              id={`o${i}-rate`}
              name={`o${i}-rate`}
              label="Rate"
              defaultValue={o.rate}
              error={byId[`o${i}-rate`]}
              inputMode="decimal"
              hint={`In ${currency}, when no rule matches.`}
            />
            <Field
              id={`o${i}-free`}
              name={`o${i}-free`}
              label="Free from"
              defaultValue={o.free}
              error={byId[`o${i}-free`]}
              inputMode="decimal"
              hint="Subtotal after discounts; empty: never free."
            />
            <Field
              id={`o${i}-time`}
              name={`o${i}-time`}
              label="Delivery time"
              defaultValue={o.time}
              error={byId[`o${i}-time`]}
              hint="E.g. 3–5 business days."
            />
          </div>
          <input type="hidden" name={`o${i}-keep`} value={o.keep} />
          <input type="hidden" name={`o${i}-ruleRows`} value={o.rules.length} />
          <div className="pricing-rules" role="group" aria-labelledby={`o${i}-rules-title`}>
            <p id={`o${i}-rules-title`} className="console-label">
              Rules: the first that matches sets the rate (leave a row empty to add none)
            </p>
            {o.rules.map((rule, j) => (
              <div key={j} className="pricing-rule">
                <Select
                  id={`o${i}-r${j}-basis`}
                  name={`o${i}-r${j}-basis`}
                  label={`Rule ${j + 1}: when`}
                  defaultValue={rule.basis}
                  error={byId[`o${i}-r${j}-basis`]}
                  options={BASES}
                />
                <Select
                  id={`o${i}-r${j}-op`}
                  name={`o${i}-r${j}-op`}
                  label="is"
                  defaultValue={rule.op}
                  error={byId[`o${i}-r${j}-op`]}
                  options={OPERATORS}
                />
                <Field
                  id={`o${i}-r${j}-value`}
                  name={`o${i}-r${j}-value`}
                  label="Value"
                  defaultValue={rule.value}
                  error={byId[`o${i}-r${j}-value`]}
                  inputMode="decimal"
                />
                <Field
                  id={`o${i}-r${j}-rate`}
                  name={`o${i}-r${j}-rate`}
                  label="Rate"
                  defaultValue={rule.rate}
                  error={byId[`o${i}-r${j}-rate`]}
                  inputMode="decimal"
                />
              </div>
            ))}
          </div>
          {!isBlankOption(o) && <Checkbox id={`o${i}-remove`} name={`o${i}-remove`} label="Remove this option" defaultChecked={o.remove} />}
        </fieldset>
      ))}
    </PricingEditor>
  );
}
