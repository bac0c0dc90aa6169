import { roundMinor } from "#worker/platform/money";

/**
 * Rounding rules of the engine. Amounts are integer minor units at currency precision (2 digits for USD, 0 for
 * JPY, 3 for KWD), so rounding "to the currency" is rounding to a whole minor unit:
 * - a percentage of an amount (a discount, a fee, a line's tax) is rounded once, half away from zero
 *   (roundMinor): 2.5 cents becomes 3, 0.5 yen becomes 1;
 * - tax is rounded per line (and once for shipping), and the order's tax is the sum of the rounded lines;
 * - an order-level amount spread over lines (a GLOBAL discount) is split by largest remainder, so the shares are
 *   whole units and add up to exactly the amount.
 */

/** `percent`% of `amount`, rounded half away from zero. */
export function percentOf(amount: number, percent: number): number {
  return roundMinor((amount * percent) / 100);
}

/** Tax at `rate`% on a net amount (prices without tax). */
export function taxOnNet(net: number, rate: number): number {
  return roundMinor((net * rate) / 100);
}

/** The tax inside a gross amount at `rate`% (prices with tax): gross × rate / (100 + rate). */
export function taxInGross(gross: number, rate: number): number {
  return rate <= 0 ? 0 : roundMinor((gross * rate) / (100 + rate));
}

/**
 * Splits `total` into whole shares proportional to `weights` (largest remainder; equal remainders go to the earlier
 * weight). The shares add up to `total`; when total ≤ Σ weights no share exceeds its weight. BigInt keeps
 * total × weight exact beyond 2^53.
 */
export function allocate(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, w) => a + w, 0);
  if (total <= 0 || sum <= 0) return weights.map(() => 0);
  const T = BigInt(total);
  const S = BigInt(sum);
  const shares = weights.map((w) => (T * BigInt(w)) / S);
  const remainders = weights.map((w, i) => ({ i, r: (T * BigInt(w)) % S }));
  let left = total - shares.reduce((a, s) => a + Number(s), 0);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left <= 0) break;
    if (weights[i] <= 0) continue;
    shares[i] += 1n;
    left--;
  }
  return shares.map(Number);
}

/** A percent as the fraction string Wix puts in taxRate ("0.0825" for 8.25%). */
export function percentToFraction(percent: number): string {
  return String(Number((percent / 100).toPrecision(12)));
}
