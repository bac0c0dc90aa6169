import {
  createContext,
  useContext,
  useEffect,
  useRef,
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";

/**
 * The form kit of every page, shop and console alike: labelled fields whose errors are tied to them (aria-invalid,
 * aria-describedby), and the summary of a failed submit, announced and focused so keyboard and screen-reader users
 * land on what went wrong. The console draws them in its own look (FormLook in its layout).
 */

/** A failed submit as page data (./form.server.ts problemOf): the summary, messages by field name, code, status. */
export interface Problem {
  message: string;
  fields: Record<string, string>;
  /** The service's error code (e.g. PAYMENT_DECLINED, "-19976"). */
  code?: string;
  status?: number;
}

const LOOKS = {
  shop: { summary: "form-error", field: "field", error: "field-error", check: "field-check" },
  console: { summary: "console-error", field: "console-field", error: "console-field-error", check: "console-check" },
} as const;

const Look = createContext<keyof typeof LOOKS>("shop");

/** Sets the look of the fields below it: the console's layout wraps its pages in `<FormLook value="console">`. */
export const FormLook = Look.Provider;

function useLook() {
  return LOOKS[useContext(Look)];
}

/** The element id of a form field (names may hold dots, which are awkward in fragment links and selectors). */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

/**
 * The summary of a failed submit, with a link to each field at fault. `fieldIds` says where a field is: a map or a
 * function from its name (default: fieldId); a field it does not place is named in plain text instead.
 */
export function ErrorSummary({
  problem,
  id,
  fieldIds,
}: {
  problem?: Problem | null;
  id?: string;
  fieldIds?: Record<string, string> | ((name: string) => string | undefined);
}) {
  const look = useLook();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (problem) ref.current?.focus();
  }, [problem]);
  if (!problem) return null;
  const place =
    typeof fieldIds === "function" ? fieldIds : fieldIds ? (name: string) => fieldIds[name] : look === LOOKS.console ? () => undefined : fieldId;
  const entries = Object.entries(problem.fields);
  return (
    <div className={look.summary} role="alert" tabIndex={-1} ref={ref} id={id} aria-labelledby={id ? `${id}-title` : undefined}>
      <p id={id ? `${id}-title` : undefined}>{id ? <strong>{problem.message}</strong> : problem.message}</p>
      {entries.length > 0 && (
        <ul>
          {entries.map(([name, text]) => {
            const target = place(name);
            return <li key={name}>{target ? <a href={`#${target}`}>{text}</a> : `${name}: ${text}`}</li>;
          })}
        </ul>
      )}
    </div>
  );
}

/** The error under a field, with the id its control names in aria-describedby. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  const look = useLook();
  if (!message) return null;
  return (
    <p className={look.error} id={id}>
      {message}
    </p>
  );
}

/** What every field takes: its name (the API field path), label, id (default fieldId(name)), hint and error. */
interface FieldProps {
  name: string;
  label: ReactNode;
  id?: string;
  hint?: ReactNode;
  /** The failed submit whose message for `name` shows under the field. */
  problem?: Problem | null;
  /** A message to show instead of the problem's. */
  error?: string;
  className?: string;
}

/** The attributes that tie a control to its hint and error. */
export function describedBy(id: string, hint: boolean, error: boolean) {
  return {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined,
  };
}

function FieldFrame({
  id,
  label,
  hint,
  error,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  className?: string;
  children: ReactNode;
}) {
  const look = useLook();
  return (
    <div className={className ? `${look.field} ${className}` : look.field}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** A labelled input (text unless `type` says otherwise); `ref` reaches the input. */
export function Field(props: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, "name" | "id"> & { ref?: Ref<HTMLInputElement> }) {
  const { name, label, id = fieldId(name), hint, problem, error: own, className, ...input } = props;
  const error = own ?? problem?.fields[name];
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <input id={id} name={name} type="text" {...input} {...describedBy(id, !!hint, !!error)} />
    </FieldFrame>
  );
}

/** A labelled text area. */
export function TextArea(props: FieldProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "name" | "id">) {
  const { name, label, id = fieldId(name), hint, problem, error: own, className, ...area } = props;
  const error = own ?? problem?.fields[name];
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <textarea id={id} name={name} {...area} {...describedBy(id, !!hint, !!error)} />
    </FieldFrame>
  );
}

/** A labelled select of [value, label] options, with an empty first option when `placeholder` is given. */
export function Select(
  props: FieldProps & { options: readonly (readonly [string, string])[]; placeholder?: string } & Omit<
      SelectHTMLAttributes<HTMLSelectElement>,
      "name" | "id"
    >,
) {
  const { name, label, id = fieldId(name), hint, problem, error: own, className, options, placeholder, ...select } = props;
  const error = own ?? problem?.fields[name];
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error} className={className}>
      <select id={id} name={name} {...select} {...describedBy(id, !!hint, !!error)}>
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}

/** A checkbox with its label after it, and its error. */
export function Checkbox(props: FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, "name" | "id" | "type">) {
  const look = useLook();
  const { name, label, id = fieldId(name), hint, problem, error: own, className, ...input } = props;
  const error = own ?? problem?.fields[name];
  return (
    <div className={className}>
      <div className={look.check}>
        <input type="checkbox" id={id} name={name} {...input} {...describedBy(id, !!hint, !!error)} />
        <label htmlFor={id}>{label}</label>
      </div>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** A labelled file input with its hint above it (what files, how large) and its error; `ref` reaches the input. */
export function FileField(
  props: { id: string; label: ReactNode; hint: ReactNode; error?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "type"> & {
      ref?: Ref<HTMLInputElement>;
    },
) {
  const look = useLook();
  const { id, label, hint, error, ...input } = props;
  return (
    <div className={look.field}>
      <label htmlFor={id}>{label}</label>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <input id={id} type="file" {...input} {...describedBy(id, true, !!error)} />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
