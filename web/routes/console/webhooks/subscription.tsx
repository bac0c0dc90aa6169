import { redirect } from "react-router";
import { deleteSubscription, listDeliveries, redeliver, rotateSubscriptionSecret, sendTestEvent, updateSubscription } from "#worker/webhooks";
import { PostButton } from "#web/components/console/post-button";
import { byIntent, orRefuse } from "#web/components/console/problem.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { consoleMeta } from "#web/components/console/title";
import { DELIVERY_BADGE, DELIVERY_STATUSES, DeliveryLog, SubscriptionDetails } from "#web/components/console/webhook-details";
import { DeleteWebhook, PagedLog, useWebhookPage, WebhooksHead, type WebhookResult } from "#web/components/console/webhooks";
import { logQuery, pageCount, requireConfirmation, WEBHOOKS } from "#web/components/console/webhooks.server";
import { counted } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-webhooks.css";
import type { Route } from "./+types/subscription";

export const meta = consoleMeta("Webhook subscription — Console");

const PAGE_SIZE = 20;

/** One subscription and its delivery log, every attempt of 20 deliveries a page (two D1 round trips). */
export const loader = staffOnly(async ({ context, request, params }: Route.LoaderArgs) => {
  const { page, status, paging } = logQuery(new URL(request.url), DELIVERY_STATUSES, PAGE_SIZE);
  const { subscription, deliveries, metadata } = await orRefuse(listDeliveries(context.services, params.id, paging));
  // The log shows what was sent and answered, not whole event bodies.
  const log = deliveries.map(({ event: _event, ...d }) => d);
  return { subscription, deliveries: log, total: metadata.total, page, pages: pageCount(metadata.total, PAGE_SIZE), status: status ?? "" };
});

type ActionResult = WebhookResult & { secret?: string };

const OPTIONS = DELIVERY_STATUSES.map((x) => [x, DELIVERY_BADGE[x].label] as const);

/** Rotate, test, disable/enable, redeliver, delete: each through the subscriptions service (automations.manage). */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  return byIntent<{ ok: string; secret?: string }>(
    form,
    {
      rotate: async () => {
        const { subscription, secret } = await rotateSubscriptionSecret(ctx, params.id);
        const until = subscription.previousSecretExpiresDate?.replace("T", " ").slice(0, 16);
        return {
          ok: `New secret made. Deliveries are signed with the new and the old secret until ${until} UTC, then with the new one only.`,
          secret,
        };
      },
      test: async () => {
        await sendTestEvent(ctx, params.id);
        return { ok: "Test event sent: it shows in the delivery log below once the receiver answers (reload if it is not there yet)." };
      },
      enabled: async (v) => {
        const { subscription } = await updateSubscription(ctx, params.id, { enabled: v.enabled === "true" });
        return { ok: subscription.enabled ? "Subscription enabled." : "Subscription disabled: nothing is sent until you enable it." };
      },
      redeliver: async (v) => {
        await redeliver(ctx, v.deliveryId ?? "");
        return { ok: "Sent again: the new attempt shows in the log once the receiver answers." };
      },
      delete: async () => {
        requireConfirmation(form, "this subscription");
        await deleteSubscription(ctx, params.id);
        return redirect("/console/webhooks");
      },
    },
    { wording: WEBHOOKS },
  );
});

export default function ConsoleWebhookSubscription({ loaderData, actionData }: Route.ComponentProps) {
  const { subscription: s, deliveries, total, page, pages, status } = loaderData;
  const { result, manage, busy } = useWebhookPage<ActionResult>(actionData);
  return (
    <>
      <WebhooksHead
        title="Subscription"
        back
        ok={result?.ok}
        secret={result?.secret && <SecretOnce label="The new signing secret." secret={result.secret} />}
        problem={!manage || result?.intent !== "delete" ? result?.problem : null}
      />
      <SubscriptionDetails s={s} />
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
        <PagedLog
          filter={{ label: "Filter deliveries", id: "log-status", name: "status", field: "Status", value: status, options: OPTIONS }}
          empty={deliveries.length === 0 ? `No deliveries${status ? " with this status" : ""} yet.` : null}
          count={`${counted(total, "delivery", "deliveries")}.`}
          page={page}
          pages={pages}
          of="deliveries"
        >
          <DeliveryLog deliveries={deliveries} manage={manage} canSend={!busy && s.enabled} />
        </PagedLog>
      </section>
      {manage && <DeleteWebhook what="subscription" note="Its deliveries and their log go with it." result={result} busy={busy} />}
    </>
  );
}
