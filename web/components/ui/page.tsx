import { type ReactNode, useCallback, useEffect, useRef } from "react";
import { Form, Link, useBlocker, useNavigation, useRouteLoaderData } from "react-router";
import { ErrorSummary, fieldId, type Problem } from "./form";

/**
 * The console's page frames: the head of every page (the way back, the heading, its actions), the notice after a
 * save, the empty state of a list, and the edit page (its form, Save, and delete asked twice). Pages fill them with
 * the form kit's fields (./form), named by their API field path, so a refusal's field errors land on them unmapped.
 */

/** What the console layout's loader gives every page: the signed-in person and what they may do. */
interface ConsoleUser {
  user?: { permissions: readonly string[] };
}

/** Whether the signed-in person holds `permission` (the services enforce it; pages only hide the controls). */
export function useCan(permission: string): boolean {
  const data = useRouteLoaderData("routes/console/layout") as ConsoleUser | undefined;
  return !!data?.user?.permissions.includes(permission);
}

/** A list's "New …" button, for someone who holds `permission` (null otherwise). */
export function useCreateLink(permission: string, to: string, label: string): ReactNode {
  const can = useCan(permission);
  return can ? (
    <Link to={to} className="console-button primary">
      {label}
    </Link>
  ) : null;
}

/** A page's head: an optional link back to its list, the heading, and actions (links or buttons) beside it. */
export function PageHead({
  title,
  back,
  actions,
  children,
}: {
  title: ReactNode;
  back?: readonly [to: string, label: string];
  actions?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <>
      {back && (
        <p>
          <Link to={back[0]}>{`← ${back[1]}`}</Link>
        </p>
      )}
      <div className="console-head">
        <h1>{title}</h1>
        {actions && <div className="console-actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

/** The notice a page shows after a save or delete (announced politely; nothing when there is none). */
export function Notice({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return (
    <p className="console-notice" role="status">
      {text}
    </p>
  );
}

/** What a list shows when it has nothing: why, and optionally what to do next. */
export function EmptyState({ children, action }: { children: ReactNode; action?: ReactNode }) {
  return (
    <div className="console-empty" role="status">
      <p>{children}</p>
      {action}
    </div>
  );
}

/** What an edit page's action answers when nothing was written: the problem, what was typed, a pending delete. */
export interface EditResult {
  problem: Problem | null;
  values: Record<string, string> | null;
  confirmDelete?: boolean;
}

/**
 * An edit page's fields, by API field path: after a refused save each shows what was typed and its error, else the
 * stored value. `field(path, stored)` gives a Field or Select its name, id, value and error; `check` a Checkbox's.
 */
export function useEditor(actionData: unknown, permission: string) {
  const result = actionData as EditResult | undefined;
  const canWrite = useCan(permission);
  const values = result?.values;
  const errors = result?.values ? (result.problem?.fields ?? {}) : {};
  const text = (path: string, stored: string | number | null | undefined) => (values ? (values[path] ?? "") : stored == null ? "" : String(stored));
  const checked = (path: string, stored: boolean) => (values ? path in values : stored);
  return {
    result,
    canWrite,
    text,
    checked,
    error: (path: string) => errors[path],
    field: (path: string, stored: string | number | null | undefined) => ({
      id: fieldId(path),
      name: path,
      defaultValue: text(path, stored),
      error: errors[path],
    }),
    check: (path: string, stored: boolean) => ({ id: fieldId(path), name: path, defaultChecked: checked(path, stored), error: errors[path] }),
  };
}

/**
 * An edit page's form: the problem summary with links to the fields, the fields (disabled for someone who may not
 * change them, who also gets no Save), the revision the page was loaded at, and Save (intent=save).
 */
export function EditForm({
  label,
  problem,
  revision,
  canWrite,
  permission,
  submitLabel,
  className,
  encType,
  subject = "this",
  children,
}: {
  label: string;
  problem: Problem | null | undefined;
  revision?: string | null;
  canWrite: boolean;
  /** The permission a change needs, named to someone who lacks it. */
  permission: string;
  submitLabel: string;
  className?: string;
  /** multipart/form-data for a form with a file. */
  encType?: "multipart/form-data";
  /** What a change touches, named to someone who may not make it ("Changing pricing needs …"). */
  subject?: string;
  children: ReactNode;
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "save";
  return (
    <Form method="post" encType={encType} className={className ? `console-form ${className}` : "console-form"} aria-label={label} noValidate>
      <ErrorSummary problem={problem} fieldIds={fieldId} />
      {!canWrite && <p className="console-muted">{`Changing ${subject} needs the permission “${permission}”; you can look but not change.`}</p>}
      <fieldset disabled={!canWrite} className="console-fields">
        <legend className="visually-hidden">{label}</legend>
        {children}
      </fieldset>
      {revision && <input type="hidden" name="revision" value={revision} />}
      {canWrite && (
        <div className="console-actions">
          <button type="submit" name="intent" value="save" className="console-button primary" disabled={busy}>
            {busy ? "Saving…" : submitLabel}
          </button>
        </div>
      )}
    </Form>
  );
}

/** Delete, asked twice: the first press shows the confirmation (from the action, so it works without JavaScript). */
export function DeleteSection({ what, confirming, problem }: { what: string; confirming: boolean; problem: Problem | null | undefined }) {
  return (
    <section aria-labelledby="delete-heading" className="console-danger">
      <h2 id="delete-heading">{`Delete ${what}`}</h2>
      {problem && <ErrorSummary problem={problem} />}
      <Form method="post">
        <input type="hidden" name="intent" value="delete" />
        {confirming ? (
          <>
            <p role="alert">{`Delete ${what} for good? This cannot be undone.`}</p>
            <input type="hidden" name="confirm" value="yes" />
            <button type="submit" className="console-button danger">
              {`Yes, delete ${what}`}
            </button>
          </>
        ) : (
          <button type="submit" className="console-button danger">
            Delete…
          </button>
        )}
      </Form>
    </section>
  );
}

/**
 * The frame of an edit page: its head (way back, heading, a section's tabs as `nav`), an optional note, the form and,
 * for a stored item someone may change, the delete section (`deleteWhat` names the item; none for a new one).
 */
export function EditPage({
  back,
  title,
  nav,
  note,
  result,
  revision,
  canWrite,
  permission,
  submitLabel,
  deleteWhat,
  className,
  subject,
  children,
}: {
  back: readonly [to: string, label: string];
  title: string;
  nav?: ReactNode;
  note?: ReactNode;
  result: EditResult | undefined;
  revision?: string | null;
  canWrite: boolean;
  permission: string;
  submitLabel: string;
  deleteWhat?: string | null;
  className?: string;
  subject?: string;
  children: ReactNode;
}) {
  return (
    <>
      <PageHead title={title} back={back}>
        {nav}
      </PageHead>
      {note}
      <EditForm
        label={title}
        problem={result?.values ? result.problem : null}
        revision={revision}
        canWrite={canWrite}
        permission={permission}
        submitLabel={submitLabel}
        className={className}
        subject={subject}
      >
        {children}
      </EditForm>
      {deleteWhat && canWrite && (
        <DeleteSection what={deleteWhat} confirming={!!result?.confirmDelete} problem={result && !result.values ? result.problem : null} />
      )}
    </>
  );
}

/**
 * A delete (or revoke) asked again by the action when the first press came without JavaScript: the question, the
 * form's hidden `fields` with confirm=yes, the "Yes" button (focused) and "Keep it" back to the page.
 */
export function ConfirmAgain({
  label,
  fields,
  yes,
  keep = ".",
  className,
  children,
}: {
  label: string;
  fields: Record<string, string>;
  yes: string;
  keep?: string;
  className?: string;
  children: ReactNode;
}) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <div className={className ? `console-error ${className}` : "console-error"} role="alert">
      {children}
      <div className="console-actions">
        <Form method="post" aria-label={label}>
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" className="console-button danger" ref={button}>
            {yes}
          </button>
        </Form>
        <Link to={keep} className="console-button" replace>
          Keep it
        </Link>
      </div>
    </div>
  );
}

/** The console's edit forms the unsaved-changes guard watches: posted forms of the kit inside the page's main area. */
const GUARDED_FORMS = "#console-main form.console-form[method='post']";

/** A form's values as one string (files by name and size), to tell whether anything changed since it was shown. */
function formState(form: HTMLFormElement): string {
  const out: string[] = [];
  for (const [k, v] of new FormData(form)) out.push(`${k}=${typeof v === "string" ? v : `${v.name}:${v.size}`}`);
  return out.join("\u0000");
}

/**
 * Guards every console edit form with changes: leaving the page in the app asks first (leave or stay), and so does
 * closing or reloading the tab (the browser's own question). A form's values are noted when it is first focused;
 * it has changes while they differ. Saving it is not leaving.
 */
export function UnsavedChangesGuard() {
  const shown = useRef(new WeakMap<HTMLFormElement, string>());
  const submitting = useRef(false);
  const navigation = useNavigation();
  const dirty = useCallback(() => {
    if (typeof document === "undefined") return false;
    for (const form of document.querySelectorAll<HTMLFormElement>(GUARDED_FORMS)) {
      const before = shown.current.get(form);
      if (before !== undefined && before !== formState(form)) return true;
    }
    return false;
  }, []);
  useEffect(() => {
    const note = (e: Event) => {
      const form = (e.target as Element | null)?.closest?.("form");
      if (form instanceof HTMLFormElement && form.matches(GUARDED_FORMS) && !shown.current.has(form)) shown.current.set(form, formState(form));
    };
    const submitted = (e: Event) => {
      if (e.target instanceof HTMLFormElement && e.target.matches(GUARDED_FORMS)) {
        submitting.current = true;
        shown.current.delete(e.target);
      }
    };
    const unload = (e: BeforeUnloadEvent) => {
      if (submitting.current || !dirty()) return;
      e.preventDefault();
      e.returnValue = "";
    };
    document.addEventListener("focusin", note);
    document.addEventListener("submit", submitted);
    window.addEventListener("beforeunload", unload);
    return () => {
      document.removeEventListener("focusin", note);
      document.removeEventListener("submit", submitted);
      window.removeEventListener("beforeunload", unload);
    };
  }, [dirty]);
  useEffect(() => {
    if (navigation.state === "idle") submitting.current = false;
  }, [navigation.state]);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      !submitting.current && (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search) && dirty(),
  );
  const stay = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (blocker.state === "blocked") stay.current?.focus();
  }, [blocker.state]);
  if (blocker.state !== "blocked") return null;
  return (
    <div className="console-leave" role="alertdialog" aria-modal="true" aria-labelledby="console-leave-title" aria-describedby="console-leave-text">
      <div className="console-leave-box">
        <h2 id="console-leave-title">Leave without saving?</h2>
        <p id="console-leave-text">Your changes on this page are not saved yet. If you leave now, they are lost.</p>
        <div className="console-actions">
          <button type="button" ref={stay} className="console-button primary" onClick={() => blocker.reset()}>
            Stay on this page
          </button>
          <button type="button" className="console-button" onClick={() => blocker.proceed()}>
            Leave and lose changes
          </button>
        </div>
      </div>
    </div>
  );
}
