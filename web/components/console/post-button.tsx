import type { ReactNode } from "react";
import { Form } from "react-router";

/** A one-button POST form: the action's `intent`, any hidden fields it needs, and the button (aria-label optional). */
export function PostButton({
  intent,
  fields = {},
  primary = false,
  danger = false,
  disabled,
  label,
  children,
}: {
  intent: string;
  fields?: Record<string, string>;
  primary?: boolean;
  /** A button that removes or refuses something (red). */
  danger?: boolean;
  disabled?: boolean;
  label?: string;
  children: ReactNode;
}) {
  return (
    <Form method="post" className="console-inline-form">
      <input type="hidden" name="intent" value={intent} />
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        className={primary ? "console-button primary" : danger ? "console-button danger" : "console-button"}
        disabled={disabled}
        aria-label={label}
      >
        {children}
      </button>
    </Form>
  );
}

/** A form's own submit button (primary), disabled while a form is posting. */
export function SubmitButton({ busy, children }: { busy: boolean; children: ReactNode }) {
  return (
    <div>
      <button type="submit" className="console-button primary" disabled={busy}>
        {children}
      </button>
    </div>
  );
}
