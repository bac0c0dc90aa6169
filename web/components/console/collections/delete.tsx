import { AskFirstForm } from "#web/components/console/confirm";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { ConfirmAgain } from "#web/components/ui/page";

/**
 * Delete with a confirmation. With JavaScript the browser's own confirm dialog asks; without it, the first press
 * comes back with a confirmation form (`confirming`) whose button sends `confirm=yes`.
 */
export function DeleteCollection({ name, confirming, problem }: { name: string; confirming: boolean; problem: Problem | null | undefined }) {
  return (
    <section aria-labelledby="collection-delete-heading" className="collection-danger">
      <h2 id="collection-delete-heading">Delete this collection</h2>
      <ErrorSummary problem={problem} />
      {confirming ? (
        <ConfirmAgain label="Confirm deleting" className="collection-confirm" fields={{ intent: "delete", name }} yes={`Yes, delete “${name}”`}>
          <p>{`Delete “${name}”? Its products stay in the shop; only the collection and its page go. This cannot be undone.`}</p>
        </ConfirmAgain>
      ) : (
        <AskFirstForm question={`Delete the collection “${name}”? Its products stay in the shop. This cannot be undone.`}>
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="confirm" defaultValue="" />
          <input type="hidden" name="name" value={name} />
          <p className="console-muted">The products stay in the shop; only the collection and its page go.</p>
          <button type="submit" className="console-button danger">
            Delete collection
          </button>
        </AskFirstForm>
      )}
    </section>
  );
}
