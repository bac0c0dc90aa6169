// `npm start`: set up (secrets, migrations), build, serve the shop with wrangler dev, create the owner's account,
// load the demo catalogue into an empty store, and print where everything is. PORT changes the port (default 8787).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { applyMigrations, describeDevVars, ensureDevVars, readDevVars } from "./local-setup.mjs";
import { BUILD_INPUTS, fingerprint, STAMPS, stampMatches, writeStamp } from "./stamps.mjs";

const root = new URL("..", import.meta.url).pathname;
const port = Number(process.env.PORT || 8787);
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

const note = describeDevVars(ensureDevVars());
if (note) console.log(note);
const { OWNER_API_KEY, OWNER_EMAIL, OWNER_PASSWORD, DEMO_SHOPPER_PASSWORD } = readDevVars();

// The build and the migrations are skipped when nothing they read changed since the last start: a second start
// then costs only wrangler dev's own start. The build's stamp also holds its server bundle's time, so a build made
// by other means (npm run build after an edit) is never mistaken for the one stamped.
const serverBundle = `${root}build/server/index.js`;
const builtAt = () => (existsSync(serverBundle) ? String(statSync(serverBundle).mtimeMs) : "none");
const sources = fingerprint(BUILD_INPUTS);
if (stampMatches(STAMPS.build, `${sources} ${builtAt()}`)) {
  console.log("Build is up to date.");
} else {
  console.log("Building…");
  execFileSync("npx", ["react-router", "build"], { cwd: root, stdio: ["ignore", "ignore", "inherit"], env });
  writeStamp(STAMPS.build, `${sources} ${builtAt()}`);
}
const migrations = fingerprint(["migrations"]);
if (stampMatches(STAMPS.migrations, migrations)) {
  console.log("D1 migrations are up to date.");
} else {
  console.log("Applying D1 migrations…");
  applyMigrations();
  writeStamp(STAMPS.migrations, migrations);
}

// wrangler's own binary rather than npx, which spends most of a second finding it.
const server = spawn(
  `${root}node_modules/.bin/wrangler`,
  ["dev", "--port", String(port), "--ip", "127.0.0.1", "--show-interactive-dev-session=false", "--var", `PUBLIC_URL:http://localhost:${port}`],
  {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env,
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));

const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 600; i++) {
  try {
    // 503 is a running server whose event queue lags (the sweeper catches up once it ticks).
    const { status } = await fetch(`${base}/api/health`);
    if (status === 200 || status === 503) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}

// The owner's account, from OWNER_EMAIL / OWNER_PASSWORD (created once; an existing owner is left as it is).
let ownerLine = "Owner login:     none (set OWNER_EMAIL and OWNER_PASSWORD in .dev.vars)";
let shopperLine = "Shopper login:   none (set DEMO_SHOPPER_EMAIL and DEMO_SHOPPER_PASSWORD in .dev.vars)";
try {
  const res = await fetch(`${base}/api/v1/bootstrap`, { method: "POST", headers: { authorization: OWNER_API_KEY } });
  const { owner, demoShopper } = await res.json();
  if (demoShopper?.email) shopperLine = `Shopper login:   ${demoShopper.email} / ${DEMO_SHOPPER_PASSWORD}   (a demo member; log in at /login)`;
  if (!res.ok || !owner) throw new Error(`HTTP ${res.status}`);
  if (owner.created) console.log(`Created the owner's account ${owner.email}.`);
  if (owner.email && owner.email === OWNER_EMAIL?.toLowerCase()) {
    ownerLine = `Owner login:     ${owner.email} / ${OWNER_PASSWORD}   (from .dev.vars${owner.created ? "" : "; unless you changed the password since"})`;
  } else if (owner.email) {
    ownerLine = `Owner login:     ${owner.email}   (the store's owner; not OWNER_EMAIL in .dev.vars, so its password is not known here)`;
  } else {
    ownerLine = `Owner login:     none (${owner.reason})`;
  }
} catch (err) {
  console.error("Could not set up the owner's account:", err);
}

try {
  const res = await fetch(`${base}/api/v1/demo-catalogue`, { method: "POST", headers: { authorization: OWNER_API_KEY } });
  const result = await res.json();
  console.log(
    result.loaded
      ? `Demo catalogue loaded: ${result.products} products in ${result.collections} collections.`
      : `Demo catalogue not loaded: ${result.reason ?? JSON.stringify(result)}.`,
  );
} catch (err) {
  console.error("Could not load the demo catalogue:", err);
}

console.log(`
  Edge Storefront is running.
    Shop:            http://localhost:${port}/
    Console:         http://localhost:${port}/console  (sign in with the owner login below)
    API:             http://localhost:${port}/v1/products/query-platformized  (and the Wix SDK's gateway paths)
    ${ownerLine}
    ${shopperLine}
    Owner API key:   ${OWNER_API_KEY}   (from .dev.vars; send it as the Authorization header)
    Emails:          recorded in the D1 table "emails" (npx wrangler d1 execute DB --local --command "SELECT * FROM emails")
  Press Ctrl+C to stop.
`);
