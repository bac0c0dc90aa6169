import { type ReactNode, useEffect, useRef } from "react";
import { Form, Link, useNavigation } from "react-router";
import { Field } from "#web/components/ui/form";

/**
 * A list's filter form, sent as a GET: its fields (the form kit's, e.g. Select with placeholder "Any") and Filter.
 * With `submit` the button is the list's own primary one ("Show orders"), off while the list loads, and `clearTo`
 * adds a Clear link back to the unfiltered list; `search` marks the form as the list's search.
 */
export function FilterBar({
  label,
  children,
  submit,
  clearTo,
  search = false,
  className,
}: {
  label: string;
  children: ReactNode;
  submit?: string;
  clearTo?: string | null;
  search?: boolean;
  className?: string;
}) {
  const loading = useNavigation().state === "loading";
  return (
    <Form
      method="get"
      className={className ? `console-toolbar ${className}` : "console-toolbar"}
      role={search ? "search" : undefined}
      aria-label={label}
    >
      {children}
      {submit ? (
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={loading}>
            {submit}
          </button>
          {clearTo && (
            <Link to={clearTo} className="console-button">
              Clear
            </Link>
          )}
        </div>
      ) : (
        <button type="submit" className="console-button">
          Filter
        </button>
      )}
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

/** A list's search box (`q`), which "/" focuses from anywhere outside a field. */
export function SearchField({
  id,
  label = "Search",
  className,
  placeholder,
  defaultValue,
  maxLength,
}: {
  id: string;
  label?: string;
  className: string;
  placeholder?: string;
  defaultValue: string;
  maxLength: number;
}) {
  const search = useSlashToSearch();
  return (
    <div className={`console-field ${className}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        ref={search}
        type="search"
        name="q"
        defaultValue={defaultValue}
        placeholder={placeholder}
        aria-keyshortcuts="/"
        maxLength={maxLength}
      />
    </div>
  );
}

/**
 * A ref for a list's search box that "/" focuses from anywhere outside a field, as in most admin tools. A `fallback`
 * box (the console's search) takes "/" only on pages without a box of their own (one marked aria-keyshortcuts="/").
 */
export function useSlashToSearch({ fallback = false }: { fallback?: boolean } = {}) {
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.key !== "/" || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable) return;
      if (fallback && document.querySelector('[aria-keyshortcuts="/"]')) return;
      e.preventDefault();
      search.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [fallback]);
  return search;
}
