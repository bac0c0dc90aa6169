import { NavLink } from "react-router";
import { FieldError } from "./forms";

/** Pieces of the console's webhook and dead-event pages. */

/** Whether the signed-in person may change webhooks and replay events (the pages hide the controls otherwise). */
export const canManageWebhooks = (user: { permissions: readonly string[] }) => user.permissions.includes("automations.manage");

/** Webhooks and dead events are two pages of one area: this links them, under each page's h1. */
export function WebhooksNav() {
  return (
    <nav aria-label="Webhooks and events" className="webhooks-nav">
      <NavLink to="/console/webhooks" end>
        Webhooks
      </NavLink>
      <NavLink to="/console/events">Dead events</NavLink>
    </nav>
  );
}

const when = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });

/** A date and time as the merchant reads it (UTC, as stored), in a <time> element. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return <time dateTime={iso}>{`${when.format(new Date(iso))} UTC`}</time>;
}

/**
 * A secret or key shown once, in an action's answer (never by a loader): the merchant copies it now or rotates
 * again later.
 */
export function SecretOnce({ label, secret }: { label: string; secret: string }) {
  return (
    <div className="console-notice webhooks-secret" role="status">
      <p>
        <strong>{label}</strong> Copy it now: it is shown only this once.
      </p>
      <code className="webhooks-secret-value" data-secret>
        {secret}
      </code>
    </div>
  );
}

export type Tone = "good" | "warn" | "bad" | "";

export function Badge({ tone, children }: { tone: Tone; children: React.ReactNode }) {
  return <span className={`console-badge ${tone}`}>{children}</span>;
}

/** The confirmation tick of a delete form (the server checks it too, so it works without JavaScript). */
export function ConfirmTick({ id, what, error }: { id: string; what: string; error: string | undefined }) {
  return (
    <div className="console-check">
      <input type="checkbox" id={id} name="confirm" value="yes" required aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
      <label htmlFor={id}>{`Yes, delete ${what}`}</label>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
