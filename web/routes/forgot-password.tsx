import { data, Form, Link, useActionData, useLoaderData } from "react-router";
import { sendRecoveryEmail, parseIdentity, sendRecoveryEmailRequest } from "#worker/identity";
import { SIGN_IN, clientOf, field, noStore, safeReturnTo } from "#web/auth.server";
import { problemOf } from "#web/components/ui/form.server";
import { nameIsId, withReturnTo } from "#web/components/auth";
import { ErrorSummary, Field } from "#web/components/ui/form";
import "#web/styles/commerce.css";
import type { Route } from "./+types/forgot-password";

export function meta() {
  return [{ title: "Reset your password — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

export function loader({ request }: Route.LoaderArgs) {
  return { returnTo: safeReturnTo(new URL(request.url).searchParams.get("returnTo")) };
}

/** Asks for a recovery link through the same service as POST /v1/send-email: the same answer whether or not the email has an account. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const email = field(form, "email");
  try {
    await sendRecoveryEmail(context.services, parseIdentity(sendRecoveryEmailRequest, { email }), clientOf(request));
    return { sentTo: email.trim(), email, problem: null };
  } catch (err) {
    return data({ sentTo: null, email, problem: problemOf(err, SIGN_IN) }, { status: 400 });
  }
}

export default function ForgotPassword() {
  const { returnTo } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <main className="page auth-page commerce-page" id="main">
      <h1>Reset your password</h1>
      {result?.sentTo ? (
        <div role="status" className="form-success">
          <p>
            If an account exists for <strong>{result.sentTo}</strong>, we have emailed it a link to choose a new password. The link works once and
            expires in 1 hour.
          </p>
          <p>
            <Link to={withReturnTo("/login", returnTo)}>Back to log in</Link>
          </p>
        </div>
      ) : (
        <>
          <p>Enter the email you registered with and we will send you a link to choose a new password.</p>
          <ErrorSummary problem={result?.problem} fieldIds={nameIsId} />
          <Form method="post" className="auth-form">
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
            <button type="submit">Send the link</button>
          </Form>
          <p>
            <Link to={withReturnTo("/login", returnTo)}>Back to log in</Link>
          </p>
        </>
      )}
    </main>
  );
}
