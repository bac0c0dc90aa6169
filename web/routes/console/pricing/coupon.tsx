import { couponService } from "#worker/pricing";
import { isoToInput, PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { conflictAt, storedItem, moneyOrNull, numberOrRaw, pricingAction, text, ticked, utcOrRaw } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/coupon";
import type { Coupon } from "#web/components/console/pricing-items";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(
  ({ data: d }) => `${d?.coupon ? `Coupon ${d.coupon.code}` : "New coupon"} — Pricing — Console`,
);

/** One coupon to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const coupon = await storedItem<Coupon>(couponService, context.services, params.id, "coupon");
  return { coupon, currency: context.services.currency };
});

const C = "coupon";

/** The form's fields (named by API path) as the coupon service's request (worker/pricing/schemas.ts couponInputSchema). */
function couponRequest(v: Record<string, string>) {
  const kind = text(v, "kind");
  const amount = text(v, `${C}.percentOffRate`);
  return {
    code: text(v, `${C}.code`),
    name: text(v, `${C}.name`),
    active: ticked(v, `${C}.active`),
    startTime: utcOrRaw(text(v, `${C}.startTime`)),
    expirationTime: utcOrRaw(text(v, `${C}.expirationTime`)),
    usageLimit: numberOrRaw(text(v, `${C}.usageLimit`)),
    minimumSubtotal: moneyOrNull(text(v, `${C}.minimumSubtotal`)),
    ...(kind === "FREE_SHIPPING"
      ? { freeShipping: true }
      : kind === "AMOUNT"
        ? { moneyOffAmount: moneyOrNull(amount) }
        : { percentOffRate: numberOrRaw(amount) }),
  };
}

/** Create, save or delete through the coupon service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = pricingAction({
  service: couponService,
  wrapper: C,
  listPath: "/console/pricing",
  request: couponRequest,
  label: (v) => `coupon ${text(v, `${C}.code`) || "(no code)"}`,
  // One input takes the percent or the amount; the kind says which (or free shipping).
  fieldOf: (path, v) => fieldAt(v, { [`${C}.moneyOffAmount`]: `${C}.percentOffRate`, [`${C}.freeShipping`]: "kind" })(path),
  remap: conflictAt("DUPLICATE_COUPON_CODE", `${C}.code`),
});

export default function PricingCoupon({ loaderData, actionData }: Route.ComponentProps) {
  const { coupon: c, currency } = loaderData;
  const { frame, field, check } = usePricingEditor(actionData, c, {
    back: ["/console/pricing", "Coupons"],
    noun: "coupon",
    fresh: "New coupon",
    title: (item) => `Coupon ${item.code}`,
    named: (item) => `coupon ${item.code}`,
  });
  const kind = c?.freeShipping ? "FREE_SHIPPING" : c?.moneyOffAmount != null ? "AMOUNT" : "PERCENT";
  return (
    <PricingEditor
      {...frame}
      note={
        c && (
          <p className="console-muted">
            Used {c.timesUsed} {c.timesUsed === 1 ? "time" : "times"}
            {c.usageLimit !== null ? ` of ${c.usageLimit}` : ""}. Each placed order that applied the code counts one use.
          </p>
        )
      }
    >
      <div className="console-row">
        <Field
          {...field(`${C}.code`, c?.code)}
          label="Code"
          hint="What shoppers type: letters, digits, - and _. Case does not matter."
          autoComplete="off"
          spellCheck={false}
        />
        <Field {...field(`${C}.name`, c?.name)} label="Name" hint="For you and the shopper's receipt." />
      </div>
      <div className="console-row">
        <Select
          {...field("kind", kind)}
          label="Discount"
          options={[
            ["PERCENT", "Percent off"],
            ["AMOUNT", `Amount off (${currency})`],
            ["FREE_SHIPPING", "Free shipping"],
          ]}
        />
        <Field
          {...field(`${C}.percentOffRate`, c?.percentOffRate ?? c?.moneyOffAmount ?? "")}
          label="Percent or amount"
          inputMode="decimal"
          hint={`A percent (10) or an amount in ${currency} (5.00); empty for free shipping.`}
        />
      </div>
      {c?.scope.type === "SPECIFIC_ITEMS" && (
        <p className="console-muted">
          Applies to some items only ({c.scope.catalogItemIds.length} products, {c.scope.collectionIds.length} collections, set through the API);
          saving keeps them.
        </p>
      )}
      <div className="console-row">
        <Field
          {...field(`${C}.minimumSubtotal`, c?.minimumSubtotal)}
          label="Minimum subtotal"
          inputMode="decimal"
          hint={`In ${currency}; empty: none.`}
        />
        <Field
          {...field(`${C}.usageLimit`, c?.usageLimit)}
          label="Usage limit"
          inputMode="numeric"
          hint="Uses by all shoppers together; empty: no limit."
        />
      </div>
      <div className="console-row">
        <Field {...field(`${C}.startTime`, isoToInput(c?.startTime))} type="datetime-local" label="Valid from (UTC)" hint="Empty: from now." />
        <Field
          {...field(`${C}.expirationTime`, isoToInput(c?.expirationTime))}
          type="datetime-local"
          label="Valid until (UTC)"
          hint="Empty: no end."
        />
      </div>
      <Checkbox {...check(`${C}.active`, c?.active ?? true)} label="On (shoppers can use it)" />
    </PricingEditor>
  );
}
