import { discountRuleService } from "#worker/pricing";
import { isoToInput, PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { storedItem, moneyOrNull, numberOrRaw, pricingAction, text, ticked, utcOrRaw } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/discount";
import type { DiscountRule } from "#web/components/console/pricing-items";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(
  ({ data: d }) => `${d?.rule ? d.rule.name : "New discount rule"} — Pricing — Console`,
);

/** One discount rule to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const rule = await storedItem<DiscountRule>(discountRuleService, context.services, params.id, "discountRule");
  return { rule, currency: context.services.currency };
});

/** The products and collections of a SPECIFIC_ITEMS rule, carried through the form unchanged (they are set through the API). */
function itemsOf(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

const R = "discountRule";
/** The rule's one discount, and its trigger: the form's inputs are named by their paths. */
const V = `${R}.discounts.values[0]`;
const T = `${R}.trigger`;

/** The form's fields (named by API path) as the discount-rule service's request (worker/pricing/schemas.ts discountRuleInputSchema). */
function ruleRequest(v: Record<string, string>) {
  const type = text(v, `${V}.discountType`);
  const target = text(v, `${V}.targetType`);
  const value = text(v, `${V}.percentage`);
  const condition = text(v, `${T}.conditionType`);
  const from = text(v, `${T}.subtotalRange.from`);
  const to = text(v, `${T}.subtotalRange.to`);
  const trigger =
    condition === "SUBTOTAL_RANGE"
      ? { conditionType: condition, subtotalRange: { from: moneyOrNull(from), to: moneyOrNull(to) } }
      : condition === "ITEM_QUANTITY_RANGE"
        ? { conditionType: condition, itemQuantityRange: { from: numberOrRaw(from), to: numberOrRaw(to) } }
        : condition === "COUPON_CODE"
          ? { conditionType: condition, couponCode: { code: text(v, `${T}.couponCode.code`) } }
          : null;
  return {
    name: text(v, `${R}.name`),
    active: ticked(v, `${R}.active`),
    activeTimeInfo: { start: utcOrRaw(text(v, `${R}.activeTimeInfo.start`)), end: utcOrRaw(text(v, `${R}.activeTimeInfo.end`)) },
    discounts: {
      values: [
        {
          targetType: target,
          discountType: type,
          ...(type === "FIXED_AMOUNT" ? { fixedAmount: moneyOrNull(value) } : { percentage: numberOrRaw(value) }),
          ...(target === "SPECIFIC_ITEMS" ? { specificItemsInfo: itemsOf(v[`${V}.specificItemsInfo`] ?? "") } : {}),
        },
      ],
    },
    // Conditions combined with AND / OR are made through the API; the form keeps them unless another is chosen.
    ...(condition === "KEEP" ? {} : { trigger }),
  };
}

/** Where the paths no input is named by show: one input takes the percent or amount, one pair either range. */
const SHOWN_AT = {
  [`${R}.discounts`]: `${V}.percentage`,
  [`${V}.fixedAmount`]: `${V}.percentage`,
  [V]: `${V}.targetType`,
  [`${V}.specificItemsInfo`]: `${V}.targetType`,
  [T]: `${T}.conditionType`,
  [`${T}.itemQuantityRange.from`]: `${T}.subtotalRange.from`,
  [`${T}.itemQuantityRange.to`]: `${T}.subtotalRange.to`,
  [`${R}.activeTimeInfo`]: `${R}.activeTimeInfo.end`,
};

/** Create, save or delete through the discount-rule service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = pricingAction({
  service: discountRuleService,
  wrapper: R,
  listPath: "/console/pricing/discounts",
  request: ruleRequest,
  label: (v) => `discount rule “${text(v, `${R}.name`) || "unnamed"}”`,
  fieldOf: (path, v) => fieldAt(v, SHOWN_AT)(path),
});

export default function PricingDiscount({ loaderData, actionData }: Route.ComponentProps) {
  const { rule: r, currency } = loaderData;
  const { frame, field, check } = usePricingEditor(actionData, r, {
    back: ["/console/pricing/discounts", "Discount rules"],
    noun: "rule",
    fresh: "New discount rule",
  });
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
          <Select
            {...field(`${V}.discountType`, d?.discountType ?? "PERCENTAGE")}
            label="Kind"
            options={[
              ["PERCENTAGE", "Percent off"],
              ["FIXED_AMOUNT", `Amount off (${currency})`],
            ]}
          />
          <Field
            {...field(`${V}.percentage`, d?.percentage ?? d?.fixedAmount)}
            label="Percent or amount"
            inputMode="decimal"
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
          <Field
            {...field(`${T}.subtotalRange.from`, from)}
            label="From"
            inputMode="decimal"
            hint={`Subtotal in ${currency}, or a number of items; empty: no lower bound.`}
          />
          <Field {...field(`${T}.subtotalRange.to`, to)} label="To" inputMode="decimal" hint="Empty: no upper bound." />
        </div>
        <Field
          {...field(`${T}.couponCode.code`, t?.couponCode?.code)}
          label="Code"
          hint="Only for “The shopper enters a code”."
          autoComplete="off"
          spellCheck={false}
        />
      </fieldset>
      <div className="console-row">
        <Field
          {...field(`${R}.activeTimeInfo.start`, isoToInput(r?.activeTimeInfo.start))}
          type="datetime-local"
          label="Starts (UTC)"
          hint="Empty: now. A later start schedules the rule."
        />
        <Field
          {...field(`${R}.activeTimeInfo.end`, isoToInput(r?.activeTimeInfo.end))}
          type="datetime-local"
          label="Ends (UTC)"
          hint="Empty: no end."
        />
      </div>
      <Checkbox {...check(`${R}.active`, r?.active ?? true)} label="On" />
    </PricingEditor>
  );
}
