// Local set-up shared by `npm start` and `npm run dev`: creates .dev.vars with working local secrets if it is
// missing (or adds the ones it lacks), and applies the D1 migrations to the local database. Safe to run any number of times.
import { execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const devVars = `${root}.dev.vars`;

export function readDevVars() {
  const vars = {};
  for (const line of readFileSync(devVars, "utf8").split("\n")) {
    const m = line.match(/^\s*([A-Z0-9_]+)\s*=\s*"?(.*?)"?\s*$/);
    if (m) vars[m[1]] = m[2];
  }
  return vars;
}

/**
 * The local settings .dev.vars holds, with a fresh value for each: written when .dev.vars is created, and appended
 * to an existing .dev.vars that lacks one (values already there are never changed).
 */
function localDefaults() {
  return {
    ENVIRONMENT: "development",
    OWNER_API_KEY: `sk_local_${randomBytes(24).toString("base64url")}`,
    // The storefront's OAuth client id (public, not a secret): what a headless site passes as clientId.
    OAUTH_CLIENT_ID: randomUUID(),
    // The owner's account (created on first start by POST /api/v1/bootstrap; changing these later changes nothing).
    OWNER_EMAIL: "owner@example.com",
    OWNER_PASSWORD: randomBytes(12).toString("base64url"),
    // A ready shopper account for trying the member pages locally (never created in production).
    DEMO_SHOPPER_EMAIL: "shopper@example.com",
    DEMO_SHOPPER_PASSWORD: randomBytes(12).toString("base64url"),
    // The shop's RSA key that signs wix-format outgoing webhooks (PKCS#8 DER in base64, one line; its public key is
    // served at GET /api/v1/webhook-public-key).
    WEBHOOK_SIGNING_KEY: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
    // The HMAC key that signs digital download links.
    DOWNLOAD_SIGNING_SECRET: randomBytes(32).toString("base64url"),
  };
}

/** Creates .dev.vars, or completes it. Returns whether it was created and the names it added. */
export function ensureDevVars() {
  const defaults = localDefaults();
  if (!existsSync(devVars)) {
    writeFileSync(
      devVars,
      [
        "# Local secrets for wrangler dev (never committed). Production sets these with `wrangler secret put`.",
        ...Object.entries(defaults).map(([name, value]) => `${name}=${value}`),
        "",
      ].join("\n"),
    );
    return { created: true, added: Object.keys(defaults) };
  }
  const present = readDevVars();
  const missing = Object.entries(defaults).filter(([name]) => !(name in present));
  if (missing.length > 0) {
    const text = readFileSync(devVars, "utf8");
    const lines = missing.map(([name, value]) => `${name}=${value}`);
    writeFileSync(devVars, `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${lines.join("\n")}\n`);
  }
  return { created: false, added: missing.map(([name]) => name) };
}

/** One line saying what ensureDevVars did, or null when .dev.vars was already complete. */
export function describeDevVars({ created, added }) {
  if (created) return `Created .dev.vars with new local settings: ${added.join(", ")}.`;
  if (added.length > 0) return `Added to .dev.vars: ${added.join(", ")}.`;
  return null;
}

export function applyMigrations() {
  execFileSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const note = describeDevVars(ensureDevVars());
  if (note) console.log(note);
  applyMigrations();
}
