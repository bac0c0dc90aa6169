import { Link, useNavigation } from "react-router";
import { getEmail, retryEmail } from "#worker/email";
import { AutomationHead, dateTimeText, Facts, StatusBadge, statusWord, templateLabel } from "#web/components/console/automation-lists";
import { intentAction } from "#web/components/console/intent-action.server";
import { PostButton } from "#web/components/console/post-button";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { useCan } from "#web/components/ui/page";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/email";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.email ? `Email to ${d.email.to} — Console` : "Email — Console",
);

/** One email of the outbox: its facts, and the message itself (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  return orRefuse(getEmail(context.services, params.id));
});

/**
 * Retry: hands a FAILED email to the transport again now, through the email service (automations.manage; 409 for
 * an email that did not fail). The outcome is shown, and the loader shows the row as it now is.
 */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  return intentAction(await request.formData(), ["retry"], async () => {
    const { email } = await retryEmail(context.services, params.id);
    return email.status === "SENT"
      ? `Sent to ${email.to}.`
      : email.status === "QUEUED"
        ? "Queued again: no email transport is configured, so it is recorded here and not sent."
        : email.status === "SUPPRESSED"
          ? `Not sent: ${email.to} has unsubscribed from marketing emails since.`
          : `The retry failed too: ${email.error ?? "transport error"}.`;
  });
});

export default function ConsoleEmail({ loaderData, actionData }: Route.ComponentProps) {
  const { email } = loaderData;
  const busy = useNavigation().state === "submitting";
  const mayRetry = useCan("automations.manage");
  return (
    <>
      <AutomationHead title={`Email to ${email.to}`} back={<Link to="/console/automations/emails">← All emails</Link>} result={actionData} />
      <Facts
        facts={[
          ["Recipient", email.to],
          ["Subject", email.subject],
          ["Email", templateLabel(email.template)],
          ["Status", <StatusBadge key="status" status={email.status} />],
          ["Attempts", email.attempts],
          ["Created", dateTimeText(email.createdDate)],
          ["Sent", dateTimeText(email.sentDate)],
          email.nextAttemptAt && email.status !== "SENT" && ["Next automatic attempt", dateTimeText(email.nextAttemptAt)],
          email.error && ["Error", email.error, true, "automation-error"],
        ]}
      />
      {email.status === "FAILED" &&
        (mayRetry ? (
          <div className="console-actions automation-retry">
            <PostButton intent="retry" primary disabled={busy}>
              {busy ? "Sending…" : "Retry"}
            </PostButton>
            <span className="console-muted">Hands the same message to the email service again now.</span>
          </div>
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
