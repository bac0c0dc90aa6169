import { additionalFeeService } from "#worker/pricing";
import { PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { conflictAt, storedItem, moneyOrNull, numberOrRaw, pricingAction, text, ticked } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/fee";
import type { AdditionalFee } from "#web/components/console/pricing-items";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(
  ({ data: d }) => `${d?.fee ? d.fee.name : "New fee"} — Additional fees — Pricing — Console`,
);

/** One additional fee to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const fee = await storedItem<AdditionalFee>(additionalFeeService, context.services, params.id, "additionalFee");
  return { fee, currency: context.services.currency };
});

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
export const action = pricingAction({
  service: additionalFeeService,
  wrapper: F,
  listPath: "/console/pricing/fees",
  request: feeRequest,
  label: (v) => `fee “${text(v, `${F}.name`) || text(v, `${F}.code`) || "unnamed"}”`,
  // One input takes the amount or the percentage.
  fieldOf: (path, v) => fieldAt(v, { [`${F}.percentage`]: `${F}.amount` })(path),
  remap: conflictAt("DUPLICATE_FEE_CODE", `${F}.code`),
});

export default function PricingFee({ loaderData, actionData }: Route.ComponentProps) {
  const { fee: fe, currency } = loaderData;
  const {
    frame,
    text: typed,
    field,
    check,
  } = usePricingEditor(actionData, fe, {
    back: ["/console/pricing/fees", "Additional fees"],
    noun: "fee",
    fresh: "New additional fee",
  });
  return (
    <PricingEditor {...frame}>
      <div className="console-row">
        <Field {...field(`${F}.name`, fe?.name)} label="Name" hint="Shown to the shopper with the fee." />
        <Field {...field(`${F}.code`, fe?.code)} label="Code" hint="Letters, digits, - and _." autoComplete="off" spellCheck={false} />
        <Select
          {...field(`${F}.type`, fe?.type ?? "HANDLING_FEE")}
          label="Kind"
          options={[
            ["HANDLING_FEE", "Handling"],
            ["INSURANCE", "Insurance"],
          ]}
        />
      </div>
      <div className="console-row">
        <Select
          name="charge"
          label="Charge"
          defaultValue={typed("charge", fe?.percentage != null ? "PERCENT" : "AMOUNT")}
          options={[
            ["AMOUNT", `An amount (${currency})`],
            ["PERCENT", "A percent of the subtotal after discounts"],
          ]}
        />
        <Field
          {...field(`${F}.amount`, fe?.amount ?? fe?.percentage)}
          label="Amount or percent"
          inputMode="decimal"
          hint={`E.g. 2.50 (${currency}) or 3 (%).`}
        />
        <Field
          {...field(`${F}.minimumSubtotal`, fe?.minimumSubtotal)}
          label="From a subtotal of"
          inputMode="decimal"
          hint="After discounts; empty: every order."
        />
      </div>
      <Checkbox {...check(`${F}.active`, fe?.active ?? true)} label="On (charged at checkout)" />
    </PricingEditor>
  );
}
