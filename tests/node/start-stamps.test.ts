import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fingerprint, stampMatches, writeStamp } from "../../scripts/stamps.mjs";

// `npm start` skips the build and the migrations only while the stamp matches what they read.
describe("npm start's stamps", () => {
  const dir = mkdtempSync(join(tmpdir(), "stamps-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "web", "routes"), { recursive: true });
  writeFileSync(join(dir, "web", "routes", "home.tsx"), "export default 1;\n");
  writeFileSync(join(dir, "wrangler.toml"), 'name = "shop"\n');

  it("changes when a file's content, a file's name or a new file changes what is built", () => {
    const before = fingerprint(["web", "wrangler.toml"], dir);
    expect(fingerprint(["web", "wrangler.toml"], dir)).toBe(before);

    writeFileSync(join(dir, "web", "routes", "home.tsx"), "export default 2;\n");
    const edited = fingerprint(["web", "wrangler.toml"], dir);
    expect(edited).not.toBe(before);

    writeFileSync(join(dir, "web", "routes", "about.tsx"), "");
    expect(fingerprint(["web", "wrangler.toml"], dir)).not.toBe(edited);

    writeFileSync(join(dir, "wrangler.toml"), 'name = "other"\n');
    expect(fingerprint(["web", "wrangler.toml"], dir)).not.toBe(edited);
  });

  it("matches only the value written, and not at all once the output's folder is gone", () => {
    const stamp = join(dir, "build", ".source-stamp");
    expect(stampMatches(stamp, "abc")).toBe(false);
    writeStamp(stamp, "abc");
    expect(stampMatches(stamp, "abc")).toBe(true);
    expect(stampMatches(stamp, "abd")).toBe(false);
    rmSync(join(dir, "build"), { recursive: true });
    expect(stampMatches(stamp, "abc")).toBe(false);
  });
});
