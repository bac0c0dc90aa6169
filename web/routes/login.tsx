import { data, Form, Link, redirect, useActionData, useLoaderData } from "react-router";
import { HANDOVER_PARAM, login, loginRequest, parseIdentity, postFlowUrlOf, redeemHandover } from "#worker/identity";
import { sessionCookie, sessionTokensOf } from "#web/session.server";
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

/**
 * A login redirect session from a headless site arrives with a one-time credential: it starts this browser's session
 * as that visitor (so their cart follows them into the account), and the clean URL follows, keeping where to go
 * back to when the login is done (`continue`).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const handover = url.searchParams.get(HANDOVER_PARAM);
  if (handover !== null) {
    const ctx = context.services;
    const started = await redeemHandover(ctx.env, ctx.db, handover, { intent: "login" });
    if (!started) throw data(null, { status: 410, statusText: "This login link has expired or has already been used" });
    const next = new URLSearchParams();
    const returnTo = safeReturnTo(url.searchParams.get("returnTo"));
    if (returnTo) next.set("returnTo", returnTo);
    if (started.continueKey) next.set(CONTINUE_PARAM, started.continueKey);
    throw redirect(`/login${next.size ? `?${next}` : ""}`, {
      headers: { ...noStore, "Set-Cookie": sessionCookie(sessionTokensOf(started.tokens)) },
    });
  }
  return signInPageData(request, context.services);
}

/** The query parameter naming where a handed-over login returns to (postFlowUrlOf). */
const CONTINUE_PARAM = "continue";

/** Where to go after signing in: the headless site's post-flow URL when the login was handed over, else returnTo. */
async function afterSignIn(request: Request, env: Env, returnTo: string | null): Promise<string | null> {
  const key = new URL(request.url).searchParams.get(CONTINUE_PARAM);
  return (key && (await postFlowUrlOf(env, key))) || returnTo;
}

/** Logs in through the same service as POST /v2/login; SUCCESS with a return path continues there with the session token. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const email = field(form, "email");
  const returnTo = safeReturnTo(form.get("returnTo"));
  try {
    const req = parseIdentity(loginRequest, { loginId: { email }, password: field(form, "password"), captchaTokens: captchaTokensOf(form) });
    const result = await login(context.services, req, clientOf(request));
    if (result.state === "SUCCESS")
      throw await continueAfterSignIn(context.services, request, result.sessionToken, await afterSignIn(request, context.services.env, returnTo));
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
