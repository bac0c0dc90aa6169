import { useEffect, useRef } from "react";

/**
 * Form building blocks of the cart, checkout and account pages: labelled fields whose errors are tied to them
 * (aria-invalid, aria-describedby), and an error summary that takes focus after a failed submit so keyboard and
 * screen-reader users land on what went wrong.
 */

export interface FormProblem {
  /** The summary shown above the form. */
  message: string;
  /** Messages by form field name. */
  fields: Record<string, string>;
  /** The service's error code (e.g. PAYMENT_DECLINED). */
  code?: string;
}

/** The summary of a failed submit: announced, focused, with links to the fields at fault. */
export function ErrorSummary({ problem, id = "error-summary" }: { problem?: FormProblem | null; id?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (problem) ref.current?.focus();
  }, [problem]);
  if (!problem) return null;
  const fields = Object.entries(problem.fields);
  return (
    <div className="form-error" role="alert" tabIndex={-1} ref={ref} id={id} aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`}>
        <strong>{problem.message}</strong>
      </p>
      {fields.length > 0 && (
        <ul>
          {fields.map(([name, message]) => (
            <li key={name}>
              <a href={`#${fieldId(name)}`}>{message}</a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The element id of a form field (names may hold dots, which are awkward in fragment links and selectors). */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

interface FieldProps {
  name: string;
  label: string;
  problem?: FormProblem | null;
  hint?: string;
  className?: string;
}

function describedBy(id: string, hint: boolean, error: boolean): string | undefined {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
}

function FieldMessages({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
}

/** A labelled text input. */
export function TextField(
  props: FieldProps & Omit<React.InputHTMLAttributes<HTMLInputElement>, "name" | "id"> & { defaultValue?: string },
) {
  const { name, label, problem, hint, className, ...input } = props;
  const id = fieldId(name);
  const error = problem?.fields[name];
  return (
    <div className={`field ${className ?? ""}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} type="text" {...input} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, !!hint, !!error)} />
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

/** A labelled select. */
export function SelectField(
  props: FieldProps & {
    options: { value: string; label: string }[];
    defaultValue?: string;
    required?: boolean;
    autoComplete?: string;
    placeholder?: string;
  },
) {
  const { name, label, problem, hint, className, options, placeholder, ...rest } = props;
  const id = fieldId(name);
  const error = problem?.fields[name];
  return (
    <div className={`field ${className ?? ""}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} {...rest} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, !!hint, !!error)}>
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldMessages id={id} hint={hint} error={error} />
    </div>
  );
}

export interface AddressValues {
  firstName?: string;
  lastName?: string;
  phone?: string;
  addressLine?: string;
  addressLine2?: string;
  city?: string;
  postalCode?: string;
  country?: string;
  subdivision?: string;
}

/** Name and postal address fields, named `<prefix>.<field>` (e.g. `ship.city`). */
export function AddressFields({
  prefix,
  values,
  countries,
  problem,
  required = true,
  withPhone = true,
  withName = true,
}: {
  prefix: string;
  values: AddressValues;
  countries: { code: string; name: string }[];
  problem?: FormProblem | null;
  required?: boolean;
  withPhone?: boolean;
  withName?: boolean;
}) {
  const n = (f: string) => `${prefix}.${f}`;
  // Autofill sections keep shipping and billing addresses apart.
  const ac = (token: string) => `section-${prefix} ${prefix === "bill" ? "billing" : "shipping"} ${token}`;
  return (
    <div className="address-fields">
      {withName && (
        <>
          <TextField name={n("firstName")} label="First name" autoComplete={ac("given-name")} defaultValue={values.firstName} required={required} maxLength={100} problem={problem} />
          <TextField name={n("lastName")} label="Last name" autoComplete={ac("family-name")} defaultValue={values.lastName} required={required} maxLength={100} problem={problem} />
        </>
      )}
      <TextField name={n("addressLine")} label="Address" autoComplete={ac("address-line1")} defaultValue={values.addressLine} required={required} maxLength={200} problem={problem} className="wide" />
      <TextField name={n("addressLine2")} label="Apartment, suite, etc. (optional)" autoComplete={ac("address-line2")} defaultValue={values.addressLine2} maxLength={200} problem={problem} className="wide" />
      <TextField name={n("city")} label="City" autoComplete={ac("address-level2")} defaultValue={values.city} required={required} maxLength={100} problem={problem} />
      <TextField name={n("postalCode")} label="Postal code" autoComplete={ac("postal-code")} defaultValue={values.postalCode} required={required} maxLength={20} problem={problem} />
      <SelectField
        name={n("country")}
        label="Country"
        autoComplete={ac("country")}
        defaultValue={values.country ?? ""}
        required={required}
        placeholder="Choose a country"
        options={countries.map((c) => ({ value: c.code, label: c.name }))}
        problem={problem}
      />
      <TextField
        name={n("subdivision")}
        label="State or region (optional)"
        autoComplete={ac("address-level1")}
        defaultValue={values.subdivision}
        maxLength={50}
        hint="A code such as CA or US-CA."
        problem={problem}
      />
      {withPhone && <TextField name={n("phone")} label="Phone (optional)" type="tel" autoComplete={ac("tel")} defaultValue={values.phone} maxLength={50} problem={problem} />}
    </div>
  );
}
