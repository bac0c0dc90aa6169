import { data, Link, useActionData } from "react-router";
import { resendCode, verifyCode, parseIdentity, resendRequest, verifyCodeRequest } from "#worker/identity";
import { SIGN_IN, clientOf, field, noStore, outcomeOf, safeReturnTo } from "#web/auth.server";
import { problemOf } from "#web/components/ui/form.server";
import { OutcomeMessage, VerifyCodeForm } from "#web/components/auth";
import { continueAfterSignIn } from "#web/member-session.server";
import "#web/styles/commerce.css";
import type { Route } from "./+types/verify";

export function meta() {
  return [{ title: "Confirm your email — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

/**
 * The code form posts here (from /login or /register, with the state token hidden in the form, never in the URL):
 * `intent=verify` checks the code through the same service as POST /v1/auth/verify, `intent=resend` emails a new one.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const stateToken = field(form, "stateToken");
  const email = field(form, "email").slice(0, 254);
  const returnTo = safeReturnTo(form.get("returnTo"));
  const base = { email, stateToken, returnTo };
  try {
    if (field(form, "intent") === "resend") {
      await resendCode(context.services, parseIdentity(resendRequest, { stateToken }));
      return { ...base, outcome: null, resent: true, problem: null };
    }
    const result = await verifyCode(context.services, parseIdentity(verifyCodeRequest, { stateToken, code: field(form, "code") }), clientOf(request));
    if (result.state === "SUCCESS") throw await continueAfterSignIn(context.services, request, result.sessionToken, returnTo);
    return { ...base, outcome: outcomeOf(result), resent: false, problem: null };
  } catch (err) {
    if (err instanceof Response) throw err;
    return data({ ...base, outcome: null, resent: false, problem: problemOf(err, SIGN_IN) }, { status: 400 });
  }
}

const DEAD_STATE_CODES = new Set(["INVALID_STATE_TOKEN", "VERIFICATION_ATTEMPTS_EXCEEDED"]);

export default function Verify() {
  const result = useActionData<typeof action>();
  const outcome = result?.outcome;
  // Without a live state token there is nothing to enter a code for: logging in again sends a new one.
  const stateDead = !result?.stateToken || DEAD_STATE_CODES.has(result.problem?.code ?? "");
  return (
    <main className="page auth-page commerce-page" id="main">
      <h1>Confirm your email</h1>
      {outcome && outcome.state !== "REQUIRE_EMAIL_VERIFICATION" ? (
        <OutcomeMessage state={outcome.state} email={outcome.email} />
      ) : stateDead ? (
        <>
          {result?.problem && (
            <div className="form-error" role="alert">
              <p>{result.problem.message}</p>
            </div>
          )}
          <p>To get a verification code, log in with your email and password: we email you a new code.</p>
          <p>
            <Link to={result?.returnTo ? `/login?returnTo=${encodeURIComponent(result.returnTo)}` : "/login"}>Log in</Link>
          </p>
        </>
      ) : (
        <>
          {result?.resent && (
            <p role="status" className="form-success">
              We sent a new code. Only the newest code works.
            </p>
          )}
          <VerifyCodeForm email={result!.email} stateToken={result!.stateToken} returnTo={result!.returnTo} problem={result?.problem} />
        </>
      )}
    </main>
  );
}
