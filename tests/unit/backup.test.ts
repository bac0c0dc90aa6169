import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { backupNames, objectKeysIn, objectsList } from "../../scripts/backup.mjs";

/** `npm run backup`: a dated D1 export through wrangler, and the R2 objects it refers to listed beside it. */
describe("npm run backup", () => {
  it("finds the media and download objects an export names, once each, sorted", () => {
    const sql = `INSERT INTO products VALUES('a','{"url":"/media/ffee0123456789abcdef.webp"}','/media/0123456789abcdef0123.jpg');
INSERT INTO products VALUES('b','/media/0123456789abcdef0123.jpg');
INSERT INTO digital_files VALUES('f','downloads/p_1/file-2');`;
    const keys = objectKeysIn(sql);
    expect(keys).toEqual({ media: ["media/0123456789abcdef0123.jpg", "media/ffee0123456789abcdef.webp"], downloads: ["downloads/p_1/file-2"] });
    expect(objectsList(keys).split("\n")[0]).toBe("# MEDIA bucket (2 objects)");
  });

  it("names the files by the time of the backup", () => {
    expect(backupNames(new Date("2026-03-04T05:06:07.890Z"))).toEqual({
      sql: "edge-storefront-2026-03-04-050607.sql",
      objects: "edge-storefront-2026-03-04-050607.objects.txt",
    });
  });

  it("runs wrangler d1 export (local with --local) and writes the objects list beside the SQL file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "backup-"));
    const fake = path.join(dir, "wrangler");
    writeFileSync(
      fake,
      `#!/bin/sh
out=""; prev=""
for a in "$@"; do if [ "$prev" = "--output" ]; then out="$a"; fi; prev="$a"; done
echo "$@" > "${dir}/args"
printf "INSERT INTO products VALUES('/media/0123456789abcdef0123.png');\\n" > "$out"
`,
    );
    chmodSync(fake, 0o755);
    const out = path.join(dir, "out");
    execFileSync(process.execPath, ["scripts/backup.mjs", "--local", "--out", out], { env: { ...process.env, WRANGLER: fake }, stdio: "pipe" });
    const files = readdirSync(out).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^edge-storefront-\d{4}-\d{2}-\d{2}-\d{6}\.objects\.txt$/);
    expect(readFileSync(path.join(dir, "args"), "utf8").trim()).toBe(`d1 export DB --local --output ${path.join(out, files[1])}`);
    expect(readFileSync(path.join(out, files[0]), "utf8")).toContain("media/0123456789abcdef0123.png");
  });
});
