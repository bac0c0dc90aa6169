import { data, Form, redirect, useActionData, useLoaderData } from "react-router";
import { startConsoleSession, loginRequest, parseIdentity } from "#worker/identity";
import { SIGN_IN, captchaSiteKey, captchaSiteKeyAfter, captchaTokensOf, clientOf, field } from "#web/auth.server";
import { problemOf } from "#web/components/ui/form.server";
import { Captcha, nameIsId } from "#web/components/auth";
import { ErrorSummary, Field } from "#web/components/ui/form";
import { consoleCookie, consoleHeaders, consoleReturnTo } from "#web/console.server";
import "#web/styles/console.css";
import type { Route } from "./+types/login";

export function meta() {
  return [{ title: "Sign in — Console" }, { name: "robots", content: "noindex" }];
}

export const headers = () => consoleHeaders;

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const url = new URL(request.url);
  const returnTo = consoleReturnTo(url.searchParams.get("returnTo"));
  // Already signed in: straight on.
  if (ctx.auth.kind === "member" && ctx.auth.role !== "MEMBER") throw redirect(returnTo);
  return { returnTo, activated: url.searchParams.get("activated") === "1", captchaSiteKey: await captchaSiteKey(ctx) };
}

/** Signs the owner or a staff member in (the members' login service: same passwords, rate limits and captcha). */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const email = field(form, "email");
  const returnTo = consoleReturnTo(form.get("returnTo"));
  try {
    const req = parseIdentity(loginRequest, { loginId: { email }, password: field(form, "password"), captchaTokens: captchaTokensOf(form) });
    const session = await startConsoleSession(context.services, req, clientOf(request));
    return redirect(returnTo, { headers: { "Set-Cookie": consoleCookie(session.token) } });
  } catch (err) {
    const problem = problemOf(err, SIGN_IN);
    if (problem.code === "NO_CONSOLE_ACCESS")
      problem.message = "This account has no access to the console. Ask the store owner to invite you as staff.";
    return data(
      { email, problem, captchaSiteKey: captchaSiteKeyAfter(context.services, problem) },
      { status: problem.code === "NO_CONSOLE_ACCESS" ? 403 : 400 },
    );
  }
}

export default function ConsoleLogin() {
  const { returnTo, activated, captchaSiteKey } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <main className="console-signin" id="main">
      <h1>Sign in to the console</h1>
      <p className="console-muted">For the store's owner and staff.</p>
      {activated && !result ? (
        <p role="status" className="form-success">
          Your account is active. Sign in with the password you just set.
        </p>
      ) : null}
      <ErrorSummary problem={result?.problem} fieldIds={nameIsId} />
      <Form method="post" className="console-form">
        <input type="hidden" name="returnTo" value={returnTo} />
        <Field
          id="email"
          name="email"
          label="Email"
          type="email"
          autoComplete="username"
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
        <button type="submit" className="console-button primary">
          Sign in
        </button>
      </Form>
      <p>
        <a href="/forgot-password">Forgot your password?</a> · <a href="/">Back to the shop</a>
      </p>
    </main>
  );
}
