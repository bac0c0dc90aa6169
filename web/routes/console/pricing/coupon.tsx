import { couponService } from "#worker/pricing";
import { PricingEditor, usePricingEditor, isoToInput, type FieldPlaces } from "#web/components/console/pricing";
import { Checkbox, Field, Select } from "#web/components/ui/form";
import { conflictAt, itemOf, moneyOrNull, numberOrRaw, saveOrDelete, text, ticked, utcOrRaw } from "#web/components/console/pricing.server";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/coupon";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, `${d?.coupon ? `Coupon ${d.coupon.code}` : "New coupon"} — Pricing — Console`) }];
}

export const headers = () => consoleHeaders;

interface Coupon {
  id: string;
  revision: string;
  code: string;
  name: string;
  active: boolean;
  startTime: string | null;
  expirationTime: string | null;
  usageLimit: number | null;
  timesUsed: number;
  minimumSubtotal: string | null;
  scope: { type: string; catalogItemIds: string[]; collectionIds: string[] };
  moneyOffAmount?: string;
  percentOffRate?: number;
  freeShipping?: boolean;
}

/** One coupon to edit ("new": a blank one). 2 D1 round trips with the session. */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const coupon = params.id === "new" ? null : itemOf<Coupon>(await orRefuse(couponService.get(context.services, params.id)), "coupon");
  return { coupon, currency: context.services.currency };
}

/** The form's fields as the coupon service's request (worker/pricing/schemas.ts couponInputSchema). */
function couponRequest(v: Record<string, string>) {
  const kind = text(v, "kind");
  const amount = text(v, "value");
  return {
    code: text(v, "code"),
    name: text(v, "name"),
    active: ticked(v, "active"),
    startTime: utcOrRaw(text(v, "start")),
    expirationTime: utcOrRaw(text(v, "end")),
    usageLimit: numberOrRaw(text(v, "limit")),
    minimumSubtotal: moneyOrNull(text(v, "minimum")),
    ...(kind === "FREE_SHIPPING"
      ? { freeShipping: true }
      : kind === "AMOUNT"
        ? { moneyOffAmount: moneyOrNull(amount) }
        : { percentOffRate: numberOrRaw(amount) }),
  };
}

/** Create, save or delete through the coupon service the API calls (settings.manage; 400 and 409 write nothing). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  return saveOrDelete({
    ctx: context.services,
    form: await request.formData(),
    id: params.id,
    service: couponService,
    wrapper: "coupon",
    listPath: "/console/pricing",
    request: couponRequest,
    label: (v) => `coupon ${text(v, "code") || "(no code)"}`,
    remap: conflictAt("DUPLICATE_COUPON_CODE", "coupon.code"),
  });
}

const PLACES: FieldPlaces = [
  ["coupon.code", "cp-code"],
  ["coupon.name", "cp-name"],
  ["coupon.moneyOffAmount", "cp-value"],
  ["coupon.percentOffRate", "cp-value"],
  ["coupon.freeShipping", "cp-kind"],
  ["coupon.minimumSubtotal", "cp-minimum"],
  ["coupon.usageLimit", "cp-limit"],
  ["coupon.startTime", "cp-start"],
  ["coupon.expirationTime", "cp-end"],
  ["coupon.active", "cp-active"],
];

export default function PricingCoupon({ loaderData, actionData }: Route.ComponentProps) {
  const { coupon: c, currency } = loaderData;
  const { result, canWrite, fieldIds, field, check } = usePricingEditor(actionData, PLACES);
  const kind = c?.freeShipping ? "FREE_SHIPPING" : c?.moneyOffAmount != null ? "AMOUNT" : "PERCENT";
  return (
    <PricingEditor
      back={["/console/pricing", "Coupons"]}
      title={c ? `Coupon ${c.code}` : "New coupon"}
      note={
        c && (
          <p className="console-muted">
            Used {c.timesUsed} {c.timesUsed === 1 ? "time" : "times"}
            {c.usageLimit !== null ? ` of ${c.usageLimit}` : ""}. Each placed order that applied the code counts one use.
          </p>
        )
      }
      result={result}
      fieldIds={fieldIds}
      revision={c?.revision ?? null}
      canWrite={canWrite}
      submitLabel={c ? "Save coupon" : "Create coupon"}
      deleteWhat={c ? `coupon ${c.code}` : null}
    >
      <div className="console-row">
        <Field
          {...field("cp-code", "code", c?.code)}
          label="Code"
          hint="What shoppers type: letters, digits, - and _. Case does not matter."
          autoComplete="off"
          spellCheck={false}
        />
        <Field {...field("cp-name", "name", c?.name)} label="Name" hint="For you and the shopper's receipt." />
      </div>
      <div className="console-row">
        <Select
          {...field("cp-kind", "kind", kind)}
          label="Discount"
          options={[
            ["PERCENT", "Percent off"],
            ["AMOUNT", `Amount off (${currency})`],
            ["FREE_SHIPPING", "Free shipping"],
          ]}
        />
        <Field
          {...field("cp-value", "value", c?.percentOffRate ?? c?.moneyOffAmount ?? "")}
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
          {...field("cp-minimum", "minimum", c?.minimumSubtotal)}
          label="Minimum subtotal"
          inputMode="decimal"
          hint={`In ${currency}; empty: none.`}
        />
        <Field
          {...field("cp-limit", "limit", c?.usageLimit)}
          label="Usage limit"
          inputMode="numeric"
          hint="Uses by all shoppers together; empty: no limit."
        />
      </div>
      <div className="console-row">
        <Field {...field("cp-start", "start", isoToInput(c?.startTime))} type="datetime-local" label="Valid from (UTC)" hint="Empty: from now." />
        <Field {...field("cp-end", "end", isoToInput(c?.expirationTime))} type="datetime-local" label="Valid until (UTC)" hint="Empty: no end." />
      </div>
      <Checkbox {...check("cp-active", "active", c?.active ?? true)} label="On (shoppers can use it)" />
    </PricingEditor>
  );
}
