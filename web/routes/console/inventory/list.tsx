import { data, Form, Link, useNavigation } from "react-router";
import { automationSettingsPatch, updateAutomationSettings } from "#worker/automations";
import { lowStockVariants } from "#worker/catalog";
import { parseWith } from "#worker/platform/validation";
import { Badge } from "#web/components/console/badge";
import { Pager } from "#web/components/console/pager";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, Field, fieldId } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { DataTable, ListStatus } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-inventory.css";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Inventory — Console");

const PAGE_SIZE = 50;

/** What is running low: tracked variants below the low-stock threshold, lowest first (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const page = Math.min(Math.max(1, Math.floor(Number(new URL(request.url).searchParams.get("page")) || 1)), 10_000);
  const low = await lowStockVariants(context.services, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return { ...low, page, pages: Math.max(1, Math.ceil(low.total / PAGE_SIZE)) };
});

/** The low-stock threshold: the automations' setting (also what opens LOW_STOCK tasks), so it needs automations.manage. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const form = await request.formData();
  const raw = String(form.get("lowStockThreshold") ?? "").trim();
  try {
    const patch = parseWith(automationSettingsPatch, { lowStockThreshold: raw === "" ? null : /^\d+$/.test(raw) ? Number(raw) : raw });
    await updateAutomationSettings(context.services, patch);
    return { ok: raw === "" ? "Low-stock alerts are off." : `Variants with fewer than ${raw} in stock now count as low.`, problem: null, value: raw };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, value: raw }, { status: problem.status ?? 400 });
  }
});

type LowRow = Route.ComponentProps["loaderData"]["variants"][number];

const COLUMNS = [
  { header: "Product", rowHeader: true, cell: (v: LowRow) => <Link to={`/console/inventory/${v.productId}`}>{v.name}</Link> },
  { header: "Variant", cell: (v: LowRow) => Object.values(v.choices).join(" / ") || "—" },
  { header: "In stock", num: true, cell: (v: LowRow) => <Badge tone={v.quantity <= 0 ? "bad" : "warn"}>{v.quantity}</Badge> },
];

export default function ConsoleInventory({ loaderData, actionData }: Route.ComponentProps) {
  const { threshold, variants, total, page, pages } = loaderData;
  const canSet = useCan("automations.manage");
  const busy = useNavigation().state === "submitting";
  return (
    <>
      <PageHead title="Inventory" />
      <p className="console-muted">
        Stock per product and variant, adjustments and their history are on each product&rsquo;s stock page: open one below, or find a product under{" "}
        <Link to="/console/products">Products</Link>.
      </p>
      <Notice text={actionData?.ok} />
      <h2>Running low</h2>
      {canSet ? (
        <Form method="post" className="console-toolbar" aria-label="Low-stock threshold" noValidate>
          <ErrorSummary problem={actionData?.problem} fieldIds={fieldId} />
          <Field
            name="lowStockThreshold"
            label="Low when fewer than"
            inputMode="numeric"
            className="inventory-number-field"
            hint="Units of a tracked variant. Empty: no low-stock alerts."
            defaultValue={actionData?.value ?? (threshold === null ? "" : String(threshold))}
            problem={actionData?.problem}
          />
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
          <ListStatus>{`${total} ${total === 1 ? "variant is" : "variants are"} below ${threshold}.`}</ListStatus>
          <DataTable caption="Variants running low" rows={variants} rowKey={(v) => v.variantId} columns={COLUMNS} />
          <Pager page={page} pages={pages} label="Pages of low stock" />
        </>
      )}
    </>
  );
}
