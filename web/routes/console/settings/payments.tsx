import { paymentsOverview } from "#worker/payments";
import { hasPermission } from "#worker/platform/context";
import { publicOrigin } from "#worker/platform/public-origin";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleMeta } from "#web/components/console/title";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { Route } from "./+types/payments";

export const meta = consoleMeta("Payments — Settings — Console");

export const headers = () => consoleHeaders;

/**
 * Whether Stripe is connected (its secrets are set), in test or live mode, the webhook URL to register in Stripe's
 * dashboard and the last Stripe webhook received. Staff without settings.manage see that they may not.
 */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  const ctx = context.services;
  if (!hasPermission(ctx.auth, "settings.manage")) return { allowed: false as const };
  return { allowed: true as const, overview: await paymentsOverview(ctx, publicOrigin(ctx)) };
});

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

export default function PaymentsSettings({ loaderData }: Route.ComponentProps) {
  if (!loaderData.allowed) {
    return (
      <>
        <h1>Payments</h1>
        <SettingsNav />
        <p className="console-muted">Viewing the payment settings needs the settings.manage permission.</p>
      </>
    );
  }
  const o = loaderData.overview;
  return (
    <>
      <h1>Payments</h1>
      <SettingsNav />
      <dl className="settings-summary" id="payments-summary">
        <div>
          <dt>Stripe</dt>
          <dd id="stripe-status">{o.connected ? `Connected, ${o.mode} mode` : "Not connected"}</dd>
        </div>
        <div>
          <dt>Webhook URL</dt>
          <dd>
            <code id="stripe-webhook-url">{o.webhookUrl}</code>
          </dd>
        </div>
        <div>
          <dt>Events to send</dt>
          <dd>{o.eventTypes.join(", ")}</dd>
        </div>
        <div>
          <dt>Last webhook received</dt>
          <dd id="stripe-last-webhook">{o.lastWebhook ? `${o.lastWebhook.type} at ${when(o.lastWebhook.receivedDate)}` : "None yet"}</dd>
        </div>
      </dl>
      {o.connected ? (
        o.mode === "test" && <p className="console-muted">Test mode: Stripe takes only its test cards, and no money moves.</p>
      ) : (
        <p className="console-muted">
          Card payments need Stripe: set the secrets STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (and the var STRIPE_PUBLISHABLE_KEY), then add the
          webhook URL above as an endpoint in Stripe's dashboard with the events listed. Until then shoppers can pay offline only.
        </p>
      )}
    </>
  );
}
