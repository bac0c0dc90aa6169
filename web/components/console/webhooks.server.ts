import { badField } from "#worker/platform/errors";

/**
 * Form handling shared by the console's webhook and dead-event pages. The services check automations.manage on
 * every write; these helpers only read the posted form.
 */

/** The posted form as plain strings (the first value of each name), to give back to the form after an error. */
export function formValues(form: FormData): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [k, v] of form) if (typeof v === "string" && !(k in values)) values[k] = v;
  return values;
}

/** The page number in the URL (1 to 10,000). */
export function pageParam(url: URL): number {
  return Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
}

/** A delete without its confirmation tick: an error on the `confirm` field, and nothing deleted. */
export function requireConfirmation(form: FormData, what: string): void {
  if (form.get("confirm") !== "yes") throw badField("confirm", `tick the box to confirm you want to delete ${what}`, "REQUIRED_FIELD");
}
