import { badField } from "#worker/platform/errors";
import { CONSOLE, type ProblemWording } from "#web/components/ui/form.server";

/**
 * Form handling shared by the console's webhook and dead-event pages. The services check automations.manage on
 * every write; these helpers only read the posted form.
 */

/** How the webhook pages word a refusal: the console's, and a plain "Unknown action." for an intent they lack. */
export const WEBHOOKS: ProblemWording = { ...CONSOLE, messages: { UNKNOWN_INTENT: "Unknown action." } };

/** The page number in the URL (1 to 10,000). */
export function pageParam(url: URL): number {
  return Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
}

/** A log page's query from its URL: the page, the status asked for (one of `statuses`, else none), and the paging. */
export function logQuery<S extends string>(url: URL, statuses: readonly S[], size: number) {
  const page = pageParam(url);
  const raw = url.searchParams.get("status") ?? "";
  const status = statuses.includes(raw as S) ? (raw as S) : undefined;
  return { page, status, paging: { status, limit: size, offset: (page - 1) * size } };
}

/** How many pages of `size` rows `total` rows make (at least one). */
export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}

/** A delete without its confirmation tick: an error on the `confirm` field, and nothing deleted. */
export function requireConfirmation(form: FormData, what: string): void {
  if (form.get("confirm") !== "yes") throw badField("confirm", `tick the box to confirm you want to delete ${what}`, "REQUIRED_FIELD");
}
