import { data, useNavigation, useRouteLoaderData } from "react-router";
import { PostButton } from "#web/components/console/post-button";
import { deadFailureTypes, listFailures, replayAllFailures, replayFailure } from "#worker/events";
import { INCOMING_EVENT_TYPES } from "#worker/webhooks";
import { ErrorSummary, Select, type Problem } from "#web/components/ui/form";
import { FilterBar } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { canManageWebhooks, When, WebhooksNav } from "#web/components/console/webhooks";
import { pageParam } from "#web/components/console/webhooks.server";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/events";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Dead events — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;

/**
 * Dead events: queue messages whose processing failed for good (or after every retry), with the error, newest
 * first, filtered by event type (three D1 round trips with the session).
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageParam(url);
  const type = url.searchParams.get("type")?.trim().slice(0, 200) || undefined;
  const [{ failures, metadata }, { types }] = await Promise.all([
    listFailures(context.services, { state: "DEAD", type, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    deadFailureTypes(context.services),
  ]);
  const dead = failures.map(({ message: _message, ...f }) => f);
  return {
    failures: dead,
    total: metadata.total,
    allDead: types.reduce((n, t) => n + t.count, 0),
    types,
    type: type ?? "",
    page,
    pages: Math.max(1, Math.ceil(metadata.total / PAGE_SIZE)),
  };
}

interface ActionResult {
  ok: string | null;
  problem: Problem | null;
}

/** Replay one, or every dead event matching the filter: through the failures service (automations.manage). */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  try {
    if (intent === "replay") {
      const { failure } = await replayFailure(ctx, INCOMING_EVENT_TYPES, String(form.get("id") ?? ""));
      return {
        ok: `Replayed ${failure.type}: it is back on the queue, and only the processors that failed run again.`,
        problem: null,
      } satisfies ActionResult;
    }
    if (intent === "replay-all") {
      const type = String(form.get("type") ?? "").trim() || undefined;
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
      return {
        ok: `Replayed ${replayed} ${what}.${remaining ? ` ${remaining} still to go: replay again.` : ""}`,
        problem: null,
      } satisfies ActionResult;
    }
    return data({ ok: null, problem: { message: "Unknown action.", fields: {} } } satisfies ActionResult, { status: 400 });
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem } satisfies ActionResult, { status: problem.status ?? 400 });
  }
}

export default function ConsoleEvents({ loaderData, actionData }: Route.ComponentProps) {
  const { failures, total, allDead, types, type, page, pages } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const manage = !!user && canManageWebhooks(user);
  const busy = useNavigation().state === "submitting";
  const result = actionData as ActionResult | undefined;
  return (
    <>
      <h1>Dead events</h1>
      <WebhooksNav />
      <p className="console-muted">
        Events the shop could not process: a processor failed for good, or every retry failed. Fix the cause, then replay: only the processors that
        failed run again.
      </p>
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      <ErrorSummary problem={result?.problem} />
      <p className="events-count" data-dead-count={allDead}>
        <strong>{allDead === 0 ? "No dead events." : `${allDead} dead ${allDead === 1 ? "event" : "events"}.`}</strong>
      </p>
      <FilterBar label="Filter dead events">
        <Select
          id="events-type"
          name="type"
          label="Event type"
          defaultValue={type}
          placeholder="Any"
          options={[
            ...types.map((t) => [t.type, `${t.type} (${t.count})`] as const),
            // A type asked for in the address that has no dead events now still shows as chosen.
            ...(type && !types.some((t) => t.type === type) ? [[type, `${type} (0)`] as const] : []),
          ]}
        />
      </FilterBar>
      {failures.length > 0 && manage && (
        <div className="webhooks-row-actions">
          <PostButton intent="replay-all" fields={{ type }} primary disabled={busy}>
            {`Replay ${total === 1 ? "the" : `all ${total}`} dead ${type ? `${type} ` : ""}${total === 1 ? "event" : "events"}${type ? "" : " (every type)"}`}
          </PostButton>
        </div>
      )}
      {failures.length === 0 ? (
        <p role="status">{type ? "No dead events of this type." : "Nothing needs attention."}</p>
      ) : (
        <>
          <p className="console-muted" role="status">{`${total} ${total === 1 ? "event matches" : "events match"}.`}</p>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">Dead events, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Failed in</th>
                  <th scope="col">Error</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Dead since</th>
                  {manage && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {failures.map((f) => (
                  <tr key={f.id}>
                    <th scope="row" className="webhooks-code">
                      {f.type}
                      <div className="console-muted">{f.id}</div>
                    </th>
                    <td className="webhooks-code">{f.processor ?? "—"}</td>
                    <td>{f.error}</td>
                    <td className="num">{f.attempts}</td>
                    <td>
                      <When iso={f.deadDate ?? f.lastFailedDate} />
                    </td>
                    {manage && (
                      <td>
                        <PostButton intent="replay" fields={{ id: f.id }} disabled={busy} label={`Replay ${f.type} ${f.id}`}>
                          Replay
                        </PostButton>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of dead events" previous="← Newer" next="Older →" />
        </>
      )}
    </>
  );
}
