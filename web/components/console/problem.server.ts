import { data } from "react-router";
import { ApiError } from "#worker/platform/errors";
import { CONSOLE, problemOf, type ProblemWording } from "#web/components/ui/form.server";

/**
 * A loader's service call whose refusal (403 not permitted, 404 gone) becomes the page's own status and message;
 * `gone` words a 404 the page's way ("No such product.").
 */
export async function orRefuse<T>(work: Promise<T>, gone?: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404))
      throw data(err.status === 404 && gone ? gone : err.description, { status: err.status });
    throw err;
  }
}

/** What an action answers after one of its intents: which form posted, the notice, and no problem. */
export type IntentDone<T> = T & { intent: string; problem: null };

/**
 * An action of several forms, each posting an `intent`: runs that intent's step with the posted values (the first of
 * each name). A refusal answers with its problem in CONSOLE words (or `wording`), the values typed and `kept`.
 */
export async function byIntent<T extends { ok: string | null }>(
  form: FormData,
  steps: Record<string, (values: Record<string, string>) => Promise<T | Response>>,
  opts: { wording?: ProblemWording; kept?: Record<string, unknown> } = {},
) {
  const intent = String(form.get("intent") ?? "");
  const values = postedValues(form);
  try {
    const step = Object.hasOwn(steps, intent) ? steps[intent] : undefined;
    if (!step) throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    const done = await step(values);
    return done instanceof Response ? done : ({ ...done, intent, problem: null } as IntentDone<T>);
  } catch (err) {
    const problem = problemOf(err, opts.wording ?? CONSOLE);
    return data({ intent, ok: null, problem, values, ...opts.kept }, { status: problem.status ?? 400 });
  }
}

/** The posted form as plain strings (the first value of each name), to give back to the form after a refusal. */
export function postedValues(form: FormData): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [k, v] of form) if (typeof v === "string" && !(k in values)) values[k] = v;
  return values;
}
