import { data } from "react-router";
import { ApiError } from "#worker/platform/errors";

/** A loader's service call whose refusal (403 not permitted, 404 gone) becomes the page's own status and message. */
export async function orRefuse<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) throw data(err.description, { status: err.status });
    throw err;
  }
}
