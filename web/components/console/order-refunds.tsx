import { Form } from "react-router";
import { Checkbox, ErrorSummary, Field, fieldId, type Problem } from "../ui/form";
import { useEditor } from "../ui/page";
import { DataTable } from "../ui/table";
import { LineQuantityFields } from "./line-quantities";
import type { ConsoleOrder, ConsoleRefund } from "./orders.server";

/**
 * The order page's refunds: the form that gives money back (items and how many, or an amount, or everything left;
 * restock; a tick to confirm), with inputs named by the refund request's field paths, and the list of refunds made.
 */

/** The refund form: one quantity per item not refunded yet, an amount, everything left, restock, and the confirmation tick. */
export function RefundForm({
  order,
  result,
  busy,
}: {
  order: ConsoleOrder;
  /** The order page's last answer (OrderActionResult): this form shows it when it was a refund. */
  result: { intent: string; problem: Problem | null; values?: Record<string, string> } | undefined;
  busy: boolean;
}) {
  const editor = useEditor(
    result?.intent === "refund-payment" ? { problem: result.problem, values: result.values ?? null } : undefined,
    "orders.write",
  );
  const lines = order.fulfilLines.filter((l) => l.quantity > l.refunded);
  // The ship form names its quantities by the same paths: this form's ids carry a prefix of their own.
  const idOf = (path: string) => `refund-${fieldId(path)}`;
  const field = (path: string) => ({ ...editor.field(path, ""), id: idOf(path) });
  const check = (path: string, stored: boolean) => ({ ...editor.check(path, stored), id: idOf(path) });
  return (
    <Form method="post" aria-labelledby="refund-heading" noValidate>
      <h3 id="refund-heading">Refund</h3>
      <p className="console-muted" id="refund-left">
        Left to refund: {order.refundable.formattedAmount}
      </p>
      <ErrorSummary problem={editor.result?.problem} fieldIds={idOf} />
      <input type="hidden" name="intent" value="refund-payment" />
      <LineQuantityFields
        lines={lines}
        idName="lineItemId"
        left={(l) => l.quantity - l.refunded}
        field={(path) => field(path)}
        note={(l, left) => (
          <>
            ({left} not refunded, {l.unitPrice} each)
          </>
        )}
      />
      <Field
        {...field("amount")}
        label="Amount"
        hint="Leave empty to refund the price of the items above, or enter an amount, such as 5.00"
        inputMode="decimal"
        maxLength={14}
      />
      <Checkbox {...check("all", false)} label={`Refund everything left (${order.refundable.formattedAmount})`} />
      <Checkbox {...check("restock", true)} label="Put the refunded items back in stock" />
      <Checkbox {...check("confirm", false)} value="yes" label="Yes, give this money back to the buyer" />
      <button type="submit" className="console-button" disabled={busy}>
        {busy ? "Refunding…" : "Refund"}
      </button>
    </Form>
  );
}

/** The order's refunds, oldest first: when, how much, which items, and where each stands. */
export function OrderRefunds({ order }: { order: ConsoleOrder }) {
  if (order.refunds.length === 0) return null;
  return (
    <section className="order-panel" aria-labelledby="order-refunds">
      <h2 id="order-refunds">Refunds</h2>
      <DataTable<ConsoleRefund>
        caption="Refunds"
        rows={order.refunds}
        rowKey={(r) => r.id}
        columns={[
          { header: "Date", cell: (r) => <time dateTime={r.date}>{new Date(r.date).toISOString().slice(0, 16).replace("T", " ")} UTC</time> },
          { header: "Amount", num: true, cell: (r) => r.amount },
          { header: "Items", cell: (r) => (r.lines.length ? r.lines.join(", ") : "—") + (r.restocked ? " (back in stock)" : "") },
          { header: "Status", cell: (r) => r.status },
        ]}
      />
    </section>
  );
}
