import { deadFailureTypes, listFailures, replayAllFailures, replayFailure } from "#worker/events";
import { INCOMING_EVENT_TYPES } from "#worker/webhooks";
import { PostButton } from "#web/components/console/post-button";
import { byIntent } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { DeadEventsTable } from "#web/components/console/webhook-views";
import { PagedLog, useWebhookPage, WebhooksHead } from "#web/components/console/webhooks";
import { pageCount, pageParam, WEBHOOKS } from "#web/components/console/webhooks.server";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { Route } from "./+types/events";

export const meta = consoleMeta("Dead events — Console");

const PAGE_SIZE = 25;

/**
 * Dead events: queue messages whose processing failed for good (or after every retry), with the error, newest
 * first, filtered by event type (three D1 round trips with the session).
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const url = new URL(request.url);
  const page = pageParam(url);
  const type = url.searchParams.get("type")?.trim().slice(0, 200) || undefined;
  const [{ failures, metadata }, { types }] = await Promise.all([
    listFailures(context.services, { state: "DEAD", type, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    deadFailureTypes(context.services),
  ]);
  const dead = failures.map(({ message: _message, ...f }) => f);
  const allDead = types.reduce((n, t) => n + t.count, 0);
  return { failures: dead, total: metadata.total, allDead, types, type: type ?? "", page, pages: pageCount(metadata.total, PAGE_SIZE) };
});

/** Replay one, or every dead event matching the filter: through the failures service (automations.manage). */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  return byIntent(
    form,
    {
      replay: async (v) => {
        const { failure } = await replayFailure(ctx, INCOMING_EVENT_TYPES, v.id ?? "");
        return { ok: `Replayed ${failure.type}: it is back on the queue, and only the processors that failed run again.` };
      },
      "replay-all": async (v) => {
        const type = (v.type ?? "").trim() || undefined;
        // The service replays 100 per call: keep calling while the same filter matches more (at most 10 calls, 1,000 events).
        let replayed = 0;
        let remaining = 0;
        for (let i = 0; i < 10; i++) {
          const step = await replayAllFailures(ctx, INCOMING_EVENT_TYPES, 100, { type });
          replayed += step.replayed;
          remaining = step.remaining;
          if (step.replayed === 0 || remaining === 0) break;
        }
        const what = type ? `dead ${type} events` : "dead events";
        return { ok: `Replayed ${replayed} ${what}.${remaining ? ` ${remaining} still to go: replay again.` : ""}` };
      },
    },
    { wording: WEBHOOKS },
  );
});

export default function ConsoleEvents({ loaderData, actionData }: Route.ComponentProps) {
  const { failures, total, allDead, types, type, page, pages } = loaderData;
  const { result, manage, busy } = useWebhookPage(actionData);
  const events = total === 1 ? "event" : "events";
  const options = [
    ...types.map((t) => [t.type, `${t.type} (${t.count})`] as const),
    // A type asked for in the address that has no dead events now still shows as chosen.
    ...(type && !types.some((t) => t.type === type) ? [[type, `${type} (0)`] as const] : []),
  ];
  return (
    <>
      <WebhooksHead
        title="Dead events"
        intro={
          <p className="console-muted">
            Events the shop could not process: a processor failed for good, or every retry failed. Fix the cause, then replay: only the processors
            that failed run again.
          </p>
        }
        ok={result?.ok}
        problem={result?.problem}
      />
      <p className="events-count" data-dead-count={allDead}>
        <strong>{allDead === 0 ? "No dead events." : `${allDead} dead ${allDead === 1 ? "event" : "events"}.`}</strong>
      </p>
      <PagedLog
        filter={{ label: "Filter dead events", id: "events-type", name: "type", field: "Event type", value: type, options }}
        actions={
          failures.length > 0 &&
          manage && (
            <div className="webhooks-row-actions">
              <PostButton intent="replay-all" fields={{ type }} primary disabled={busy}>
                {`Replay ${total === 1 ? "the" : `all ${total}`} dead ${type ? `${type} ` : ""}${events}${type ? "" : " (every type)"}`}
              </PostButton>
            </div>
          )
        }
        empty={failures.length > 0 ? null : type ? "No dead events of this type." : "Nothing needs attention."}
        count={`${total} ${total === 1 ? "event matches" : "events match"}.`}
        page={page}
        pages={pages}
        of="dead events"
      >
        <DeadEventsTable failures={failures} manage={manage} busy={busy} />
      </PagedLog>
    </>
  );
}
