import { data, Link, redirect, useNavigation, useRouteLoaderData } from "react-router";
import { PostButton } from "#web/components/console/post-button";
import { deleteSubscription, listDeliveries, redeliver, rotateSubscriptionSecret, sendTestEvent, updateSubscription } from "#worker/webhooks";
import { Badge, type Tone } from "#web/components/console/badge";
import { TickToDelete } from "#web/components/console/confirm";
import { ErrorSummary, Select, type Problem } from "#web/components/ui/form";
import { FilterBar } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { orRefuse } from "#web/components/console/problem.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { consoleTitle } from "#web/components/console/title";
import { canManageWebhooks, When, WebhooksNav } from "#web/components/console/webhooks";
import { formValues, pageParam, requireConfirmation } from "#web/components/console/webhooks.server";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/subscription";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Webhook subscription — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 20;
const STATUSES = ["PENDING", "SUCCEEDED", "FAILED"] as const;
type DeliveryStatus = (typeof STATUSES)[number];

/** One subscription and its delivery log, every attempt of 20 deliveries a page (two D1 round trips). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageParam(url);
  const raw = url.searchParams.get("status") ?? "";
  const status = STATUSES.includes(raw as DeliveryStatus) ? (raw as DeliveryStatus) : undefined;
  const { subscription, deliveries, metadata } = await orRefuse(
    listDeliveries(context.services, params.id, { status, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
  );
  // The log shows what was sent and answered, not whole event bodies.
  const log = deliveries.map(({ event: _event, ...d }) => d);
  return {
    subscription,
    deliveries: log,
    total: metadata.total,
    page,
    pages: Math.max(1, Math.ceil(metadata.total / PAGE_SIZE)),
    status: status ?? "",
  };
}

interface ActionResult {
  intent: string;
  ok: string | null;
  problem: Problem | null;
  secret?: string;
}

/** Rotate, test, disable/enable, redeliver, delete: each through the subscriptions service (automations.manage). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = formValues(form);
  try {
    switch (intent) {
      case "rotate": {
        const { subscription, secret } = await rotateSubscriptionSecret(ctx, params.id);
        return {
          intent,
          ok: `New secret made. Deliveries are signed with the new and the old secret until ${subscription.previousSecretExpiresDate?.replace("T", " ").slice(0, 16)} UTC, then with the new one only.`,
          problem: null,
          secret,
        } satisfies ActionResult;
      }
      case "test": {
        await sendTestEvent(ctx, params.id);
        return {
          intent,
          ok: "Test event sent: it shows in the delivery log below once the receiver answers (reload if it is not there yet).",
          problem: null,
        } satisfies ActionResult;
      }
      case "enabled": {
        const { subscription } = await updateSubscription(ctx, params.id, { enabled: values.enabled === "true" });
        return {
          intent,
          ok: subscription.enabled ? "Subscription enabled." : "Subscription disabled: nothing is sent until you enable it.",
          problem: null,
        } satisfies ActionResult;
      }
      case "redeliver": {
        await redeliver(ctx, values.deliveryId ?? "");
        return { intent, ok: "Sent again: the new attempt shows in the log once the receiver answers.", problem: null } satisfies ActionResult;
      }
      case "delete":
        requireConfirmation(form, "this subscription");
        await deleteSubscription(ctx, params.id);
        return redirect("/console/webhooks");
      default:
        return data({ intent, ok: null, problem: { message: "Unknown action.", fields: {} } } satisfies ActionResult, { status: 400 });
    }
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ intent, ok: null, problem } satisfies ActionResult, { status: problem.status ?? 400 });
  }
}

const STATUS_BADGE: Record<DeliveryStatus, { label: string; tone: Tone }> = {
  PENDING: { label: "Pending", tone: "warn" },
  SUCCEEDED: { label: "Delivered", tone: "good" },
  FAILED: { label: "Failed", tone: "bad" },
};

export default function ConsoleWebhookSubscription({ loaderData, actionData }: Route.ComponentProps) {
  const { subscription: s, deliveries, total, page, pages, status } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const manage = !!user && canManageWebhooks(user);
  const busy = useNavigation().state === "submitting";
  const result = actionData as ActionResult | undefined;
  return (
    <>
      <p>
        <Link to="/console/webhooks">← Webhooks</Link>
      </p>
      <h1>Subscription</h1>
      <WebhooksNav />
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {result?.secret && <SecretOnce label="The new signing secret." secret={result.secret} />}
      {(!manage || result?.intent !== "delete") && <ErrorSummary problem={result?.problem} />}
      <dl className="webhooks-dl">
        <dt>URL</dt>
        <dd className="webhooks-code">{s.url}</dd>
        <dt>Events</dt>
        <dd className="webhooks-code">{s.eventTypes.includes("*") ? "All events" : s.eventTypes.join(", ")}</dd>
        <dt>Format</dt>
        <dd>{s.format === "wix" ? "Wix JWT, signed with the shop's RSA key" : "Standard Webhooks, signed with the subscription's secret"}</dd>
        <dt>Status</dt>
        <dd>
          {s.enabled ? <Badge tone="good">Enabled</Badge> : <Badge tone="bad">Disabled</Badge>}
          {!s.enabled && s.disabledReason && <span className="console-muted">{` ${s.disabledReason}`}</span>}
          {s.enabled && s.consecutiveFailures > 0 && (
            <span className="console-muted">{` ${s.consecutiveFailures} deliveries in a row failed every attempt.`}</span>
          )}
        </dd>
        {s.previousSecretExpiresDate && (
          <>
            <dt>Old secret</dt>
            <dd>
              Also signs until <When iso={s.previousSecretExpiresDate} />
            </dd>
          </>
        )}
        {s.description && (
          <>
            <dt>Description</dt>
            <dd>{s.description}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <When iso={s.createdDate} />
        </dd>
      </dl>
      {manage && (
        <div className="webhooks-row-actions">
          <PostButton intent="test" primary disabled={busy || !s.enabled}>
            Send a test event
          </PostButton>
          {s.format === "standard" && (
            <PostButton intent="rotate" disabled={busy}>
              Rotate secret
            </PostButton>
          )}
          <PostButton intent="enabled" fields={{ enabled: String(!s.enabled) }} disabled={busy}>
            {s.enabled ? "Disable" : "Enable"}
          </PostButton>
        </div>
      )}

      <section className="webhooks-section" aria-labelledby="log-heading">
        <h2 id="log-heading">Delivery log</h2>
        <FilterBar label="Filter deliveries">
          <Select
            id="log-status"
            name="status"
            label="Status"
            defaultValue={status}
            placeholder="Any"
            options={STATUSES.map((x) => [x, STATUS_BADGE[x].label] as const)}
          />
        </FilterBar>
        {deliveries.length === 0 ? (
          <p role="status">No deliveries{status ? " with this status" : ""} yet.</p>
        ) : (
          <>
            <p className="console-muted" role="status">{`${total} ${total === 1 ? "delivery" : "deliveries"}.`}</p>
            <div className="console-scroll">
              <table className="console-table webhooks-log">
                <caption className="visually-hidden">Deliveries, newest first, with every attempt</caption>
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempt</th>
                    <th scope="col">Sent</th>
                    <th scope="col" className="num">
                      HTTP status
                    </th>
                    <th scope="col" className="num">
                      Latency
                    </th>
                    <th scope="col">Response</th>
                    {manage && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                {deliveries.map((d) => {
                  const rows = d.attempts.length ? d.attempts : [null];
                  return (
                    <tbody key={d.id} data-delivery={d.id}>
                      {rows.map((a, i) => (
                        <tr key={a?.attempt ?? 0}>
                          {i === 0 && (
                            <>
                              <th scope="rowgroup" rowSpan={rows.length} className="webhooks-code">
                                {d.eventType}
                                <div className="console-muted">
                                  <When iso={d.createdDate} />
                                </div>
                              </th>
                              <td rowSpan={rows.length}>
                                <Badge tone={STATUS_BADGE[d.status].tone}>{STATUS_BADGE[d.status].label}</Badge>
                                {d.nextAttemptDate && (
                                  <div className="console-muted">
                                    Next try <When iso={d.nextAttemptDate} />
                                  </div>
                                )}
                              </td>
                            </>
                          )}
                          {a ? (
                            <>
                              <td>{`#${a.attempt}${a.succeeded ? " ✓" : " ✗"}`}</td>
                              <td>
                                <When iso={a.startedDate} />
                              </td>
                              <td className="num">{a.responseStatus ?? "—"}</td>
                              <td className="num">{`${a.latencyMs} ms`}</td>
                              <td>
                                {a.error && <div>{a.error}</div>}
                                {a.responseExcerpt ? <pre className="webhooks-excerpt">{a.responseExcerpt}</pre> : null}
                              </td>
                            </>
                          ) : (
                            <td colSpan={5} className="console-muted">
                              Not attempted yet.
                            </td>
                          )}
                          {manage && i === 0 && (
                            <td rowSpan={rows.length}>
                              <PostButton
                                intent="redeliver"
                                fields={{ deliveryId: d.id }}
                                disabled={busy || !s.enabled}
                                label={`Redeliver ${d.eventType} of ${d.createdDate}`}
                              >
                                Redeliver
                              </PostButton>
                            </td>
                          )}
                        </tr>
                      ))}
                    </tbody>
                  );
                })}
              </table>
            </div>
            <Pager page={page} pages={pages} label="Pages of deliveries" previous="← Newer" next="Older →" />
          </>
        )}
      </section>

      {manage && (
        <TickToDelete
          id="delete-subscription"
          className="console-form webhooks-section"
          note="Its deliveries and their log go with it."
          what="this subscription"
          button="Delete subscription"
          error={result?.intent === "delete" ? result.problem?.fields.confirm : undefined}
          problem={result?.intent === "delete" ? result.problem : null}
          busy={busy}
        />
      )}
    </>
  );
}
