import { data, Form, useNavigation, useRouteLoaderData } from "react-router";
import { hasCustomCaptchaVerifier, identitySettingsPatch, readIdentitySettings, turnstileSecret, updateIdentitySettings } from "#worker/identity";
import { parseWith } from "#worker/platform/validation";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/identity";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Sign-up and sign-in — Settings — Console") }];
}

export const headers = () => consoleHeaders;

/** The members' sign-up rules (one D1 read besides the session), and whether a captcha can be checked at all. */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const { settings } = await readIdentitySettings(ctx);
  return { settings, captchaConfigured: Boolean(turnstileSecret(ctx.env)) || hasCustomCaptchaVerifier() };
}

/** Saves the three rules through the identity settings service (owner only); an unchecked box is "off". */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
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
}

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
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const isOwner = user?.role === "OWNER";
  const busy = useNavigation().state === "submitting";
  const settings = actionData?.settings ?? loaderData.settings;
  const problem = actionData?.problem;
  return (
    <>
      <h1>Sign-up and sign-in</h1>
      <SettingsNav />
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
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
        <Form method="post" className="console-form" key={actionData?.ok ?? "identity"}>
          <ErrorSummary problem={problem} fieldIds={{ captcha: "identity-captcha" }} />
          <fieldset>
            <legend>New members</legend>
            {RULES.map((r) => (
              <div className="console-field" key={r.name}>
                <label className="console-check">
                  <input
                    type="checkbox"
                    id={`identity-${r.name}`}
                    name={r.name}
                    defaultChecked={settings[r.name]}
                    aria-describedby={`identity-${r.name}-hint${problem?.fields[r.name] ? ` identity-${r.name}-error` : ""}`}
                    aria-invalid={problem?.fields[r.name] ? true : undefined}
                  />{" "}
                  {r.label}
                </label>
                <p className="hint" id={`identity-${r.name}-hint`}>
                  {r.name === "captcha" && !loaderData.captchaConfigured ? `${r.hint} It is not configured, so captcha stays off.` : r.hint}
                </p>
                <FieldError id={`identity-${r.name}-error`} message={problem?.fields[r.name]} />
              </div>
            ))}
          </fieldset>
          <div>
            <button type="submit" className="console-button primary" disabled={busy}>
              Save rules
            </button>
          </div>
        </Form>
      )}
    </>
  );
}
