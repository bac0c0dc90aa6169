import { useEffect } from "react";
import { Form, Link, useNavigation, useRevalidator } from "react-router";
import { ErrorSummary } from "#web/components/ui/form";
import { consoleMeta } from "#web/components/console/title";
import "#web/styles/console-imports.css";
import type { Route } from "./+types/import-job";
import { RowTable } from "#web/components/console/product-import/row-table";

export const meta = consoleMeta("Import — Console");

/**
 * One import: the dry run's preview (products to create, update, leave unchanged; row errors) and Apply; then its
 * progress, read from D1 on every load, so a reload or another tab shows the same import (2 D1 round trips).
 */
export { importLoader as loader } from "./import-job.server";
/** Apply (or resume) the import through the queue, then show its progress. */
export { importAction as action } from "./import-job.server";

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

export default function ImportJob({ loaderData, actionData }: Route.ComponentProps) {
  const { job, counts, problems, outcomes, stalled } = loaderData;
  const busy = useNavigation().state === "submitting";
  const revalidator = useRevalidator();
  const applying = job.status === "APPLYING";
  // With JavaScript the page asks for fresh progress every 1.5 s while the import runs (without, <noscript> reloads it).
  useEffect(() => {
    if (!applying) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle" && document.visibilityState === "visible") void revalidator.revalidate();
    }, 1500);
    return () => clearInterval(timer);
  }, [applying, revalidator]);

  const s = job.summary;
  const toApply = counts.PENDING + counts.DONE + counts.FAILED;
  const applied = counts.DONE + counts.FAILED;
  const errorRows = problems.filter((p) => p.status === "SKIPPED" || (p.status !== "FAILED" && p.action === "invalid"));
  const failedRows = problems.filter((p) => p.status === "FAILED");
  return (
    <>
      {applying && (
        <noscript>
          <meta httpEquiv="refresh" content="3" />
        </noscript>
      )}
      <p className="console-muted">
        <Link to="/console/products/import">← Imports</Link>
      </p>
      <h1>Import of {job.fileName}</h1>
      <p className="console-muted">
        Uploaded by {job.createdBy} · {plural(job.totalRows, "row")} · {plural(s.products, "product")} that can be imported
      </p>
      {actionData?.problem && <ErrorSummary problem={actionData.problem} />}

      {job.status === "READY" && (
        <section aria-labelledby="import-preview">
          <h2 id="import-preview">Preview</h2>
          <ul className="imports-summary" aria-label="What applying does">
            <li>
              <strong>{s.create}</strong> {s.create === 1 ? "product" : "products"} to create
            </li>
            <li>
              <strong>{s.update}</strong> to update
            </li>
            <li>
              <strong>{s.unchanged}</strong> unchanged
            </li>
            <li className={s.invalidRows ? "imports-bad" : undefined}>
              <strong>{s.invalidRows}</strong> {s.invalidRows === 1 ? "row" : "rows"} with errors
            </li>
          </ul>
          {job.columns.ignored.length > 0 && (
            <p className="console-muted">Columns this import does not use (ignored): {job.columns.ignored.join(", ")}.</p>
          )}
          {s.invalidRows > 0 && (
            <p>
              Rows with errors are skipped, together with the other rows of their product. Fix them in the file and upload it again, or apply the
              rest.
            </p>
          )}
          <Form method="post" className="console-actions">
            <button type="submit" name="intent" value="apply" className="console-button primary" disabled={busy || s.create + s.update === 0}>
              {busy ? "Starting…" : s.create + s.update === 0 ? "Nothing to apply" : `Apply: create ${s.create}, update ${s.update}`}
            </button>
            <Link to="/console/products/import" className="console-button">
              Upload another file
            </Link>
          </Form>
        </section>
      )}

      {job.status !== "READY" && (
        <section aria-labelledby="import-progress">
          <h2 id="import-progress">{applying ? "Applying" : "Done"}</h2>
          <p role="status" className="imports-progress-text">
            {applied.toLocaleString("en-US")} of {plural(toApply, "row")} applied
            {applying ? "…" : "."}
          </p>
          <progress className="imports-progress" max={Math.max(1, toApply)} value={applied} aria-label="Rows applied">
            {applied} of {toApply}
          </progress>
          <ul className="imports-summary" aria-label="Results so far">
            <li>
              <strong>{outcomes.created ?? 0}</strong> {(outcomes.created ?? 0) === 1 ? "row" : "rows"} created
            </li>
            <li>
              <strong>{outcomes.updated ?? 0}</strong> {(outcomes.updated ?? 0) === 1 ? "row" : "rows"} updated
            </li>
            <li>
              <strong>{outcomes.unchanged ?? 0}</strong> {(outcomes.unchanged ?? 0) === 1 ? "row" : "rows"} unchanged
            </li>
            <li className={counts.FAILED ? "imports-bad" : undefined}>
              <strong>{counts.FAILED}</strong> {counts.FAILED === 1 ? "row" : "rows"} failed
            </li>
          </ul>
          {applying && (
            <p className="console-muted">
              This runs in the background: you can leave this page and come back (or open it in another tab).{" "}
              <Link to={`/console/products/import/${job.id}`}>Refresh</Link>
            </p>
          )}
          {stalled && (
            <Form method="post" className="console-actions">
              <p>Nothing has moved for a few minutes.</p>
              <button type="submit" name="intent" value="resume" className="console-button" disabled={busy}>
                Resume the import
              </button>
            </Form>
          )}
          {!applying && (
            <p>
              <Link to="/console/products">See the products</Link>
            </p>
          )}
        </section>
      )}

      {errorRows.length > 0 && <RowTable id="import-errors" title="Rows with errors (skipped)" rows={errorRows} />}
      {failedRows.length > 0 && <RowTable id="import-failed" title="Rows that failed when applied" rows={failedRows} />}
    </>
  );
}
