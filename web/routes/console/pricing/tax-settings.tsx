import { Form, useNavigation } from "react-router";
import { Checkbox, ErrorSummary, fieldId, Select } from "#web/components/ui/form";
import { useEditor } from "#web/components/ui/page";
import { PRICING_PERMISSION } from "#web/components/console/pricing";

/** The tax settings form: prices include tax, and which address picks the tax region (inputs named by API path). */
export function TaxSettings({ settings, actionData }: { settings: { pricesIncludeTax: boolean; taxableAddress: string }; actionData: unknown }) {
  const { result, canWrite, field, check } = useEditor(actionData, PRICING_PERMISSION);
  const busy = useNavigation().state === "submitting";
  return (
    <Form method="post" className="console-form pricing-settings" aria-label="Tax settings" noValidate>
      <ErrorSummary problem={result?.problem} fieldIds={fieldId} />
      <fieldset disabled={!canWrite} className="console-fields">
        <legend className="visually-hidden">Tax settings</legend>
        <Checkbox
          {...check("settings.pricesIncludeTax", settings.pricesIncludeTax)}
          label="Prices include tax (tax is taken out of the price, totals stay as priced)"
        />
        <Select
          {...field("settings.taxableAddress", settings.taxableAddress)}
          label="Tax by the address of"
          options={[
            ["SHIPPING", "Shipping (else billing)"],
            ["BILLING", "Billing (else shipping)"],
            ["BUSINESS", "The business (the store's address)"],
          ]}
        />
      </fieldset>
      {canWrite ? (
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={busy}>
            Save tax settings
          </button>
        </div>
      ) : (
        <p className="console-muted">Changing pricing needs the permission “settings.manage”.</p>
      )}
    </Form>
  );
}
