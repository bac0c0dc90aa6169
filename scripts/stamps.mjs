// Fingerprints of what `npm start` builds from, so a second start can skip the build and the migrations when
// nothing they depend on changed. A stamp is a SHA-256 over the inputs' paths and contents, written next to the
// output it describes (the build folder, the local D1 state), so deleting the output deletes its stamp too.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** What the build reads: the app's folders and the configuration files that shape the bundle. */
export const BUILD_INPUTS = [
  "web",
  "worker",
  "entry",
  "public",
  "package-lock.json",
  "react-router.config.ts",
  "vite.config.ts",
  "wrangler.toml",
  "aliases.ts",
  "tsconfig.base.json",
  "tsconfig.json",
];

/** Where each stamp lives: inside the output it describes. */
export const STAMPS = {
  build: join(root, "build", ".source-stamp"),
  migrations: join(root, ".wrangler", "state", "v3", "d1", ".migrations-stamp"),
};

function filesUnder(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => filesUnder(join(path, entry.name)));
}

/** The SHA-256 of the given files and folders (paths relative to `base`, then contents, in a stable order). */
export function fingerprint(inputs, base = root) {
  const hash = createHash("sha256");
  for (const input of inputs) {
    for (const file of filesUnder(join(base, input))) {
      hash.update(relative(base, file));
      hash.update("\0");
      hash.update(readFileSync(file));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/** Whether the stamp at `path` holds exactly `value` (false when the stamp or its folder is missing). */
export function stampMatches(path, value) {
  return existsSync(path) && readFileSync(path, "utf8").trim() === value;
}

/** Records `value` as the stamp at `path`. */
export function writeStamp(path, value) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${value}\n`);
}
