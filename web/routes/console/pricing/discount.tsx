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
  const { result, canWrite, byId, fieldIds, f } = usePricingEditor(actionData, PLACES);
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
      <Field
        id="dr-name"
        name="name"
        label="Name"
        defaultValue={f.text("name", r?.name)}
        error={byId["dr-name"]}
        hint="Shoppers see it next to the discount on their cart."
      />
      <fieldset>
        <legend>Discount</legend>
        <div className="console-row">
          <Select
            id="dr-type"
            name="type"
            label="Kind"
            defaultValue={f.text("type", d?.discountType ?? "PERCENTAGE")}
            error={byId["dr-type"]}
            options={[
              ["PERCENTAGE", "Percent off"],
              ["FIXED_AMOUNT", `Amount off (${currency})`],
            ]}
          />
          <Field
            id="dr-value"
            name="value"
            label="Percent or amount"
            defaultValue={f.text("value", d?.percentage ?? d?.fixedAmount)}
            error={byId["dr-value"]}
            inputMode="decimal"
            hint={`A percent (15) or an amount in ${currency} (5.00).`}
          />
          <Select
            id="dr-target"
            name="target"
            label="Taken off"
            defaultValue={f.text("target", d?.targetType ?? "GLOBAL")}
            error={byId["dr-target"]}
            options={targets}
          />
        </div>
        {d?.targetType === "SPECIFIC_ITEMS" && <input type="hidden" name="items" value={JSON.stringify(d.specificItemsInfo ?? {})} />}
      </fieldset>
      <fieldset>
        <legend>Condition</legend>
        <div className="console-row">
          <Select
            id="dr-condition"
            name="condition"
            label="Applies when"
            defaultValue={f.text("condition", condition)}
            error={byId["dr-condition"]}
            options={conditions}
          />
          <Field
            id="dr-from"
            name="from"
            label="From"
            defaultValue={f.text("from", from)}
            error={byId["dr-from"]}
            inputMode="decimal"
            hint={`Subtotal in ${currency}, or a number of items; empty: no lower bound.`}
          />
          <Field
            id="dr-to"
            name="to"
            label="To"
            defaultValue={f.text("to", to)}
            error={byId["dr-to"]}
            inputMode="decimal"
            hint="Empty: no upper bound."
          />
        </div>
        <Field
          id="dr-code"
          name="code"
          label="Code"
          defaultValue={f.text("code", t?.couponCode?.code)}
          error={byId["dr-code"]}
          hint="Only for “The shopper enters a code”."
          autoComplete="off"
          spellCheck={false}
        />
      </fieldset>
      <div className="console-row">
        <Field
          id="dr-start"
          name="start"
          type="datetime-local"
          label="Starts (UTC)"
          defaultValue={f.text("start", isoToInput(r?.activeTimeInfo.start))}
          error={byId["dr-start"]}
          hint="Empty: now. A later start schedules the rule."
        />
        <Field
          id="dr-end"
          name="end"
          type="datetime-local"
          label="Ends (UTC)"
          defaultValue={f.text("end", isoToInput(r?.activeTimeInfo.end))}
          error={byId["dr-end"]}
          hint="Empty: no end."
        />
      </div>
      <Checkbox id="dr-active" name="active" label="On" defaultChecked={f.checked("active", r?.active ?? true)} error={byId["dr-active"]} />
    </PricingEditor>
  );
}
