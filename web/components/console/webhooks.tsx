import { NavLink } from "react-router";
import { INCOMING_EVENT_TYPES } from "#worker/webhooks";
import { FieldError } from "#web/components/ui/form";

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
 * The event types a source may send: only those the shop takes from outside. Each names the permission whoever
 * creates, re-keys or allows it must hold; the source's events act within that person's permissions.
 */
export function SourceEventTypes({ idPrefix, picked, error }: { idPrefix: string; picked: ReadonlySet<string>; error?: string }) {
  return (
    <fieldset className="webhooks-types" aria-describedby={`${idPrefix}-hint${error ? ` ${idPrefix}-error` : ""}`}>
      <legend>Events it may send</legend>
      <p className="hint" id={`${idPrefix}-hint`}>
        Any other event type is refused. The source acts for you: a type that needs a permission stops being applied if you lose it.
      </p>
      <FieldError id={`${idPrefix}-error`} message={error} />
      {INCOMING_EVENT_TYPES.map((t, i) => (
        <div className="console-check" key={t.type}>
          <input type="checkbox" id={`${idPrefix}-${i}`} name="eventTypes" value={t.type} defaultChecked={picked.has(t.type)} />
          <label htmlFor={`${idPrefix}-${i}`}>
            <span className="webhooks-code">{t.type}</span>: {t.label}
            {t.permission ? ` (needs ${t.permission})` : ""}
          </label>
        </div>
      ))}
    </fieldset>
  );
}
