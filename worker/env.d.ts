// Secrets and local settings that `wrangler types` cannot see (they live in .dev.vars locally and in
// `wrangler secret put` in production). See README "Configuration and secrets".
//
// Declared without `?` even where a value may be missing: `wrangler types` also declares every name in .dev.vars,
// as a required string, and TypeScript refuses two declarations that differ in optionality. Code that reads an
// optional one checks it (see ownerCredentials in worker/identity/owner.ts).
declare namespace Cloudflare {
  interface Env {
    /** The store owner's API key: full merchant access. Required. */
    OWNER_API_KEY: string;
    /** The store's own OAuth client id (public): the storefront's and a headless site's `clientId`. */
    OAUTH_CLIENT_ID: string;
    /** The owner's login email. Optional: with OWNER_PASSWORD, `POST /api/v1/bootstrap` creates the owner's account. */
    OWNER_EMAIL: string;
    /** The owner's first password (only ever stored hashed; changing it here later changes nothing). Optional. */
    OWNER_PASSWORD: string;
  }
}
