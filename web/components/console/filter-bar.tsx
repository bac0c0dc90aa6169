import type { ReactNode } from "react";
import { Form } from "react-router";

/** A list's filter form, sent as a GET: its fields (the form kit's, e.g. Select with placeholder "Any") and Filter. */
export function FilterBar({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Form method="get" className="console-toolbar" aria-label={label}>
      {children}
      <button type="submit" className="console-button">
        Filter
      </button>
    </Form>
  );
}
