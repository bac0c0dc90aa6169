// `npm run backup`: the shop's D1 database exported to a dated SQL file, and the list of the R2 objects it refers to
// (product and collection media, digital products' files), beside it. `--local` backs up the local dev database
// instead of the deployed one; `--out <dir>` picks the folder (default: backups/). Restore steps: README, "Backups".
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The R2 object keys an SQL export names: media/<hash>.<ext> (MEDIA bucket) and downloads/<product>/<file> (DOWNLOADS). */
export function objectKeysIn(sqlText) {
  const media = new Set(sqlText.match(/\bmedia\/[0-9a-f]{16,64}\.[a-z0-9]{2,5}\b/g) ?? []);
  const downloads = new Set(sqlText.match(/\bdownloads\/[A-Za-z0-9_-]{1,100}\/[A-Za-z0-9_-]{1,100}\b/g) ?? []);
  return { media: [...media].sort(), downloads: [...downloads].sort() };
}

/** The file names of a backup taken at `when`: `edge-storefront-<YYYY-MM-DD-HHMMSS>.sql` and its `.objects.txt`. */
export function backupNames(when) {
  const stamp = when
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace("T", "-")
    .replaceAll(":", "");
  const base = `edge-storefront-${stamp}`;
  return { sql: `${base}.sql`, objects: `${base}.objects.txt` };
}

/** The text of the objects list: one key a line under the bucket it belongs to. */
export function objectsList(keys) {
  return [
    `# MEDIA bucket (${keys.media.length} objects)`,
    ...keys.media,
    `# DOWNLOADS bucket (${keys.downloads.length} objects)`,
    ...keys.downloads,
    "",
  ].join("\n");
}

function main(argv) {
  const local = argv.includes("--local");
  const outAt = argv.indexOf("--out");
  const root = fileURLToPath(new URL("..", import.meta.url));
  const dir = path.resolve(root, outAt >= 0 ? argv[outAt + 1] : "backups");
  mkdirSync(dir, { recursive: true });
  const names = backupNames(new Date());
  const sqlFile = path.join(dir, names.sql);
  const wrangler = process.env.WRANGLER ?? "wrangler";
  const args = ["d1", "export", "DB", local ? "--local" : "--remote", "--output", sqlFile];
  console.log(`$ ${wrangler} ${args.join(" ")}`);
  execFileSync(wrangler, args, { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  const keys = objectKeysIn(readFileSync(sqlFile, "utf8"));
  writeFileSync(path.join(dir, names.objects), objectsList(keys));
  console.log(`\nDatabase: ${sqlFile}`);
  console.log(`Objects it refers to: ${path.join(dir, names.objects)} (${keys.media.length} media, ${keys.downloads.length} downloads)`);
  console.log("R2 keeps the objects themselves; copy the buckets with any S3-compatible tool (rclone) for an off-site copy.");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main(process.argv.slice(2));
