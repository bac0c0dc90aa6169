import { Form, useNavigation } from "react-router";
import { type Problem, TextArea } from "#web/components/ui/form";

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
