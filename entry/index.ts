import { servePage } from "#web/host/pages";
import { apiHost, armSweeper, eventRegistry, runSweeps } from "#worker/app";
import { handleEventBatch } from "#worker/events";

export { Sweeper } from "#worker/app";

/** Every request: the API host's middleware and routes, and the page host for every path the API does not own. */
const http = apiHost(servePage);

/** The Worker: HTTP (API and pages), the event queue consumer, and the cron sweeps. */
export default {
  fetch: http.fetch,
  async queue(batch: MessageBatch<unknown>, env: Env, ctx: ExecutionContext) {
    await handleEventBatch(batch, env, ctx, eventRegistry);
  },
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    // The cron is the watchdog of the sweeper's alarm, and sweeps once itself in case the alarm is late.
    const results = await Promise.allSettled([armSweeper(env), runSweeps(env, { waitUntil: (p) => ctx.waitUntil(p) })]);
    for (const r of results) if (r.status === "rejected") console.error("scheduled sweep failed", r.reason);
  },
} satisfies ExportedHandler<Env, unknown>;
