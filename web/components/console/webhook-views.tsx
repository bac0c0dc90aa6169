import { Link } from "react-router";
import type { listSourceEvents, listSources, listSubscriptions, SourceEventStatus } from "#worker/webhooks";
import type { listFailures } from "#worker/events";
import { DataTable, type Column } from "#web/components/ui/table";
import { EmptyState } from "#web/components/ui/page";
import { Badge, type Tone } from "./badge";
import { PostButton } from "./post-button";
import { OnOff, When } from "./webhooks";

/** What the console's webhook pages show: the lists of sources and subscriptions, a source's keys and log, dead events. */

type Source = Awaited<ReturnType<typeof listSources>>["sources"][number];
type Subscription = Awaited<ReturnType<typeof listSubscriptions>>["subscriptions"][number];
type SourceEvent = Awaited<ReturnType<typeof listSourceEvents>>["events"][number];
type Key = Source["keys"][number];
type Failure = Omit<Awaited<ReturnType<typeof listFailures>>["failures"][number], "message">;

/** A list's actions column, for someone who may change webhooks. */
function actions<T>(manage: boolean, cell: (row: T) => React.ReactNode): Column<T>[] {
  return manage ? [{ header: "Actions", cell }] : [];
}

/** The turn-on/turn-off button of a source or subscription in a list. */
function Toggle({ intent, id, on, what, busy }: { intent: string; id: string; on: boolean; what: string; busy: boolean }) {
  return (
    <PostButton intent={intent} fields={{ id, enabled: String(!on) }} disabled={busy} label={`${on ? "Disable" : "Enable"} ${what}`}>
      {on ? "Disable" : "Enable"}
    </PostButton>
  );
}

const FORMAT = (format: string) => (format === "wix" ? "Wix JWT" : "Standard Webhooks");

/** Every incoming source, linked to its page. */
export function SourcesTable({ sources, manage, busy }: { sources: Source[]; manage: boolean; busy: boolean }) {
  if (sources.length === 0) return <EmptyState>No incoming sources yet.</EmptyState>;
  const columns: Column<Source>[] = [
    {
      header: "Name",
      rowHeader: true,
      cell: (s) => (
        <>
          <Link to={`/console/webhooks/sources/${s.id}`}>{s.name}</Link>
          {s.description && <div className="console-muted">{s.description}</div>}
        </>
      ),
    },
    { header: "Format", cell: (s) => FORMAT(s.format) },
    { header: "May send", className: "webhooks-code", cell: (s) => s.eventTypes.join(", ") },
    { header: "Endpoint", className: "webhooks-code", cell: (s) => s.url },
    { header: "Keys", num: true, cell: (s) => s.keys.length },
    { header: "Status", cell: (s) => <OnOff on={s.enabled} /> },
    ...actions<Source>(manage, (s) => <Toggle intent="source-enabled" id={s.id} on={s.enabled} what={`source ${s.name}`} busy={busy} />),
  ];
  return <DataTable caption="Incoming webhook sources" rows={sources} rowKey={(s) => s.id} columns={columns} />;
}

/** A subscription's state: enabled (and how many deliveries failed in a row), or disabled and why. */
function SubscriptionState({ s }: { s: Subscription }) {
  if (!s.enabled)
    return (
      <>
        <Badge tone="bad">Disabled</Badge>
        {s.disabledReason && <div className="console-muted">{s.disabledReason}</div>}
      </>
    );
  const failing = s.consecutiveFailures > 0;
  return <Badge tone={failing ? "warn" : "good"}>{failing ? `Enabled, ${s.consecutiveFailures} failed in a row` : "Enabled"}</Badge>;
}

/** Every outgoing subscription, linked to its page and to its failed deliveries. */
export function SubscriptionsTable({ subscriptions, manage, busy }: { subscriptions: Subscription[]; manage: boolean; busy: boolean }) {
  if (subscriptions.length === 0) return <EmptyState>No outgoing subscriptions yet.</EmptyState>;
  const columns: Column<Subscription>[] = [
    {
      header: "URL",
      rowHeader: true,
      className: "webhooks-code",
      cell: (s) => (
        <>
          <Link to={`/console/webhooks/subscriptions/${s.id}`}>{s.url}</Link>
          {s.description && <div className="console-muted">{s.description}</div>}
        </>
      ),
    },
    {
      header: "Events",
      cell: (s) => (s.eventTypes.includes("*") ? "All events" : `${s.eventTypes.length} ${s.eventTypes.length === 1 ? "type" : "types"}`),
    },
    { header: "Format", cell: (s) => FORMAT(s.format) },
    { header: "Status", cell: (s) => <SubscriptionState s={s} /> },
    {
      header: "Failed deliveries",
      num: true,
      cell: (s) =>
        s.failedDeliveries > 0 ? (
          <Link to={`/console/webhooks/subscriptions/${s.id}?status=FAILED`} aria-label={`${s.failedDeliveries} failed deliveries to ${s.url}`}>
            <Badge tone="bad">{`${s.failedDeliveries} failed`}</Badge>
          </Link>
        ) : (
          "0"
        ),
    },
    ...actions<Subscription>(manage, (s) => (
      <Toggle intent="subscription-enabled" id={s.id} on={s.enabled} what={`subscription to ${s.url}`} busy={busy} />
    )),
  ];
  return <DataTable caption="Outgoing webhook subscriptions" rows={subscriptions} rowKey={(s) => s.id} columns={columns} />;
}

/** A source's keys: when each was made and ends, and (for someone who may) removing one of several now. */
export function KeysTable({ keys, now, manage, busy }: { keys: Key[]; now: number; manage: boolean; busy: boolean }) {
  const state = (k: Key) =>
    k.expiresDate && Date.parse(k.expiresDate) <= now ? (
      <Badge tone="bad">Expired</Badge>
    ) : k.expiresDate ? (
      <Badge tone="warn">Overlap: still accepted</Badge>
    ) : (
      <Badge tone="good">Active</Badge>
    );
  const columns: Column<Key>[] = [
    { header: "Key id", rowHeader: true, className: "webhooks-code", cell: (k) => k.id },
    { header: "Created", cell: (k) => <When iso={k.createdDate} /> },
    { header: "Expires", cell: (k) => (k.expiresDate ? <When iso={k.expiresDate} /> : "Never") },
    { header: "Status", cell: state },
    ...actions<Key>(manage, (k) =>
      keys.length > 1 ? (
        <PostButton intent="remove-key" fields={{ keyId: k.id }} disabled={busy} label={`Remove now: key ${k.id}`}>
          Remove now
        </PostButton>
      ) : null,
    ),
  ];
  return <DataTable caption="Keys of this source" rows={keys} rowKey={(k) => k.id} columns={columns} />;
}

/** The outcomes of what a source received, in words. */
export const OUTCOME: Record<SourceEventStatus, { label: string; tone: Tone }> = {
  ACCEPTED: { label: "Processed", tone: "good" },
  UNHANDLED: { label: "Stored, no handler", tone: "warn" },
  DUPLICATE: { label: "Duplicate", tone: "" },
  REFUSED: { label: "Refused", tone: "bad" },
};

/** Why a received request ended as it did. */
function why(e: SourceEvent): React.ReactNode {
  if (e.processing === "DEAD")
    return (
      <>
        A processor failed for good: <Link to={`/console/events?type=${encodeURIComponent(e.type)}`}>see Dead events</Link>
      </>
    );
  if (e.processing === "RETRYING") return "A processor failed; the queue retries it";
  if (e.processing === "REPLAYED") return "Processed after a replay";
  return (
    e.reason ??
    (e.status === "ACCEPTED" ? "Processed by its processors" : e.status === "UNHANDLED" ? "No processor handles this type: stored only" : "")
  );
}

/** The requests a source received, newest first. */
export function ReceivedTable({ events }: { events: SourceEvent[] }) {
  const columns: Column<SourceEvent>[] = [
    { header: "Received", rowHeader: true, cell: (e) => <When iso={e.receivedDate} /> },
    {
      header: "Outcome",
      cell: (e) =>
        e.processing === "DEAD" ? (
          <Badge tone="bad">Dead</Badge>
        ) : e.processing === "RETRYING" ? (
          <Badge tone="warn">Retrying</Badge>
        ) : (
          <Badge tone={OUTCOME[e.status].tone}>{OUTCOME[e.status].label}</Badge>
        ),
    },
    { header: "Type", className: "webhooks-code", cell: (e) => e.type || "—" },
    { header: "Webhook id", className: "webhooks-code", cell: (e) => e.webhookId ?? "—" },
    { header: "Why", cell: why },
  ];
  return <DataTable caption="Requests this source received, newest first" rows={events} rowKey={(e) => e.id} columns={columns} />;
}

/** Dead events, newest first, each with its Replay button for someone who may. */
export function DeadEventsTable({ failures, manage, busy }: { failures: Failure[]; manage: boolean; busy: boolean }) {
  const columns: Column<Failure>[] = [
    {
      header: "Type",
      rowHeader: true,
      className: "webhooks-code",
      cell: (f) => (
        <>
          {f.type}
          <div className="console-muted">{f.id}</div>
        </>
      ),
    },
    { header: "Failed in", className: "webhooks-code", cell: (f) => f.processor ?? "—" },
    { header: "Error", cell: (f) => f.error },
    { header: "Attempts", num: true, cell: (f) => f.attempts },
    { header: "Dead since", cell: (f) => <When iso={f.deadDate ?? f.lastFailedDate} /> },
    ...actions<Failure>(manage, (f) => (
      <PostButton intent="replay" fields={{ id: f.id }} disabled={busy} label={`Replay ${f.type} ${f.id}`}>
        Replay
      </PostButton>
    )),
  ];
  return <DataTable caption="Dead events, newest first" rows={failures} rowKey={(f) => f.id} columns={columns} />;
}
