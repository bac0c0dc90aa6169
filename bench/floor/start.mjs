// Starts the runtime floor (bench/floor/worker.js) under wrangler dev on a free loopback port, beside the shop, and
// hands it the shop's exact answers: `json(name, bytes)` for the bare Hono route, `page(name, size)` for the bare
// React Router SSR page of that many bytes. Returns the URLs to benchmark.
import { spawn } from "node:child_process";
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

export async function startFloor() {
  const port = await freePort();
  const server = spawn(
    "npx",
    ["wrangler", "dev", "-c", "bench/floor/wrangler.jsonc", "--port", String(port), "--ip", "127.0.0.1", "--persist-to", ".wrangler/bench-floor-state", "--show-interactive-dev-session=false", "--log-level", "error"],
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
  if (!up) throw new Error("the floor worker did not start");
  return {
    base,
    stop,
    /** Serves exactly these bytes at the returned URL. */
    async json(name, bytes) {
      const res = await fetch(`${base}/json/${name}`, { method: "PUT", body: bytes });
      if (!res.ok) throw new Error(`floor json ${name}: HTTP ${res.status}`);
      return `${base}/json/${name}`;
    },
    /** Renders a page of exactly `size` bytes at the returned URL. */
    async page(name, size) {
      const res = await fetch(`${base}/page/${name}?bytes=${size}`, { method: "PUT" });
      const { bytes, cards } = await res.json();
      if (bytes !== size) throw new Error(`floor page ${name}: ${bytes} bytes, wanted ${size}`);
      console.log(`floor page ${name}: ${bytes} bytes, ${cards} product cards rendered by React Router`);
      return `${base}/page/${name}`;
    },
  };
}
