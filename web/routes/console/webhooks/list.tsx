import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { PostButton } from "#web/components/console/post-button";
import { eventRegistry } from "#worker/app";
import {
  DEFAULT_SOURCE_EVENT_TYPES,
  EMITTED_EVENT_TYPES,
  createSource,
  createSourceRequest,
  createSubscription,
  createSubscriptionRequest,
  listSources,
  listSubscriptions,
  updateSource,
  updateSubscription,
} from "#worker/webhooks";
import { parseWith } from "#worker/platform/validation";
import { Badge } from "#web/components/console/badge";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { consoleTitle } from "#web/components/console/title";
import { canManageWebhooks, SourceEventTypes, WebhooksNav } from "#web/components/console/webhooks";
import { formValues } from "#web/components/console/webhooks.server";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/list";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Webhooks — Console") }];
}

export const headers = () => consoleHeaders;

/** Incoming sources and outgoing subscriptions (three D1 round trips with the session). Never a secret. */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const [{ sources }, { subscriptions }] = await Promise.all([listSources(context.services), listSubscriptions(context.services)]);
  return { sources, subscriptions };
}

type Intent = "create-source" | "create-subscription" | "source-enabled" | "subscription-enabled";

interface ActionResult {
  intent: string;
  ok: string | null;
  problem: Problem | null;
  values: Record<string, string> | null;
  types?: string[];
  /** Shown once: a new source's secret, or a new subscription's. */
  secret?: { label: string; value: string; link: string };
}

/**
 * Creates sources and subscriptions and turns them on or off, each through the webhook services (which check
 * automations.manage). A new secret is in this answer only.
 */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "") as Intent;
  const values = formValues(form);
  const types = form.getAll("eventTypes").map(String);
  try {
    switch (intent) {
      case "create-source": {
        const format = values.format === "wix" ? "wix" : values.format === "standard" ? "standard" : values.format;
        const input = parseWith(createSourceRequest, {
          name: values.name ?? "",
          description: values.description ?? "",
          format,
          eventTypes: types,
          ...(format === "wix" ? { publicKey: values.publicKey ?? "" } : {}),
        });
        const created = await createSource(ctx, input, eventRegistry);
        const link = `/console/webhooks/sources/${created.source.id}`;
        return {
          intent,
          ok: `Source "${created.source.name}" created: it receives at ${created.source.url}.`,
          problem: null,
          values: null,
          ...(created.secret ? { secret: { label: `Signing secret of "${created.source.name}".`, value: created.secret, link } } : {}),
        } satisfies ActionResult;
      }
      case "create-subscription": {
        const input = parseWith(createSubscriptionRequest, {
          url: values.url ?? "",
          description: values.description ?? "",
          eventTypes: types.includes("*") ? "*" : types,
        });
        const created = await createSubscription(ctx, input);
        return {
          intent,
          ok: `Subscription to ${created.subscription.url} created.`,
          problem: null,
          values: null,
          ...(created.secret
            ? {
                secret: {
                  label: `Signing secret of the subscription to ${created.subscription.url}.`,
                  value: created.secret,
                  link: `/console/webhooks/subscriptions/${created.subscription.id}`,
                },
              }
            : {}),
        } satisfies ActionResult;
      }
      case "source-enabled": {
        const { source } = await updateSource(ctx, values.id ?? "", { enabled: values.enabled === "true" }, eventRegistry);
        return {
          intent,
          ok: `Source "${source.name}" ${source.enabled ? "enabled" : "disabled"}.`,
          problem: null,
          values: null,
        } satisfies ActionResult;
      }
      case "subscription-enabled": {
        const { subscription } = await updateSubscription(ctx, values.id ?? "", { enabled: values.enabled === "true" });
        return {
          intent,
          ok: `Subscription to ${subscription.url} ${subscription.enabled ? "enabled" : "disabled"}.`,
          problem: null,
          values: null,
        } satisfies ActionResult;
      }
      default:
        return data({ intent, ok: null, problem: { message: "Unknown action.", fields: {} }, values } satisfies ActionResult, { status: 400 });
    }
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ intent, ok: null, problem, values, types } satisfies ActionResult, { status: problem.status ?? 400 });
  }
}

export default function ConsoleWebhooks({ loaderData, actionData }: Route.ComponentProps) {
  const { sources, subscriptions } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const manage = !!user && canManageWebhooks(user);
  const busy = useNavigation().state === "submitting";
  const result = actionData as ActionResult | undefined;
  const sourceResult = result?.intent === "create-source" ? result : undefined;
  const subResult = result?.intent === "create-subscription" ? result : undefined;
  // The create forms show their own problems; the rest (and everything for someone without the forms) shows here.
  const toggleProblem = result && (!manage || (result.intent !== "create-source" && result.intent !== "create-subscription")) ? result.problem : null;
  return (
    <>
      <h1>Webhooks</h1>
      <WebhooksNav />
      <p className="console-muted">
        Incoming sources let another system (a warehouse, an ERP) post events to the shop; outgoing subscriptions send the shop&rsquo;s events to a
        URL of yours, signed.
        {manage ? "" : " Changing them needs the automations permission."}
      </p>
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {result?.secret && (
        <>
          <SecretOnce label={result.secret.label} secret={result.secret.value} />
          <p>
            <Link to={result.secret.link}>Open it</Link>
          </p>
        </>
      )}
      <ErrorSummary problem={toggleProblem} />

      <section className="webhooks-section" aria-labelledby="sources-heading">
        <h2 id="sources-heading">Incoming sources</h2>
        {sources.length === 0 ? (
          <p>No incoming sources yet.</p>
        ) : (
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">Incoming webhook sources</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Format</th>
                  <th scope="col">May send</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col" className="num">
                    Keys
                  </th>
                  <th scope="col">Status</th>
                  {manage && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {sources.map((s) => (
                  <tr key={s.id}>
                    <th scope="row">
                      <Link to={`/console/webhooks/sources/${s.id}`}>{s.name}</Link>
                      {s.description && <div className="console-muted">{s.description}</div>}
                    </th>
                    <td>{s.format === "wix" ? "Wix JWT" : "Standard Webhooks"}</td>
                    <td className="webhooks-code">{s.eventTypes.join(", ")}</td>
                    <td className="webhooks-code">{s.url}</td>
                    <td className="num">{s.keys.length}</td>
                    <td>{s.enabled ? <Badge tone="good">Enabled</Badge> : <Badge tone="bad">Disabled</Badge>}</td>
                    {manage && (
                      <td>
                        <PostButton
                          intent="source-enabled"
                          fields={{ id: s.id, enabled: String(!s.enabled) }}
                          disabled={busy}
                          label={`${s.enabled ? "Disable" : "Enable"} source ${s.name}`}
                        >
                          {s.enabled ? "Disable" : "Enable"}
                        </PostButton>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section className="webhooks-section" aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">Outgoing subscriptions</h2>
        {subscriptions.length === 0 ? (
          <p>No outgoing subscriptions yet.</p>
        ) : (
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">Outgoing webhook subscriptions</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Format</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Failed deliveries
                  </th>
                  {manage && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {subscriptions.map((s) => (
                  <tr key={s.id}>
                    <th scope="row" className="webhooks-code">
                      <Link to={`/console/webhooks/subscriptions/${s.id}`}>{s.url}</Link>
                      {s.description && <div className="console-muted">{s.description}</div>}
                    </th>
                    <td>{s.eventTypes.includes("*") ? "All events" : `${s.eventTypes.length} ${s.eventTypes.length === 1 ? "type" : "types"}`}</td>
                    <td>{s.format === "wix" ? "Wix JWT" : "Standard Webhooks"}</td>
                    <td>
                      {s.enabled ? (
                        <Badge tone={s.consecutiveFailures > 0 ? "warn" : "good"}>
                          {s.consecutiveFailures > 0 ? `Enabled, ${s.consecutiveFailures} failed in a row` : "Enabled"}
                        </Badge>
                      ) : (
                        <>
                          <Badge tone="bad">Disabled</Badge>
                          {s.disabledReason && <div className="console-muted">{s.disabledReason}</div>}
                        </>
                      )}
                    </td>
                    <td className="num">
                      {s.failedDeliveries > 0 ? (
                        <Link
                          to={`/console/webhooks/subscriptions/${s.id}?status=FAILED`}
                          aria-label={`${s.failedDeliveries} failed deliveries to ${s.url}`}
                        >
                          <Badge tone="bad">{`${s.failedDeliveries} failed`}</Badge>
                        </Link>
                      ) : (
                        "0"
                      )}
                    </td>
                    {manage && (
                      <td>
                        <PostButton
                          intent="subscription-enabled"
                          fields={{ id: s.id, enabled: String(!s.enabled) }}
                          disabled={busy}
                          label={`${s.enabled ? "Disable" : "Enable"} subscription to ${s.url}`}
                        >
                          {s.enabled ? "Disable" : "Enable"}
                        </PostButton>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {manage && (
        <div className="webhooks-forms webhooks-section">
          <NewSource result={sourceResult} busy={busy} />
          <NewSubscription result={subResult} busy={busy} />
        </div>
      )}
    </>
  );
}

function NewSource({ result, busy }: { result: ActionResult | undefined; busy: boolean }) {
  const f = result?.problem?.fields ?? {};
  const v = result?.values ?? {};
  const picked = new Set(result?.types ?? DEFAULT_SOURCE_EVENT_TYPES);
  const typesError = f.eventTypes ?? Object.entries(f).find(([k]) => k.startsWith("eventTypes"))?.[1];
  const err = (field: string) => (f[field] ? { "aria-invalid": true as const, "aria-describedby": `source-${field}-error` } : {});
  return (
    <Form method="post" className="console-form" aria-labelledby="new-source-heading" noValidate>
      <h2 id="new-source-heading">New incoming source</h2>
      <input type="hidden" name="intent" value="create-source" />
      <ErrorSummary
        problem={result?.problem}
        fieldIds={{
          name: "source-name",
          format: "source-format-standard",
          eventTypes: "source-type-0",
          publicKey: "source-publicKey",
          description: "source-description",
        }}
      />
      <div className="console-field">
        <label htmlFor="source-name">Name</label>
        <input id="source-name" name="name" defaultValue={v.name ?? ""} required {...err("name")} />
        <p className="hint">Lower-case letters, digits, - or _: it is the endpoint&rsquo;s path, /webhooks/name.</p>
        <FieldError id="source-name-error" message={f.name} />
      </div>
      <fieldset>
        <legend>Format</legend>
        <div className="console-check">
          <input type="radio" id="source-format-standard" name="format" value="standard" defaultChecked={(v.format ?? "standard") === "standard"} />
          <label htmlFor="source-format-standard">Standard Webhooks (HMAC secret; the shop makes one)</label>
        </div>
        <div className="console-check">
          <input type="radio" id="source-format-wix" name="format" value="wix" defaultChecked={v.format === "wix"} />
          <label htmlFor="source-format-wix">Wix JWT (the sender&rsquo;s RSA public key)</label>
        </div>
        <FieldError id="source-format-error" message={f.format} />
      </fieldset>
      <SourceEventTypes idPrefix="source-type" picked={picked} error={typesError} />
      <div className="console-field">
        <label htmlFor="source-publicKey">Public key (Wix JWT only)</label>
        <textarea id="source-publicKey" name="publicKey" rows={4} defaultValue={v.publicKey ?? ""} {...err("publicKey")} />
        <p className="hint">PEM (-----BEGIN PUBLIC KEY-----) or that PEM in base64.</p>
        <FieldError id="source-publicKey-error" message={f.publicKey} />
      </div>
      <div className="console-field">
        <label htmlFor="source-description">Description (optional)</label>
        <input id="source-description" name="description" defaultValue={v.description ?? ""} {...err("description")} />
        <FieldError id="source-description-error" message={f.description} />
      </div>
      <div>
        <button type="submit" className="console-button primary" disabled={busy}>
          Create source
        </button>
      </div>
    </Form>
  );
}

function NewSubscription({ result, busy }: { result: ActionResult | undefined; busy: boolean }) {
  const f = result?.problem?.fields ?? {};
  const v = result?.values ?? {};
  const picked = new Set(result?.types ?? []);
  const typesError = f.eventTypes ?? Object.entries(f).find(([k]) => k.startsWith("eventTypes"))?.[1];
  return (
    <Form method="post" className="console-form" aria-labelledby="new-subscription-heading" noValidate>
      <h2 id="new-subscription-heading">New outgoing subscription</h2>
      <input type="hidden" name="intent" value="create-subscription" />
      <ErrorSummary
        problem={result?.problem}
        fieldIds={{ url: "subscription-url", eventTypes: "subscription-type-all", description: "subscription-description" }}
      />
      <div className="console-field">
        <label htmlFor="subscription-url">URL</label>
        <input
          id="subscription-url"
          name="url"
          type="url"
          defaultValue={v.url ?? ""}
          required
          aria-invalid={f.url ? true : undefined}
          aria-describedby={`subscription-url-hint${f.url ? " subscription-url-error" : ""}`}
        />
        <p className="hint" id="subscription-url-hint">
          https; deliveries are POSTed there, signed the Standard Webhooks way.
        </p>
        <FieldError id="subscription-url-error" message={f.url} />
      </div>
      <div
        className="webhooks-types"
        role="group"
        aria-labelledby="subscription-types-label"
        aria-describedby={typesError ? "subscription-types-error" : undefined}
      >
        <p id="subscription-types-label" className="console-label">
          Events to send
        </p>
        <FieldError id="subscription-types-error" message={typesError} />
        <div className="console-check">
          <input type="checkbox" id="subscription-type-all" name="eventTypes" value="*" defaultChecked={picked.has("*")} />
          <label htmlFor="subscription-type-all">All events, including types added later</label>
        </div>
        {EMITTED_EVENT_TYPES.map((g, gi) => (
          <fieldset key={g.group}>
            <legend>{g.group}</legend>
            {g.types.map((t, ti) => (
              <div className="console-check" key={t}>
                <input type="checkbox" id={`subscription-type-${gi}-${ti}`} name="eventTypes" value={t} defaultChecked={picked.has(t)} />
                <label htmlFor={`subscription-type-${gi}-${ti}`}>{t}</label>
              </div>
            ))}
          </fieldset>
        ))}
      </div>
      <div className="console-field">
        <label htmlFor="subscription-description">Description (optional)</label>
        <input id="subscription-description" name="description" defaultValue={v.description ?? ""} />
        <FieldError id="subscription-description-error" message={f.description} />
      </div>
      <div>
        <button type="submit" className="console-button primary" disabled={busy}>
          Create subscription
        </button>
      </div>
    </Form>
  );
}
