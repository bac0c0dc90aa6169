// Compares this checkout's build (B) with another checkout's (A, e.g. a `git worktree` of main) on the same pages,
// both under wrangler dev side by side. Why alternate: throughput on this machine drifts 15-30% a minute, so the
// builds take turns and the median of the per-turn ratios B/A is what the change is worth.
//
//   npm run bench:ab -- ../main                                  (the three catalogue pages, uncached)
//   npm run bench:ab -- ../main /collections/t-shirts --cached   (one page, the same URL repeated)
//   ROUNDS=9 TURN_SECONDS=4 npm run bench:ab -- ../main --no-build   (reuse both build/ directories)
//
// Uncached means a new `_bench=<n>` parameter per request. Each build uses its checkout's .wrangler/bench-state.
import { resolve } from "node:path";
import { load } from "./floor/compare.mjs";

const args = process.argv.slice(2);
const other = args.find((a) => !a.startsWith("/") && !a.startsWith("--"));
if (!other) {
  console.error("usage: npm run bench:ab -- <other checkout> [path …] [--cached] [--no-build]");
  process.exit(2);
}
const paths = args.filter((a) => a.startsWith("/"));
if (paths.length === 0) paths.push("/", "/collections/t-shirts", "/products/everyday-organic-tee");
const cached = args.includes("--cached");
const build = !args.includes("--no-build");
const ROUNDS = Number(process.env.ROUNDS || 7);
const SECONDS = Number(process.env.TURN_SECONDS || 4);

const serverOf = async (dir) => (await import(new URL("bench/server.mjs", `file://${resolve(dir)}/`).href)).startServer({ build });
const a = await serverOf(other);
const b = await serverOf(new URL("..", import.meta.url).pathname);
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

let bust = 0;
const loadPage = async (base, path) => {
  const busted = () => `${path}${path.includes("?") ? "&" : "?"}_bench=${Date.now()}-${++bust}`;
  const figures = await load(base + path, { seconds: SECONDS, ...(cached ? {} : { setupRequest: (req) => ({ ...req, path: busted() }) }) });
  if (figures.errors) throw new Error(`${base}${path}: ${figures.errors} errors`);
  return figures.rps;
};

try {
  console.log(
    `A: ${resolve(other)}\nB: ${new URL("..", import.meta.url).pathname} (this checkout)\n${cached ? "cached" : "uncached"}, ${ROUNDS} turns of ${SECONDS} s each\n`,
  );
  for (const path of paths) {
    // A warm-up for both (the first requests load the code and fill the catalogue cache).
    await loadPage(a.base, path);
    await loadPage(b.base, path);
    const as = [];
    const bs = [];
    for (let turn = 0; turn < ROUNDS; turn++) {
      // Who goes first alternates, so neither always runs in the other's wake.
      if (turn % 2 === 0) {
        as.push(await loadPage(a.base, path));
        bs.push(await loadPage(b.base, path));
      } else {
        bs.push(await loadPage(b.base, path));
        as.push(await loadPage(a.base, path));
      }
    }
    const ratios = as.map((x, i) => bs[i] / x);
    console.log(
      `${path}\n  A req/s ${as.join(" ")}\n  B req/s ${bs.join(" ")}\n  B/A     ${ratios.map((r) => r.toFixed(2)).join(" ")}   median ${median(ratios).toFixed(3)}`,
    );
  }
} finally {
  a.stop();
  b.stop();
}
process.exit(0);
