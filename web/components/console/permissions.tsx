import { Form } from "react-router";
import { PERMISSION_LABELS, PERMISSIONS, type Permission } from "#worker/platform/context";

/** One checkbox a permission, named `permissions`, in the owner's words: the staff and API-key forms share it. */
export function PermissionChecks({ checked = [], disabled = false }: { checked?: readonly Permission[]; disabled?: boolean }) {
  return (
    <>
      {PERMISSIONS.map((p) => (
        <label key={p} className="console-check">
          <input type="checkbox" name="permissions" value={p} defaultChecked={checked.includes(p)} disabled={disabled} /> {PERMISSION_LABELS[p]}
        </label>
      ))}
    </>
  );
}

/** The inline form that changes what a staff member or an API key may do (intent "permissions"). */
export function PermissionsForm(props: { id: string; name: string; checked: readonly Permission[]; busy: boolean; disabled?: boolean }) {
  return (
    <Form method="post" className="console-inline-form" aria-label={`Permissions of ${props.name}`}>
      <input type="hidden" name="intent" value="permissions" />
      <input type="hidden" name="id" value={props.id} />
      <fieldset>
        <legend className="visually-hidden">Permissions of {props.name}</legend>
        <PermissionChecks checked={props.checked} disabled={props.disabled} />
      </fieldset>
      {!props.disabled && (
        <button type="submit" className="console-button" disabled={props.busy}>
          Save permissions<span className="visually-hidden"> of {props.name}</span>
        </button>
      )}
    </Form>
  );
}
