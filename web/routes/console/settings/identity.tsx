import { data, useRouteLoaderData } from "react-router";
import { hasCustomCaptchaVerifier, identitySettingsPatch, readIdentitySettings, turnstileSecret, updateIdentitySettings } from "#worker/identity";
import { parseWith } from "#worker/platform/validation";
import { Checkbox, type Problem } from "#web/components/ui/form";
import { EditForm, Notice, PageHead } from "#web/components/ui/page";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/identity";

export const meta = consoleMeta("Sign-up and sign-in — Settings — Console");

/** The members' sign-up rules (one D1 read besides the session), and whether a captcha can be checked at all. */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  const ctx = context.services;
  const { settings } = await readIdentitySettings(ctx);
  return { settings, captchaConfigured: Boolean(turnstileSecret(ctx.env)) || hasCustomCaptchaVerifier() };
});

/** Saves the three rules through the identity settings service (owner only); an unchecked box is "off". */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const form = await request.formData();
  const posted = {
    requireEmailVerification: form.get("requireEmailVerification") === "on",
    requireOwnerApproval: form.get("requireOwnerApproval") === "on",
    captcha: form.get("captcha") === "on",
  };
  try {
    const { settings } = await updateIdentitySettings(context.services, parseWith(identitySettingsPatch, posted));
    return { ok: "Saved: new sign-ups and sign-ins follow these rules from now on.", problem: null, settings };
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    // Captcha without a configured verifier: the service's refusal belongs next to that box.
    if (problem.code === "CAPTCHA_NOT_CONFIGURED") {
      problem.fields.captcha = "Captcha cannot be turned on before TURNSTILE_SECRET_KEY is configured: it would refuse every sign-in, yours included";
      problem.message = "Nothing was saved. Please correct the highlighted fields.";
    }
    return data({ ok: null, problem, settings: posted }, { status: problem.status ?? 400 });
  }
});

const RULES = [
  {
    name: "requireEmailVerification",
    label: "New members confirm their email with a code",
    hint: "They get a 6-digit code by email and cannot sign in before entering it.",
  },
  { name: "requireOwnerApproval", label: "New members wait for approval", hint: "They can sign in once approved on the Members tab." },
  { name: "captcha", label: "Captcha on sign-up and sign-in", hint: "Needs Cloudflare Turnstile (TURNSTILE_SECRET_KEY)." },
] as const;

export default function IdentitySettings({ loaderData, actionData }: Route.ComponentProps) {
  const isOwner = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user?.role === "OWNER";
  const settings = actionData?.settings ?? loaderData.settings;
  const problem = actionData?.problem;
  const hint = (r: (typeof RULES)[number]) =>
    r.name === "captcha" && !loaderData.captchaConfigured ? `${r.hint} It is not configured, so captcha stays off.` : r.hint;
  return (
    <>
      <PageHead title="Sign-up and sign-in">
        <SettingsNav />
      </PageHead>
      <Notice text={actionData?.ok} />
      {!isOwner ? (
        <>
          <p className="console-muted">Only the store owner changes these rules.</p>
          <dl className="settings-summary">
            {RULES.map((r) => (
              <div key={r.name}>
                <dt>{r.label}</dt>
                <dd>{settings[r.name] ? "On" : "Off"}</dd>
              </div>
            ))}
          </dl>
        </>
      ) : (
        <EditForm
          key={actionData?.ok ?? "identity"}
          label="Sign-up and sign-in rules"
          problem={problem}
          canWrite
          permission="owner"
          submitLabel="Save rules"
        >
          <fieldset>
            <legend>New members</legend>
            {RULES.map((r) => (
              <Checkbox key={r.name} name={r.name} label={r.label} hint={hint(r)} defaultChecked={settings[r.name]} error={problem?.fields[r.name]} />
            ))}
          </fieldset>
        </EditForm>
      )}
    </>
  );
}
