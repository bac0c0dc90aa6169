import { discountRuleService } from "#worker/pricing";
import { PricingEditor, usePricingEditor, isoToInput, type FieldPlaces } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { itemOf, moneyOrNull, numberOrRaw, saveOrDelete, text, ticked, utcOrRaw } from "#web/components/console/pricing.server";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/discount";
import type { DiscountRule } from "./discounts";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, `${d?.rule ? d.rule.name : "New discount rule"} — Pricing — Console`) }];
}

export const headers = () => consoleHeaders;

/** One discount rule to edit ("new": a blank one). 2 D1 round trips with the session. */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const rule =
    params.id === "new" ? null : itemOf<DiscountRule>(await orRefuse(discountRuleService.get(context.services, params.id)), "discountRule");
  return { rule, currency: context.services.currency };
}

/** The products and collections of a SPECIFIC_ITEMS rule, carried through the form unchanged (they are set through the API). */
function itemsOf(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

/** The form's fields as the discount-rule service's request (worker/pricing/schemas.ts discountRuleInputSchema). */
function ruleRequest(v: Record<string, string>) {
  const type = text(v, "type");
  const target = text(v, "target");
  const value = text(v, "value");
  const condition = text(v, "condition");
  const from = text(v, "from");
  const to = text(v, "to");
  const trigger =
    condition === "SUBTOTAL_RANGE"
      ? { conditionType: condition, subtotalRange: { from: moneyOrNull(from), to: moneyOrNull(to) } }
      : condition === "ITEM_QUANTITY_RANGE"
        ? { conditionType: condition, itemQuantityRange: { from: numberOrRaw(from), to: numberOrRaw(to) } }
        : condition === "COUPON_CODE"
          ? { conditionType: condition, couponCode: { code: text(v, "code") } }
          : null;
  return {
    name: text(v, "name"),
    active: ticked(v, "active"),
    activeTimeInfo: { start: utcOrRaw(text(v, "start")), end: utcOrRaw(text(v, "end")) },
    discounts: {
      values: [
        {
          targetType: target,
          discountType: type,
          ...(type === "FIXED_AMOUNT" ? { fixedAmount: moneyOrNull(value) } : { percentage: numberOrRaw(value) }),
          ...(target === "SPECIFIC_ITEMS" ? { specificItemsInfo: itemsOf(v.items ?? "") } : {}),
        },
      ],
    },
    // Conditions combined with AND / OR are made through the API; the form keeps them unless another is chosen.
    ...(condition === "KEEP" ? {} : { trigger }),
  };
}

/** Create, save or delete through the discount-rule service the API calls (settings.manage; 400 and 409 write nothing). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  return saveOrDelete({
    ctx: context.services,
    form: await request.formData(),
    id: params.id,
    service: discountRuleService,
    wrapper: "discountRule",
    listPath: "/console/pricing/discounts",
    request: ruleRequest,
    label: (v) => `discount rule “${text(v, "name") || "unnamed"}”`,
  });
}

const V = "discountRule.discounts.values[0]";
const PLACES: FieldPlaces = [
  ["discountRule.name", "dr-name"],
  ["discountRule.active", "dr-active"],
  [`${V}.percentage`, "dr-value"],
  [`${V}.fixedAmount`, "dr-value"],
  [`${V}.discountType`, "dr-type"],
  [`${V}*`, "dr-target"],
  ["discountRule.discounts*", "dr-value"],
  ["discountRule.trigger.subtotalRange.from", "dr-from"],
  ["discountRule.trigger.subtotalRange.to", "dr-to"],
  ["discountRule.trigger.itemQuantityRange.from", "dr-from"],
  ["discountRule.trigger.itemQuantityRange.to", "dr-to"],
  ["discountRule.trigger.couponCode*", "dr-code"],
  ["discountRule.trigger*", "dr-condition"],
  ["discountRule.activeTimeInfo.start", "dr-start"],
  ["discountRule.activeTimeInfo*", "dr-end"],
];

export default function PricingDiscount({ loaderData, actionData }: Route.ComponentProps) {
  const { rule: r, currency } = loaderData;
  const { result, canWrite, fieldIds, field, check } = usePricingEditor(actionData, PLACES);
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
  const title = r ? r.name : "New discount rule";
  return (
    <PricingEditor
      back={["/console/pricing/discounts", "Discount rules"]}
      title={title}
      note={
        r && (
          <p className="console-muted">
            Applied to {r.usageCount} {r.usageCount === 1 ? "order" : "orders"} so far.
          </p>
        )
      }
      result={result}
      fieldIds={fieldIds}
      revision={r?.revision ?? null}
      canWrite={canWrite}
      submitLabel={r ? "Save rule" : "Create rule"}
      deleteWhat={r ? `rule “${r.name}”` : null}
    >
      <Field {...field("dr-name", "name", r?.name)} label="Name" hint="Shoppers see it next to the discount on their cart." />
      <fieldset>
        <legend>Discount</legend>
        <div className="console-row">
          <Select
            {...field("dr-type", "type", d?.discountType ?? "PERCENTAGE")}
            label="Kind"
            options={[
              ["PERCENTAGE", "Percent off"],
              ["FIXED_AMOUNT", `Amount off (${currency})`],
            ]}
          />
          <Field
            {...field("dr-value", "value", d?.percentage ?? d?.fixedAmount)}
            label="Percent or amount"
            inputMode="decimal"
            hint={`A percent (15) or an amount in ${currency} (5.00).`}
          />
          <Select {...field("dr-target", "target", d?.targetType ?? "GLOBAL")} label="Taken off" options={targets} />
        </div>
        {d?.targetType === "SPECIFIC_ITEMS" && <input type="hidden" name="items" value={JSON.stringify(d.specificItemsInfo ?? {})} />}
      </fieldset>
      <fieldset>
        <legend>Condition</legend>
        <div className="console-row">
          <Select {...field("dr-condition", "condition", condition)} label="Applies when" options={conditions} />
          <Field
            {...field("dr-from", "from", from)}
            label="From"
            inputMode="decimal"
            hint={`Subtotal in ${currency}, or a number of items; empty: no lower bound.`}
          />
          <Field {...field("dr-to", "to", to)} label="To" inputMode="decimal" hint="Empty: no upper bound." />
        </div>
        <Field
          {...field("dr-code", "code", t?.couponCode?.code)}
          label="Code"
          hint="Only for “The shopper enters a code”."
          autoComplete="off"
          spellCheck={false}
        />
      </fieldset>
      <div className="console-row">
        <Field
          {...field("dr-start", "start", isoToInput(r?.activeTimeInfo.start))}
          type="datetime-local"
          label="Starts (UTC)"
          hint="Empty: now. A later start schedules the rule."
        />
        <Field {...field("dr-end", "end", isoToInput(r?.activeTimeInfo.end))} type="datetime-local" label="Ends (UTC)" hint="Empty: no end." />
      </div>
      <Checkbox {...check("dr-active", "active", r?.active ?? true)} label="On" />
    </PricingEditor>
  );
}
