import { Form, useNavigation } from "react-router";
import { ErrorSummary, Field, fieldId, type Problem } from "../ui/form";
import { useEditor } from "../ui/page";
import { AskFirstForm } from "./confirm";
import { LineQuantityFields } from "./line-quantities";
import { RefundForm } from "./order-refunds";
import type { ConsoleOrder } from "./orders.server";

/**
 * The console order page's actions, one form each: ship items (inputs named by the fulfillment request's field paths,
 * so the service's field errors land on them), refund (./order-refunds.tsx), mark as paid, record a refund made
 * outside the store, cancel (asked first).
 */

/** What the order page's action answers: what it did, or the refusal of one intent with what was typed. */
export interface OrderActionResult {
  ok: string | null;
  intent: string;
  problem: Problem | null;
  values?: Record<string, string>;
}

/** Which changes the order's state allows now: the verdicts of the orders service (the rules the API enforces). */
export function orderChanges(order: ConsoleOrder) {
  const canceled = order.status === "CANCELED";
  const toShip = order.fulfilLines.filter((l) => l.quantity > l.shipped + l.refunded);
  const allowed: Record<string, boolean> = {
    "mark-paid": order.actions["mark-paid"] === null,
    fulfil: order.actions.fulfil === null && toShip.length > 0,
    cancel: order.actions.cancel === null,
    refund: order.actions.refund === null,
    "refund-payment": order.actions.refund === null,
  };
  return { canceled, toShip, allowed, any: Object.values(allowed).some(Boolean) };
}

function FulfilForm({ toShip, result, busy }: { toShip: ConsoleOrder["fulfilLines"]; result: OrderActionResult | undefined; busy: boolean }) {
  const editor = useEditor(result?.intent === "fulfil" ? { problem: result.problem, values: result.values ?? null } : undefined, "orders.write");
  const tracking = [
    ["shippingProvider", "Carrier", "text", "e.g. UPS"],
    ["trackingNumber", "Tracking number", "text", undefined],
    ["trackingLink", "Tracking link", "url", "https://…"],
  ] as const;
  return (
    <Form method="post" aria-labelledby="fulfil-heading" noValidate>
      <h3 id="fulfil-heading">Ship items</h3>
      <ErrorSummary problem={editor.result?.problem} fieldIds={fieldId} />
      <input type="hidden" name="intent" value="fulfil" />
      <LineQuantityFields
        lines={toShip}
        idName="id"
        left={(l) => l.quantity - l.shipped - l.refunded}
        field={editor.field}
        note={(_, left) => <>({left} to ship)</>}
      />
      {tracking.map(([name, label, type, placeholder]) => (
        <Field
          key={name}
          {...editor.field(`trackingInfo.${name}`, "")}
          label={label}
          type={type}
          maxLength={name === "trackingLink" ? 2048 : 100}
          placeholder={placeholder}
        />
      ))}
      <button type="submit" className="console-button primary" disabled={busy}>
        {busy ? "Shipping…" : "Mark as shipped"}
      </button>
    </Form>
  );
}

/** The actions the order's state allows, each with the refusal of its last try. */
export function OrderActions({ order, result }: { order: ConsoleOrder; result: OrderActionResult | undefined }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : "";
  const { toShip, allowed } = orderChanges(order);
  const problemFor = (intent: string) => (result?.intent === intent ? result.problem : null);
  return (
    <section className="order-panel order-actions" aria-labelledby="order-actions">
      <h2 id="order-actions">Actions</h2>
      {allowed.fulfil && <FulfilForm toShip={toShip} result={result} busy={busy === "fulfil"} />}
      {allowed["refund-payment"] && <RefundForm order={order} result={result} busy={busy === "refund-payment"} />}
      {allowed["mark-paid"] && (
        <Form method="post">
          <ErrorSummary problem={problemFor("mark-paid")} />
          <input type="hidden" name="intent" value="mark-paid" />
          <button type="submit" className="console-button" disabled={busy === "mark-paid"}>
            Mark as paid
          </button>
        </Form>
      )}
      {allowed.refund && (
        <Form method="post">
          <ErrorSummary problem={problemFor("refund")} />
          <input type="hidden" name="intent" value="refund" />
          <fieldset>
            <legend>Refund made outside the store</legend>
            <label className="console-check">
              <input type="radio" name="status" value="PARTIALLY_REFUNDED" defaultChecked /> Partly refunded
            </label>
            <label className="console-check">
              <input type="radio" name="status" value="FULLY_REFUNDED" /> Fully refunded
            </label>
          </fieldset>
          <button type="submit" className="console-button" disabled={busy === "refund"}>
            Record refund
          </button>
        </Form>
      )}
      {allowed.cancel && (
        <AskFirstForm question={`Cancel order #${order.number}? This cannot be undone.`}>
          <ErrorSummary problem={problemFor("cancel")} />
          <input type="hidden" name="intent" value="cancel" />
          <label className="console-check">
            <input type="checkbox" name="restock" defaultChecked /> Put the items back in stock
          </label>
          <button type="submit" className="console-button danger" disabled={busy === "cancel"}>
            Cancel order
          </button>
        </AskFirstForm>
      )}
    </section>
  );
}
