import { Link } from "react-router";
import { eventRegistry } from "#worker/app";
import {
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
import { byIntent } from "#web/components/console/problem.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { consoleMeta } from "#web/components/console/title";
import { NewSource, NewSubscription } from "#web/components/console/webhook-forms";
import { SourcesTable, SubscriptionsTable } from "#web/components/console/webhook-views";
import { useWebhookPage, WebhooksHead, type WebhookResult } from "#web/components/console/webhooks";
import { WEBHOOKS } from "#web/components/console/webhooks.server";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Webhooks — Console");

/** Incoming sources and outgoing subscriptions (three D1 round trips with the session). Never a secret. */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  const [{ sources }, { subscriptions }] = await Promise.all([listSources(context.services), listSubscriptions(context.services)]);
  return { sources, subscriptions };
});

interface ActionResult extends WebhookResult {
  /** Shown once: a new source's secret, or a new subscription's. */
  secret?: { label: string; value: string; link: string };
}

/**
 * Creates sources and subscriptions and turns them on or off, each through the webhook services (which check
 * automations.manage). A new secret is in this answer only.
 */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  const types = form.getAll("eventTypes").map(String);
  return byIntent<Pick<ActionResult, "ok" | "values" | "secret">>(
    form,
    {
      "create-source": async (v) => {
        const format = v.format === "wix" ? "wix" : v.format === "standard" ? "standard" : v.format;
        const input = parseWith(createSourceRequest, {
          name: v.name ?? "",
          description: v.description ?? "",
          format,
          eventTypes: types,
          ...(format === "wix" ? { publicKey: v.publicKey ?? "" } : {}),
        });
        const { source, secret } = await createSource(ctx, input, eventRegistry);
        const link = `/console/webhooks/sources/${source.id}`;
        return {
          ok: `Source "${source.name}" created: it receives at ${source.url}.`,
          values: null,
          ...(secret ? { secret: { label: `Signing secret of "${source.name}".`, value: secret, link } } : {}),
        };
      },
      "create-subscription": async (v) => {
        const input = parseWith(createSubscriptionRequest, {
          url: v.url ?? "",
          description: v.description ?? "",
          eventTypes: types.includes("*") ? "*" : types,
        });
        const { subscription: s, secret } = await createSubscription(ctx, input);
        const link = `/console/webhooks/subscriptions/${s.id}`;
        return {
          ok: `Subscription to ${s.url} created.`,
          values: null,
          ...(secret ? { secret: { label: `Signing secret of the subscription to ${s.url}.`, value: secret, link } } : {}),
        };
      },
      "source-enabled": async (v) => {
        const { source } = await updateSource(ctx, v.id ?? "", { enabled: v.enabled === "true" }, eventRegistry);
        return { ok: `Source "${source.name}" ${source.enabled ? "enabled" : "disabled"}.`, values: null };
      },
      "subscription-enabled": async (v) => {
        const { subscription } = await updateSubscription(ctx, v.id ?? "", { enabled: v.enabled === "true" });
        return { ok: `Subscription to ${subscription.url} ${subscription.enabled ? "enabled" : "disabled"}.`, values: null };
      },
    },
    { wording: WEBHOOKS, kept: { types } },
  );
});

const CREATES = ["create-source", "create-subscription"];

export default function ConsoleWebhooks({ loaderData, actionData }: Route.ComponentProps) {
  const { sources, subscriptions } = loaderData;
  const { result, manage, busy } = useWebhookPage<ActionResult>(actionData);
  const secret = result?.secret;
  return (
    <>
      <WebhooksHead
        title="Webhooks"
        intro={
          <p className="console-muted">
            Incoming sources let another system (a warehouse, an ERP) post events to the shop; outgoing subscriptions send the shop&rsquo;s events to
            a URL of yours, signed.
            {manage ? "" : " Changing them needs the automations permission."}
          </p>
        }
        ok={result?.ok}
        secret={
          secret && (
            <>
              <SecretOnce label={secret.label} secret={secret.value} />
              <p>
                <Link to={secret.link}>Open it</Link>
              </p>
            </>
          )
        }
        // The create forms show their own problems; the rest (and everything for someone without the forms) shows here.
        problem={result && (!manage || !CREATES.includes(result.intent)) ? result.problem : null}
      />
      <section className="webhooks-section" aria-labelledby="sources-heading">
        <h2 id="sources-heading">Incoming sources</h2>
        <SourcesTable sources={sources} manage={manage} busy={busy} />
      </section>
      <section className="webhooks-section" aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">Outgoing subscriptions</h2>
        <SubscriptionsTable subscriptions={subscriptions} manage={manage} busy={busy} />
      </section>
      {manage && (
        <div className="webhooks-forms webhooks-section">
          <NewSource result={result?.intent === "create-source" ? result : undefined} busy={busy} />
          <NewSubscription result={result?.intent === "create-subscription" ? result : undefined} busy={busy} />
        </div>
      )}
    </>
  );
}
