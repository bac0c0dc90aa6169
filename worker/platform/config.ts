import { z } from "zod";
import { ApiError } from "./errors";

/**
 * The shop's configuration: the string vars of wrangler.toml and the secrets (.dev.vars locally, `wrangler secret
 * put` in production), parsed once per env object. An empty value counts as unset. A bad value fails every use
 * with a system error naming the variable (never its value, which may be a secret).
 */

/** Seconds to wait after each failed webhook attempt: about a day in all, each within the queue's 12-hour delay limit. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [60, 300, 1800, 7200, 18_000, 28_800, 36_000];
const MAX_QUEUE_DELAY_SECONDS = 12 * 3600;

/** A var that may be missing; "" (wrangler.toml's placeholder) and an unset secret both read as undefined. */
const optional = <T extends z.ZodType>(inner: T) => z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), inner.optional());
const text = optional(z.string().transform((s) => s.trim()));
/** Kept as written (passwords and keys are not trimmed). */
const raw = optional(z.string());
const number = (rule: (n: number) => boolean, what: string) =>
  z
    .string()
    .transform((s) => Number(s.trim()))
    .refine((n) => Number.isFinite(n) && rule(n), `must be ${what}`);

const schema = z.object({
  ENVIRONMENT: optional(z.string()),
  STORE_NAME: text,
  STORE_CURRENCY: optional(z.string().regex(/^[A-Z]{3}$/, "must be a three-letter ISO 4217 code such as USD")),
  EMAIL_FROM: text,
  PUBLIC_URL: optional(
    z
      .string()
      .transform((s) => s.trim())
      .refine(
        (s) => URL.canParse(s) && ["http:", "https:"].includes(new URL(s).protocol),
        "must be an absolute http(s) URL such as https://shop.example.com",
      ),
  ),
  EVENT_RETRY_BASE_SECONDS: optional(number((n) => n >= 0, "a number of seconds, 0 or more")),
  EVENT_LAG_ALERT_SECONDS: optional(number((n) => n > 0, "a positive number of seconds")),
  EVENT_RESEND_AFTER_SECONDS: optional(number((n) => n > 0, "a positive number of seconds")),
  WEBHOOK_RETRY_SCHEDULE: optional(
    z
      .string()
      .transform((s) => s.split(",").map((part) => Number(part.trim())))
      .refine((list) => list.every((n) => Number.isFinite(n) && n >= 0), "must be comma-separated seconds, each 0 or more"),
  ),
  WEBHOOK_TIMEOUT_SECONDS: optional(number((n) => n > 0, "a positive number of seconds")),
  WEBHOOK_DISABLE_AFTER: optional(number((n) => Number.isInteger(n) && n > 0, "a positive whole number")),
  WEBHOOK_SIGNING_KEY: raw,
  OWNER_API_KEY: raw,
  OAUTH_CLIENT_ID: text,
  OWNER_EMAIL: text,
  OWNER_PASSWORD: raw,
  DEMO_SHOPPER_EMAIL: text,
  DEMO_SHOPPER_PASSWORD: raw,
  TURNSTILE_SECRET_KEY: text,
  TURNSTILE_SITE_KEY: text,
  STRIPE_SECRET_KEY: optional(z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, "must be a Stripe secret key (sk_test_…, sk_live_…, or rk_…)")),
  STRIPE_WEBHOOK_SECRET: optional(z.string().regex(/^whsec_[A-Za-z0-9_+/=]+$/, "must be a Stripe webhook signing secret (whsec_…)")),
  STRIPE_PUBLISHABLE_KEY: optional(z.string().regex(/^pk_(test|live)_[A-Za-z0-9_]+$/, "must be a Stripe publishable key (pk_test_… or pk_live_…)")),
  DOWNLOAD_SIGNING_SECRET: optional(z.string().min(32, "must be at least 32 characters (npm start generates one)")),
  STRIPE_API_BASE: optional(
    z
      .string()
      .transform((s) => s.trim())
      .refine((s) => URL.canParse(s) && ["http:", "https:"].includes(new URL(s).protocol), "must be an absolute http(s) URL"),
  ),
});

function settle(v: z.output<typeof schema>) {
  const publicUrl = v.PUBLIC_URL?.replace(/\/+$/, "") ?? null;
  return {
    /** ENVIRONMENT as set ("production" in wrangler.toml, "development" locally, "test" in the tests). */
    environment: v.ENVIRONMENT ?? null,
    /** The strict checks (https-only webhook targets, no development OAuth redirects, PUBLIC_URL for emailed links). */
    production: v.ENVIRONMENT === "production",
    storeName: v.STORE_NAME ?? "Edge Storefront",
    storeCurrency: v.STORE_CURRENCY ?? "USD",
    /** EMAIL_FROM as written (it may be `Name <address>`), or null. */
    emailFrom: v.EMAIL_FROM ?? null,
    /** PUBLIC_URL without trailing slashes, or null. */
    publicUrl,
    /** The origin PUBLIC_URL names, or null. */
    publicOrigin: publicUrl ? new URL(publicUrl).origin : null,
    eventRetryBaseSeconds: v.EVENT_RETRY_BASE_SECONDS ?? 30,
    /** Past this age of the oldest event not done, /api/health answers 503 and the sweep opens a task. */
    eventLagAlertSeconds: v.EVENT_LAG_ALERT_SECONDS ?? 900,
    /** Seconds before a flushed event not done is sent again, or null for the outbox's own default. */
    eventResendAfterSeconds: v.EVENT_RESEND_AFTER_SECONDS ?? null,
    webhookRetrySchedule: (v.WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE).map((n) => Math.min(Math.round(n), MAX_QUEUE_DELAY_SECONDS)),
    /** At most 30 s. */
    webhookTimeoutSeconds: Math.min(v.WEBHOOK_TIMEOUT_SECONDS ?? 10, 30),
    webhookDisableAfter: v.WEBHOOK_DISABLE_AFTER ?? 3,
    webhookSigningKey: v.WEBHOOK_SIGNING_KEY ?? null,
    ownerApiKey: v.OWNER_API_KEY ?? null,
    oauthClientId: v.OAUTH_CLIENT_ID ?? null,
    ownerEmail: v.OWNER_EMAIL ?? null,
    ownerPassword: v.OWNER_PASSWORD ?? null,
    demoShopperEmail: v.DEMO_SHOPPER_EMAIL ?? null,
    demoShopperPassword: v.DEMO_SHOPPER_PASSWORD ?? null,
    turnstileSecretKey: v.TURNSTILE_SECRET_KEY ?? null,
    turnstileSiteKey: v.TURNSTILE_SITE_KEY ?? null,
    /** The HMAC key of digital download links, or null (worker/downloads derives a local one outside production). */
    downloadSigningSecret: v.DOWNLOAD_SIGNING_SECRET ?? null,
    /** Stripe, when both secrets are set (else card payments use the local test provider, refused in production). */
    stripe:
      v.STRIPE_SECRET_KEY && v.STRIPE_WEBHOOK_SECRET
        ? {
            secretKey: v.STRIPE_SECRET_KEY,
            webhookSecret: v.STRIPE_WEBHOOK_SECRET,
            publishableKey: v.STRIPE_PUBLISHABLE_KEY ?? null,
            live: v.STRIPE_SECRET_KEY.includes("_live_"),
            // Another API host (a local fake) only outside production.
            apiBase: v.ENVIRONMENT === "production" ? null : (v.STRIPE_API_BASE ?? null),
          }
        : null,
  };
}

export type Config = ReturnType<typeof settle>;

/** A bad configuration value: a 500 in the API's error shape whose description names the variable. */
export function configError(name: string, problem: string): ApiError {
  return new ApiError(500, "CONFIGURATION_INVALID", `${name} ${problem}`, {
    message: `Invalid configuration: ${name} ${problem}`,
    data: { variable: name },
  });
}

const parsed = new WeakMap<object, Config | ApiError>();

/** Parses the configuration (vars and secrets) from the env bindings. Throws configError on the first bad value. */
export function parseConfig(vars: unknown): Config {
  const result = schema.safeParse(vars);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? "configuration");
    throw configError(name, issue.code === "invalid_type" ? "must be a string" : issue.message);
  }
  return settle(result.data);
}

/** The configuration of this env, parsed on first use and cached per env object (one per isolate, or per test override). */
export function config(env: Env): Config {
  let entry = parsed.get(env);
  if (!entry) {
    try {
      entry = parseConfig(env);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      console.error(`configuration: ${err.description}`);
      entry = err;
    }
    parsed.set(env, entry);
  }
  if (entry instanceof ApiError) throw entry;
  return entry;
}
