/**
 * Polls `check` until it gives a truthy value (returned) or `ms` pass (throws, naming `what`): for work the Worker
 * does in the background (queue consumers, sweeps, waitUntil). Usable from the workerd and the Node suites alike.
 */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, ms = 25_000, everyMs = 100): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
