// Starts the runtime floors under wrangler dev on free loopback ports, beside the shop, and hands them the shop's
// exact answers. Returns the URLs to benchmark.
// - startFloor: bench/floor/worker.js, `json(name, bytes)` for the bare Hono route, `page(name, size)` for the bare
//   React Router SSR page of that many bytes in data mode.
// - startFrameworkFloor: bench/floor/framework/, `page(name, size)` for the same page from a bare React Router app in
//   framework mode, the shop's mode. It needs a Vite build of its own (run first unless --no-build is given, as
//   bench/server.mjs does for the shop).
import { execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";

const root = new URL("../..", import.meta.url).pathname;
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" };

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Runs `wrangler dev -c config` until GET /json/none answers 404 (both floors' "nothing here"). */
async function serve(config, state, label) {
  const port = await freePort();
  const server = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      config,
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      state,
      "--show-interactive-dev-session=false",
      "--log-level",
      "error",
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
  let up = false;
  for (let i = 0; i < 120 && !up; i++) {
    try {
      up = (await fetch(`${base}/json/none`)).status === 404;
    } catch {}
    if (!up) await new Promise((r) => setTimeout(r, 500));
  }
  if (!up) {
    stop();
    throw new Error(`the ${label} did not start`);
  }
  return { base, stop };
}

/** Renders a page of exactly `size` bytes at the returned URL (PUT /page/:name?bytes=N, the same on both floors). */
async function preparePage(base, label, name, size) {
  const res = await fetch(`${base}/page/${name}?bytes=${size}`, { method: "PUT" });
  const { bytes, cards } = await res.json();
  if (bytes !== size) throw new Error(`${label} page ${name}: ${bytes} bytes, wanted ${size}`);
  console.log(`${label} page ${name}: ${bytes} bytes, ${cards} product cards rendered by React Router`);
  return `${base}/page/${name}`;
}

export async function startFloor() {
  const { base, stop } = await serve("bench/floor/wrangler.jsonc", ".wrangler/bench-floor-state", "floor worker");
  return {
    base,
    stop,
    /** Serves exactly these bytes at the returned URL. */
    async json(name, bytes) {
      const res = await fetch(`${base}/json/${name}`, { method: "PUT", body: bytes });
      if (!res.ok) throw new Error(`floor json ${name}: HTTP ${res.status}`);
      return `${base}/json/${name}`;
    },
    page: (name, size) => preparePage(base, "floor", name, size),
  };
}

export async function startFrameworkFloor({ build = !process.argv.includes("--no-build") } = {}) {
  // `react-router build <dir>` takes that directory as the Vite root: its vite.config.ts, react-router.config.ts and
  // wrangler.jsonc, with the output in bench/floor/framework/build/ (the server's wrangler.json included).
  if (build) execFileSync("npx", ["react-router", "build", "bench/floor/framework"], { cwd: root, stdio: "ignore", env });
  const { base, stop } = await serve(
    "bench/floor/framework/build/server/wrangler.json",
    ".wrangler/bench-floor-framework-state",
    "framework floor worker",
  );
  return { base, stop, page: (name, size) => preparePage(base, "framework floor", name, size) };
}
