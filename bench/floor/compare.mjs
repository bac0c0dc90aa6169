// Shared by bench/api.mjs and bench/pages.mjs: load one URL with autocannon, and print the shop's figures beside
// the floor's (the same bytes from a bare route on the same runtime) with their ratio.
import autocannon from "autocannon";

export const duration = Number(process.env.DURATION || 10);
export const connections = Number(process.env.CONNECTIONS || 10);

/** req/s, p50 and p99 of `url`; `setupRequest` may change each request (e.g. a cache-busting parameter). */
export async function load(url, { method = "GET", body, headers, setupRequest, seconds = duration } = {}) {
  const result = await autocannon({
    url,
    method,
    body,
    headers,
    duration: seconds,
    connections,
    ...(setupRequest ? { requests: [{ setupRequest }] } : {}),
  });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/**
 * Loads several targets in turns: `rounds` rounds, each giving every target its share of `duration`, one after
 * another. On a shared 2-core machine the throughput drifts by 15% or more from one minute to the next; measured
 * in turns, a shop figure and its floor see the same drift, and the median round of each is reported (its errors
 * summed over all rounds).
 * `targets`: { name: [url, options] }; returns { name: figures }.
 */
export async function loadInTurns(targets, rounds = Number(process.env.ROUNDS || 3)) {
  const seconds = Math.max(1, Math.round(duration / rounds));
  const runs = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, [url, options]] of Object.entries(targets)) runs[name].push(await load(url, { ...options, seconds }));
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, figures]) => {
      const median = [...figures].sort((a, b) => a.rps - b.rps)[Math.floor(figures.length / 2)];
      return [name, { ...median, errors: figures.reduce((n, f) => n + f.errors, 0) }];
    }),
  );
}

/** Prints one row per operation: the shop, the floor, and shop/floor for req/s. */
export function printComparison(title, rows) {
  console.log(`\n${title}`);
  console.table(
    rows.map((r) => ({
      operation: r.name,
      "shop req/s": r.shop.rps,
      "shop p50 ms": r.shop.p50,
      "shop p99 ms": r.shop.p99,
      "floor req/s": r.floor?.rps ?? "",
      "floor p50 ms": r.floor?.p50 ?? "",
      "floor p99 ms": r.floor?.p99 ?? "",
      "x floor": r.floor ? (r.shop.rps / r.floor.rps).toFixed(2) : "",
      // The targets: pages >= 0.8x cached and >= 0.5x uncached, API catalogue reads served from
      // the cache >= 0.5x.
      target: r.target ? `>= ${r.target} ${r.shop.rps / r.floor.rps >= r.target ? "met" : "MISSED"}` : "",
      bytes: r.bytes,
      "D1 trips": r.trips,
      // What the shop's page cache said of the probe request (its x-page-cache header), where it has one.
      ...(rows.some((x) => x.cache) ? { "page cache": r.cache ?? "" } : {}),
      errors: r.shop.errors + (r.floor?.errors ?? 0),
    })),
  );
}
