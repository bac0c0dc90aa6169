import { data, Form, Link, redirect, useActionData, useLoaderData } from "react-router";
import {
  recover,
  recoveryLinkIsLive,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  parseIdentity,
  recoverRequest,
  STAFF_LANDING,
} from "#worker/identity";
import { SIGN_IN, field, noStore, outcomeOf } from "#web/auth.server";
import { problemOf } from "#web/components/ui/form.server";
import { nameIsId, OutcomeMessage } from "#web/components/auth";
import { ErrorSummary, Field } from "#web/components/ui/form";
import "#web/styles/commerce.css";
import type { Route } from "./+types/reset-password";

export function meta() {
  return [{ title: "Choose a new password — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

/** The page a recovery or activation email links to: `?token=…` (and `&activation=1` for an invitation). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const token = (url.searchParams.get("token") ?? "").slice(0, 512);
  const activation = url.searchParams.get("activation") === "1";
  return { token, activation, live: token ? await recoveryLinkIsLive(context.services, token) : false };
}

/** Sets the password through the same service as POST /v1/recover. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const token = field(form, "token");
  const password = field(form, "password");
  if (password !== field(form, "confirmPassword")) {
    return data(
      {
        outcome: null,
        redirectUrl: null,
        problem: { message: "Please correct the highlighted fields.", fields: { confirmPassword: "The two passwords do not match." } },
      },
      { status: 400 },
    );
  }
  try {
    const result = await recover(context.services, parseIdentity(recoverRequest, { recoveryToken: token, password }));
    // An invited staff member goes on to the console, where they sign in with the password just set.
    if (result.redirectUrl === STAFF_LANDING) return redirect(`${STAFF_LANDING}?activated=1`);
    return { outcome: outcomeOf(result), redirectUrl: result.redirectUrl ?? null, problem: null };
  } catch (err) {
    return data({ outcome: null, redirectUrl: null, problem: problemOf(err, SIGN_IN) }, { status: 400 });
  }
}

export default function ResetPassword() {
  const { token, activation, live } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const outcome = result?.outcome;
  const title = activation ? "Activate your account" : "Choose a new password";
  return (
    <main className="page auth-page commerce-page" id="main">
      <h1>{title}</h1>
      {outcome && outcome.state !== "REQUIRE_EMAIL_VERIFICATION" ? (
        <>
          <p role="status" className="form-success">
            Your password is set.
          </p>
          <OutcomeMessage state={outcome.state} email={outcome.email} />
          {result?.redirectUrl && (
            <p>
              <a href={result.redirectUrl}>Continue</a>
            </p>
          )}
        </>
      ) : !live && !result ? (
        <div className="form-error" role="alert">
          <p>This link is invalid, has expired or was already used.</p>
          <p>
            <Link to="/forgot-password">Ask for a new link</Link>
          </p>
        </div>
      ) : (
        <>
          <ErrorSummary problem={result?.problem} fieldIds={nameIsId} />
          <Form method="post" className="auth-form">
            <input type="hidden" name="token" value={token} />
            <Field
              id="password"
              name="password"
              label="New password"
              type="password"
              autoComplete="new-password"
              required
              minLength={PASSWORD_MIN_LENGTH}
              maxLength={PASSWORD_MAX_LENGTH}
              hint={`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`}
              problem={result?.problem}
            />
            <Field
              id="confirmPassword"
              name="confirmPassword"
              label="Repeat the new password"
              type="password"
              autoComplete="new-password"
              required
              maxLength={PASSWORD_MAX_LENGTH}
              problem={result?.problem}
            />
            <button type="submit">{activation ? "Activate account" : "Set password"}</button>
          </Form>
        </>
      )}
    </main>
  );
}
