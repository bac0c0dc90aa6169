import { useEffect, useRef } from "react";

/**
 * Pieces every console form uses: the problem summary (announced, focused after a failed submit, linking to each
 * field) and the error under a field, tied to it with aria-describedby by the caller.
 */

/** A failed action (web/components/console/problem.server.ts): summary, errors by API field path, code, status. */
export interface ConsoleProblem {
  message: string;
  fields: Record<string, string>;
  code?: string;
  status?: number;
}

export function FormProblem({ problem, fieldIds = {} }: { problem: ConsoleProblem | null | undefined; fieldIds?: Record<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (problem) ref.current?.focus();
  }, [problem]);
  if (!problem) return null;
  const entries = Object.entries(problem.fields);
  return (
    <div className="console-error" role="alert" tabIndex={-1} ref={ref}>
      <p>{problem.message}</p>
      {entries.length > 0 && (
        <ul>
          {entries.map(([field, text]) => (
            <li key={field}>{fieldIds[field] ? <a href={`#${fieldIds[field]}`}>{text}</a> : `${field}: ${text}`}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="console-field-error" id={id}>
      {message}
    </p>
  );
}
