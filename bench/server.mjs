// Starts the production build under `wrangler dev` (what `npm start` runs) on a free loopback port with its own local
// state (.wrangler/bench-state, or `state`), migrations applied and the demo catalogue loaded; `vars` override
// variables of .dev.vars (e.g. a shorter WEBHOOK_RETRY_SCHEDULE). Shared by the
// benchmarks and the hostile-traffic test (tests/node/hostile.test.ts). With INSPECTOR_PORT set, the Worker's
// inspector listens there (bench/profile.mjs attaches the V8 profiler through it).
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { ensureDevVars, readDevVars } from "../scripts/local-setup.mjs";

const root = new URL("..", import.meta.url).pathname;
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" };

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

export async function startServer({ build = !process.argv.includes("--no-build"), state = ".wrangler/bench-state", vars: overrides = {} } = {}) {
  ensureDevVars();
  const vars = readDevVars();
  if (build) execFileSync("npx", ["react-router", "build"], { cwd: root, stdio: "ignore", env });
  execFileSync("npx", ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", state], { cwd: root, stdio: "ignore", env });
  const port = await freePort();
  const server = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      ...(process.env.INSPECTOR_PORT ? ["--inspector-port", process.env.INSPECTOR_PORT] : []),
      "--log-level",
      "error",
      ...Object.entries(overrides).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    { cwd: root, stdio: "ignore", env, detached: true },
  );
  const stop = () => {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {}
  };
  process.on("exit", stop);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  await fetch(`${base}/api/v1/demo-catalogue`, { method: "POST", headers: { authorization: vars.OWNER_API_KEY } });
  return { base, stop, ownerKey: vars.OWNER_API_KEY, clientId: vars.OAUTH_CLIENT_ID, state };
}

/** D1 round trips a response reports in Server-Timing. */
export const roundTrips = (res) => /desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? "?";

/**
 * What a response reports it cost in Server-Timing: D1 round trips, rows read and written, KV reads and writes,
 * queue messages sent. A counter the server does not report is 0.
 */
export function usage(res) {
  const header = res.headers.get("server-timing") ?? "";
  const n = (label) => Number(new RegExp(`desc="(\\d+) ${label}"`).exec(header)?.[1] ?? 0);
  return {
    d1Trips: n("round trips"),
    d1RowsRead: n("rows read"),
    d1RowsWritten: n("rows written"),
    kvReads: n("KV reads"),
    kvWrites: n("KV writes"),
    queueMessages: n("messages"),
  };
}
