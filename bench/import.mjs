// CSV import benchmark: a file of PRODUCTS new products (default 1,000; two variants each, so twice as many rows,
// with stock and a collection) is checked and applied through the console's import pages on a fresh local store,
// then RUNS=2 imports it again as updates (every price changed). Prints the preview time and the products applied
// per second from Apply to the last row applied.
//
//   npm run bench:import            (PRODUCTS=… to change the size)
import { rmSync } from "node:fs";
import { consoleCookie } from "./lib/shop.mjs";
import { startServer } from "./server.mjs";

const PRODUCTS = Number(process.env.PRODUCTS || 1000);
const STATE = ".wrangler/bench-import-state";

/** The file: one row per variant (Size S and M), product columns repeated as an export writes them. */
function csv(priceShift) {
  const lines = ["Handle,Name,Description,Price,Track inventory,Collections,Option1 name,Option1 value,Variant price,Quantity"];
  for (let i = 0; i < PRODUCTS; i++) {
    const price = (10 + (i % 90) + priceShift).toFixed(2);
    for (const [size, extra] of [
      ["S", 0],
      ["M", 2],
    ]) {
      lines.push(
        `bench-import-${i},Imported piece ${i},"A piece, number ${i}.",${price},true,${i % 4 === 0 ? "bench-imports" : ""},Size,${size},${(Number(price) + extra).toFixed(2)},${(i % 30) + 1}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

rmSync(new URL(`../${STATE}`, import.meta.url), { recursive: true, force: true });
const server = await startServer({ state: STATE });
const base = server.base;
await fetch(`${base}/api/v1/bootstrap`, { method: "POST", headers: { authorization: server.ownerKey } });
await fetch(`${base}/v1/collections`, {
  method: "POST",
  headers: { authorization: server.ownerKey, "content-type": "application/json" },
  body: JSON.stringify({ collection: { name: "Bench imports", slug: "bench-imports" } }),
});
const cookie = await consoleCookie(base);
const headers = { cookie, origin: base };

async function runImport(label, priceShift) {
  const form = new FormData();
  form.set("file", new File([csv(priceShift)], `bench-${label}.csv`, { type: "text/csv" }));
  const t0 = performance.now();
  const checked = await fetch(`${base}/console/products/import`, { method: "POST", headers, body: form, redirect: "manual" });
  const jobPath = checked.headers.get("location");
  if (!jobPath) throw new Error(`the check answered ${checked.status}: ${(await checked.text()).slice(0, 300)}`);
  const previewSeconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const apply = await fetch(base + jobPath, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ intent: "apply" }),
    redirect: "manual",
  });
  if (apply.status >= 400) throw new Error(`apply answered ${apply.status}`);
  let applied = 0;
  let total = 0;
  let failed = 0;
  for (;;) {
    // React separates text and values with comments: "2,000<!-- --> of <!-- -->2,000 rows".
    // A dev server on a busy machine may hang a request while its Worker restarts: such a poll is skipped.
    const html = await fetch(base + jobPath, { headers: { cookie }, signal: AbortSignal.timeout(10_000) })
      .then(async (res) => (await res.text()).replaceAll("<!-- -->", ""))
      .catch(() => "");
    const m = /([\d,]+) of ([\d,]+) rows? applied/.exec(html);
    if (m) [applied, total] = [Number(m[1].replace(/,/g, "")), Number(m[2].replace(/,/g, ""))];
    failed = /Rows that failed when applied/.test(html) ? 1 : 0;
    if (total > 0 && applied >= total) break;
    if ((performance.now() - t1) / 1000 > 900) throw new Error(`stalled at ${applied} of ${total} rows`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const applySeconds = (performance.now() - t1) / 1000;
  return {
    import: label,
    products: PRODUCTS,
    rows: total,
    "preview s": Number(previewSeconds.toFixed(1)),
    "apply s": Number(applySeconds.toFixed(1)),
    "products/s": Math.round(PRODUCTS / applySeconds),
    "rows failed": failed ? "some (see the job page)" : 0,
  };
}

const rows = [await runImport("create", 0), await runImport("update", 1)];
server.stop();
console.log(`\nCSV import on the local server (wrangler dev, production build), ${new Date().toISOString()}`);
console.table(rows);
