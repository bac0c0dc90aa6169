import { useEffect, useRef } from "react";
import { Form, Link, useRouteLoaderData } from "react-router";

/**
 * Building blocks of the login pages. Plain HTML forms (they work without JavaScript; React Router enhances them),
 * labelled inputs, errors tied to their fields with aria-describedby, and a summary announced with role="alert".
 */

export interface ProblemData {
  message: string;
  fields: Record<string, string>;
}

/** The error summary at the top of a form. */
export function ErrorSummary({ problem }: { problem?: ProblemData | null }) {
  // After a failed submit, focus lands on the summary so keyboard and screen-reader users start from what went wrong.
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (problem) ref.current?.focus();
  }, [problem]);
  if (!problem) return null;
  return (
    <div className="form-error" role="alert" tabIndex={-1} ref={ref}>
      <p>{problem.message}</p>
      {Object.keys(problem.fields).length > 0 && (
        <ul>
          {Object.entries(problem.fields).map(([name, text]) => (
            <li key={name}>
              <a href={`#${name}`}>{text}</a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A labelled input with its error, if any. */
export function Field(props: {
  name: string;
  label: string;
  type?: string;
  autoComplete?: string;
  defaultValue?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  inputMode?: "numeric" | "email" | "text";
  pattern?: string;
  hint?: string;
  problem?: ProblemData | null;
}) {
  const error = props.problem?.fields[props.name];
  const describedBy = [props.hint ? `${props.name}-hint` : null, error ? `${props.name}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={props.name}>{props.label}</label>
      {props.hint && (
        <p className="hint" id={`${props.name}-hint`}>
          {props.hint}
        </p>
      )}
      <input
        id={props.name}
        name={props.name}
        type={props.type ?? "text"}
        autoComplete={props.autoComplete}
        defaultValue={props.defaultValue}
        required={props.required}
        minLength={props.minLength}
        maxLength={props.maxLength}
        inputMode={props.inputMode}
        pattern={props.pattern}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      />
      {error && (
        <p className="field-error" id={`${props.name}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The Turnstile widget, when the store asks for a captcha (it adds `cf-turnstile-response` to the form). */
export function Captcha({ siteKey }: { siteKey: string | null | undefined }) {
  // Pages send a CSP with a per-request nonce (web/host/pages.ts): the widget's script needs it to run.
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
export function VerifyCodeForm({ email, stateToken, returnTo, problem }: { email: string; stateToken: string; returnTo: string | null; problem?: ProblemData | null }) {
  return (
    <>
      <p>
        We emailed a 6-digit code to <strong>{email}</strong>. Enter it to confirm your email. It expires in 15 minutes.
      </p>
      <ErrorSummary problem={problem} />
      <Form method="post" action="/verify" className="auth-form">
        <input type="hidden" name="stateToken" value={stateToken} />
        <input type="hidden" name="email" value={email} />
        {returnTo && <input type="hidden" name="returnTo" value={returnTo} />}
        <Field name="code" label="Verification code" autoComplete="one-time-code" inputMode="numeric" pattern="[0-9 ]*" maxLength={10} required problem={problem} />
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
