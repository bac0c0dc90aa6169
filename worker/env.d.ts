// Secrets and optional settings that `wrangler types` does not declare: secrets live in .dev.vars locally and in
// `wrangler secret put` in production, and the typecheck generates worker-configuration.d.ts without reading
// .dev.vars (--env-file=/dev/null), so the file is the same on every machine. Code reads them through
// `config(env)` (worker/platform/config.ts), which parses and checks them; see docs/operations.md.
declare namespace Cloudflare {
  interface Env {
    /** The store owner's API key: full merchant access. Required. */
    OWNER_API_KEY?: string;
    /** The store's own OAuth client id (public): the storefront's and a headless site's `clientId`. */
    OAUTH_CLIENT_ID?: string;
    /** The owner's login email. With OWNER_PASSWORD, `POST /api/v1/bootstrap` creates the owner's account. */
    OWNER_EMAIL?: string;
    /** The owner's first password (only ever stored hashed; changing it here later changes nothing). */
    OWNER_PASSWORD?: string;
    /** Local development only: a ready shopper account (never created in production). */
    DEMO_SHOPPER_EMAIL?: string;
    DEMO_SHOPPER_PASSWORD?: string;
    /** The RSA private key (PKCS#8, PEM or base64 of the DER) that signs wix-format outgoing webhooks. */
    WEBHOOK_SIGNING_KEY?: string;
    /** Cloudflare Turnstile keys: with the secret, register and login ask for a captcha by default. */
    TURNSTILE_SECRET_KEY?: string;
    TURNSTILE_SITE_KEY?: string;
    /** The store's currency (ISO 4217), USD when unset. */
    STORE_CURRENCY?: string;
    /** Outgoing webhooks (see wrangler.toml): retry delays, attempt timeout, failed deliveries before disabling. */
    WEBHOOK_RETRY_SCHEDULE?: string;
    WEBHOOK_TIMEOUT_SECONDS?: string;
    WEBHOOK_DISABLE_AFTER?: string;
    /** Stripe (secrets): with both, card payments go to Stripe Checkout and its webhooks are taken. */
    STRIPE_SECRET_KEY?: string;
    STRIPE_WEBHOOK_SECRET?: string;
    /** Stripe's publishable key (a var). */
    STRIPE_PUBLISHABLE_KEY?: string;
    /** The key that signs digital download links (HMAC-SHA256). Required in production; `npm start` generates one. */
    DOWNLOAD_SIGNING_SECRET?: string;
    /** Outside production only: another Stripe API origin (a local fake in the tests). */
    STRIPE_API_BASE?: string;
  }
}
