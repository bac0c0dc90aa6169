import { data, Form, Link, useActionData, useLoaderData } from "react-router";
import { login, loginRequest, parseIdentity } from "#worker/identity";
import { SIGN_IN, captchaSiteKeyAfter, captchaTokensOf, clientOf, field, noStore, outcomeOf, safeReturnTo, signInPageData } from "#web/auth.server";
import { problemOf } from "#web/components/ui/form.server";
import { Captcha, nameIsId, OutcomeMessage, VerifyCodeForm, withReturnTo } from "#web/components/auth";
import { ErrorSummary, Field } from "#web/components/ui/form";
import { continueAfterSignIn } from "#web/member-session.server";
import "#web/styles/commerce.css";
import type { Route } from "./+types/login";

export function meta() {
  return [{ title: "Log in — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

export function loader({ request, context }: Route.LoaderArgs) {
  return signInPageData(request, context.services);
}

/** Logs in through the same service as POST /v2/login; SUCCESS with a return path continues there with the session token. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const email = field(form, "email");
  const returnTo = safeReturnTo(form.get("returnTo"));
  try {
    const req = parseIdentity(loginRequest, { loginId: { email }, password: field(form, "password"), captchaTokens: captchaTokensOf(form) });
    const result = await login(context.services, req, clientOf(request));
    if (result.state === "SUCCESS") throw await continueAfterSignIn(context.services, request, result.sessionToken, returnTo);
    return { outcome: outcomeOf(result), email, returnTo, problem: null, captchaSiteKey: null };
  } catch (err) {
    if (err instanceof Response) throw err;
    const problem = problemOf(err, SIGN_IN);
    return data({ outcome: null, email, returnTo, problem, captchaSiteKey: captchaSiteKeyAfter(context.services, problem) }, { status: 400 });
  }
}

export default function Login() {
  const { returnTo: fromUrl, captchaSiteKey } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const returnTo = result?.returnTo ?? fromUrl;
  const outcome = result?.outcome;
  return (
    <main className="page auth-page commerce-page" id="main">
      <h1>Log in</h1>
      {outcome?.state === "REQUIRE_EMAIL_VERIFICATION" ? (
        <VerifyCodeForm email={outcome.email} stateToken={outcome.stateToken} returnTo={returnTo} />
      ) : outcome ? (
        <OutcomeMessage state={outcome.state} email={outcome.email} />
      ) : (
        <>
          <ErrorSummary problem={result?.problem} fieldIds={nameIsId} />
          <Form method="post" className="auth-form">
            {returnTo && <input type="hidden" name="returnTo" value={returnTo} />}
            <Field
              id="email"
              name="email"
              label="Email"
              type="email"
              autoComplete="email"
              defaultValue={result?.email}
              required
              maxLength={254}
              problem={result?.problem}
            />
            <Field
              id="password"
              name="password"
              label="Password"
              type="password"
              autoComplete="current-password"
              required
              maxLength={1024}
              problem={result?.problem}
            />
            <Captcha siteKey={captchaSiteKey ?? result?.captchaSiteKey} />
            <button type="submit">Log in</button>
          </Form>
          <p>
            <Link to={withReturnTo("/forgot-password", returnTo)}>Forgot your password?</Link>
          </p>
          <p>
            New here? <Link to={withReturnTo("/register", returnTo)}>Create an account</Link>
          </p>
        </>
      )}
    </main>
  );
}
