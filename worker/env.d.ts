// Secrets and local settings that `wrangler types` cannot see (they live in .dev.vars locally and in
// `wrangler secret put` in production). See README "Configuration and secrets".
declare namespace Cloudflare {
  interface Env {
    /** The store owner's API key: full merchant access. Required. */
    OWNER_API_KEY: string;
  }
}
