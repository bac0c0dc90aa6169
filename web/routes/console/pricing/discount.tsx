import { discountRuleService } from "#worker/pricing";
import { isoToInput, PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { DISCOUNT_RULE, editorMeta } from "#web/components/console/pricing/editors";
import { editAction, editLoader } from "#web/components/console/pricing/editors.server";
import { DecimalField, KindAndAmount, TimeWindow } from "#web/components/console/pricing/fields";
import { text } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import { R, T, V } from "./discount-paths";
import { ruleRequest, SHOWN_AT } from "./discount.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/discount";
import type { DiscountRule } from "#web/components/console/pricing-items";

export const meta = editorMeta(DISCOUNT_RULE);

/** One discount rule to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = editLoader<DiscountRule>(discountRuleService, "discountRule");

/** Create, save or delete through the discount-rule service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = editAction(discountRuleService, R, DISCOUNT_RULE, {
  request: ruleRequest,
  label: (v) => `discount rule “${text(v, `${R}.name`) || "unnamed"}”`,
  fieldOf: (path, v) => fieldAt(v, SHOWN_AT)(path),
});

export default function PricingDiscount({ loaderData, actionData }: Route.ComponentProps) {
  const { item: r, currency } = loaderData;
  const { frame, field, check } = usePricingEditor(actionData, r, DISCOUNT_RULE);
  const d = r?.discounts.values[0];
  const t = r?.trigger;
  const condition = !t ? "NONE" : t.conditionType === "AND" || t.conditionType === "OR" ? "KEEP" : t.conditionType;
  const from = t?.subtotalRange?.from ?? t?.itemQuantityRange?.from ?? null;
  const to = t?.subtotalRange?.to ?? t?.itemQuantityRange?.to ?? null;
  const targets: [string, string][] = [
    ["GLOBAL", "The whole order"],
    ["SHIPPING", "Shipping"],
  ];
  if (d?.targetType === "SPECIFIC_ITEMS")
    targets.push([
      "SPECIFIC_ITEMS",
      `Some items (${d.specificItemsInfo?.catalogItemIds.length ?? 0} products, ${d.specificItemsInfo?.collectionIds.length ?? 0} collections)`,
    ]);
  const conditions: [string, string][] = [
    ["NONE", "Always"],
    ["SUBTOTAL_RANGE", "Subtotal between"],
    ["ITEM_QUANTITY_RANGE", "Number of items between"],
    ["COUPON_CODE", "The shopper enters a code"],
  ];
  if (condition === "KEEP") conditions.push(["KEEP", "Several conditions (set through the API): keep them"]);
  return (
    <PricingEditor
      {...frame}
      note={
        r && (
          <p className="console-muted">
            Applied to {r.usageCount} {r.usageCount === 1 ? "order" : "orders"} so far.
          </p>
        )
      }
    >
      <Field {...field(`${R}.name`, r?.name)} label="Name" hint="Shoppers see it next to the discount on their cart." />
      <fieldset>
        <legend>Discount</legend>
        <div className="console-row">
          <KindAndAmount
            kind={field(`${V}.discountType`, d?.discountType ?? "PERCENTAGE")}
            kindLabel="Kind"
            kinds={[
              ["PERCENTAGE", "Percent off"],
              ["FIXED_AMOUNT", `Amount off (${currency})`],
            ]}
            amount={field(`${V}.percentage`, d?.percentage ?? d?.fixedAmount)}
            amountLabel="Percent or amount"
            hint={`A percent (15) or an amount in ${currency} (5.00).`}
          />
          <Select {...field(`${V}.targetType`, d?.targetType ?? "GLOBAL")} label="Taken off" options={targets} />
        </div>
        {d?.targetType === "SPECIFIC_ITEMS" && (
          <input type="hidden" name={`${V}.specificItemsInfo`} value={JSON.stringify(d.specificItemsInfo ?? {})} />
        )}
      </fieldset>
      <fieldset>
        <legend>Condition</legend>
        <div className="console-row">
          <Select {...field(`${T}.conditionType`, condition)} label="Applies when" options={conditions} />
          <DecimalField
            {...field(`${T}.subtotalRange.from`, from)}
            label="From"
            hint={`Subtotal in ${currency}, or a number of items; empty: no lower bound.`}
          />
          <DecimalField {...field(`${T}.subtotalRange.to`, to)} label="To" hint="Empty: no upper bound." />
        </div>
        <Field
          {...field(`${T}.couponCode.code`, t?.couponCode?.code)}
          label="Code"
          hint="Only for “The shopper enters a code”."
          autoComplete="off"
          spellCheck={false}
        />
      </fieldset>
      <TimeWindow
        start={field(`${R}.activeTimeInfo.start`, isoToInput(r?.activeTimeInfo.start))}
        end={field(`${R}.activeTimeInfo.end`, isoToInput(r?.activeTimeInfo.end))}
        labels={["Starts (UTC)", "Ends (UTC)"]}
        startHint="Empty: now. A later start schedules the rule."
      />
      <Checkbox {...check(`${R}.active`, r?.active ?? true)} label="On" />
    </PricingEditor>
  );
}
