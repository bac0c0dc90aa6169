import { Fragment, type ReactNode } from "react";
import { incomingEventType, type listDeliveries, type listSourceEvents } from "#worker/webhooks";
import { Badge, type Tone } from "./badge";
import { PostButton } from "./post-button";
import { OnOff, When } from "./webhooks";

/** A webhook source's and a subscription's facts, and a subscription's delivery log with every attempt. */

type Source = Awaited<ReturnType<typeof listSourceEvents>>["source"];
type Subscription = Awaited<ReturnType<typeof listDeliveries>>["subscription"];
type Delivery = Omit<Awaited<ReturnType<typeof listDeliveries>>["deliveries"][number], "event">;

/** One fact: its term, what it is (left out when null), and whether that is code (a URL, event types). */
type Fact = readonly [term: string, description: ReactNode, code?: boolean];

/** Facts as a definition list. */
function Facts({ facts }: { facts: readonly Fact[] }) {
  return (
    <dl className="webhooks-dl">
      {facts
        .filter(([, d]) => d != null && d !== false)
        .map(([term, d, code]) => (
          <Fragment key={term}>
            <dt>{term}</dt>
            <dd className={code ? "webhooks-code" : undefined}>{d}</dd>
          </Fragment>
        ))}
    </dl>
  );
}

/** Who a source's events act for: the key or person who last set it up, and since when. */
function actsFor(by: Source["configuredBy"]): ReactNode {
  if (!by) return "Nobody recorded: rotate its key or save its event types to take it on";
  const who =
    by.type === "API_KEY"
      ? by.id === "owner"
        ? "The owner API key"
        : `API key ${by.id}`
      : `${by.role === "OWNER" ? "The owner" : "Staff member"} ${by.id}`;
  return (
    <>
      {who}
      {", since "}
      <When iso={by.date} />
    </>
  );
}

/** A source's endpoint, format, state, the types it may send, whom it acts for. */
export function SourceDetails({ source }: { source: Source }) {
  const types = (
    <ul className="webhooks-types-list">
      {source.eventTypes.map((t) => (
        <li key={t}>
          <span className="webhooks-code">{t}</span>
          {incomingEventType(t) ? `: ${incomingEventType(t)!.label}` : " (no longer taken from outside: refused)"}
        </li>
      ))}
    </ul>
  );
  return (
    <Facts
      facts={[
        ["Endpoint", source.url, true],
        ["Format", source.format === "wix" ? "Wix JWT (RS256, the sender's public key)" : "Standard Webhooks (HMAC-SHA256)"],
        ["Status", <OnOff key="s" on={source.enabled} off="Disabled: every request is refused" />],
        ["May send", types],
        ["Acts for", actsFor(source.configuredBy)],
        ["Description", source.description || null],
        ["Created", <When key="c" iso={source.createdDate} />],
      ]}
    />
  );
}

/** A subscription's URL, events, format, state, old secret and when it was made. */
export function SubscriptionDetails({ s }: { s: Subscription }) {
  const state = (
    <>
      <OnOff on={s.enabled} />
      {!s.enabled && s.disabledReason && <span className="console-muted">{` ${s.disabledReason}`}</span>}
      {s.enabled && s.consecutiveFailures > 0 && (
        <span className="console-muted">{` ${s.consecutiveFailures} deliveries in a row failed every attempt.`}</span>
      )}
    </>
  );
  const oldSecret = s.previousSecretExpiresDate ? (
    <>
      Also signs until <When iso={s.previousSecretExpiresDate} />
    </>
  ) : null;
  return (
    <Facts
      facts={[
        ["URL", s.url, true],
        ["Events", s.eventTypes.includes("*") ? "All events" : s.eventTypes.join(", "), true],
        ["Format", s.format === "wix" ? "Wix JWT, signed with the shop's RSA key" : "Standard Webhooks, signed with the subscription's secret"],
        ["Status", state],
        ["Old secret", oldSecret],
        ["Description", s.description || null],
        ["Created", <When key="c" iso={s.createdDate} />],
      ]}
    />
  );
}

/** The delivery states, in words. */
export const DELIVERY_STATUSES = ["PENDING", "SUCCEEDED", "FAILED"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DELIVERY_BADGE: Record<DeliveryStatus, { label: string; tone: Tone }> = {
  PENDING: { label: "Pending", tone: "warn" },
  SUCCEEDED: { label: "Delivered", tone: "good" },
  FAILED: { label: "Failed", tone: "bad" },
};

/** One delivery: a row group of its attempts (or "Not attempted yet"), its state and (for someone who may) Redeliver. */
function DeliveryRows({ d, manage, canSend }: { d: Delivery; manage: boolean; canSend: boolean }) {
  const rows = d.attempts.length ? d.attempts : [null];
  return (
    <tbody data-delivery={d.id}>
      {rows.map((a, i) => (
        <tr key={a?.attempt ?? 0}>
          {i === 0 && (
            <>
              <th scope="rowgroup" rowSpan={rows.length} className="webhooks-code">
                {d.eventType}
                <div className="console-muted">
                  <When iso={d.createdDate} />
                </div>
              </th>
              <td rowSpan={rows.length}>
                <Badge tone={DELIVERY_BADGE[d.status].tone}>{DELIVERY_BADGE[d.status].label}</Badge>
                {d.nextAttemptDate && (
                  <div className="console-muted">
                    Next try <When iso={d.nextAttemptDate} />
                  </div>
                )}
              </td>
            </>
          )}
          {a ? (
            <>
              <td>{`#${a.attempt}${a.succeeded ? " ✓" : " ✗"}`}</td>
              <td>
                <When iso={a.startedDate} />
              </td>
              <td className="num">{a.responseStatus ?? "—"}</td>
              <td className="num">{`${a.latencyMs} ms`}</td>
              <td>
                {a.error && <div>{a.error}</div>}
                {a.responseExcerpt ? <pre className="webhooks-excerpt">{a.responseExcerpt}</pre> : null}
              </td>
            </>
          ) : (
            <td colSpan={5} className="console-muted">
              Not attempted yet.
            </td>
          )}
          {manage && i === 0 && (
            <td rowSpan={rows.length}>
              <PostButton intent="redeliver" fields={{ deliveryId: d.id }} disabled={!canSend} label={`Redeliver ${d.eventType} of ${d.createdDate}`}>
                Redeliver
              </PostButton>
            </td>
          )}
        </tr>
      ))}
    </tbody>
  );
}

const LOG_HEADS = ["Event", "Status", "Attempt", "Sent", "HTTP status", "Latency", "Response"];

/** A subscription's deliveries, newest first, each with every attempt (row groups, which DataTable does not draw). */
export function DeliveryLog({ deliveries, manage, canSend }: { deliveries: Delivery[]; manage: boolean; canSend: boolean }) {
  return (
    <div className="console-scroll">
      <table className="console-table webhooks-log">
        <caption className="visually-hidden">Deliveries, newest first, with every attempt</caption>
        <thead>
          <tr>
            {[...LOG_HEADS, ...(manage ? ["Actions"] : [])].map((h) => (
              <th key={h} scope="col" className={h === "HTTP status" || h === "Latency" ? "num" : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        {deliveries.map((d) => (
          <DeliveryRows key={d.id} d={d} manage={manage} canSend={canSend} />
        ))}
      </table>
    </div>
  );
}
