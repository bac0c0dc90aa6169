import { Form, Link, useNavigation } from "react-router";
import { type Problem, TextArea } from "#web/components/ui/form";

/* The order page's additions: the staff note form and the links to its printable documents. */

/** The order page's note form: a staff note goes into the order's history with its author and time. */
export function OrderNoteForm({ problem, count }: { problem: Problem | null | undefined; count: number }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "note";
  return (
    <section className="order-panel" aria-labelledby="order-note">
      <h2 id="order-note">Add a note</h2>
      {/* A new key after each note added empties the field. */}
      <Form method="post" className="console-form" aria-labelledby="order-note" key={count}>
        <TextArea
          name="activity.merchantComment.message"
          label="Note for the team"
          hint="Only staff see it, in the order's history."
          rows={3}
          maxLength={2000}
          problem={problem}
        />
        <button type="submit" name="intent" value="note" className="console-button" disabled={busy}>
          {busy ? "Saving…" : "Add note"}
        </button>
      </Form>
    </section>
  );
}

/** Links to the order's printable packing slip and invoice. */
export function OrderPrintLinks({ id }: { id: string }) {
  return (
    <p className="console-actions">
      <Link to={`/console/orders/${id}/print/packing-slip`} className="console-button">
        Packing slip
      </Link>
      <Link to={`/console/orders/${id}/print/invoice`} className="console-button">
        Invoice
      </Link>
    </p>
  );
}
