import { eq } from "drizzle-orm";
import { nowIso, requireMerchant, requireOwner, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { settings } from "#worker/platform/tables";
import { hasCustomCaptchaVerifier } from "./captcha";
import type { IdentitySettingsPatch } from "./schemas";
import { config } from "#worker/platform/config";

/** The store's member sign-up rules, kept in the D1 `settings` table under the key "identity". */
export interface IdentitySettings {
  /** New members confirm their email with a code before they can log in (default on). */
  requireEmailVerification: boolean;
  /** New members wait for the owner's approval (default off). */
  requireOwnerApproval: boolean;
  /** Register and login need a captcha token (default: on when TURNSTILE_SECRET_KEY is configured). */
  captcha: boolean;
}

export const IDENTITY_SETTINGS_KEY = "identity";

export function turnstileSecret(env: Env): string | undefined {
  return config(env).turnstileSecretKey ?? undefined;
}

/** Defaults, given the configuration. */
export function defaultIdentitySettings(env: Env): IdentitySettings {
  return { requireEmailVerification: true, requireOwnerApproval: false, captcha: Boolean(turnstileSecret(env)) };
}

/** The statement that reads the stored settings row (to batch with other reads); see `settingsFrom`. */
export function identitySettingsQuery(db: Db) {
  return db.select({ value: settings.value }).from(settings).where(eq(settings.key, IDENTITY_SETTINGS_KEY));
}

/** Settings from the stored row (if any) over the defaults. */
export function settingsFrom(env: Env, rows: { value: unknown }[]): IdentitySettings {
  const stored = (rows[0]?.value ?? {}) as Partial<IdentitySettings>;
  const out = defaultIdentitySettings(env);
  for (const k of ["requireEmailVerification", "requireOwnerApproval", "captcha"] as const) {
    if (typeof stored[k] === "boolean") out[k] = stored[k];
  }
  return out;
}

/** The store's identity settings (one D1 read). */
export async function getIdentitySettings(ctx: Ctx): Promise<IdentitySettings> {
  return settingsFrom(ctx.env, await identitySettingsQuery(ctx.db));
}

/** The settings for the console: merchants may read them. */
export async function readIdentitySettings(ctx: Ctx): Promise<{ settings: IdentitySettings }> {
  requireMerchant(ctx);
  return { settings: await getIdentitySettings(ctx) };
}

/** Changes the identity settings (owner only); fields left out keep their value. */
export async function updateIdentitySettings(ctx: Ctx, patch: IdentitySettingsPatch): Promise<{ settings: IdentitySettings }> {
  requireOwner(ctx);
  const current = await getIdentitySettings(ctx);
  const next: IdentitySettings = { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  // Captcha without a way to check tokens would refuse every login, the owner's included.
  if (next.captcha && !current.captcha && !turnstileSecret(ctx.env) && !hasCustomCaptchaVerifier()) {
    throw new ApiError(400, "CAPTCHA_NOT_CONFIGURED", "Captcha cannot be turned on before TURNSTILE_SECRET_KEY is configured", {
      message: "Captcha is not configured",
    });
  }
  const now = nowIso();
  await ctx.db
    .insert(settings)
    .values({ key: IDENTITY_SETTINGS_KEY, value: next, updatedDate: now })
    .onConflictDoUpdate({ target: settings.key, set: { value: next, updatedDate: now } });
  return { settings: next };
}
