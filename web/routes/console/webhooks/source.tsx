import { data, Form, Link, redirect, useNavigation, useRouteLoaderData } from "react-router";
import { PostButton } from "#web/components/console/post-button";
import { eventRegistry } from "#worker/app";
import {
  incomingEventType,
  deleteSource,
  listSourceEvents,
  removeSourceKey,
  rotateKeyRequest,
  rotateSourceKey,
  updateSource,
  updateSourceRequest,
  type SourceEventStatus,
} from "#worker/webhooks";
import { parseWith } from "#worker/platform/validation";
import { Badge, type Tone } from "#web/components/console/badge";
import { TickToDelete } from "#web/components/console/confirm";
import { ErrorSummary, FieldError, Select, type Problem } from "#web/components/ui/form";
import { FilterBar } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { orRefuse } from "#web/components/console/problem.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { consoleTitle } from "#web/components/console/title";
import { canManageWebhooks, SourceEventTypes, When, WebhooksNav } from "#web/components/console/webhooks";
import { formValues, pageParam, requireConfirmation } from "#web/components/console/webhooks.server";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/source";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.source ? `Source ${d.source.name} — Console` : "Webhook source — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;
const STATUSES: SourceEventStatus[] = ["ACCEPTED", "UNHANDLED", "DUPLICATE", "REFUSED"];

/** One source: its keys (ids and dates, never a secret) and what it received, 25 a page (two D1 round trips). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageParam(url);
  const raw = url.searchParams.get("status") ?? "";
  const status = STATUSES.includes(raw as SourceEventStatus) ? (raw as SourceEventStatus) : undefined;
  const { source, events, metadata } = await orRefuse(
    listSourceEvents(context.services, params.id, { status, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
  );
  return {
    source,
    events,
    total: metadata.total,
    page,
    pages: Math.max(1, Math.ceil(metadata.total / PAGE_SIZE)),
    status: status ?? "",
    now: Date.now(),
  };
}

interface ActionResult {
  intent: string;
  ok: string | null;
  problem: Problem | null;
  values: Record<string, string> | null;
  types?: string[];
  secret?: string;
}

/**
 * Rotation, ending a key now, the event types it may send, disable/enable and delete: each through the sources
 * service (automations.manage, and the permissions its types need to rotate, allow or enable).
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const values = formValues(form);
  try {
    switch (intent) {
      case "rotate": {
        const overlap = (values.overlapMinutes ?? "").trim();
        const input = parseWith(rotateKeyRequest, {
          overlapMinutes: /^\d+$/.test(overlap) ? Number(overlap) : overlap,
          ...(values.publicKey !== undefined ? { publicKey: values.publicKey } : {}),
        });
        const rotated = await rotateSourceKey(ctx, params.id, input);
        const old = rotated.source.keys.filter((k) => k.id !== rotated.keyId);
        const ok = old.length
          ? `New key ${rotated.keyId} added. The old ${old.length === 1 ? "key keeps" : "keys keep"} working until the time shown below, then stop.`
          : `New key ${rotated.keyId} added.`;
        return { intent, ok, problem: null, values: null, ...(rotated.secret ? { secret: rotated.secret } : {}) } satisfies ActionResult;
      }
      case "event-types": {
        const types = form.getAll("eventTypes").map(String);
        try {
          const { source } = await updateSource(ctx, params.id, parseWith(updateSourceRequest, { eventTypes: types }), eventRegistry);
          return {
            intent,
            ok: `The source may now send ${source.eventTypes.join(", ")}, acting for you.`,
            problem: null,
            values: null,
          } satisfies ActionResult;
        } catch (err) {
          const problem = problemOf(err, CONSOLE);
          return data({ intent, ok: null, problem, values, types } satisfies ActionResult, { status: problem.status ?? 400 });
        }
      }
      case "remove-key":
        await removeSourceKey(ctx, params.id, values.keyId ?? "");
        return { intent, ok: `Key ${values.keyId} removed: it no longer verifies anything.`, problem: null, values: null } satisfies ActionResult;
      case "enabled": {
        const { source } = await updateSource(ctx, params.id, { enabled: values.enabled === "true" }, eventRegistry);
        return {
          intent,
          ok: source.enabled
            ? "Source enabled: it accepts signed requests again."
            : "Source disabled: every request is refused (403) until you enable it.",
          problem: null,
          values: null,
        } satisfies ActionResult;
      }
      case "delete":
        requireConfirmation(form, "this source");
        await deleteSource(ctx, params.id);
        return redirect("/console/webhooks");
      default:
        return data({ intent, ok: null, problem: { message: "Unknown action.", fields: {} }, values } satisfies ActionResult, { status: 400 });
    }
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ intent, ok: null, problem, values } satisfies ActionResult, { status: problem.status ?? 400 });
  }
}

const OUTCOME: Record<SourceEventStatus, { label: string; tone: Tone }> = {
  ACCEPTED: { label: "Processed", tone: "good" },
  UNHANDLED: { label: "Stored, no handler", tone: "warn" },
  DUPLICATE: { label: "Duplicate", tone: "" },
  REFUSED: { label: "Refused", tone: "bad" },
};

export default function ConsoleWebhookSource({ loaderData, actionData }: Route.ComponentProps) {
  const { source, events, total, page, pages, status, now } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const manage = !!user && canManageWebhooks(user);
  const busy = useNavigation().state === "submitting";
  const result = actionData as ActionResult | undefined;
  const f = result?.problem?.fields ?? {};
  const rotateResult = result?.intent === "rotate" ? result : undefined;
  return (
    <>
      <p>
        <Link to="/console/webhooks">← Webhooks</Link>
      </p>
      <h1>{`Source ${source.name}`}</h1>
      <WebhooksNav />
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {result?.secret && <SecretOnce label="The new signing secret." secret={result.secret} />}
      {/* A form's own problem shows in that form; the rest (and everything for someone without the forms) here. */}
      {result && (!manage || (result.intent !== "rotate" && result.intent !== "delete" && result.intent !== "event-types")) && (
        <ErrorSummary problem={result.problem} />
      )}
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
      <dl className="webhooks-dl">
        <dt>Endpoint</dt>
        <dd className="webhooks-code">{source.url}</dd>
        <dt>Format</dt>
        <dd>{source.format === "wix" ? "Wix JWT (RS256, the sender's public key)" : "Standard Webhooks (HMAC-SHA256)"}</dd>
        <dt>Status</dt>
        <dd>{source.enabled ? <Badge tone="good">Enabled</Badge> : <Badge tone="bad">Disabled: every request is refused</Badge>}</dd>
        <dt>May send</dt>
        <dd>
          <ul className="webhooks-types-list">
            {source.eventTypes.map((t) => (
              <li key={t}>
                <span className="webhooks-code">{t}</span>
                {incomingEventType(t) ? `: ${incomingEventType(t)!.label}` : " (no longer taken from outside: refused)"}
              </li>
            ))}
          </ul>
        </dd>
        <dt>Acts for</dt>
        <dd>
          {source.configuredBy ? (
            <>
              {source.configuredBy.type === "API_KEY"
                ? source.configuredBy.id === "owner"
                  ? "The owner API key"
                  : `API key ${source.configuredBy.id}`
                : `${source.configuredBy.role === "OWNER" ? "The owner" : "Staff member"} ${source.configuredBy.id}`}
              {", since "}
              <When iso={source.configuredBy.date} />
            </>
          ) : (
            "Nobody recorded: rotate its key or save its event types to take it on"
          )}
        </dd>
        {source.description && (
          <>
            <dt>Description</dt>
            <dd>{source.description}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <When iso={source.createdDate} />
        </dd>
      </dl>
      {manage && (
        <div className="webhooks-row-actions">
          <PostButton intent="enabled" fields={{ enabled: String(!source.enabled) }} disabled={busy}>
            {source.enabled ? "Disable source" : "Enable source"}
          </PostButton>
        </div>
      )}

      {manage && (
        <Form method="post" className="console-form webhooks-section" aria-labelledby="types-heading" noValidate>
          <h2 id="types-heading">Event types</h2>
          <input type="hidden" name="intent" value="event-types" />
          <ErrorSummary problem={result?.intent === "event-types" ? result.problem : null} fieldIds={{ eventTypes: "source-types-0" }} />
          <SourceEventTypes
            idPrefix="source-types"
            picked={new Set(result?.intent === "event-types" && result.types ? result.types : source.eventTypes)}
            error={result?.intent === "event-types" ? (f.eventTypes ?? Object.entries(f).find(([k]) => k.startsWith("eventTypes"))?.[1]) : undefined}
          />
          <div>
            <button type="submit" className="console-button primary" disabled={busy}>
              Save event types
            </button>
          </div>
        </Form>
      )}

      <section className="webhooks-section" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        <p className="console-muted">
          {source.format === "wix"
            ? "Requests verify with any active public key."
            : "Requests verify with any active secret. Secrets are shown only when made."}
        </p>
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Keys of this source</caption>
            <thead>
              <tr>
                <th scope="col">Key id</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                {manage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {source.keys.map((k) => {
                const expired = !!k.expiresDate && Date.parse(k.expiresDate) <= now;
                return (
                  <tr key={k.id}>
                    <th scope="row" className="webhooks-code">
                      {k.id}
                    </th>
                    <td>
                      <When iso={k.createdDate} />
                    </td>
                    <td>{k.expiresDate ? <When iso={k.expiresDate} /> : "Never"}</td>
                    <td>
                      {expired ? (
                        <Badge tone="bad">Expired</Badge>
                      ) : k.expiresDate ? (
                        <Badge tone="warn">Overlap: still accepted</Badge>
                      ) : (
                        <Badge tone="good">Active</Badge>
                      )}
                    </td>
                    {manage && (
                      <td>
                        {source.keys.length > 1 && (
                          <PostButton intent="remove-key" fields={{ keyId: k.id }} disabled={busy} label={`Remove now: key ${k.id}`}>
                            Remove now
                          </PostButton>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {manage && (
          <Form method="post" className="console-form webhooks-section" aria-labelledby="rotate-heading" noValidate>
            <h3 id="rotate-heading">Rotate</h3>
            <p className="console-muted">
              Adds a new {source.format === "wix" ? "public key" : "secret"}. The current keys keep working for the overlap you choose, so the sender
              can switch over without a refused request; after it they stop.
            </p>
            <input type="hidden" name="intent" value="rotate" />
            <ErrorSummary problem={rotateResult?.problem} fieldIds={{ overlapMinutes: "rotate-overlap", publicKey: "rotate-publicKey" }} />
            <div className="console-field">
              <label htmlFor="rotate-overlap">Old keys keep working for</label>
              <select
                id="rotate-overlap"
                name="overlapMinutes"
                defaultValue={rotateResult?.values?.overlapMinutes ?? "1440"}
                aria-invalid={f.overlapMinutes ? true : undefined}
                aria-describedby={f.overlapMinutes ? "rotate-overlap-error" : undefined}
              >
                <option value="60">1 hour</option>
                <option value="1440">24 hours</option>
                <option value="10080">7 days</option>
                <option value="0">No overlap: stop them now</option>
              </select>
              <FieldError id="rotate-overlap-error" message={rotateResult ? f.overlapMinutes : undefined} />
            </div>
            {source.format === "wix" && (
              <div className="console-field">
                <label htmlFor="rotate-publicKey">The sender&rsquo;s new public key</label>
                <textarea
                  id="rotate-publicKey"
                  name="publicKey"
                  rows={4}
                  defaultValue={rotateResult?.values?.publicKey ?? ""}
                  aria-invalid={f.publicKey ? true : undefined}
                  aria-describedby={f.publicKey ? "rotate-publicKey-error" : undefined}
                />
                <FieldError id="rotate-publicKey-error" message={rotateResult ? f.publicKey : undefined} />
              </div>
            )}
            <div>
              <button type="submit" className="console-button primary" disabled={busy}>
                {source.format === "wix" ? "Add the new key" : "Make a new secret"}
              </button>
            </div>
          </Form>
        )}
      </section>

      <section className="webhooks-section" aria-labelledby="received-heading">
        <h2 id="received-heading">Received</h2>
        <FilterBar label="Filter what was received">
          <Select
            id="received-status"
            name="status"
            label="Outcome"
            defaultValue={status}
            placeholder="Any"
            options={STATUSES.map((s) => [s, OUTCOME[s].label] as const)}
          />
        </FilterBar>
        {events.length === 0 ? (
          <p role="status">Nothing received{status ? " with this outcome" : ""} yet.</p>
        ) : (
          <>
            <p className="console-muted" role="status">{`${total} ${total === 1 ? "request" : "requests"}.`}</p>
            <div className="console-scroll">
              <table className="console-table">
                <caption className="visually-hidden">Requests this source received, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Received</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Type</th>
                    <th scope="col">Webhook id</th>
                    <th scope="col">Why</th>
                  </tr>
                </thead>
                <tbody>
                  {events.map((e) => (
                    <tr key={e.id}>
                      <th scope="row">
                        <When iso={e.receivedDate} />
                      </th>
                      <td>
                        {e.processing === "DEAD" ? (
                          <Badge tone="bad">Dead</Badge>
                        ) : e.processing === "RETRYING" ? (
                          <Badge tone="warn">Retrying</Badge>
                        ) : (
                          <Badge tone={OUTCOME[e.status].tone}>{OUTCOME[e.status].label}</Badge>
                        )}
                      </td>
                      <td className="webhooks-code">{e.type || "—"}</td>
                      <td className="webhooks-code">{e.webhookId ?? "—"}</td>
                      <td>
                        {e.processing === "DEAD" ? (
                          <>
                            A processor failed for good: <Link to={`/console/events?type=${encodeURIComponent(e.type)}`}>see Dead events</Link>
                          </>
                        ) : e.processing === "RETRYING" ? (
                          "A processor failed; the queue retries it"
                        ) : e.processing === "REPLAYED" ? (
                          "Processed after a replay"
                        ) : (
                          (e.reason ??
                          (e.status === "ACCEPTED"
                            ? "Processed by its processors"
                            : e.status === "UNHANDLED"
                              ? "No processor handles this type: stored only"
                              : ""))
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} pages={pages} label="Pages of received requests" previous="← Newer" next="Older →" />
          </>
        )}
      </section>

      {manage && (
        <TickToDelete
          id="delete-source"
          className="console-form webhooks-section"
          note="Its endpoint answers 404 from then on. Events it sent stay processed."
          what="this source"
          button="Delete source"
          error={result?.intent === "delete" ? f.confirm : undefined}
          problem={result?.intent === "delete" ? result.problem : null}
          busy={busy}
        />
      )}
    </>
  );
}
