import { Form, type FormProps } from "react-router";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";

/**
 * Deleting, revoking and removing ask first, in ways that work without JavaScript: a tick the server checks too
 * (webhooks), or the browser's confirm dialog in front of a form whose action asks again when JavaScript is off
 * (API keys, collections). The pricing editors ask with a second press (DeleteSection in ./pricing).
 */

/** The confirmation tick of a delete form (the server checks it too, so it works without JavaScript). */
export function ConfirmTick({ id, what, error }: { id: string; what: string; error: string | undefined }) {
  return (
    <div className="console-check">
      <input
        type="checkbox"
        id={id}
        name="confirm"
        value="yes"
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      <label htmlFor={id}>{`Yes, delete ${what}`}</label>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/**
 * A "Delete" section with its tick: posts intent=delete and confirm=yes when ticked. `id` names the heading
 * (`{id}-heading`) and the tick (`{id}-confirm`, which the problem summary links to).
 */
export function TickToDelete({
  id,
  what,
  note,
  button,
  error,
  problem,
  busy,
  className = "console-form",
}: {
  id: string;
  what: string;
  note: string;
  button: string;
  error: string | undefined;
  problem: Problem | null | undefined;
  busy: boolean;
  className?: string;
}) {
  return (
    <Form method="post" className={className} aria-labelledby={`${id}-heading`} noValidate>
      <h2 id={`${id}-heading`}>Delete</h2>
      <p className="console-muted">{note}</p>
      <input type="hidden" name="intent" value="delete" />
      <ConfirmTick id={`${id}-confirm`} what={what} error={error} />
      <ErrorSummary problem={problem} fieldIds={{ confirm: `${id}-confirm` }} />
      <div>
        <button type="submit" className="console-button danger" disabled={busy}>
          {button}
        </button>
      </div>
    </Form>
  );
}

/**
 * A post form the browser's confirm dialog asks about first. Once the merchant agrees, its `confirm` field (when it
 * has one) is set to "yes", so the action does not ask again; without JavaScript the form posts as it is.
 */
export function AskFirstForm({ question, children, ...props }: Omit<FormProps, "method" | "onSubmit"> & { question: string }) {
  return (
    <Form
      method="post"
      {...props}
      onSubmit={(e) => {
        if (!window.confirm(question)) return e.preventDefault();
        const field = e.currentTarget.elements.namedItem("confirm");
        if (field instanceof HTMLInputElement) field.value = "yes";
      }}
    >
      {children}
    </Form>
  );
}
