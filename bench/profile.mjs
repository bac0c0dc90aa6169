// Where a request's CPU time goes inside the Worker: loads one path while V8's sampling profiler runs in the
// Worker's isolate (through wrangler dev's inspector) and prints the functions with the most time. The profile is
// written to bench/results/last.cpuprofile for Chrome DevTools' Performance panel.
//
//   npm run bench:profile -- /products/everyday-organic-tee            (the page, from the edge cache when it can)
//   npm run bench:profile -- /collections/t-shirts --bust              (a new `_bench=<n>` per request: uncached)
//   npm run bench:profile -- "/stores-reader/v1/products/query-platformized?.r=..."
//   DURATION=10 INSPECTOR_PORT=9240 npm run bench:profile -- / --no-build
//
// `(idle)` is time the isolate waited. The inspector slows thrown exceptions (React Suspense throws promises), so a
// `throw` line may look heavier here than in production.
import { mkdirSync, writeFileSync } from "node:fs";
import autocannon from "autocannon";
import WebSocket from "ws";
import { startServer } from "./server.mjs";

const path = process.argv.slice(2).find((a) => a.startsWith("/")) ?? "/";
const bust = process.argv.includes("--bust");
const seconds = Number(process.env.DURATION || 8);
process.env.INSPECTOR_PORT ||= "9230";

const { base, stop } = await startServer();
try {
  const targets = await (await fetch(`http://127.0.0.1:${process.env.INSPECTOR_PORT}/json`)).json();
  // The ws package, not Node's WebSocket: wrangler's inspector proxy refuses the handshake Node's sends.
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let nextId = 0;
  const pending = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });

  // Warm up (the first request loads the pages' code and fills the caches), then sample every 200 µs.
  for (let i = 0; i < 20; i++) await (await fetch(base + path)).arrayBuffer();
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  await send("Profiler.start");
  let n = 0;
  const busted = () => `${path}${path.includes("?") ? "&" : "?"}_bench=${++n}`;
  const result = await autocannon({
    url: base + path,
    duration: seconds,
    connections: 10,
    ...(bust ? { requests: [{ setupRequest: (req) => ({ ...req, path: busted() }) }] } : {}),
  });
  const { profile } = await send("Profiler.stop");
  socket.close();
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(new URL("./results/last.cpuprofile", import.meta.url), JSON.stringify(profile));

  console.log(
    `${path}${bust ? " (uncached)" : ""}: ${Math.round(result.requests.average)} req/s under the profiler, p50 ${result.latency.p50} ms, ${result.non2xx} non-2xx`,
  );
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const samples = new Map();
  for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1);
  const name = (node) => {
    const f = node.callFrame;
    return `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
  };
  const own = new Map();
  const inAll = new Map();
  for (const [id, count] of samples) {
    own.set(name(nodes.get(id)), (own.get(name(nodes.get(id))) ?? 0) + count);
    // Each function once per sample, however deep it recurses.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(name(nodes.get(at)));
    for (const key of seen) inAll.set(key, (inAll.get(key) ?? 0) + count);
  }
  const top = (counts, k) =>
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([key, count]) => `  ${((100 * count) / profile.samples.length).toFixed(1).padStart(5)}%  ${key}`)
      .join("\n");
  console.log(`\nOwn time (${profile.samples.length} samples):\n${top(own, 30)}`);
  console.log(`\nTime with callees:\n${top(inAll, 50)}`);
} finally {
  stop();
}
process.exit(0);
