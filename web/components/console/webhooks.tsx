import { NavLink } from "react-router";

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
