import { type ReactNode, useEffect, useRef } from "react";
import { Form } from "react-router";
import { Field } from "#web/components/ui/form";

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

/** A from–to pair of date fields (`<prefix>-from`, `<prefix>-to`), each with its error from the filter's check. */
export function DateRange({
  prefix,
  label,
  from,
  to,
  errors,
}: {
  prefix: string;
  label: string;
  from: string;
  to: string;
  errors: { from?: string; to?: string };
}) {
  return (
    <>
      <Field id={`${prefix}-from`} name="from" type="date" label={label} defaultValue={from} error={errors.from} />
      <Field id={`${prefix}-to`} name="to" type="date" label="to" defaultValue={to} error={errors.to} />
    </>
  );
}

/** A ref for a list's search box that "/" focuses from anywhere outside a field, as in most admin tools. */
export function useSlashToSearch() {
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.key === "/" && !/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && !target.isContentEditable) {
        e.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return search;
}
