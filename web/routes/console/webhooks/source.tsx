import { listSourceEvents, type SourceEventStatus } from "#worker/webhooks";
import { PostButton } from "#web/components/console/post-button";
import { orRefuse } from "#web/components/console/problem.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { consoleMeta } from "#web/components/console/title";
import { SourceDetails } from "#web/components/console/webhook-details";
import { EventTypesForm, RotateForm } from "#web/components/console/webhook-forms";
import { KeysTable, OUTCOME, ReceivedTable } from "#web/components/console/webhook-views";
import { DeleteWebhook, PagedLog, useWebhookPage, WebhooksHead } from "#web/components/console/webhooks";
import { logQuery, pageCount } from "#web/components/console/webhooks.server";
import { counted } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { Route } from "./+types/source";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.source ? `Source ${d.source.name} — Console` : "Webhook source — Console",
);

const PAGE_SIZE = 25;
const STATUSES: SourceEventStatus[] = ["ACCEPTED", "UNHANDLED", "DUPLICATE", "REFUSED"];

/** One source: its keys (ids and dates, never a secret) and what it received, 25 a page (two D1 round trips). */
export const loader = staffOnly(async ({ context, request, params }: Route.LoaderArgs) => {
  const { page, status, paging } = logQuery(new URL(request.url), STATUSES, PAGE_SIZE);
  const { source, events, metadata } = await orRefuse(listSourceEvents(context.services, params.id, paging));
  return { source, events, total: metadata.total, page, pages: pageCount(metadata.total, PAGE_SIZE), status: status ?? "", now: Date.now() };
});

/**
 * Rotation, ending a key now, the event types it may send, disable/enable and delete: each through the sources
 * service (automations.manage, and the permissions its types need to rotate, allow or enable).
 */
export { sourceAction as action } from "./source.server";
import type { ActionResult } from "./source.server";

const OWN_FORMS = ["rotate", "delete", "event-types"];
const OPTIONS = STATUSES.map((s) => [s, OUTCOME[s].label] as const);

export default function ConsoleWebhookSource({ loaderData, actionData }: Route.ComponentProps) {
  const { source, events, total, page, pages, status, now } = loaderData;
  const { result, manage, busy } = useWebhookPage<ActionResult>(actionData);
  return (
    <>
      <WebhooksHead
        title={`Source ${source.name}`}
        back
        ok={result?.ok}
        secret={result?.secret && <SecretOnce label="The new signing secret." secret={result.secret} />}
        // A form's own problem shows in that form; the rest (and everything for someone without the forms) here.
        problem={result && (!manage || !OWN_FORMS.includes(result.intent)) ? result.problem : null}
      />
      {source.refusing.length > 0 && (
        <div className="console-error">
          <p>Some events of this source are refused:</p>
          <ul>
            {source.refusing.map((r) => (
              <li key={r.type}>{r.reason}</li>
            ))}
          </ul>
        </div>
      )}
      <SourceDetails source={source} />
      {manage && (
        <div className="webhooks-row-actions">
          <PostButton intent="enabled" fields={{ enabled: String(!source.enabled) }} disabled={busy}>
            {source.enabled ? "Disable source" : "Enable source"}
          </PostButton>
        </div>
      )}
      {manage && <EventTypesForm result={result} stored={source.eventTypes} busy={busy} />}
      <section className="webhooks-section" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        <p className="console-muted">
          {source.format === "wix"
            ? "Requests verify with any active public key."
            : "Requests verify with any active secret. Secrets are shown only when made."}
        </p>
        <KeysTable keys={source.keys} now={now} manage={manage} busy={busy} />
        {manage && <RotateForm result={result} wix={source.format === "wix"} busy={busy} />}
      </section>
      <section className="webhooks-section" aria-labelledby="received-heading">
        <h2 id="received-heading">Received</h2>
        <PagedLog
          filter={{ label: "Filter what was received", id: "received-status", name: "status", field: "Outcome", value: status, options: OPTIONS }}
          empty={events.length === 0 ? `Nothing received${status ? " with this outcome" : ""} yet.` : null}
          count={`${counted(total, "request", "requests")}.`}
          page={page}
          pages={pages}
          of="received requests"
        >
          <ReceivedTable events={events} />
        </PagedLog>
      </section>
      {manage && (
        <DeleteWebhook what="source" note="Its endpoint answers 404 from then on. Events it sent stay processed." result={result} busy={busy} />
      )}
    </>
  );
}
