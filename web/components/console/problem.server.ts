import { data } from "react-router";
import { ApiError } from "../../../worker/platform/errors";
import type { ConsoleProblem } from "./forms";

/**
 * A failed console action as page data: the summary, and each field violation keyed by the API's field path
 * (e.g. `product.priceData.price`), so a form shows the error next to its field and keeps what was typed. Only
 * ApiErrors are expected; anything else is rethrown to the error boundary.
 */
export function problemOf(err: unknown): ConsoleProblem {
  if (!(err instanceof ApiError)) throw err;
  const fields: Record<string, string> = {};
  for (const v of err.fieldViolations ?? []) fields[v.field] ??= capitalise(v.description);
  const message =
    err.status === 403
      ? `You may not do this: ${err.description.replace(/\.?$/, ".")}`
      : err.fieldViolations?.length
        ? "Nothing was saved. Please correct the highlighted fields."
        : `Nothing was saved: ${err.description.replace(/\.?$/, ".")}`;
  return { message, fields, code: err.code, status: err.status };
}

function capitalise(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** A loader's service call whose refusal (403 not permitted, 404 gone) becomes the page's own status and message. */
export async function orRefuse<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) throw data(err.description, { status: err.status });
    throw err;
  }
}
