import { Form, Link, useRouteLoaderData } from "react-router";
import { ErrorSummary, Field, type Problem } from "#web/components/ui/form";

/**
 * Building blocks of the login pages: plain HTML forms (they work without JavaScript; React Router enhances them) on
 * the form kit (web/components/ui/form.tsx), whose fields here take their name as their id.
 */

/** The login pages' fields take their name as their id (`#email`): where the error summary links to. */
export const nameIsId = (name: string) => name;

/** The Turnstile widget, when the store asks for a captcha (it adds `cf-turnstile-response` to the form). */
export function Captcha({ siteKey }: { siteKey: string | null | undefined }) {
  // Pages send a CSP with a per-request nonce (made by the page host): the widget's script needs it to run.
  const nonce = useRouteLoaderData<{ cspNonce?: string }>("root")?.cspNonce;
  if (siteKey === null || siteKey === undefined) return null;
  if (!siteKey) return <p className="hint">This store asks for a captcha, but none is configured yet (TURNSTILE_SITE_KEY).</p>;
  return (
    <>
      <script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer nonce={nonce} />
      <div className="cf-turnstile" data-sitekey={siteKey} />
    </>
  );
}

/** The code form that follows REQUIRE_EMAIL_VERIFICATION; it posts to /verify with the state token hidden. */
export function VerifyCodeForm({
  email,
  stateToken,
  returnTo,
  problem,
}: {
  email: string;
  stateToken: string;
  returnTo: string | null;
  problem?: Problem | null;
}) {
  return (
    <>
      <p>
        We emailed a 6-digit code to <strong>{email}</strong>. Enter it to confirm your email. It expires in 15 minutes.
      </p>
      <ErrorSummary problem={problem} fieldIds={nameIsId} />
      <Form method="post" action="/verify" className="auth-form">
        <input type="hidden" name="stateToken" value={stateToken} />
        <input type="hidden" name="email" value={email} />
        {returnTo && <input type="hidden" name="returnTo" value={returnTo} />}
        <Field
          id="code"
          name="code"
          label="Verification code"
          autoComplete="one-time-code"
          inputMode="numeric"
          pattern="[0-9 ]*"
          maxLength={10}
          required
          problem={problem}
        />
        <button type="submit" name="intent" value="verify">
          Confirm email
        </button>
        <button type="submit" name="intent" value="resend" className="secondary" formNoValidate>
          Send a new code
        </button>
      </Form>
    </>
  );
}

/** What the page says once the state machine has moved on. */
export function OutcomeMessage({ state, email }: { state: "SUCCESS" | "REQUIRE_OWNER_APPROVAL"; email: string }) {
  if (state === "SUCCESS") {
    return (
      <div role="status" className="form-success">
        <p>
          You are signed in as <strong>{email}</strong>.
        </p>
        <p>
          <Link to="/">Continue shopping</Link>
        </p>
      </div>
    );
  }
  return (
    <div role="status" className="form-success">
      <p>
        Thank you. The store owner approves new accounts: you can log in as <strong>{email}</strong> once yours is approved.
      </p>
      <p>
        <Link to="/">Back to the shop</Link>
      </p>
    </div>
  );
}

/** Carries `returnTo` from one login page to another. */
export function withReturnTo(path: string, returnTo: string | null): string {
  return returnTo ? `${path}?returnTo=${encodeURIComponent(returnTo)}` : path;
}
