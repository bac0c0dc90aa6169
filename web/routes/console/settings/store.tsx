import { data } from "react-router";
import { requirePermission } from "#worker/platform/context";
import { parseWith } from "#worker/platform/validation";
import { getStoreSettings, storeSettingsPatch, updateStoreSettings, uploadStoreLogo, type StoreSettingsPatch } from "#worker/store";
import { config } from "#worker/platform/config";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { Notice, PageHead, useEditor } from "#web/components/ui/page";
import { SettingsNav } from "#web/components/console/settings-nav";
import { StoreForm, StoreSummary } from "#web/components/console/store-settings";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { Route } from "./+types/store";

export const meta = consoleMeta("Store settings — Console");

/** The store's settings (one D1 read besides the session) and whether emails are actually sent (configuration). */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  const { settings, currency } = await getStoreSettings(context.services);
  const env = context.services.env;
  const emailFrom = config(env).emailFrom;
  return { settings, currency, emailFrom, sending: Boolean(emailFrom && env.SEND_EMAIL) };
});

/** Whether the form carries a file to upload. */
function logoFile(form: FormData): File | null {
  const file = form.get("logo");
  return file && typeof file !== "string" && (file.size > 0 || file.name) ? file : null;
}

/**
 * Saves the store's settings through the store settings service (settings.manage): every field is checked before
 * anything is stored, the logo goes to R2 through the media service, and a refusal keeps what was typed.
 */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  const values: Record<string, string> = {};
  for (const [k, v] of form) if (typeof v === "string") values[k] = v.slice(0, 500);
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v.trim() : "";
  };
  try {
    requirePermission(ctx, "settings.manage");
    const optional = (name: string) => text(name) || null;
    // Left out of the form: unchanged; empty: 0 (never).
    const hold = form.has("unpaidOrderHoldHours") ? Number(text("unpaidOrderHoldHours") || "0") : undefined;
    const whole = (name: string) => (form.has(name) ? { [name]: Number(text(name) || "0") } : {});
    const patch: StoreSettingsPatch = parseWith(storeSettingsPatch, {
      name: text("name"),
      contactEmail: optional("contactEmail"),
      checkoutHeader: { logoSize: text("checkoutHeader.logoSize"), alignment: text("checkoutHeader.alignment") },
      senderName: optional("senderName"),
      senderEmail: optional("senderEmail"),
      timeZone: optional("timeZone"),
      ...(hold !== undefined ? { unpaidOrderHoldHours: hold } : {}),
      ...whole("downloadLimit"),
      ...whole("downloadLinkDays"),
      ...(form.get("removeLogo") === "on" ? { logo: null } : {}),
    });
    const file = logoFile(form);
    const saved = file ? await uploadStoreLogo(ctx, file, patch, "logo") : await updateStoreSettings(ctx, patch);
    return { ok: `Saved. The shop shows “${saved.settings.name}”${file ? " with the new logo" : ""}.`, problem: null, values: null };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
});

export default function StoreSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { settings, currency, emailFrom, sending } = loaderData;
  const e = useEditor(actionData, "settings.manage");
  return (
    <>
      <PageHead title="Store settings">
        <SettingsNav />
      </PageHead>
      <Notice text={actionData?.ok} />
      {e.canWrite ? (
        <StoreForm e={e} settings={settings} currency={currency} emailFrom={emailFrom} sending={sending} />
      ) : (
        <StoreSummary settings={settings} currency={currency} emailFrom={emailFrom} />
      )}
    </>
  );
}
