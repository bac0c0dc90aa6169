import { badField } from "#worker/platform/errors";

/**
 * A report's period: whole days from `from` to `to` (YYYY-MM-DD, both included) in the store's time zone, and the
 * UTC instants that bound them, `start` included and `end` excluded, as the timestamps in the tables are written.
 */
export interface Period {
  from: string;
  to: string;
  timeZone: string;
  start: string;
  end: string;
}

/** Days a period defaults to, ending today. */
export const DEFAULT_PERIOD_DAYS = 30;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether a string is a real calendar date written YYYY-MM-DD. */
function isDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** YYYY-MM-DD of an instant in a zone ("en-CA" formats dates that way). */
export function localDate(ms: number, zone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(ms));
}

/** The calendar date `days` after a YYYY-MM-DD (negative: before). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Milliseconds the zone's clock is ahead of UTC at an instant. */
function offsetAt(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(ms));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second")) - Math.floor(ms / 1000) * 1000;
}

/** The UTC instant (ISO) at which a local date begins in a zone. */
export function startOfDay(date: string, zone: string): string {
  const guess = Date.parse(`${date}T00:00:00Z`);
  let ms = guess - offsetAt(guess, zone);
  // A second pass settles a day on which the offset changes between the guess and the answer.
  ms = guess - offsetAt(ms, zone);
  return new Date(ms).toISOString();
}

/**
 * The period asked for: `from` and `to` as given (either may be missing: the last DEFAULT_PERIOD_DAYS days up to
 * today), refused with 400 when a date is not a date or `from` comes after `to`.
 */
export function periodOf(query: { from?: string; to?: string }, zone: string, now: Date): Period {
  const from = query.from?.trim() || "";
  const to = query.to?.trim() || "";
  if (from && !isDate(from)) throw badField("from", "must be a date written YYYY-MM-DD, such as 2026-11-01");
  if (to && !isDate(to)) throw badField("to", "must be a date written YYYY-MM-DD, such as 2026-11-30");
  const last = to || (from && from > localDate(now.getTime(), zone) ? from : localDate(now.getTime(), zone));
  const first = from || addDays(last, -(DEFAULT_PERIOD_DAYS - 1));
  if (first > last) throw badField("from", "must be on or before the end of the period (to)");
  return { from: first, to: last, timeZone: zone, start: startOfDay(first, zone), end: startOfDay(addDays(last, 1), zone) };
}
