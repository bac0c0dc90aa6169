import { data } from "react-router";
import type { Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";

/** What a page's one-button action answers: what it did, or why nothing was done. */
export interface IntentResult {
  ok: string | null;
  problem: Problem | null;
}

/**
 * A console page's action for its buttons (Done, Retry, Report back in stock…): the posted `intent` must be one of
 * `intents`; `run` does it through a service and says what happened. A refusal comes back as the problem to show.
 */
export async function intentAction<I extends string>(form: FormData, intents: readonly I[], run: (intent: I) => Promise<string>) {
  const intent = form.get("intent");
  if (!intents.includes(intent as I))
    return data<IntentResult>({ ok: null, problem: { message: "Nothing was done: unknown action.", fields: {} } }, { status: 400 });
  try {
    return data<IntentResult>({ ok: await run(intent as I), problem: null });
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data<IntentResult>({ ok: null, problem }, { status: problem.status ?? 400 });
  }
}
