import { additionalFeeService } from "#worker/pricing";
import { PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { ADDITIONAL_FEE, editorMeta } from "#web/components/console/pricing/editors";
import { editAction, editLoader } from "#web/components/console/pricing/editors.server";
import { DecimalField, KindAndAmount } from "#web/components/console/pricing/fields";
import { conflictAt, moneyOrNull, numberOrRaw, text, ticked } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/fee";
import type { AdditionalFee } from "#web/components/console/pricing-items";

const FEE_KINDS = [
  ["HANDLING_FEE", "Handling"],
  ["INSURANCE", "Insurance"],
] as const;

export const meta = editorMeta(ADDITIONAL_FEE);

/** One additional fee to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = editLoader<AdditionalFee>(additionalFeeService, "additionalFee");

const F = "additionalFee";

/** The form's fields (named by API path) as the additional-fee service's request (worker/pricing/schemas.ts additionalFeeInputSchema). */
function feeRequest(v: Record<string, string>) {
  const value = text(v, `${F}.amount`);
  return {
    code: text(v, `${F}.code`),
    name: text(v, `${F}.name`),
    type: text(v, `${F}.type`),
    active: ticked(v, `${F}.active`),
    minimumSubtotal: moneyOrNull(text(v, `${F}.minimumSubtotal`)),
    ...(text(v, "charge") === "PERCENT" ? { percentage: numberOrRaw(value) } : { amount: moneyOrNull(value) }),
  };
}

/** Create, save or delete through the additional-fee service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = editAction(additionalFeeService, F, ADDITIONAL_FEE, {
  request: feeRequest,
  label: (v) => `fee “${text(v, `${F}.name`) || text(v, `${F}.code`) || "unnamed"}”`,
  // One input takes the amount or the percentage.
  fieldOf: (path, v) => fieldAt(v, { [`${F}.percentage`]: `${F}.amount` })(path),
  remap: conflictAt("DUPLICATE_FEE_CODE", `${F}.code`),
});

export default function PricingFee({ loaderData, actionData }: Route.ComponentProps) {
  const { item: fe, currency } = loaderData;
  const { frame, field, check } = usePricingEditor(actionData, fe, ADDITIONAL_FEE);
  return (
    <PricingEditor {...frame}>
      <div className="console-row">
        <Field {...field(`${F}.name`, fe?.name)} label="Name" hint="Shown to the shopper with the fee." />
        <Field {...field(`${F}.code`, fe?.code)} label="Code" hint="Letters, digits, - and _." autoComplete="off" spellCheck={false} />
        <Select {...field(`${F}.type`, fe?.type ?? "HANDLING_FEE")} label="Kind" options={FEE_KINDS} />
      </div>
      <div className="console-row">
        <KindAndAmount
          kind={field("charge", fe?.percentage != null ? "PERCENT" : "AMOUNT")}
          kindLabel="Charge"
          kinds={[
            ["AMOUNT", `An amount (${currency})`],
            ["PERCENT", "A percent of the subtotal after discounts"],
          ]}
          amount={field(`${F}.amount`, fe?.amount ?? fe?.percentage)}
          amountLabel="Amount or percent"
          hint={`E.g. 2.50 (${currency}) or 3 (%).`}
        />
        <DecimalField
          {...field(`${F}.minimumSubtotal`, fe?.minimumSubtotal)}
          label="From a subtotal of"
          hint="After discounts; empty: every order."
        />
      </div>
      <Checkbox {...check(`${F}.active`, fe?.active ?? true)} label="On (charged at checkout)" />
    </PricingEditor>
  );
}
