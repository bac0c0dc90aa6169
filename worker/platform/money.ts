/**
 * Money is kept in integer minor units (cents) inside the system and converted only at the wire:
 * catalogue floats as JSON numbers, ecom amounts as decimal strings, display through Intl.NumberFormat.
 */

const digitsCache = new Map<string, number>();
const formatCache = new Map<string, Intl.NumberFormat>();

/** Number of minor-unit digits of a currency (USD 2, JPY 0, KWD 3). */
export function currencyDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    d = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, d);
  }
  return d;
}

/** Major units (a wire float such as 10.5) to minor units, rounded half away from zero at currency precision. */
export function toMinor(amount: number, currency: string): number {
  const scaled = Number((amount * 10 ** currencyDigits(currency)).toPrecision(12));
  return Math.sign(scaled) * Math.round(Math.abs(scaled));
}

/** Minor units to a wire float. */
export function toMajor(minor: number, currency: string): number {
  return minor / 10 ** currencyDigits(currency);
}

/** Minor units to an ecom decimal string ("10.50"). */
export function toDecimalString(minor: number, currency: string): string {
  return toMajor(minor, currency).toFixed(currencyDigits(currency));
}

/** Minor units formatted for display in the store currency ("$10.50"). */
export function formatMoney(minor: number, currency: string, locale = "en-US"): string {
  const key = `${locale}|${currency}`;
  let f = formatCache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: "currency", currency });
    formatCache.set(key, f);
  }
  return f.format(toMajor(minor, currency));
}

/** Rounds a fractional minor amount to whole minor units, half away from zero. */
export function roundMinor(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(Number(value.toPrecision(12))));
}
