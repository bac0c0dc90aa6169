// Local set-up shared by `npm start` and `npm run dev`: creates .dev.vars with working local secrets if it is
// missing, and applies the D1 migrations to the local database. Safe to run any number of times.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
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

export function ensureDevVars() {
  if (existsSync(devVars)) return false;
  const key = `sk_local_${randomBytes(24).toString("base64url")}`;
  writeFileSync(
    devVars,
    [
      "# Local secrets for wrangler dev (never committed). Production sets these with `wrangler secret put`.",
      "ENVIRONMENT=development",
      `OWNER_API_KEY=${key}`,
      "",
    ].join("\n"),
  );
  return true;
}

export function applyMigrations() {
  execFileSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (ensureDevVars()) console.log("Created .dev.vars with a new local OWNER_API_KEY.");
  applyMigrations();
}
