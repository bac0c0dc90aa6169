import { useEffect, useRef, useState } from "react";
import { Form, Link, useActionData, useLocation, useNavigation } from "react-router";
import { BULK_ACTIONS, BULK_FORM_ID, BULK_MAX, BULK_VALUE_LABELS, isBulkOp, type BulkActionData, type BulkResult } from "./bulk";
import { ErrorSummary, FieldError } from "#web/components/ui/form";
import "#web/styles/console-bulk.css";

/**
 * Bulk edits on the products table. One plain form (id BULK_FORM_ID) holds the scope, the action and its value;
 * the table's checkboxes join it through their `form` attribute, so it all posts without JavaScript. With it, the
 * header box ticks the page, shift-click ticks a range, the bar counts the selection and shows only the field the
 * chosen action needs, and the button shows the work in progress.
 */

const ROW_BOXES = `input[form="${BULK_FORM_ID}"][name="ids"]`;
const ALL_BOX_ID = "bulk-all-page";

/** The action's answer (a problem or the delete confirmation), when the last post was the bulk form's. */
function useBulkAnswer(): BulkActionData | undefined {
  const answer = useActionData() as BulkActionData | undefined;
  return answer && typeof answer === "object" && "values" in answer ? answer : undefined;
}

/** The table address without the summary, for posting back and for dismissing the summary. */
function useTableUrl(): string {
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  params.delete("done");
  const search = params.toString();
  return `${location.pathname}${search ? `?${search}` : ""}`;
}

/** The header cell's box: ticks every row on this page (without JavaScript, it posts "all on this page"). */
export function BulkSelectAll({ count }: { count: number }) {
  const kept = useBulkAnswer()?.values;
  return (
    <label className="bulk-check">
      <input type="checkbox" id={ALL_BOX_ID} form={BULK_FORM_ID} name="page" value="all" defaultChecked={kept?.allOnPage ?? false} />
      <span className="visually-hidden">Select all {count} products on this page</span>
    </label>
  );
}

/** A row's box, named for its product; ticked again after a problem so the selection is kept. */
export function BulkRowCheckbox({ id, name }: { id: string; name: string }) {
  const kept = useBulkAnswer()?.values;
  return (
    <label className="bulk-check">
      <input type="checkbox" form={BULK_FORM_ID} name="ids" value={id} defaultChecked={kept?.ids.includes(id) ?? false} />
      <span className="visually-hidden">Select {name}</span>
    </label>
  );
}

/** The summary of the last bulk action (from the signed `done` link), with each failure's product and reason. */
function BulkSummary({ result, dismiss }: { result: BulkResult; dismiss: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), [result.at]);
  const unnamed = result.failed - result.failures.length;
  return (
    <div ref={ref} tabIndex={-1} className={`bulk-summary ${result.failed ? "has-failures" : "console-notice"}`} role="status">
      <p>
        <strong>{`${result.what}:`}</strong>
        {` ${result.ok} ${result.verb}, ${result.failed} failed.`}
      </p>
      {result.failures.length > 0 && (
        <ul>
          {result.failures.map((f, n) => (
            <li key={n}>
              <strong>{f.name}</strong>
              {`: ${f.why}`}
            </li>
          ))}
          {unnamed > 0 && <li>{`and ${unnamed} more`}</li>}
        </ul>
      )}
      <Link to={dismiss} className="bulk-dismiss">
        Dismiss
      </Link>
    </div>
  );
}

/** The delete's second step: what goes, and one button that deletes exactly those products. */
function BulkConfirm({ confirm, action }: { confirm: NonNullable<BulkActionData["confirm"]>; action: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [confirm]);
  const busy = useNavigation().state === "submitting";
  const noun = confirm.count === 1 ? "product" : "products";
  return (
    <section className="bulk-confirm" aria-labelledby="bulk-confirm-title">
      <h2 id="bulk-confirm-title" ref={heading} tabIndex={-1}>
        Delete {confirm.count} {noun}?
      </h2>
      <p>
        {confirm.names.join(", ")}
        {confirm.more > 0 ? ` and ${confirm.more} more` : ""}. Their variants, stock and collection memberships go with them. This cannot be undone.
      </p>
      <Form method="post" action={action} className="console-actions">
        <input type="hidden" name="op" value="delete" />
        <input type="hidden" name="scope" value="selected" />
        <input type="hidden" name="confirm" value="yes" />
        {confirm.ids.map((id) => (
          <input key={id} type="hidden" name="ids" value={id} />
        ))}
        <button type="submit" className="console-button danger" disabled={busy}>
          {busy ? "Deleting…" : `Delete ${confirm.count} ${noun}`}
        </button>
        <Link to={action} className="console-button">
          Cancel
        </Link>
      </Form>
    </section>
  );
}

export function BulkBar({
  rows,
  total,
  filtered,
  collections,
  result,
}: {
  rows: { id: string }[];
  total: number;
  filtered: boolean;
  collections: { id: string; name: string }[];
  result: BulkResult | null;
}) {
  const answer = useBulkAnswer();
  const kept = answer?.values;
  const problem = answer?.problem ?? null;
  const fields = problem?.fields ?? {};
  const action = useTableUrl();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formMethod?.toUpperCase() === "POST" && navigation.formData?.get("confirm") !== "yes";
  const [hydrated, setHydrated] = useState(false);
  const [op, setOp] = useState(kept?.op ?? "");
  const [scope, setScope] = useState<"selected" | "matching">(kept?.scope ?? "selected");
  const [selected, setSelected] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  const tooMany = total > BULK_MAX;
  const input = isBulkOp(op) ? BULK_ACTIONS[op].input : null;

  // The selection lives in the table's checkboxes (plain form fields); this counts them and keeps the header box true.
  useEffect(() => {
    setHydrated(true);
    const boxes = () => [...document.querySelectorAll<HTMLInputElement>(ROW_BOXES)];
    const all = () => document.getElementById(ALL_BOX_ID) as HTMLInputElement | null;
    const sync = () => {
      const list = boxes();
      const ticked = list.filter((b) => b.checked).length;
      setSelected(ticked);
      const header = all();
      if (header) {
        header.checked = list.length > 0 && ticked === list.length;
        header.indeterminate = ticked > 0 && ticked < list.length;
      }
    };
    let last: number | null = null;
    const onClick = (e: MouseEvent) => {
      const target = e.target as HTMLElement;
      if (!(target instanceof HTMLInputElement)) return;
      if (target.id === ALL_BOX_ID) {
        for (const b of boxes()) b.checked = target.checked;
        last = null;
        sync();
        return;
      }
      if (!target.matches(ROW_BOXES)) return;
      const list = boxes();
      const at = list.indexOf(target);
      // Shift-click ticks (or unticks) every row between the last one clicked and this one.
      if (e.shiftKey && last !== null && last !== at) {
        const [from, to] = last < at ? [last, at] : [at, last];
        for (const b of list.slice(from, to + 1)) b.checked = target.checked;
      }
      last = at;
      sync();
    };
    // Keyboard (space) ticks arrive as clicks too; `change` catches anything else (e.g. form restore).
    document.addEventListener("click", onClick);
    document.addEventListener("change", sync);
    sync();
    return () => {
      document.removeEventListener("click", onClick);
      document.removeEventListener("change", sync);
    };
  }, [rows]);

  // After an action the summary arrives with a fresh page: start from an empty selection.
  useEffect(() => {
    if (!result) return;
    for (const b of document.querySelectorAll<HTMLInputElement>(ROW_BOXES)) b.checked = false;
    const header = document.getElementById(ALL_BOX_ID) as HTMLInputElement | null;
    if (header) header.checked = header.indeterminate = false;
    setSelected(0);
    setScope("selected");
    // And with a fresh form, so a second click of Apply cannot repeat the change by accident.
    setOp("");
    form.current?.reset();
  }, [result?.at]);

  const groups = [...new Set(Object.values(BULK_ACTIONS).map((a) => a.group))];
  const invalid = (name: string) => (fields[name] ? { "aria-invalid": true as const, "aria-describedby": `bulk-${name}-error` } : {});
  const choosable = collections.filter((c) => c.id !== "00000000-000000-000000-000000000001");
  const countText = scope === "matching" ? `All ${total} ${filtered ? "matching " : ""}products will change.` : `${selected} selected on this page.`;

  return (
    <>
      {result && <BulkSummary result={result} dismiss={action} />}
      {answer?.confirm && <BulkConfirm confirm={answer.confirm} action={action} />}
      <Form
        ref={form}
        method="post"
        action={action}
        id={BULK_FORM_ID}
        className="bulk-bar"
        aria-label="Change many products"
        aria-busy={busy || undefined}
      >
        <ErrorSummary
          problem={problem}
          fieldIds={{
            op: "bulk-op",
            value: "bulk-value",
            collection: "bulk-collection",
            selection: "bulk-scope-selected",
            scope: "bulk-scope-matching",
          }}
        />
        {rows.map((r) => (
          <input key={r.id} type="hidden" name="pageIds" value={r.id} />
        ))}
        <div className="bulk-controls">
          <fieldset className="bulk-scope">
            <legend>Products to change</legend>
            <label className="console-check">
              <input
                type="radio"
                id="bulk-scope-selected"
                name="scope"
                value="selected"
                checked={scope === "selected"}
                onChange={() => setScope("selected")}
                {...invalid("selection")}
              />
              The rows ticked below
            </label>
            <FieldError id="bulk-selection-error" message={fields.selection} />
            <label className="console-check">
              <input
                type="radio"
                id="bulk-scope-matching"
                name="scope"
                value="matching"
                checked={scope === "matching"}
                onChange={() => setScope("matching")}
                disabled={tooMany || total === 0}
                {...invalid("scope")}
              />
              All {total.toLocaleString("en")} {filtered ? "products matching the filter" : "products"}
            </label>
            {tooMany && (
              <p className="hint">Bulk edits take up to {BULK_MAX.toLocaleString("en")} products at a time: narrow the filter to change them all.</p>
            )}
            <FieldError id="bulk-scope-error" message={fields.scope} />
          </fieldset>
          <div className="console-field">
            <label htmlFor="bulk-op">Change</label>
            <select id="bulk-op" name="op" value={op} onChange={(e) => setOp(e.target.value)} {...invalid("op")}>
              <option value="">Choose an action…</option>
              {groups.map((g) => (
                <optgroup key={g} label={g}>
                  {Object.entries(BULK_ACTIONS)
                    .filter(([, a]) => a.group === g)
                    .map(([value, a]) => (
                      <option key={value} value={value}>
                        {a.label}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
            <FieldError id="bulk-op-error" message={fields.op} />
          </div>
          <div className="console-field bulk-value" hidden={hydrated && (!input || input === "none" || input === "collection")}>
            <label htmlFor="bulk-value">{hydrated && input ? BULK_VALUE_LABELS[input] : "Amount, percentage or text"}</label>
            <input
              id="bulk-value"
              name="value"
              defaultValue={kept?.value ?? ""}
              maxLength={100}
              inputMode={input === "ribbon" || input === "brand" ? "text" : "decimal"}
              autoComplete="off"
              {...invalid("value")}
            />
            <FieldError id="bulk-value-error" message={fields.value} />
          </div>
          <div className="console-field" hidden={hydrated && input !== "collection"}>
            <label htmlFor="bulk-collection">Collection</label>
            <select id="bulk-collection" name="collection" defaultValue={kept?.collection ?? ""} {...invalid("collection")}>
              <option value="">Choose a collection…</option>
              {choosable.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
            <FieldError id="bulk-collection-error" message={fields.collection} />
          </div>
          <div className="bulk-apply">
            <button type="submit" className={`console-button ${op === "delete" ? "danger" : "primary"}`} disabled={busy}>
              {busy ? "Applying…" : "Apply"}
            </button>
            {hydrated && (
              <p className="console-muted bulk-count" aria-live="polite">
                {countText}
              </p>
            )}
          </div>
        </div>
      </Form>
    </>
  );
}
