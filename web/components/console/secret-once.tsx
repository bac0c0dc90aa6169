/**
 * A secret or key shown once, in an action's answer (never by a loader, never stored in plain): the merchant copies
 * it now or makes a new one later. Webhook source and subscription secrets, API keys.
 */
export function SecretOnce({
  label,
  note = "Copy it now: it is shown only this once.",
  secret,
  testId,
}: {
  /** What it is, in bold, e.g. "The new signing secret." */
  label: React.ReactNode;
  note?: string;
  secret: string;
  testId?: string;
}) {
  return (
    <div className="console-notice console-secret" role="status">
      <p>
        <strong>{label}</strong> {note}
      </p>
      <code className="console-secret-value" data-secret data-testid={testId}>
        {secret}
      </code>
    </div>
  );
}
