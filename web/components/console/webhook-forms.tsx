import type { ReactNode } from "react";
import { Form } from "react-router";
import { DEFAULT_SOURCE_EVENT_TYPES, EMITTED_EVENT_TYPES } from "#worker/webhooks";
import { ErrorSummary, Field, FieldError, Select, TextArea } from "#web/components/ui/form";
import { SubmitButton } from "./post-button";
import { SourceEventTypes, typesError, type WebhookResult } from "./webhooks";

/**
 * The console's webhook forms: a new source, a new subscription, a source's event types and its key rotation. Inputs
 * carry the names of the request fields the services take, so a refusal's field errors land on them; ids keep a
 * prefix per form, as two forms of one page share names.
 */

/** A form of the webhook pages: its heading, intent, the problem summary and the submit button. */
function WebhookForm(props: {
  intent: string;
  /** The heading's id and text (an h3 when `sub`), and a note under it. */
  heading: readonly [id: string, text: string];
  sub?: boolean;
  note?: ReactNode;
  result: WebhookResult | undefined;
  place: (name: string) => string;
  button: string;
  busy: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <Form method="post" className={props.className ?? "console-form"} aria-labelledby={props.heading[0]} noValidate>
      {props.sub ? <h3 id={props.heading[0]}>{props.heading[1]}</h3> : <h2 id={props.heading[0]}>{props.heading[1]}</h2>}
      {props.note}
      <input type="hidden" name="intent" value={props.intent} />
      <ErrorSummary problem={props.result?.problem} fieldIds={(name) => props.place(name.startsWith("eventTypes") ? "eventTypes" : name)} />
      {props.children}
      <SubmitButton busy={props.busy}>{props.button}</SubmitButton>
    </Form>
  );
}

/** A create form's text field by its request name: id `{prefix}-{name}`, what was typed, its error. */
function typed(prefix: string, result: WebhookResult | undefined) {
  return (name: string) => ({ id: `${prefix}-${name}`, name, defaultValue: result?.values?.[name] ?? "", error: result?.problem?.fields[name] });
}

/** The form that makes a new incoming source (intent create-source). */
export function NewSource({ result, busy }: { result: WebhookResult | undefined; busy: boolean }) {
  const f = result?.problem?.fields ?? {};
  const v = result?.values ?? {};
  const at = typed("source", result);
  const place = (name: string) => (name === "format" ? "source-format-standard" : name === "eventTypes" ? "source-type-0" : `source-${name}`);
  return (
    <WebhookForm
      intent="create-source"
      heading={["new-source-heading", "New incoming source"]}
      result={result}
      place={place}
      button="Create source"
      busy={busy}
    >
      <Field {...at("name")} label="Name" required hint="Lower-case letters, digits, - or _: it is the endpoint’s path, /webhooks/name." />
      <fieldset>
        <legend>Format</legend>
        <div className="console-check">
          <input type="radio" id="source-format-standard" name="format" value="standard" defaultChecked={(v.format ?? "standard") === "standard"} />
          <label htmlFor="source-format-standard">Standard Webhooks (HMAC secret; the shop makes one)</label>
        </div>
        <div className="console-check">
          <input type="radio" id="source-format-wix" name="format" value="wix" defaultChecked={v.format === "wix"} />
          <label htmlFor="source-format-wix">Wix JWT (the sender’s RSA public key)</label>
        </div>
        <FieldError id="source-format-error" message={f.format} />
      </fieldset>
      <SourceEventTypes idPrefix="source-type" picked={new Set(result?.types ?? DEFAULT_SOURCE_EVENT_TYPES)} error={typesError(f)} />
      <TextArea {...at("publicKey")} label="Public key (Wix JWT only)" rows={4} hint="PEM (-----BEGIN PUBLIC KEY-----) or that PEM in base64." />
      <Field {...at("description")} label="Description (optional)" />
    </WebhookForm>
  );
}

/** The form that makes a new outgoing subscription (intent create-subscription). */
export function NewSubscription({ result, busy }: { result: WebhookResult | undefined; busy: boolean }) {
  const at = typed("subscription", result);
  const picked = new Set(result?.types ?? []);
  const error = typesError(result?.problem?.fields);
  return (
    <WebhookForm
      intent="create-subscription"
      heading={["new-subscription-heading", "New outgoing subscription"]}
      result={result}
      place={(name) => (name === "eventTypes" ? "subscription-type-all" : `subscription-${name}`)}
      button="Create subscription"
      busy={busy}
    >
      <Field {...at("url")} type="url" label="URL" required hint="https; deliveries are POSTed there, signed the Standard Webhooks way." />
      <div
        className="webhooks-types"
        role="group"
        aria-labelledby="subscription-types-label"
        aria-describedby={error ? "subscription-types-error" : undefined}
      >
        <p id="subscription-types-label" className="console-label">
          Events to send
        </p>
        <FieldError id="subscription-types-error" message={error} />
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
      <Field {...at("description")} label="Description (optional)" />
    </WebhookForm>
  );
}

/** A source's event types (intent event-types): what it was refused with after a refusal, else what it has. */
export function EventTypesForm({ result, stored, busy }: { result: WebhookResult | undefined; stored: string[]; busy: boolean }) {
  const own = result?.intent === "event-types" ? result : undefined;
  return (
    <WebhookForm
      intent="event-types"
      heading={["types-heading", "Event types"]}
      result={own}
      place={() => "source-types-0"}
      button="Save event types"
      busy={busy}
      className="console-form webhooks-section"
    >
      <SourceEventTypes idPrefix="source-types" picked={new Set(own?.types ?? stored)} error={typesError(own?.problem?.fields)} />
    </WebhookForm>
  );
}

const OVERLAPS = [
  ["60", "1 hour"],
  ["1440", "24 hours"],
  ["10080", "7 days"],
  ["0", "No overlap: stop them now"],
] as const;

/** A new key for a source (intent rotate), the old ones kept for an overlap; a Wix source's comes from the sender. */
export function RotateForm({ result, wix, busy }: { result: WebhookResult | undefined; wix: boolean; busy: boolean }) {
  const own = result?.intent === "rotate" ? result : undefined;
  const f = own?.problem?.fields ?? {};
  return (
    <WebhookForm
      intent="rotate"
      heading={["rotate-heading", "Rotate"]}
      sub
      note={
        <p className="console-muted">
          Adds a new {wix ? "public key" : "secret"}. The current keys keep working for the overlap you choose, so the sender can switch over without
          a refused request; after it they stop.
        </p>
      }
      result={own}
      place={(name) => (name === "overlapMinutes" ? "rotate-overlap" : `rotate-${name}`)}
      button={wix ? "Add the new key" : "Make a new secret"}
      busy={busy}
      className="console-form webhooks-section"
    >
      <Select
        id="rotate-overlap"
        name="overlapMinutes"
        label="Old keys keep working for"
        defaultValue={own?.values?.overlapMinutes ?? "1440"}
        options={OVERLAPS}
        error={f.overlapMinutes}
      />
      {wix && <TextArea {...typed("rotate", own)("publicKey")} label="The sender’s new public key" rows={4} />}
    </WebhookForm>
  );
}
