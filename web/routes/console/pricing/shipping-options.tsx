import { Checkbox, Field, Select } from "#web/components/ui/form";
import { isBlankOption, optionPath, rulePath, type OptionRow } from "#web/components/console/shipping-rows";

/** One option row of the shipping region form and its rules rows, each input named by its API path. */

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

/** An option's fields (`field` gives an input its name, value and error, as useEditor's), its rules, and Remove. */
export function OptionFields({
  row: o,
  at: i,
  currency,
  field,
}: {
  row: OptionRow;
  at: number;
  currency: string;
  field: (path: string, stored: string) => { id: string; name: string; defaultValue: string; error: string | undefined };
}) {
  const p = optionPath(i);
  return (
    <fieldset className="pricing-option">
      <legend>{o.code || o.title ? `Option ${o.title || o.code}` : "Add an option"}</legend>
      <div className="console-row">
        <Field {...field(`${p}.code`, o.code)} label="Code" autoComplete="off" spellCheck={false} />
        <Field {...field(`${p}.title`, o.title)} label="Title" hint="What the shopper picks." />
        <Select
          {...field(`${p}.kind`, o.kind)}
          label="Kind"
          options={[
            ["DELIVERY", "Delivery"],
            ["PICKUP", "Pickup (address set through the API)"],
          ]}
        />
      </div>
      <div className="console-row">
        <Field {...field(`${p}.rate`, o.rate)} label="Rate" inputMode="decimal" hint={`In ${currency}, when no rule matches.`} />
        <Field
          {...field(`${p}.freeShippingThreshold`, o.freeShippingThreshold)}
          label="Free from"
          inputMode="decimal"
          hint="Subtotal after discounts; empty: never free."
        />
        <Field {...field(`${p}.deliveryTime`, o.deliveryTime)} label="Delivery time" hint="E.g. 3–5 business days." />
      </div>
      <input type="hidden" name={`o${i}-keep`} value={o.keep} />
      <input type="hidden" name={`o${i}-ruleRows`} value={o.rules.length} />
      <div className="pricing-rules" role="group" aria-labelledby={`o${i}-rules-title`}>
        <p id={`o${i}-rules-title`} className="console-label">
          Rules: the first that matches sets the rate (leave a row empty to add none)
        </p>
        {o.rules.map((rule, j) => (
          <div key={j} className="pricing-rule">
            <Select {...field(`${rulePath(i, j)}.basis`, rule.basis)} label={`Rule ${j + 1}: when`} options={BASES} />
            <Select {...field(`${rulePath(i, j)}.operator`, rule.operator)} label="is" options={OPERATORS} />
            <Field {...field(`${rulePath(i, j)}.value`, rule.value)} label="Value" inputMode="decimal" />
            <Field {...field(`${rulePath(i, j)}.rate`, rule.rate)} label="Rate" inputMode="decimal" />
          </div>
        ))}
      </div>
      {!isBlankOption(o) && <Checkbox id={`o${i}-remove`} name={`o${i}-remove`} label="Remove this option" defaultChecked={o.remove} />}
    </fieldset>
  );
}
