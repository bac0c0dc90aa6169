import { createContext, type InputHTMLAttributes, type SelectHTMLAttributes, type TextareaHTMLAttributes, useContext } from "react";
import { MEASUREMENT_UNITS } from "#worker/catalog";
import { Field, Select, TextArea } from "#web/components/ui/form";

/**
 * The product editor's fields: each input is named by its API field path, and a refused save's error for that name
 * shows under it. The editor's sections read the errors and whether the merchant may change the product from
 * EditorContext.
 */

export interface EditorState {
  /** The error for an input name after a refused save. */
  err: (name: string) => string | undefined;
  canWrite: boolean;
}

export const EditorContext = createContext<EditorState>({ err: () => undefined, canWrite: false });

/** The editor's errors and write permission. */
export function useEditorState(): EditorState {
  return useContext(EditorContext);
}

/** A labelled input named `name`, with its hint and its error (the kit's Field). */
export function EditorInput({ name, label, hint, ...rest }: { name: string; label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { err, canWrite } = useEditorState();
  return <Field name={name} label={label} hint={hint} error={err(name)} disabled={!canWrite} {...rest} />;
}

/** A labelled textarea named `name`, with its error (the kit's TextArea). */
export function EditorTextarea({ name, label, ...rest }: { name: string; label: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { err, canWrite } = useEditorState();
  return <TextArea name={name} label={label} error={err(name)} disabled={!canWrite} {...rest} />;
}

/** A labelled select of `options` ([value, label]) named `name`, with its error (the kit's Select). */
export function EditorSelect({
  name,
  label,
  options,
  placeholder,
  ...rest
}: { name: string; label: string; options: readonly (readonly [string, string])[]; placeholder?: string } & Omit<
  SelectHTMLAttributes<HTMLSelectElement>,
  "name"
>) {
  const { err, canWrite } = useEditorState();
  return <Select name={name} label={label} options={options} placeholder={placeholder} error={err(name)} disabled={!canWrite} {...rest} />;
}

const UNITS = MEASUREMENT_UNITS.map((u) => [u, u] as const);

/** A select of the measurement units (blank: none) named `name`. */
export function UnitSelect({ name, label, value }: { name: string; label: string; value: string }) {
  return <EditorSelect name={name} label={label} options={UNITS} placeholder="—" defaultValue={value} />;
}
