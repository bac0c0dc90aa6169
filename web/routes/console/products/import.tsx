import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import { CHUNK_ROWS, MAX_IMPORT_BYTES, MAX_ROWS, PRODUCT_COLUMNS, recentImports, REQUIRED_COLUMNS, VARIANT_COLUMNS } from "#worker/catalog";
import { ErrorSummary, FileField } from "#web/components/ui/form";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-imports.css";
import type { Route } from "./+types/import";

export const meta = consoleMeta("Import products — Console");

/** The upload form and the latest imports (catalog.write only: the service refuses others with 403). */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  return { imports: await orRefuse(recentImports(context.services)) };
});

/**
 * The dry run: the file is parsed and every row checked against the catalogue's rules, and the result stored as an
 * import to look at before applying it. A file that cannot be read is refused next to the file field, and nothing
 * is stored.
 */
export { checkUpload as action } from "./import.server";

const MB = MAX_IMPORT_BYTES / 1_048_576;

export default function ImportProducts({ loaderData, actionData }: Route.ComponentProps) {
  const busy = useNavigation().state === "submitting";
  // With JavaScript, a file past the limit is refused before it is sent (without, the server refuses it).
  const [tooLarge, setTooLarge] = useState<string | null>(null);
  const fileError = tooLarge ?? actionData?.problem?.fields.file;
  return (
    <>
      <p className="console-muted">
        <Link to="/console/products">← Products</Link>
      </p>
      <h1>Import products from CSV</h1>
      {actionData?.problem && !actionData.problem.fields.file && <ErrorSummary problem={actionData.problem} />}
      <Form method="post" encType="multipart/form-data" className="console-form imports-form">
        <FileField
          id="import-file"
          name="file"
          label="CSV file"
          hint={
            <>
              One row per variant, with a header row, as <strong>Export CSV</strong> on the products page writes it. Up to {MB} MB and{" "}
              {MAX_ROWS.toLocaleString("en-US")} rows. Nothing changes until you have seen the preview and chosen Apply.
            </>
          }
          accept=".csv,text/csv"
          required
          error={fileError}
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            const message =
              f && f.size > MAX_IMPORT_BYTES
                ? `This file is ${(f.size / 1_048_576).toFixed(1)} MB; the limit is ${MB} MB. Split it into smaller files.`
                : null;
            e.currentTarget.setCustomValidity(message ?? "");
            setTooLarge(message);
          }}
        />
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={busy}>
            {busy ? "Checking the file…" : "Check the file"}
          </button>
        </div>
      </Form>

      <details className="imports-columns">
        <summary>Columns the file may have</summary>
        <p>
          Required: {REQUIRED_COLUMNS.join(", ")}. A product is found by its <strong>Handle</strong> (its URL name); an unknown handle creates a
          product. A column the file leaves out leaves that field as it is. Rows of one product repeat its product columns; options go in pairs{" "}
          <em>Option1 name</em> / <em>Option1 value</em> up to Option6. Applying goes {CHUNK_ROWS} rows at a time in the background.
        </p>
        <p>Product columns: {PRODUCT_COLUMNS.join(", ")}.</p>
        <p>Variant columns: {VARIANT_COLUMNS.join(", ")}.</p>
      </details>

      <h2>Recent imports</h2>
      {loaderData.imports.length === 0 ? (
        <p className="console-muted">No imports yet.</p>
      ) : (
        <div className="console-scroll">
          <table className="console-table">
            <caption className="visually-hidden">Recent imports</caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Rows
                </th>
                <th scope="col">By</th>
                <th scope="col">Uploaded</th>
              </tr>
            </thead>
            <tbody>
              {loaderData.imports.map((j) => (
                <tr key={j.id}>
                  <th scope="row">
                    <Link to={`/console/products/import/${j.id}`}>{j.fileName}</Link>
                  </th>
                  <td>{j.status === "READY" ? "Checked, not applied" : j.status === "APPLYING" ? "Applying" : "Done"}</td>
                  <td className="num">{j.totalRows}</td>
                  <td>{j.createdBy}</td>
                  <td>{new Date(j.createdDate).toISOString().replace("T", " ").slice(0, 16)} UTC</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
