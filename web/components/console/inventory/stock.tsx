import { Form, Link } from "react-router";
import type { inventoryOverview } from "#worker/catalog";
import { Badge } from "#web/components/console/badge";
import { Checkbox, describedBy, ErrorSummary, Field, FieldError, fieldId, type Problem, Select } from "#web/components/ui/form";
import { type EditResult, useEditor } from "#web/components/ui/page";
import { type Column, DataTable } from "#web/components/ui/table";

/**
 * The sections of a product's stock page: the stock form (tracking, each variant's quantity or in-stock flag,
 * preorder, a reason), adjusting one variant by an amount, and the history of changes with their causes.
 */

type Overview = Awaited<ReturnType<typeof inventoryOverview>>;
type Item = Overview["item"];
type Variant = Item["variants"][number] & { index: number };
type Change = Overview["changes"][number];

/** A variant's options as its name ("Navy / M"), "Default" for a product without options. */
export function variantLabel(choices: Record<string, string>): string {
  return Object.values(choices).join(" / ") || "Default";
}

/** The stock form: its inputs are named by the update call's field paths. */
export function StockForm({ item, result, busy }: { item: Item; result: EditResult | null; busy: boolean }) {
  const ed = useEditor(result, "inventory.write");
  const qty = (v: Variant) => {
    const { error, ...input } = ed.field(`inventoryItem.variants[${v.index}].quantity`, v.quantity ?? 0);
    return (
      <>
        <label className="visually-hidden" htmlFor={input.id}>
          Quantity of {Object.values(v.choices).join(" / ") || "the product"}
        </label>
        <input className="inventory-number" inputMode="numeric" {...input} {...describedBy(input.id, false, !!error)} />
        <FieldError id={`${input.id}-error`} message={error} />
      </>
    );
  };
  const columns: Column<Variant>[] = [
    {
      header: "Variant",
      rowHeader: true,
      cell: (v) => (
        <>
          <input type="hidden" name={`inventoryItem.variants[${v.index}].variantId`} value={v.id} />
          {variantLabel(v.choices)}
          {!v.visible && <span className="console-muted"> (hidden)</span>}
        </>
      ),
    },
    {
      header: item.trackInventory ? "Quantity" : "In stock",
      cell: (v) =>
        item.trackInventory ? qty(v) : <Checkbox label="In stock" {...ed.check(`inventoryItem.variants[${v.index}].inStock`, v.inStock)} />,
    },
    {
      header: "State",
      cell: (v) => (
        <Badge tone={v.inStock ? "good" : v.availableForPreorder ? "warn" : "bad"}>
          {v.inStock ? "In stock" : v.availableForPreorder ? "Preorder" : "Out of stock"}
        </Badge>
      ),
    },
  ];
  return (
    <Form method="post" className="console-form inventory-form" aria-label="Stock" noValidate>
      <ErrorSummary problem={result?.problem} fieldIds={fieldId} />
      <input type="hidden" name="intent" value="save" />
      <fieldset disabled={!ed.canWrite} className="console-fields">
        <legend className="visually-hidden">Stock</legend>
        <Checkbox
          label="Track quantities (each sale counts down; off: set in stock or out by hand)"
          {...ed.check("inventoryItem.trackQuantity", item.trackInventory)}
        />
        <DataTable caption="Variants" rows={item.variants.map((v, index) => ({ ...v, index }))} rowKey={(v) => v.id} columns={columns} />
        <fieldset>
          <legend>Preorder</legend>
          <Checkbox
            label="Keep selling when out of stock (tracked quantities only)"
            {...ed.check("inventoryItem.preorderInfo.enabled", item.preorder.enabled)}
          />
          <div className="console-row">
            <Field label="Message to shoppers" maxLength={250} {...ed.field("inventoryItem.preorderInfo.message", item.preorder.message)} />
            <Field
              label="Most to sell below zero"
              inputMode="numeric"
              className="inventory-number-field"
              {...ed.field("inventoryItem.preorderInfo.limit", item.preorder.limit)}
            />
          </div>
        </fieldset>
      </fieldset>
      {ed.canWrite && (
        <div className="console-actions">
          <Field label="Reason (kept in the history)" maxLength={500} {...ed.field("reason", "")} />
          <button type="submit" className="console-button primary" disabled={busy}>
            {busy ? "Saving…" : "Save stock"}
          </button>
        </div>
      )}
    </Form>
  );
}

/** Adds or removes an amount of one variant, with a reason. */
export function AdjustForm({
  item,
  problem,
  values,
  busy,
}: {
  item: Item;
  problem: Problem | null | undefined;
  values: Record<string, string> | null | undefined;
  busy: boolean;
}) {
  const v = values ?? {};
  return (
    <Form method="post" className="console-toolbar inventory-adjust" aria-label="Adjust stock" noValidate>
      <h2 className="inventory-adjust-title">Adjust by an amount</h2>
      <ErrorSummary problem={problem} fieldIds={{ amount: fieldId("amount") }} />
      <input type="hidden" name="intent" value="adjust" />
      <Select
        id="adjust-variant"
        name="variantId"
        label="Variant"
        defaultValue={v.variantId ?? item.variants[0]?.id}
        options={item.variants.map((x) => [x.id, `${variantLabel(x.choices)} (${x.quantity ?? 0})`] as const)}
      />
      <Select
        id="adjust-direction"
        name="direction"
        label="Change"
        defaultValue={v.direction ?? "add"}
        options={[
          ["add", "Add (received)"],
          ["remove", "Remove (damaged, lost, counted)"],
        ]}
      />
      <Field name="amount" label="Amount" inputMode="numeric" className="inventory-number-field" defaultValue={v.amount ?? ""} problem={problem} />
      <Field id="adjust-reason" name="reason" label="Reason" maxLength={500} defaultValue={v.reason ?? ""} />
      <button type="submit" className="console-button" disabled={busy}>
        Apply
      </button>
    </Form>
  );
}

const CAUSES: Record<string, string> = { ORDER: "Order", MANUAL: "Manual", REVERT_INVENTORY_CHANGE: "Order cancelled (restocked)" };

/** The history of stock changes, newest first, each with its cause (an order links to it). */
export function History({ item, changes }: { item: Item; changes: Change[] }) {
  const variantName = (id: string | null) => {
    const v = item.variants.find((x) => x.id === id);
    return v ? variantLabel(v.choices) : "—";
  };
  const cause = (c: Change) => CAUSES[c.cause] ?? c.cause;
  const columns: Column<Change>[] = [
    { header: "When (UTC)", cell: (c) => c.createdDate.slice(0, 16).replace("T", " ") },
    { header: "Variant", cell: (c) => variantName(c.variantId) },
    { header: "Change", num: true, cell: (c) => (c.delta === null ? "—" : c.delta > 0 ? `+${c.delta}` : String(c.delta)) },
    { header: "After", num: true, cell: (c) => c.quantityAfter ?? (c.inStockAfter ? "In stock" : "Out") },
    {
      header: "Cause",
      cell: (c) => (
        <>
          {c.orderId ? <Link to={`/console/orders/${c.orderId}`}>{cause(c)}</Link> : cause(c)}
          {c.actor.type === "APP" ? <span className="console-muted"> (webhook or app)</span> : null}
        </>
      ),
    },
    { header: "Reason", cell: (c) => c.reason ?? "" },
  ];
  return (
    <>
      <h2 id="stock-history">History</h2>
      {changes.length === 0 ? (
        <p className="console-muted">No stock changes yet.</p>
      ) : (
        <DataTable caption="History" rows={changes} rowKey={(c) => c.id} columns={columns} />
      )}
    </>
  );
}
