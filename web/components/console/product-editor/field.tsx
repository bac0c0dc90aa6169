import { createContext, type InputHTMLAttributes, type TextareaHTMLAttributes, useContext } from "react";
import { MEASUREMENT_UNITS } from "#worker/catalog";
import { describedBy, FieldError } from "#web/components/ui/form";

/**
 * The product editor's fields: each input's id is its form name, and a refused save's error for that id shows under
 * it. The editor's sections read the errors and whether the merchant may change the product from EditorContext.
 */

export interface EditorState {
  /** The error for a field id after a refused save. */
  err: (id: string) => string | undefined;
  canWrite: boolean;
}

export const EditorContext = createContext<EditorState>({ err: () => undefined, canWrite: false });

/** The editor's errors and write permission. */
export function useEditorState(): EditorState {
  return useContext(EditorContext);
}

/** A labelled input named and identified by `id`, with a muted hint and its error. */
export function EditorInput({ id, label, hint, ...rest }: { id: string; label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { err, canWrite } = useEditorState();
  const e = err(id);
  const described = [hint ? `${id}-hint` : "", e ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={id} aria-invalid={e ? true : undefined} aria-describedby={described} disabled={!canWrite} {...rest} />
      {hint && (
        <p className="console-muted" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={e} />
    </div>
  );
}

/** A labelled textarea named by `name` (default `id`), with its error. */
export function EditorTextarea({ id, label, name = id, ...rest }: { id: string; label: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { err, canWrite } = useEditorState();
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} disabled={!canWrite} {...rest} />
      <FieldError id={`${id}-error`} message={err(id)} />
    </div>
  );
}

/** A select of the measurement units (blank: none), named and identified by `id`. */
export function UnitSelect({ id, label, value }: { id: string; label: string; value: string }) {
  const { err, canWrite } = useEditorState();
  const error = err(id);
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={id} defaultValue={value} disabled={!canWrite} {...describedBy(id, false, !!error)}>
        <option value="">—</option>
        {MEASUREMENT_UNITS.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
