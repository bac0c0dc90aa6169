import { data, Form, useNavigation, useRouteLoaderData } from "react-router";
import { requirePermission } from "#worker/platform/context";
import { parseWith } from "#worker/platform/validation";
import {
  getStoreSettings,
  storeSettingsPatch,
  updateStoreSettings,
  uploadStoreLogo,
  type StoreSettingsPatch,
  DEFAULT_UNPAID_ORDER_HOLD_HOURS,
  LOGO_ALIGNMENTS,
  LOGO_SIZES,
  MAX_UNPAID_ORDER_HOLD_HOURS,
} from "#worker/store";
import { config } from "#worker/platform/config";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/store";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Store settings — Console") }];
}

export const headers = () => consoleHeaders;

/** The unpaid-order hold in words. */
function holdText(hours: number): string {
  return hours === 0 ? "Never canceled" : `Canceled after ${hours} ${hours === 1 ? "hour" : "hours"} unpaid`;
}

const SIZE_LABELS = { SMALL: "Small", MEDIUM: "Medium", LARGE: "Large" } as const;
const ALIGN_LABELS = { LEFT: "Left", CENTER: "Centre", RIGHT: "Right" } as const;

/** The store's settings (one D1 read besides the session) and whether emails are actually sent (configuration). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const { settings, currency } = await getStoreSettings(context.services);
  const env = context.services.env;
  const emailFrom = config(env).emailFrom;
  return { settings, currency, emailFrom, sending: Boolean(emailFrom && env.SEND_EMAIL) };
}

const text = (form: FormData, name: string) => {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
};

/** Whether the form carries a file to upload. */
function logoFile(form: FormData): File | null {
  const file = form.get("logo");
  return file && typeof file !== "string" && (file.size > 0 || file.name) ? file : null;
}

/**
 * Saves the store's settings through the store settings service (settings.manage): every field is checked before
 * anything is stored, the logo goes to R2 through the media service, and a refusal keeps what was typed.
 */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const [k, v] of form) if (typeof v === "string") values[k] = v.slice(0, 500);
  try {
    requirePermission(ctx, "settings.manage");
    const optional = (name: string) => text(form, name) || null;
    // Left out of the form: unchanged; empty: 0 (never).
    const hold = form.has("unpaidOrderHoldHours") ? Number(text(form, "unpaidOrderHoldHours") || "0") : undefined;
    const patch: StoreSettingsPatch = parseWith(storeSettingsPatch, {
      name: text(form, "name"),
      contactEmail: optional("contactEmail"),
      checkoutHeader: { logoSize: text(form, "logoSize"), alignment: text(form, "alignment") },
      senderName: optional("senderName"),
      senderEmail: optional("senderEmail"),
      timeZone: optional("timeZone"),
      ...(hold !== undefined ? { unpaidOrderHoldHours: hold } : {}),
      ...(form.get("removeLogo") === "on" ? { logo: null } : {}),
    });
    const file = logoFile(form);
    const saved = file ? await uploadStoreLogo(ctx, file, patch, "logo") : await updateStoreSettings(ctx, patch);
    return { ok: `Saved. The shop shows “${saved.settings.name}”${file ? " with the new logo" : ""}.`, problem: null, values: null };
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    // The checkout header's two choices are one object in the service: show each error at its own group.
    for (const part of ["logoSize", "alignment"]) {
      const key = `checkoutHeader.${part}`;
      if (problem.fields[key]) problem.fields[part] = problem.fields[key];
    }
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
}

const FIELD_IDS = {
  name: "store-name",
  contactEmail: "store-contact",
  timeZone: "store-zone",
  logo: "store-logo",
  logoSize: "store-size-SMALL",
  alignment: "store-align-LEFT",
  senderName: "store-sender-name",
  senderEmail: "store-sender-email",
  unpaidOrderHoldHours: "store-unpaid-hold",
};

export default function StoreSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { settings, currency, emailFrom, sending } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canWrite = !!user?.permissions.includes("settings.manage");
  const busy = useNavigation().state === "submitting";
  const problem = actionData?.problem;
  const values = actionData?.values;
  const v = (name: string, fallback: string | null | undefined) => values?.[name] ?? fallback ?? "";
  const err = (name: string) => problem?.fields[name];
  const invalid = (name: string) =>
    err(name) ? { "aria-invalid": true as const, "aria-describedby": `${FIELD_IDS[name as keyof typeof FIELD_IDS]}-error` } : {};
  const size = v("logoSize", settings.checkoutHeader.logoSize);
  const align = v("alignment", settings.checkoutHeader.alignment);
  return (
    <>
      <h1>Store settings</h1>
      <SettingsNav />
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      {!canWrite && (
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
            <dt>Emails from</dt>
            <dd>
              {settings.senderName ?? settings.name} &lt;{settings.senderEmail ?? emailFrom ?? "not set"}&gt;
            </dd>
          </dl>
        </>
      )}
      {canWrite && (
        <Form method="post" encType="multipart/form-data" className="console-form" noValidate>
          <ErrorSummary problem={problem} fieldIds={FIELD_IDS} />
          <div className="console-field">
            <label htmlFor="store-name">Store name</label>
            <input id="store-name" name="name" required maxLength={100} defaultValue={v("name", settings.name)} {...invalid("name")} />
            <FieldError id="store-name-error" message={err("name")} />
          </div>
          <div className="console-field">
            <label htmlFor="store-contact">Contact email</label>
            <input
              id="store-contact"
              name="contactEmail"
              type="email"
              maxLength={254}
              defaultValue={v("contactEmail", settings.contactEmail)}
              aria-describedby="store-contact-hint"
              {...invalid("contactEmail")}
            />
            <p className="hint" id="store-contact-hint">
              Where shoppers can write to you. Leave empty for none.
            </p>
            <FieldError id="store-contact-error" message={err("contactEmail")} />
          </div>
          <div className="console-field">
            <label htmlFor="store-zone">Time zone</label>
            <input
              id="store-zone"
              name="timeZone"
              maxLength={64}
              placeholder="UTC"
              defaultValue={v("timeZone", settings.timeZone)}
              aria-describedby="store-zone-hint"
              {...invalid("timeZone")}
            />
            <p className="hint" id="store-zone-hint">
              The store&rsquo;s days on the dashboard, e.g. Europe/Paris or America/New_York. Leave empty for UTC.
            </p>
            <FieldError id="store-zone-error" message={err("timeZone")} />
          </div>
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
                  <input type="checkbox" name="removeLogo" defaultChecked={values?.removeLogo === "on"} /> Remove the logo
                </label>
              </div>
            )}
            <div className="console-field">
              <label htmlFor="store-logo">{settings.logo ? "Replace the logo" : "Logo"}</label>
              <input
                id="store-logo"
                name="logo"
                type="file"
                accept="image/png,image/jpeg,image/gif,image/webp,image/avif"
                aria-describedby="store-logo-hint"
                {...invalid("logo")}
              />
              <p className="hint" id="store-logo-hint">
                PNG, JPEG, GIF, WebP or AVIF, at most 10 MB. Shown in the shop&rsquo;s header and at the top of the checkout.
              </p>
              <FieldError id="store-logo-error" message={err("logo")} />
            </div>
            <div className="console-field" role="radiogroup" aria-labelledby="store-size-label">
              <span className="console-label" id="store-size-label">
                Logo size at checkout
              </span>
              <div className="settings-choices">
                {LOGO_SIZES.map((s) => (
                  <label key={s} className="console-check">
                    <input type="radio" id={`store-size-${s}`} name="logoSize" value={s} defaultChecked={size === s} /> {SIZE_LABELS[s]}
                  </label>
                ))}
              </div>
              <FieldError id="store-size-SMALL-error" message={err("logoSize")} />
            </div>
            <div className="console-field" role="radiogroup" aria-labelledby="store-align-label">
              <span className="console-label" id="store-align-label">
                Logo alignment at checkout
              </span>
              <div className="settings-choices">
                {LOGO_ALIGNMENTS.map((a) => (
                  <label key={a} className="console-check">
                    <input type="radio" id={`store-align-${a}`} name="alignment" value={a} defaultChecked={align === a} /> {ALIGN_LABELS[a]}
                  </label>
                ))}
              </div>
              <FieldError id="store-align-LEFT-error" message={err("alignment")} />
            </div>
          </fieldset>

          <fieldset className="settings-group">
            <legend>Orders</legend>
            <div className="console-field">
              <label htmlFor="store-unpaid-hold">Cancel unpaid offline orders after (hours)</label>
              <input
                id="store-unpaid-hold"
                name="unpaidOrderHoldHours"
                type="number"
                inputMode="numeric"
                min={0}
                max={MAX_UNPAID_ORDER_HOLD_HOURS}
                step={1}
                defaultValue={v("unpaidOrderHoldHours", String(settings.unpaidOrderHoldHours))}
                aria-describedby="store-unpaid-hold-hint"
                {...invalid("unpaidOrderHoldHours")}
              />
              <p className="hint" id="store-unpaid-hold-hint">
                An order to be paid offline keeps its items reserved until you mark it as paid. If that has not happened after this many hours, the
                order is canceled, its items go back on sale and you get a task. 0 never cancels. Default {DEFAULT_UNPAID_ORDER_HOLD_HOURS}.
              </p>
              <FieldError id="store-unpaid-hold-error" message={err("unpaidOrderHoldHours")} />
            </div>
          </fieldset>

          <fieldset className="settings-group">
            <legend>Emails to shoppers</legend>
            <p className="hint">
              {sending
                ? `Emails are sent through Cloudflare Email Service; the address must be at the domain of ${emailFrom}.`
                : "Sending is off (EMAIL_FROM is not configured): emails are only recorded, and will use these once sending is on."}
            </p>
            <div className="console-row">
              <div className="console-field">
                <label htmlFor="store-sender-name">Sender name</label>
                <input
                  id="store-sender-name"
                  name="senderName"
                  maxLength={100}
                  placeholder={settings.name}
                  defaultValue={v("senderName", settings.senderName)}
                  {...invalid("senderName")}
                />
                <FieldError id="store-sender-name-error" message={err("senderName")} />
              </div>
              <div className="console-field">
                <label htmlFor="store-sender-email">Sender address</label>
                <input
                  id="store-sender-email"
                  name="senderEmail"
                  type="email"
                  maxLength={254}
                  placeholder={emailFrom ?? ""}
                  defaultValue={v("senderEmail", settings.senderEmail)}
                  {...invalid("senderEmail")}
                />
                <FieldError id="store-sender-email-error" message={err("senderEmail")} />
              </div>
            </div>
          </fieldset>
          <div>
            <button type="submit" className="console-button primary" disabled={busy}>
              Save store settings
            </button>
          </div>
        </Form>
      )}
    </>
  );
}
