import { shippingRegionService } from "#worker/pricing";
import { PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { Checkbox, Field } from "#web/components/ui/form";
import { text } from "#web/components/console/pricing.server";
import { editorMeta, SHIPPING_REGION } from "#web/components/console/pricing/editors";
import { editAction, editLoader } from "#web/components/console/pricing/editors.server";
import { rowsFromOptions, rowsFromValues } from "#web/components/console/shipping-rows";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/shipping-region";
import { OptionFields } from "./shipping-options";
import { regionField, regionRequest } from "./shipping-region.server";
import type { ShippingRegion } from "#web/components/console/pricing-items";

export const meta = editorMeta(SHIPPING_REGION);

/** One shipping region to edit ("new": a blank one). 2 D1 round trips with the session. */
export const loader = editLoader<ShippingRegion>(shippingRegionService, "shippingRegion");

/** Create, save or delete through the shipping-region service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = editAction(shippingRegionService, "shippingRegion", SHIPPING_REGION, {
  request: regionRequest,
  label: (v) => `shipping region “${text(v, "shippingRegion.name") || "unnamed"}”`,
  fieldOf: regionField,
});

export default function PricingShippingRegion({ loaderData, actionData }: Route.ComponentProps) {
  const { item: r, currency } = loaderData;
  const { frame, result, field, check } = usePricingEditor(actionData, r, SHIPPING_REGION);
  const rows = result?.values ? rowsFromValues(result.values) : rowsFromOptions(r?.options ?? []);
  return (
    <PricingEditor {...frame}>
      <Field {...field("shippingRegion.name", r?.name)} label="Name" />
      <div className="console-row">
        <Field
          {...field("shippingRegion.countries", r?.countries.join(", "))}
          label="Countries"
          hint="Two-letter codes separated by commas: US, CA."
          autoComplete="off"
        />
        <Field
          {...field("shippingRegion.subdivisions", r?.subdivisions.join(", "))}
          label="Only these states or provinces"
          hint="Optional, e.g. US-CA, US-OR; empty: the whole of each country."
          autoComplete="off"
        />
      </div>
      <Checkbox
        {...check("shippingRegion.restOfWorld", r?.restOfWorld ?? false)}
        label="Rest of the world (every destination no other region lists; leave the countries empty)"
      />
      <input type="hidden" name="optionRows" value={rows.length} />
      {rows.map((o, i) => (
        <OptionFields key={i} row={o} at={i} currency={currency} field={field} />
      ))}
    </PricingEditor>
  );
}
