import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdId, deployedUrl, namesInListing, publicOrigin, resourcesIn, varIn, withId, withVar } from "../../scripts/deploy.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const fakeWrangler = path.join(root, "tests/unit/fake-wrangler.mjs");

/** A fake shop: answers POST /api/v1/bootstrap as the Worker does, and records the keys it was called with. */
let shop: Server;
let shopUrl = "";
const bootstrapKeys: string[] = [];

beforeAll(async () => {
  shop = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/api/v1/bootstrap") {
      bootstrapKeys.push(String(req.headers.authorization));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ owner: { created: true, email: "owner@shop.test" }, demoShopper: { created: false, email: null } }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => shop.close(() => resolve())));

/** A project copy (its wrangler.toml) with a fake wrangler and a fake npm that only records the build. */
function project() {
  const dir = mkdtempSync(path.join(tmpdir(), "deploy-"));
  copyFileSync(path.join(root, "wrangler.toml"), path.join(dir, "wrangler.toml"));
  const npm = path.join(dir, "npm");
  writeFileSync(npm, `#!/bin/sh\necho "npm $@" >> "${dir}/calls"\n`);
  chmodSync(npm, 0o755);
  return dir;
}

function deploy(dir: string, args: string[], extra: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const env = { ...process.env, WRANGLER: fakeWrangler, NPM: path.join(dir, "npm"), FAKE_DIR: dir, FAKE_URL: shopUrl, OWNER_EMAIL: "", ...extra };
    const child = spawn(process.execPath, [path.join(root, "scripts/deploy.mjs"), ...args], { cwd: dir, env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

const calls = (dir: string) => (existsSync(path.join(dir, "calls")) ? readFileSync(path.join(dir, "calls"), "utf8").trim().split("\n") : []);
const account = (dir: string) => JSON.parse(readFileSync(path.join(dir, "account.json"), "utf8"));
const changes = (lines: string[]) => lines.filter((l) => !/^(d1 list|kv namespace list|r2 bucket list|queues list|secret list)/.test(l));

/** `npm run deploy`: wrangler driven to create or reuse every resource, set the secrets once, migrate, build, deploy. */
// Each run starts a dozen fake wrangler processes: seconds on a busy machine.
describe("npm run deploy", { timeout: 60_000 }, () => {
  it("reads every resource wrangler.toml binds and writes an id into its own line only", () => {
    const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
    const res = resourcesIn(toml);
    expect(res.d1).toEqual([{ binding: "DB", name: "edge-storefront", id: "00000000-0000-4000-8000-000000000000" }]);
    expect(res.kv.map((n) => n.name)).toEqual(["edge-storefront-SESSIONS"]);
    expect(res.r2.map((b) => b.name)).toEqual(["edge-storefront-media", "edge-storefront-downloads"]);
    expect(res.queues).toEqual(["edge-storefront-events", "edge-storefront-events-dlq"]);
    const edited = withId(toml, "kv_namespaces", "SESSIONS", "id", "abc");
    expect(edited).toContain('id = "abc"');
    expect(edited.split("\n").filter((l, i) => l !== toml.split("\n")[i])).toEqual(['id = "abc"']);
  });

  it("parses wrangler's listings, created ids and deployed URL", () => {
    expect(namesInListing("Listing buckets...\nname:           a\ncreation_date:  x\n\nname:           b\ncreation_date:  y")).toEqual(["a", "b"]);
    expect(namesInListing("┌──┐\n│ id │ name │ created_on │\n├──┤\n│ 1 │ q │ 2026 │\n└──┘")).toEqual(["q"]);
    expect(createdId('[[d1_databases]]\nbinding = "DB"\ndatabase_id = "u-1"', "database_id")).toBe("u-1");
    expect(() => createdId("nothing", "id")).toThrow("no id");
    expect(deployedUrl("Uploaded x (1 sec)\nDeployed x triggers (1 sec)\n  https://x.sub.workers.dev\n  schedule: */5 * * * *")).toBe(
      "https://x.sub.workers.dev",
    );
  });

  it("creates everything on a fresh account and sets the secrets once; a second run only deploys", async () => {
    const dir = project();
    const first = await deploy(dir, ["--owner-email", "owner@shop.test"]);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    const acct = account(dir);
    expect(acct.d1.map((d: { name: string }) => d.name)).toEqual(["edge-storefront"]);
    expect(acct.kv.map((n: { title: string }) => n.title)).toEqual(["edge-storefront-SESSIONS"]);
    expect(acct.r2).toEqual(["edge-storefront-media", "edge-storefront-downloads"]);
    expect(acct.queues).toEqual(["edge-storefront-events", "edge-storefront-events-dlq"]);
    expect(Object.keys(acct.secrets).sort()).toEqual([
      "DOWNLOAD_SIGNING_SECRET",
      "OWNER_API_KEY",
      "OWNER_EMAIL",
      "OWNER_PASSWORD",
      "WEBHOOK_SIGNING_KEY",
    ]);
    expect(acct.secrets.OWNER_EMAIL).toBe("owner@shop.test");
    const toml = readFileSync(path.join(dir, "wrangler.toml"), "utf8");
    expect(toml).toContain(`database_id = "${acct.d1[0].uuid}"`);
    expect(toml).toContain(`id = "${acct.kv[0].id}"`);
    expect(bootstrapKeys).toEqual([acct.secrets.OWNER_API_KEY]);
    expect(changes(calls(dir))).toEqual([
      "d1 create edge-storefront",
      "kv namespace create edge-storefront-SESSIONS",
      "r2 bucket create edge-storefront-media",
      "r2 bucket create edge-storefront-downloads",
      "queues create edge-storefront-events",
      "queues create edge-storefront-events-dlq",
      "d1 migrations apply DB --remote",
      "npm run build",
      "deploy",
      "deploy",
      "secret bulk",
    ]);
    expect(first.out).toContain(`Shop:          ${shopUrl}`);
    // The shop learns its own address on the first run (emailed links need it) and keeps it.
    expect(varIn(readFileSync(path.join(dir, "wrangler.toml"), "utf8"), "PUBLIC_URL")).toBe(shopUrl);
    expect(first.out).toContain(`Owner login:   owner@shop.test / ${acct.secrets.OWNER_PASSWORD}`);
    // No other secret value is ever printed.
    for (const name of ["OWNER_API_KEY", "DOWNLOAD_SIGNING_SECRET", "WEBHOOK_SIGNING_KEY"]) expect(first.out).not.toContain(acct.secrets[name]);

    writeFileSync(path.join(dir, "calls"), "");
    const second = await deploy(dir, []);
    expect(second.code).toBe(0);
    expect(changes(calls(dir).filter(Boolean))).toEqual(["d1 migrations apply DB --remote", "npm run build", "deploy"]);
    expect(account(dir).secrets).toEqual(acct.secrets);
    expect(readFileSync(path.join(dir, "wrangler.toml"), "utf8")).toBe(toml);
    expect(second.out).toContain(`PUBLIC_URL is ${shopUrl}`);
    expect(second.out).not.toContain("Created:");
    expect(second.out).toContain("Reused: D1 edge-storefront, KV edge-storefront-SESSIONS, R2 edge-storefront-media");
    expect(second.out).not.toContain(acct.secrets.OWNER_PASSWORD);
    expect(bootstrapKeys).toHaveLength(1);
  });

  it("reads and sets a [vars] entry on its own line, and takes only an https origin as --url", () => {
    const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
    expect(varIn(toml, "PUBLIC_URL")).toBe("");
    const edited = withVar(toml, "PUBLIC_URL", "https://shop.example.com");
    expect(varIn(edited, "PUBLIC_URL")).toBe("https://shop.example.com");
    expect(edited.split("\n").filter((l, i) => l !== toml.split("\n")[i])).toEqual(['PUBLIC_URL = "https://shop.example.com"']);
    expect(varIn(withVar('name = "x"\n[vars]\nA = "1"\n', "PUBLIC_URL", "https://a.test"), "PUBLIC_URL")).toBe("https://a.test");
    expect(publicOrigin("https://shop.example.com/")).toBe("https://shop.example.com");
    expect(String(publicOrigin("http://shop.example.com"))).toContain("must start with https://");
    expect(String(publicOrigin("https://shop.example.com/shop"))).toContain("origin only");
    expect(String(publicOrigin("shop"))).toContain("is not an address");
  });

  it("--url sets the shop's own domain as PUBLIC_URL and deploys once; a bad one changes nothing", async () => {
    const dir = project();
    const first = await deploy(dir, ["--owner-email", "owner@shop.test", "--url", "https://shop.example.com"]);
    expect(first.code).toBe(0);
    expect(calls(dir).filter((l) => l === "deploy")).toHaveLength(1);
    expect(varIn(readFileSync(path.join(dir, "wrangler.toml"), "utf8"), "PUBLIC_URL")).toBe("https://shop.example.com");
    expect(first.out).toContain("Shop:          https://shop.example.com");
    expect(first.out).toContain("Console:       https://shop.example.com/console");

    const before = readFileSync(path.join(dir, "wrangler.toml"), "utf8");
    writeFileSync(path.join(dir, "calls"), "");
    const bad = await deploy(dir, ["--url", "http://shop.example.com"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("must start with https://");
    expect(calls(dir).filter(Boolean)).toEqual([]);
    expect(readFileSync(path.join(dir, "wrangler.toml"), "utf8")).toBe(before);
  });

  it("--dry-run lists, prints every step and changes nothing", async () => {
    const dir = project();
    const before = readFileSync(path.join(dir, "wrangler.toml"), "utf8");
    const { code, out } = await deploy(dir, ["--dry-run", "--owner-email", "owner@shop.test"]);
    expect(code).toBe(0);
    expect(changes(calls(dir))).toEqual([]);
    expect(existsSync(path.join(dir, "account.json"))).toBe(false);
    expect(readFileSync(path.join(dir, "wrangler.toml"), "utf8")).toBe(before);
    for (const step of [
      "$ wrangler d1 create edge-storefront   (dry run: not run)",
      "$ wrangler queues create edge-storefront-events-dlq   (dry run: not run)",
      "$ wrangler d1 migrations apply DB --remote   (dry run: not run)",
      "$ npm run build   (dry run: not run)",
      "$ wrangler deploy   (dry run: not run)",
      "$ wrangler secret bulk   (dry run: not run)",
      'Setting PUBLIC_URL = "https://edge-storefront.<your-subdomain>.workers.dev" in wrangler.toml   (dry run: not written)',
      "/api/v1/bootstrap",
      "Dry run: nothing was changed.",
    ]) {
      expect(out).toContain(step);
    }
  });

  it("stops at a failed step, names it and says how to resume; the next run carries on", async () => {
    const dir = project();
    const failed = await deploy(dir, ["--owner-email", "owner@shop.test"], { FAKE_FAIL: "queues create edge-storefront-events-dlq" });
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('Step "Queues" failed: ');
    expect(failed.err).toContain("Authentication error");
    expect(failed.err).toContain("run `npm run deploy` again");
    expect(calls(dir)).not.toContain("deploy");
    const resumed = await deploy(dir, ["--owner-email", "owner@shop.test"]);
    expect(resumed.code).toBe(0);
    expect(changes(calls(dir).slice(calls(dir).lastIndexOf("d1 list --json")))).toEqual([
      "queues create edge-storefront-events-dlq",
      "d1 migrations apply DB --remote",
      "npm run build",
      "deploy",
      "deploy",
      "secret bulk",
    ]);
  });

  it("asks for the owner's email before setting the first secrets", async () => {
    const dir = project();
    const { code, err } = await deploy(dir, []);
    expect(code).toBe(1);
    expect(err).toContain('Step "Secrets" failed: the owner\'s email is needed: run `npm run deploy -- --owner-email you@example.com`');
  });
});

/** Real wrangler against a local fake of the Cloudflare API: the listings and creations read as the script expects. */
describe("wrangler's own output", { timeout: 120_000 }, () => {
  it("lists and creates through the Cloudflare API in the formats the script parses", async () => {
    const ok = (result: unknown) =>
      JSON.stringify({ success: true, errors: [], messages: [], result, result_info: { page: 1, per_page: 100, count: 1, total_count: 1 } });
    const api = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        const url = new URL(String(req.url), "http://api");
        const route = `${req.method} ${url.pathname.replace("/client/v4/accounts/acct", "")}`;
        const answers: Record<string, unknown> = {
          "GET /d1/database": [{ uuid: "d-1", name: "edge-storefront", created_at: "2026-01-01T00:00:00Z", version: "production" }],
          "POST /d1/database": { uuid: "d-2", name: body && JSON.parse(body).name, created_in_region: "WEUR" },
          // Pages until an empty one.
          "GET /storage/kv/namespaces": url.searchParams.get("page") ? [] : [{ id: "k-1", title: "edge-storefront-SESSIONS" }],
          "GET /r2/buckets": { buckets: [{ name: "edge-storefront-media", creation_date: "2026-01-01T00:00:00Z" }] },
          "GET /queues": [
            {
              queue_id: "q-1",
              queue_name: "edge-storefront-events",
              created_on: "x",
              modified_on: "x",
              producers_total_count: 1,
              consumers_total_count: 1,
            },
          ],
        };
        if (route in answers) res.writeHead(200, { "content-type": "application/json" }).end(ok(answers[route]));
        else
          res
            .writeHead(404, { "content-type": "application/json" })
            .end(JSON.stringify({ success: false, errors: [{ code: 7003, message: route }], messages: [], result: null }));
      });
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}/client/v4`;
    const env = {
      ...process.env,
      CLOUDFLARE_API_BASE_URL: base,
      CLOUDFLARE_API_TOKEN: "token",
      CLOUDFLARE_ACCOUNT_ID: "acct",
      WRANGLER_SEND_METRICS: "false",
      CI: "1",
    };
    const wrangler = (...args: string[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(path.join(root, "node_modules/.bin/wrangler"), args, { cwd: project(), env });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`wrangler ${args.join(" ")}: ${code}\n${out}`))));
      });
    try {
      const [d1, created, kv, r2, queues] = await Promise.all([
        wrangler("d1", "list", "--json"),
        wrangler("d1", "create", "edge-storefront-2"),
        wrangler("kv", "namespace", "list"),
        wrangler("r2", "bucket", "list"),
        wrangler("queues", "list"),
      ]);
      expect(JSON.parse(d1).map((d: { uuid: string; name: string }) => [d.name, d.uuid])).toEqual([["edge-storefront", "d-1"]]);
      expect(createdId(created, "database_id")).toBe("d-2");
      expect(JSON.parse(kv)).toEqual([{ id: "k-1", title: "edge-storefront-SESSIONS" }]);
      expect(namesInListing(r2)).toEqual(["edge-storefront-media"]);
      expect(namesInListing(queues)).toEqual(["edge-storefront-events"]);
    } finally {
      api.close();
    }
  });
});
