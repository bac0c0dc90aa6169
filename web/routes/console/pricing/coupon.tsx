import { couponService } from "#worker/pricing";
import { isoToInput, PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field } from "#web/components/ui/form";
import { COUPON, editorMeta } from "#web/components/console/pricing/editors";
import { editAction, editLoader } from "#web/components/console/pricing/editors.server";
import { DecimalField, KindAndAmount, TimeWindow } from "#web/components/console/pricing/fields";
import { conflictAt, moneyOrNull, numberOrRaw, text, ticked, utcOrRaw } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/coupon";
import type { Coupon } from "#web/components/console/pricing-items";

export const meta = editorMeta(COUPON);

/** One coupon to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = editLoader<Coupon>(couponService, "coupon");

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
export const action = editAction(couponService, C, COUPON, {
  request: couponRequest,
  label: (v) => `coupon ${text(v, `${C}.code`) || "(no code)"}`,
  // One input takes the percent or the amount; the kind says which (or free shipping).
  fieldOf: (path, v) => fieldAt(v, { [`${C}.moneyOffAmount`]: `${C}.percentOffRate`, [`${C}.freeShipping`]: "kind" })(path),
  remap: conflictAt("DUPLICATE_COUPON_CODE", `${C}.code`),
});

export default function PricingCoupon({ loaderData, actionData }: Route.ComponentProps) {
  const { item: c, currency } = loaderData;
  const { frame, field, check } = usePricingEditor(actionData, c, COUPON);
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
        <KindAndAmount
          kind={field("kind", kind)}
          kindLabel="Discount"
          kinds={[
            ["PERCENT", "Percent off"],
            ["AMOUNT", `Amount off (${currency})`],
            ["FREE_SHIPPING", "Free shipping"],
          ]}
          amount={field(`${C}.percentOffRate`, c?.percentOffRate ?? c?.moneyOffAmount ?? "")}
          amountLabel="Percent or amount"
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
        <DecimalField {...field(`${C}.minimumSubtotal`, c?.minimumSubtotal)} label="Minimum subtotal" hint={`In ${currency}; empty: none.`} />
        <Field
          {...field(`${C}.usageLimit`, c?.usageLimit)}
          label="Usage limit"
          inputMode="numeric"
          hint="Uses by all shoppers together; empty: no limit."
        />
      </div>
      <TimeWindow
        start={field(`${C}.startTime`, isoToInput(c?.startTime))}
        end={field(`${C}.expirationTime`, isoToInput(c?.expirationTime))}
        labels={["Valid from (UTC)", "Valid until (UTC)"]}
        startHint="Empty: from now."
      />
      <Checkbox {...check(`${C}.active`, c?.active ?? true)} label="On (shoppers can use it)" />
    </PricingEditor>
  );
}
