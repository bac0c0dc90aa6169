import { SweeperObject } from "#worker/events";
import { runSweeps } from "./sweeps";

/** The sweeper Durable Object, running this shop's sweep list (sweeps.ts). */
export class Sweeper extends SweeperObject {
  protected sweep(waitUntil: (p: Promise<unknown>) => void) {
    return runSweeps(this.env, { waitUntil });
  }
}
