import { data, Form, Link, useActionData, useLoaderData } from "react-router";
import { register, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, parseIdentity, registerRequest } from "#worker/identity";
import { SIGN_IN, captchaTokensOf, clientOf, field, noStore, outcomeOf, safeReturnTo, signInPageData } from "#web/auth.server";
import { problemOf } from "#web/components/ui/form.server";
import { Captcha, nameIsId, OutcomeMessage, VerifyCodeForm, withReturnTo } from "#web/components/auth";
import { ErrorSummary, Field } from "#web/components/ui/form";
import { continueAfterSignIn } from "#web/member-session.server";
import "#web/styles/commerce.css";
import type { Route } from "./+types/register";

export function meta() {
  return [{ title: "Create an account — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

export function loader({ request, context }: Route.LoaderArgs) {
  return signInPageData(request, context.services);
}

/** Registers through the same service as POST /v2/register. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const email = field(form, "email");
  const firstName = field(form, "firstName").trim();
  const lastName = field(form, "lastName").trim();
  const returnTo = safeReturnTo(form.get("returnTo"));
  const entered = { email, firstName, lastName };
  try {
    const req = parseIdentity(registerRequest, {
      loginId: { email },
      password: field(form, "password"),
      profile: { ...(firstName && { firstName }), ...(lastName && { lastName }) },
      captchaTokens: captchaTokensOf(form),
    });
    const result = await register(context.services, req, clientOf(request));
    if (result.state === "SUCCESS") throw await continueAfterSignIn(context.services, request, result.sessionToken, returnTo);
    return { outcome: outcomeOf(result), entered, returnTo, problem: null };
  } catch (err) {
    if (err instanceof Response) throw err;
    return data({ outcome: null, entered, returnTo, problem: problemOf(err, SIGN_IN) }, { status: 400 });
  }
}

export default function Register() {
  const { returnTo: fromUrl, captchaSiteKey } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const returnTo = result?.returnTo ?? fromUrl;
  const outcome = result?.outcome;
  const problem = result?.problem;
  return (
    <main className="page auth-page commerce-page" id="main">
      <h1>Create an account</h1>
      {outcome?.state === "REQUIRE_EMAIL_VERIFICATION" ? (
        <VerifyCodeForm email={outcome.email} stateToken={outcome.stateToken} returnTo={returnTo} />
      ) : outcome ? (
        <OutcomeMessage state={outcome.state} email={outcome.email} />
      ) : (
        <>
          <ErrorSummary problem={problem} fieldIds={nameIsId} />
          <Form method="post" className="auth-form">
            {returnTo && <input type="hidden" name="returnTo" value={returnTo} />}
            <Field
              id="firstName"
              name="firstName"
              label="First name (optional)"
              autoComplete="given-name"
              defaultValue={result?.entered.firstName}
              maxLength={100}
              problem={problem}
            />
            <Field
              id="lastName"
              name="lastName"
              label="Last name (optional)"
              autoComplete="family-name"
              defaultValue={result?.entered.lastName}
              maxLength={100}
              problem={problem}
            />
            <Field
              id="email"
              name="email"
              label="Email"
              type="email"
              autoComplete="email"
              defaultValue={result?.entered.email}
              required
              maxLength={254}
              problem={problem}
            />
            <Field
              id="password"
              name="password"
              label="Password"
              type="password"
              autoComplete="new-password"
              required
              minLength={PASSWORD_MIN_LENGTH}
              maxLength={PASSWORD_MAX_LENGTH}
              hint={`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`}
              problem={problem}
            />
            <Captcha siteKey={captchaSiteKey} />
            <button type="submit">Create account</button>
          </Form>
          <p>
            Already have an account? <Link to={withReturnTo("/login", returnTo)}>Log in</Link>
          </p>
        </>
      )}
    </main>
  );
}
