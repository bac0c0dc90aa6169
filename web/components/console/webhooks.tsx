import type { ReactNode } from "react";
import { NavLink, useNavigation } from "react-router";
import { INCOMING_EVENT_TYPES } from "#worker/webhooks";
import { ErrorSummary, FieldError, Select, type Problem } from "#web/components/ui/form";
import { EmptyState, Notice, PageHead, useCan } from "#web/components/ui/page";
import { ListStatus } from "#web/components/ui/table";
import { Badge } from "./badge";
import { TickToDelete } from "./confirm";
import { FilterBar } from "./filter-bar";
import { Pager } from "./pager";

/** Pieces of the console's webhook and dead-event pages. */

/** What a webhook page's action answers: which form posted, the notice, the problem, and what was typed. */
export interface WebhookResult {
  intent: string;
  ok: string | null;
  problem: Problem | null;
  values?: Record<string, string> | null;
  types?: string[];
}

/** A webhook page's state: its action's answer, whether the person may change webhooks, whether a form is posting. */
export function useWebhookPage<R extends WebhookResult>(actionData: unknown) {
  return { result: actionData as R | undefined, manage: useCan("automations.manage"), busy: useNavigation().state === "submitting" };
}

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

/**
 * A webhook page's head: the way back, the heading, the area's tabs, an intro, the notice after a change, a secret
 * shown once and (when `problem`) a refusal that no form of the page shows itself.
 */
export function WebhooksHead(props: {
  title: string;
  back?: boolean;
  intro?: ReactNode;
  ok?: string | null;
  secret?: ReactNode;
  problem?: Problem | null;
}) {
  return (
    <>
      <PageHead title={props.title} back={props.back ? ["/console/webhooks", "Webhooks"] : undefined}>
        <WebhooksNav />
      </PageHead>
      {props.intro}
      <Notice text={props.ok} />
      {props.secret}
      <ErrorSummary problem={props.problem} />
    </>
  );
}

/** A log's one filter: a select sent as a GET, "Any" first. */
interface LogFilter {
  label: string;
  id: string;
  name: string;
  field: string;
  value: string;
  options: readonly (readonly [string, string])[];
}

/**
 * A filtered, paged log (received requests, deliveries, dead events): its filter, then why it has nothing (`empty`)
 * or how many (`count`), its table and its page links, newer first.
 */
export function PagedLog(props: {
  filter: LogFilter;
  /** Buttons for the whole log, between its filter and its rows. */
  actions?: ReactNode;
  empty: string | null;
  count: string;
  page: number;
  pages: number;
  of: string;
  children: ReactNode;
}) {
  const { filter: f } = props;
  return (
    <>
      <FilterBar label={f.label}>
        <Select id={f.id} name={f.name} label={f.field} defaultValue={f.value} placeholder="Any" options={f.options} />
      </FilterBar>
      {props.actions}
      {props.empty !== null ? (
        <EmptyState>{props.empty}</EmptyState>
      ) : (
        <>
          <ListStatus>{props.count}</ListStatus>
          {props.children}
          <Pager page={props.page} pages={props.pages} label={`Pages of ${props.of}`} previous="← Newer" next="Older →" />
        </>
      )}
    </>
  );
}

/** Deleting a source or subscription, with the tick the action checks (intent delete). */
export function DeleteWebhook(props: { what: "source" | "subscription"; note: string; result: WebhookResult | undefined; busy: boolean }) {
  const { what, result } = props;
  const problem = result?.intent === "delete" ? result.problem : null;
  return (
    <TickToDelete
      id={`delete-${what}`}
      className="console-form webhooks-section"
      note={props.note}
      what={`this ${what}`}
      button={`Delete ${what}`}
      error={problem?.fields.confirm}
      problem={problem}
      busy={props.busy}
    />
  );
}

/** Enabled or disabled, as a badge (`off` words the disabled state). */
export function OnOff({ on, off = "Disabled" }: { on: boolean; off?: string }) {
  return on ? <Badge tone="good">Enabled</Badge> : <Badge tone="bad">{off}</Badge>;
}

/** The event types' error of a refusal: on the list, or on one of its items. */
export function typesError(fields: Record<string, string> | undefined): string | undefined {
  if (!fields) return undefined;
  return fields.eventTypes ?? Object.entries(fields).find(([k]) => k.startsWith("eventTypes"))?.[1];
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
