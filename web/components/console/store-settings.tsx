import type { getStoreSettings } from "#worker/store";
import { DEFAULT_UNPAID_ORDER_HOLD_HOURS, type LOGO_ALIGNMENTS, type LOGO_SIZES, MAX_UNPAID_ORDER_HOLD_HOURS } from "#worker/store";
import { MAX_DOWNLOAD_LIMIT, MAX_DOWNLOAD_LINK_DAYS } from "#worker/store";
import { Field, FieldError, fieldId } from "#web/components/ui/form";
import { EditForm, type useEditor } from "#web/components/ui/page";

/**
 * Settings → Store: the form of someone who may change the store's settings (inputs named by the settings
 * service's field paths), and what someone who may not sees instead.
 */

type Settings = Awaited<ReturnType<typeof getStoreSettings>>["settings"];
type Editor = ReturnType<typeof useEditor>;

const SIZE_LABELS = { SMALL: "Small", MEDIUM: "Medium", LARGE: "Large" } as const satisfies Record<(typeof LOGO_SIZES)[number], string>;
const ALIGN_LABELS = { LEFT: "Left", CENTER: "Centre", RIGHT: "Right" } as const satisfies Record<(typeof LOGO_ALIGNMENTS)[number], string>;

/** The checkout header's two choices: each one's part of it, label and options in order. */
const HEADER_CHOICES = [
  ["logoSize", "Logo size at checkout", SIZE_LABELS],
  ["alignment", "Logo alignment at checkout", ALIGN_LABELS],
] as const;

/** The unpaid-order hold in words. */
function holdText(hours: number): string {
  return hours === 0 ? "Never canceled" : `Canceled after ${hours} ${hours === 1 ? "hour" : "hours"} unpaid`;
}

/** The store's settings as a list, for someone who may only look. */
export function StoreSummary({ settings, currency, emailFrom }: { settings: Settings; currency: string; emailFrom: string | null | undefined }) {
  return (
    <>
      <p className="console-muted">
        You can look at the store&rsquo;s settings; changing them needs the &ldquo;Change pricing, store and member settings&rdquo; permission.
      </p>
      <dl className="settings-summary">
        <dt>Name</dt>
        <dd>{settings.name}</dd>
        <dt>Currency</dt>
        <dd>{currency}</dd>
        <dt>Contact email</dt>
        <dd>{settings.contactEmail ?? "None"}</dd>
        <dt>Time zone</dt>
        <dd>{settings.timeZone ?? "UTC"}</dd>
        <dt>Logo</dt>
        <dd>{settings.logo ? <img src={settings.logo.url} alt={`${settings.name} logo`} height={48} /> : "None"}</dd>
        <dt>Checkout header</dt>
        <dd>
          {SIZE_LABELS[settings.checkoutHeader.logoSize]} logo, {ALIGN_LABELS[settings.checkoutHeader.alignment].toLowerCase()}
        </dd>
        <dt>Unpaid offline orders</dt>
        <dd>{holdText(settings.unpaidOrderHoldHours)}</dd>
        <dt>Digital downloads</dt>
        <dd>{`${settings.downloadLimit} downloads per item, links valid for ${settings.downloadLinkDays} days after payment`}</dd>
        <dt>Emails from</dt>
        <dd>
          {settings.senderName ?? settings.name} &lt;{settings.senderEmail ?? emailFrom ?? "not set"}&gt;
        </dd>
      </dl>
    </>
  );
}

/** One choice of a few, as radios in a row; the group carries the field's id, so the problem summary links to it. */
function Choices(props: { e: Editor; path: string; label: string; stored: string; options: Record<string, string> }) {
  const { e, path, label, options } = props;
  const id = fieldId(path);
  const value = e.text(path, props.stored);
  return (
    <div className="console-field" role="radiogroup" id={id} aria-labelledby={`${id}-label`} tabIndex={-1}>
      <span className="console-label" id={`${id}-label`}>
        {label}
      </span>
      <div className="settings-choices">
        {Object.entries(options).map(([v, text]) => (
          <label key={v} className="console-check">
            <input type="radio" id={`${id}-${v}`} name={path} value={v} defaultChecked={value === v} /> {text}
          </label>
        ))}
      </div>
      <FieldError id={`${id}-error`} message={e.error(path)} />
    </div>
  );
}

/** The store's settings form: name, contact, time zone, logo and checkout header, the unpaid-order hold, the sender. */
export function StoreForm(props: { e: Editor; settings: Settings; currency: string; emailFrom: string | null | undefined; sending: boolean }) {
  const { e, settings, currency, emailFrom, sending } = props;
  return (
    <EditForm
      label="Store settings"
      problem={e.result?.problem}
      canWrite
      permission="settings.manage"
      submitLabel="Save store settings"
      encType="multipart/form-data"
    >
      <Field {...e.field("name", settings.name)} label="Store name" required maxLength={100} />
      <Field
        {...e.field("contactEmail", settings.contactEmail)}
        label="Contact email"
        type="email"
        maxLength={254}
        hint="Where shoppers can write to you. Leave empty for none."
      />
      <Field
        {...e.field("timeZone", settings.timeZone)}
        label="Time zone"
        maxLength={64}
        placeholder="UTC"
        hint="The store’s days on the dashboard, e.g. Europe/Paris or America/New_York. Leave empty for UTC."
      />
      <div className="console-field">
        <span className="console-label">Currency</span>
        <p className="hint">
          <strong>{currency}</strong>. Prices, carts and orders are all kept in this currency, which is set when the shop is deployed (
          <code>STORE_CURRENCY</code>), so it cannot be changed here.
        </p>
      </div>

      <fieldset className="settings-group">
        <legend>Logo and checkout header</legend>
        {settings.logo && (
          <div className="settings-logo">
            <img src={settings.logo.url} alt={`Current logo of ${settings.name}`} />
            <label className="console-check">
              <input type="checkbox" name="removeLogo" defaultChecked={e.result?.values?.removeLogo === "on"} /> Remove the logo
            </label>
          </div>
        )}
        <Field
          name="logo"
          label={settings.logo ? "Replace the logo" : "Logo"}
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp,image/avif"
          error={e.error("logo")}
          hint="PNG, JPEG, GIF, WebP or AVIF, at most 10 MB. Shown in the shop’s header and at the top of the checkout."
        />
        {HEADER_CHOICES.map(([part, label, options]) => (
          <Choices key={part} e={e} path={`checkoutHeader.${part}`} label={label} stored={settings.checkoutHeader[part]} options={options} />
        ))}
      </fieldset>

      <fieldset className="settings-group">
        <legend>Orders</legend>
        <Field
          {...e.field("unpaidOrderHoldHours", settings.unpaidOrderHoldHours)}
          label="Cancel unpaid offline orders after (hours)"
          type="number"
          inputMode="numeric"
          min={0}
          max={MAX_UNPAID_ORDER_HOLD_HOURS}
          step={1}
          hint={`An order to be paid offline keeps its items reserved until you mark it as paid. If that has not happened after this many hours, the order is canceled, its items go back on sale and you get a task. 0 never cancels. Default ${DEFAULT_UNPAID_ORDER_HOLD_HOURS}.`}
        />
        <Field
          {...e.field("downloadLimit", settings.downloadLimit)}
          label="Downloads per digital item"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_DOWNLOAD_LIMIT}
          step={1}
          hint="How many times a buyer may download each file they bought."
        />
        <Field
          {...e.field("downloadLinkDays", settings.downloadLinkDays)}
          label="Download links valid for (days)"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_DOWNLOAD_LINK_DAYS}
          step={1}
          hint="Counted from the payment. The demo catalogue promises 30 days."
        />
      </fieldset>

      <fieldset className="settings-group">
        <legend>Emails to shoppers</legend>
        <p className="hint">
          {sending
            ? `Emails are sent through Cloudflare Email Service; the address must be at the domain of ${emailFrom}.`
            : "Sending is off (EMAIL_FROM is not configured): emails are only recorded, and will use these once sending is on."}
        </p>
        <div className="console-row">
          <Field {...e.field("senderName", settings.senderName)} label="Sender name" maxLength={100} placeholder={settings.name} />
          <Field
            {...e.field("senderEmail", settings.senderEmail)}
            label="Sender address"
            type="email"
            maxLength={254}
            placeholder={emailFrom ?? ""}
          />
        </div>
      </fieldset>
    </EditForm>
  );
}
