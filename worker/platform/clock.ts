/**
 * The shop's clock. Code that judges time (expiry, windows, sweeps, the dates rows hold) reads it here rather than
 * from Date, so a test can move time forward instead of waiting. Outside tests it is the wall clock.
 * The clock is per isolate: a test moves it for the Worker code it calls in the same isolate.
 */

let offsetMs = 0;

/** Milliseconds since the epoch, as Date.now() gives them, plus any offset a test set. */
export function nowMs(): number {
  return Date.now() + offsetMs;
}

/** The current time as a Date. */
export function now(): Date {
  return new Date(nowMs());
}

/** Tests only: moves the clock forward by `ms` (it keeps running from there). */
export function advanceClock(ms: number): void {
  offsetMs += ms;
}

/** Tests only: puts the clock back to the wall clock. */
export function resetClock(): void {
  offsetMs = 0;
}
