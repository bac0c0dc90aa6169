import type { Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import type { CaptchaTokenInput } from "./schemas";
import { config } from "#worker/platform/config";

/**
 * Captcha for register and login: a pluggable verifier. Production uses Cloudflare Turnstile (secret in
 * TURNSTILE_SECRET_KEY); tests install a fake with `setCaptchaVerifier` and never reach the network. The Wix SDK
 * sends `captchaTokens: [{Recaptcha | InvisibleRecaptcha: token}]`; a Turnstile page sends `{Turnstile: token}`.
 * Whatever the key, the token goes to the one configured verifier.
 */

export const MISSING_CAPTCHA_CODE = "-19971";
export const INVALID_CAPTCHA_CODE = "-19970";

export interface CaptchaToken {
  /** The key it came under: Turnstile, Recaptcha, InvisibleRecaptcha, NoCaptcha or recaptchaForClientSiteKey. */
  kind: string;
  token: string;
}

/** Decides whether a token is a solved challenge. */
export type CaptchaVerifier = (token: CaptchaToken, context: { ctx: Ctx; remoteIp?: string }) => Promise<boolean>;

const SITEVERIFY_URL = "https://challenges.cloudflare.com/turnstile/v0/siteverify";

/** Cloudflare Turnstile's siteverify; false on any failure (a verifier that cannot check must not let people in). */
export const turnstileVerifier: CaptchaVerifier = async ({ token }, { ctx, remoteIp }) => {
  const secret = config(ctx.env).turnstileSecretKey;
  if (!secret) {
    console.error("captcha is on but TURNSTILE_SECRET_KEY is not configured: every captcha token is refused");
    return false;
  }
  const form = new FormData();
  form.set("secret", secret);
  form.set("response", token);
  if (remoteIp) form.set("remoteip", remoteIp);
  try {
    const res = await fetch(SITEVERIFY_URL, { method: "POST", body: form });
    if (!res.ok) return false;
    const outcome = (await res.json()) as { success?: boolean };
    return outcome.success === true;
  } catch (err) {
    console.error("Turnstile siteverify failed", err);
    return false;
  }
};

let custom: CaptchaVerifier | null = null;

/** Installs a verifier (tests, or a store using another captcha provider); null restores Turnstile. */
export function setCaptchaVerifier(verifier: CaptchaVerifier | null): void {
  custom = verifier;
}

export function hasCustomCaptchaVerifier(): boolean {
  return custom !== null;
}

/** The first non-empty token of the request's captchaTokens. */
export function firstCaptchaToken(tokens: CaptchaTokenInput[] | undefined): CaptchaToken | null {
  for (const t of tokens ?? []) {
    for (const kind of ["Turnstile", "Recaptcha", "InvisibleRecaptcha", "NoCaptcha"] as const) {
      const value = t[kind];
      if (typeof value === "string" && value.trim()) return { kind, token: value.trim() };
    }
    const keyed = t.recaptchaForClientSiteKey?.token;
    if (typeof keyed === "string" && keyed.trim()) return { kind: "recaptchaForClientSiteKey", token: keyed.trim() };
  }
  return null;
}

/** Throws -19971 when no token came and -19970 when the verifier refuses it. Call only when captcha is on. */
export async function requireCaptcha(ctx: Ctx, tokens: CaptchaTokenInput[] | undefined, remoteIp?: string): Promise<void> {
  const token = firstCaptchaToken(tokens);
  if (!token) {
    throw new ApiError(400, MISSING_CAPTCHA_CODE, "A captcha token is required (captchaTokens)", { message: "Missing captcha token" });
  }
  const ok = await (custom ?? turnstileVerifier)(token, { ctx, remoteIp });
  if (!ok)
    throw new ApiError(400, INVALID_CAPTCHA_CODE, "The captcha token is invalid or expired; solve the captcha again", {
      message: "Invalid captcha token",
    });
}
