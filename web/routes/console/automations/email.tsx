import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { getEmail, retryEmail } from "#worker/email";
import { dateTimeText, StatusBadge, statusWord, templateLabel } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { ErrorSummary } from "#web/components/ui/form";
import { orRefuse } from "#web/components/console/problem.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/email";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.email ? `Email to ${d.email.to} — Console` : "Email — Console") }];
}

export const headers = () => consoleHeaders;

/** One email of the outbox: its facts, and the message itself (2 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  return orRefuse(getEmail(context.services, params.id));
}

/**
 * Retry: hands a FAILED email to the transport again now, through the email service (automations.manage; 409 for
 * an email that did not fail). The outcome is shown, and the loader shows the row as it now is.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const form = await request.formData();
  if (form.get("intent") !== "retry")
    return data({ ok: null, problem: { message: "Nothing was done: unknown action.", fields: {} } }, { status: 400 });
  try {
    const { email } = await retryEmail(context.services, params.id);
    const ok =
      email.status === "SENT"
        ? `Sent to ${email.to}.`
        : email.status === "QUEUED"
          ? "Queued again: no email transport is configured, so it is recorded here and not sent."
          : email.status === "SUPPRESSED"
            ? `Not sent: ${email.to} has unsubscribed from marketing emails since.`
            : `The retry failed too: ${email.error ?? "transport error"}.`;
    return { ok, problem: null };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem }, { status: problem.status ?? 400 });
  }
}

export default function ConsoleEmail({ loaderData, actionData }: Route.ComponentProps) {
  const { email } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const busy = useNavigation().state === "submitting";
  const mayRetry = !!user?.permissions.includes("automations.manage");
  return (
    <>
      <h1>Email to {email.to}</h1>
      <AutomationsNav />
      <p>
        <Link to="/console/automations/emails">← All emails</Link>
      </p>
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      <ErrorSummary problem={actionData?.problem} />
      <dl className="automation-facts">
        <div>
          <dt>Recipient</dt>
          <dd>{email.to}</dd>
        </div>
        <div>
          <dt>Subject</dt>
          <dd>{email.subject}</dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{templateLabel(email.template)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={email.status} />
          </dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{email.attempts}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{dateTimeText(email.createdDate)}</dd>
        </div>
        <div>
          <dt>Sent</dt>
          <dd>{dateTimeText(email.sentDate)}</dd>
        </div>
        {email.nextAttemptAt && email.status !== "SENT" && (
          <div>
            <dt>Next automatic attempt</dt>
            <dd>{dateTimeText(email.nextAttemptAt)}</dd>
          </div>
        )}
        {email.error && (
          <div className="automation-facts-wide">
            <dt>Error</dt>
            <dd className="automation-error">{email.error}</dd>
          </div>
        )}
      </dl>
      {email.status === "FAILED" &&
        (mayRetry ? (
          <Form method="post" className="console-actions automation-retry">
            <input type="hidden" name="intent" value="retry" />
            <button type="submit" className="console-button primary" disabled={busy}>
              {busy ? "Sending…" : "Retry"}
            </button>
            <span className="console-muted">Hands the same message to the email service again now.</span>
          </Form>
        ) : (
          <p className="console-muted">Sending a failed email again needs the automations permission.</p>
        ))}
      {email.status === "SUPPRESSED" && (
        <p className="console-muted">{`${statusWord("SUPPRESSED")}: the recipient had unsubscribed from marketing emails, so it was recorded and not sent.`}</p>
      )}

      <h2 id="email-preview-title">The message</h2>
      {email.redacted && <p className="console-muted">One-time codes and sign-in links are shown as [hidden]: they belong to the recipient alone.</p>}
      {/* sandbox="": the message is shop-made HTML, but it may carry shopper-typed names; no scripts, no forms, no
          same-origin access, so nothing in it can act as the console. */}
      <iframe className="automation-preview" title={`Preview of the email “${email.subject}”`} sandbox="" srcDoc={email.html} />
      <details className="automation-text">
        <summary>Plain-text version</summary>
        <pre>{email.text}</pre>
      </details>
    </>
  );
}
