import type { Ctx } from "#worker/platform/context";
import { sha256Hex } from "#worker/platform/ids";
import { emailKey, growingDelaySeconds, takeTurn, type Limit } from "#worker/platform/rate-limit";
import { hasCustomCaptchaVerifier, requireCaptcha } from "./captcha";
import type { CaptchaTokenInput } from "./schemas";
import { turnstileSecret } from "./settings";
import { nowMs } from "#worker/platform/clock";

/**
 * What keeps a stranger guessing an account's password from locking its owner out. The hard login limit counts an
 * account's attempts per client address (platform/rate-limit.ts LIMITS.loginAccount); across all addresses the
 * limit is much higher, and over it only addresses the account never signed in from are slowed: they solve a
 * captcha when one is configured, else each waits a turn that comes later with every attempt. The addresses an
 * account signed in from are remembered in KV (SESSIONS) under a hash of the email and the address.
 */

/** How long an address stays known after a successful login from it. */
export const KNOWN_ADDRESS_TTL_SECONDS = 180 * 24 * 60 * 60;
/** A known address is written again (its lifetime renewed) at most this often. */
const KNOWN_ADDRESS_RENEW_MS = 30 * 24 * 60 * 60 * 1000;

const knownKey = async (email: string, ip: string) => `login:known:${await sha256Hex(`${email.trim().toLowerCase()}\n${ip}`)}`;

/** When the account last signed in from this address (epoch ms), or null if it never did (or no address). */
export async function knownAddressSince(env: Env, email: string, ip: string | undefined): Promise<number | null> {
  if (!ip) return null;
  const record = await env.SESSIONS.get<{ at: number }>(await knownKey(email, ip), "json");
  return typeof record?.at === "number" ? record.at : null;
}

/** Remembers an address the account signed in from (a KV write only when new or due for renewal). */
export async function rememberAddress(env: Env, email: string, ip: string | undefined, knownAt: number | null): Promise<void> {
  if (!ip || (knownAt !== null && nowMs() - knownAt < KNOWN_ADDRESS_RENEW_MS)) return;
  try {
    await env.SESSIONS.put(await knownKey(email, ip), JSON.stringify({ at: nowMs() }), { expirationTtl: KNOWN_ADDRESS_TTL_SECONDS });
  } catch (err) {
    // The login still succeeds; the address is remembered at the next one.
    console.error("could not remember a login address", err);
  }
}

/** Whether a captcha can be checked (Turnstile's secret, or an installed verifier). */
function captchaConfigured(env: Env): boolean {
  return Boolean(turnstileSecret(env)) || hasCustomCaptchaVerifier();
}

/**
 * An attempt from an unknown address on an account over its account-wide limit (`count` attempts in the window):
 * a captcha when one is configured, else a turn at most once per growing delay (429 with the wait otherwise).
 */
export async function slowStranger(
  ctx: Ctx,
  email: string,
  wide: Limit,
  count: number,
  captchaTokens: CaptchaTokenInput[] | undefined,
  ip: string | undefined,
): Promise<void> {
  if (captchaConfigured(ctx.env)) return requireCaptcha(ctx, captchaTokens, ip);
  await takeTurn(ctx.db, await emailKey("login:account-turn", email), growingDelaySeconds(count - wide.max), wide);
}
