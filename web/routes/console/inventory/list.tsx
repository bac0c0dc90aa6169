import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { automationSettingsPatch, updateAutomationSettings } from "#worker/automations/settings";
import { lowStockVariants } from "#worker/catalog";
import { parseWith } from "#worker/platform/validation";
import { Badge } from "#web/components/console/badge";
import { ErrorSummary, FieldError } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-inventory.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/list";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Inventory — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 50;

/** What is running low: tracked variants below the low-stock threshold, lowest first (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const page = Math.min(Math.max(1, Math.floor(Number(new URL(request.url).searchParams.get("page")) || 1)), 10_000);
  const low = await lowStockVariants(context.services, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return { ...low, page, pages: Math.max(1, Math.ceil(low.total / PAGE_SIZE)) };
}

/** The low-stock threshold: the automations' setting (also what opens LOW_STOCK tasks), so it needs automations.manage. */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const form = await request.formData();
  const raw = String(form.get("threshold") ?? "").trim();
  try {
    const patch = parseWith(automationSettingsPatch, { lowStockThreshold: raw === "" ? null : /^\d+$/.test(raw) ? Number(raw) : raw });
    await updateAutomationSettings(context.services, patch);
    return { ok: raw === "" ? "Low-stock alerts are off." : `Variants with fewer than ${raw} in stock now count as low.`, problem: null, value: raw };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, value: raw }, { status: problem.status ?? 400 });
  }
}

export default function ConsoleInventory({ loaderData, actionData }: Route.ComponentProps) {
  const { threshold, variants, total, page, pages } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const busy = useNavigation().state === "submitting";
  const fieldError = actionData?.problem?.fields.lowStockThreshold;
  return (
    <>
      <h1>Inventory</h1>
      <p className="console-muted">
        Stock per product and variant, adjustments and their history are on each product&rsquo;s stock page: open one below, or find a product under{" "}
        <Link to="/console/products">Products</Link>.
      </p>
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      <h2>Running low</h2>
      {user?.permissions.includes("automations.manage") ? (
        <Form method="post" className="console-toolbar" aria-label="Low-stock threshold" noValidate>
          <ErrorSummary problem={actionData?.problem} fieldIds={{ lowStockThreshold: "inventory-threshold" }} />
          <div className="console-field">
            <label htmlFor="inventory-threshold">Low when fewer than</label>
            <input
              id="inventory-threshold"
              name="threshold"
              inputMode="numeric"
              className="inventory-number"
              defaultValue={actionData?.value ?? (threshold === null ? "" : String(threshold))}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={`inventory-threshold-hint${fieldError ? " inventory-threshold-error" : ""}`}
            />
            <p className="hint" id="inventory-threshold-hint">
              Units of a tracked variant. Empty: no low-stock alerts.
            </p>
            <FieldError id="inventory-threshold-error" message={fieldError} />
          </div>
          <button type="submit" className="console-button" disabled={busy}>
            Save threshold
          </button>
        </Form>
      ) : (
        <p>{threshold === null ? "Low-stock alerts are off." : `A tracked variant with fewer than ${threshold} in stock counts as low.`}</p>
      )}
      {threshold === null ? null : variants.length === 0 ? (
        <p role="status">Nothing is running low.</p>
      ) : (
        <>
          <p className="console-muted" role="status">
            {`${total} ${total === 1 ? "variant is" : "variants are"} below ${threshold}.`}
          </p>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">Variants running low</caption>
              <thead>
                <tr>
                  <th scope="col">Product</th>
                  <th scope="col">Variant</th>
                  <th scope="col" className="num">
                    In stock
                  </th>
                </tr>
              </thead>
              <tbody>
                {variants.map((v) => (
                  <tr key={v.variantId}>
                    <th scope="row">
                      <Link to={`/console/inventory/${v.productId}`}>{v.name}</Link>
                    </th>
                    <td>{Object.values(v.choices).join(" / ") || "—"}</td>
                    <td className="num">
                      <Badge tone={v.quantity <= 0 ? "bad" : "warn"}>{v.quantity}</Badge>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of low stock" />
        </>
      )}
    </>
  );
}
