import { createContext, type InputHTMLAttributes, type TextareaHTMLAttributes, useContext } from "react";
import { MEASUREMENT_UNITS } from "#worker/catalog";
import { Field, Select, TextArea } from "#web/components/ui/form";

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

/** A labelled input named and identified by `id`, with its hint and its error (the kit's Field). */
export function EditorInput({ id, label, hint, ...rest }: { id: string; label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { err, canWrite } = useEditorState();
  return <Field id={id} name={id} label={label} hint={hint} error={err(id)} disabled={!canWrite} {...rest} />;
}

/** A labelled textarea named by `name` (default `id`), with its error (the kit's TextArea). */
export function EditorTextarea({ id, label, name = id, ...rest }: { id: string; label: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { err, canWrite } = useEditorState();
  return <TextArea id={id} name={name} label={label} error={err(id)} disabled={!canWrite} {...rest} />;
}

const UNITS = MEASUREMENT_UNITS.map((u) => [u, u] as const);

/** A select of the measurement units (blank: none), named and identified by `id` (the kit's Select). */
export function UnitSelect({ id, label, value }: { id: string; label: string; value: string }) {
  const { err, canWrite } = useEditorState();
  return <Select id={id} name={id} label={label} options={UNITS} placeholder="—" defaultValue={value} error={err(id)} disabled={!canWrite} />;
}
