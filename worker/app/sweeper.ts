import { DurableObject } from "cloudflare:workers";
import { runSweeps } from "./sweeps";

/** How often the sweeps run. */
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * One alarm object (named "sweeper") that runs the idempotent sweeps on a timer. It re-arms before sweeping so a
 * failing sweep never stops the clock. Armed lazily by the first request an isolate serves and by every cron tick.
 * What it sweeps is the subclass's `sweep` (the composition root's sweep list).
 */
export abstract class SweeperObject extends DurableObject<Env> {
  /** Runs the sweeps once; `reflushed` is how many outbox rows went to the queue again. */
  protected abstract sweep(waitUntil: (p: Promise<unknown>) => void): Promise<{ reflushed: number }>;

  async ensureArmed(): Promise<boolean> {
    if ((await this.ctx.storage.getAlarm()) !== null) return false;
    await this.ctx.storage.setAlarm(Date.now() + SWEEP_INTERVAL_MS);
    return true;
  }

  async alarm(): Promise<void> {
    await this.ctx.storage.setAlarm(Date.now() + SWEEP_INTERVAL_MS);
    try {
      const result = await this.sweep((p) => this.ctx.waitUntil(p));
      if (result.reflushed) console.log("sweep:", result);
    } catch (err) {
      // A throwing alarm is retried by the runtime on its own schedule; the next tick retries the sweep anyway.
      console.error("sweep failed; the next tick retries", err);
    }
  }
}

/** Arms the sweeper if it is not already ticking. */
export function armSweeper(env: Env): Promise<boolean> {
  return env.SWEEPER.get(env.SWEEPER.idFromName("sweeper")).ensureArmed();
}

/** The sweeper Durable Object, running this shop's sweep list (sweeps.ts). */
export class Sweeper extends SweeperObject {
  protected sweep(waitUntil: (p: Promise<unknown>) => void) {
    return runSweeps(this.env, { waitUntil });
  }
}
