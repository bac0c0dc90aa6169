import { openDb } from "../platform/db";
import { flushPending } from "./outbox";

/** The cron sweep: re-sends outbox rows that did not reach the queue after their request. */
export async function runSweeps(env: Env): Promise<{ reflushed: number }> {
  const reflushed = await flushPending(env, openDb(env.DB));
  return { reflushed };
}
