// `npm run deploy`: a fresh Cloudflare account made a running shop, or an existing one redeployed. Drives wrangler:
// creates the D1 database, KV namespace, R2 buckets and queues wrangler.toml names (reusing those that exist, by name)
// and writes the new ids into wrangler.toml (ids only); applies the migrations remotely; builds; deploys; sets the
// generated secrets that are not set yet; creates the owner's account; sets PUBLIC_URL in wrangler.toml (`--url`, or the
// workers.dev address on the first run, then kept). `--dry-run` only lists and prints the commands.
// `--owner-email <address>` (or OWNER_EMAIL) is needed on the first run. Details: docs/operations.md, "Deploy".
import { execFile } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The account resources wrangler.toml binds (Durable Objects need none): names, and the ids already written. */
export function resourcesIn(toml) {
  const blocks = toml.split(/^(?=\[\[)/m);
  const field = (block, name) => block.match(new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, "m"))?.[1];
  const name = toml.match(/^name\s*=\s*"([^"]+)"/m)?.[1] ?? "worker";
  const d1 = [];
  const kv = [];
  const r2 = [];
  const queues = new Set();
  for (const block of blocks) {
    if (block.startsWith("[[d1_databases]]"))
      d1.push({ binding: field(block, "binding"), name: field(block, "database_name"), id: field(block, "database_id") });
    if (block.startsWith("[[kv_namespaces]]"))
      kv.push({ binding: field(block, "binding"), name: `${name}-${field(block, "binding")}`, id: field(block, "id") });
    if (block.startsWith("[[r2_buckets]]")) r2.push({ binding: field(block, "binding"), name: field(block, "bucket_name") });
    if (block.startsWith("[[queues.")) {
      for (const key of ["queue", "dead_letter_queue"]) if (field(block, key)) queues.add(field(block, key));
    }
  }
  return { name, d1, kv, r2, queues: [...queues] };
}

/** wrangler.toml with one binding's id field set (the line after its binding/name), every other line unchanged. */
export function withId(toml, table, binding, key, id) {
  const blocks = toml.split(/^(?=\[\[)/m);
  return blocks
    .map((block) =>
      block.startsWith(`[[${table}]]`) && new RegExp(`^binding\\s*=\\s*"${binding}"`, "m").test(block)
        ? block.replace(new RegExp(`^${key}\\s*=\\s*"[^"]*"`, "m"), `${key} = "${id}"`)
        : block,
    )
    .join("");
}

/** The names in wrangler's `r2 bucket list` output (labelled blocks) or `queues list` output (a table). */
export function namesInListing(text) {
  const labelled = [...text.matchAll(/^name:\s+(\S+)/gm)].map((m) => m[1]);
  if (labelled.length > 0) return labelled;
  const rows = text
    .split("\n")
    .filter((line) => line.trim().startsWith("│"))
    .map((line) =>
      line
        .split("│")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const column = rows[0]?.indexOf("name") ?? -1;
  return column < 0 ? [] : rows.slice(1).map((row) => row[column]);
}

/** The id in the configuration snippet wrangler prints after creating a D1 database or KV namespace. */
export function createdId(text, key) {
  const id = text.match(new RegExp(`${key}\\s*=\\s*"([^"]+)"`))?.[1] ?? text.match(new RegExp(`"${key}":\\s*"([^"]+)"`))?.[1];
  if (!id) throw new Error(`wrangler printed no ${key}`);
  return id;
}

/** The value of a `[vars]` entry in wrangler.toml ("" when it is empty or missing). */
export function varIn(toml, name) {
  return toml.match(new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, "m"))?.[1] ?? "";
}

/** wrangler.toml with a `[vars]` entry set (its line replaced, or added under `[vars]`), every other line unchanged. */
export function withVar(toml, name, value) {
  const line = `${name} = ${JSON.stringify(value)}`;
  const existing = new RegExp(`^${name}\\s*=\\s*"[^"]*"`, "m");
  if (existing.test(toml)) return toml.replace(existing, line);
  if (/^\[vars\]\s*$/m.test(toml)) return toml.replace(/^\[vars\]\s*$/m, `[vars]\n${line}`);
  return `${toml.replace(/\n*$/, "\n")}\n[vars]\n${line}\n`;
}

/** The shop's origin from `--url` (https, no path), or an Error saying what is wrong with it. */
export function publicOrigin(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    return new Error(`--url ${value} is not an address: give the shop's origin, such as https://shop.example.com`);
  }
  if (url.protocol !== "https:") return new Error(`--url ${value} must start with https://`);
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password)
    return new Error(`--url ${value} must be an origin only, such as https://shop.example.com (no path or query)`);
  return url.origin;
}

/** The Worker's URL in `wrangler deploy` output (the indented address under "Deployed"). */
export function deployedUrl(text) {
  return text.match(/^\s+(https?:\/\/\S+)\s*$/m)?.[1] ?? null;
}

/** The secrets this script generates, with a fresh value for each (as scripts/local-setup.mjs does for .dev.vars). */
export function generatedSecrets(ownerEmail) {
  return {
    OWNER_API_KEY: `sk_live_${randomBytes(24).toString("base64url")}`,
    OWNER_EMAIL: ownerEmail,
    OWNER_PASSWORD: randomBytes(12).toString("base64url"),
    WEBHOOK_SIGNING_KEY: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
    DOWNLOAD_SIGNING_SECRET: randomBytes(32).toString("base64url"),
  };
}

function run(command, args, { input, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, shell: process.platform === "win32" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(" ")} failed: ${(stderr || stdout || err.message).trim().split("\n").slice(-3).join(" ")}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

async function deploy(argv) {
  const dryRun = argv.includes("--dry-run");
  const emailAt = argv.indexOf("--owner-email");
  const ownerEmail = emailAt >= 0 ? argv[emailAt + 1] : process.env.OWNER_EMAIL;
  const urlAt = argv.indexOf("--url");
  const givenUrl = urlAt >= 0 ? publicOrigin(argv[urlAt + 1] ?? "") : null;
  if (givenUrl instanceof Error) {
    console.error(givenUrl.message);
    process.exitCode = 1;
    return;
  }
  const root = process.cwd();
  const configFile = path.join(root, "wrangler.toml");
  const wrangler = process.env.WRANGLER ?? "wrangler";
  const npm = process.env.NPM ?? "npm";
  const reused = [];
  const created = [];
  const say = (line) => console.log(line);
  // Reads run even in a dry run; changes are printed and, in a dry run, not run.
  const read = async (args) => {
    say(`$ wrangler ${args.join(" ")}`);
    return run(wrangler, args, { cwd: root });
  };
  const change = async (args, input, command = wrangler) => {
    say(`$ ${command === npm ? "npm" : "wrangler"} ${args.join(" ")}${dryRun ? "   (dry run: not run)" : ""}`);
    return dryRun ? "" : run(command, args, { cwd: root, input });
  };
  let step = "";
  const steps = async (name, body) => {
    step = name;
    say(`\n== ${name}`);
    return body();
  };

  try {
    let toml = readFileSync(configFile, "utf8");
    const res = resourcesIn(toml);

    await steps("D1 database", async () => {
      const existing = JSON.parse(await read(["d1", "list", "--json"]));
      for (const db of res.d1) {
        const found = existing.find((d) => d.name === db.name);
        const id = found ? found.uuid : await change(["d1", "create", db.name]).then((out) => dryRun || createdId(out, "database_id"));
        (found ? reused : created).push(`D1 ${db.name}`);
        if (!dryRun && id !== db.id) toml = withId(toml, "d1_databases", db.binding, "database_id", id);
      }
    });
    await steps("KV namespaces", async () => {
      const existing = JSON.parse(await read(["kv", "namespace", "list"]));
      for (const ns of res.kv) {
        const found = existing.find((n) => n.title === ns.name);
        const id = found ? found.id : await change(["kv", "namespace", "create", ns.name]).then((out) => dryRun || createdId(out, "id"));
        (found ? reused : created).push(`KV ${ns.name}`);
        if (!dryRun && id !== ns.id) toml = withId(toml, "kv_namespaces", ns.binding, "id", id);
      }
    });
    if (!dryRun && toml !== readFileSync(configFile, "utf8")) {
      writeFileSync(configFile, toml);
      say("Wrote the D1 and KV ids into wrangler.toml.");
    }
    await steps("R2 buckets", async () => {
      const existing = namesInListing(await read(["r2", "bucket", "list"]));
      for (const bucket of res.r2) {
        if (existing.includes(bucket.name)) reused.push(`R2 ${bucket.name}`);
        else {
          await change(["r2", "bucket", "create", bucket.name]);
          created.push(`R2 ${bucket.name}`);
        }
      }
    });
    await steps("Queues", async () => {
      const existing = namesInListing(await read(["queues", "list"]));
      for (const queue of res.queues) {
        if (existing.includes(queue)) reused.push(`queue ${queue}`);
        else {
          await change(["queues", "create", queue]);
          created.push(`queue ${queue}`);
        }
      }
    });
    if (givenUrl && givenUrl !== varIn(toml, "PUBLIC_URL")) {
      say(`\nSetting PUBLIC_URL = "${givenUrl}" in wrangler.toml${dryRun ? "   (dry run: not written)" : ""}`);
      if (!dryRun) {
        toml = withVar(toml, "PUBLIC_URL", givenUrl);
        writeFileSync(configFile, toml);
      }
    }
    await steps("Migrations", () => change(["d1", "migrations", "apply", res.d1[0]?.binding ?? "DB", "--remote"]));
    await steps("Build", () => change(["run", "build"], undefined, npm));
    const url = await steps("Deploy", async () => {
      const out = await change(["deploy"]);
      if (dryRun) return `https://${res.name}.<your-subdomain>.workers.dev`;
      const found = deployedUrl(out);
      if (!found) throw new Error("wrangler deploy printed no URL");
      return found;
    });
    // Emailed links need the shop's address, which a first deploy only learns from wrangler: write it and deploy again.
    const shopUrl = await steps("Public address", async () => {
      const set = dryRun ? givenUrl || varIn(toml, "PUBLIC_URL") : varIn(toml, "PUBLIC_URL");
      if (set) {
        say(`PUBLIC_URL is ${set}`);
        return set;
      }
      say(`Setting PUBLIC_URL = "${url}" in wrangler.toml${dryRun ? "   (dry run: not written)" : ""}`);
      if (!dryRun) {
        toml = withVar(toml, "PUBLIC_URL", url);
        writeFileSync(configFile, toml);
      }
      await change(["deploy"]);
      return url;
    });
    const secrets = await steps("Secrets", async () => {
      // A Worker that was never deployed has no secrets to list (in a dry run on a fresh account).
      const listed = await read(["secret", "list", "--format", "json"]).catch((err) => {
        if (dryRun) return "[]";
        throw err;
      });
      const present = new Set(JSON.parse(listed).map((s) => s.name));
      const fresh = Object.entries(generatedSecrets(ownerEmail ?? "")).filter(([name]) => !present.has(name));
      if (fresh.some(([name]) => name === "OWNER_EMAIL") && !ownerEmail) {
        throw new Error("the owner's email is needed: run `npm run deploy -- --owner-email you@example.com` (or set OWNER_EMAIL)");
      }
      for (const name of present) reused.push(`secret ${name}`);
      if (fresh.length === 0) return {};
      say(`Setting ${fresh.map(([name]) => name).join(", ")} (values not printed)`);
      await change(["secret", "bulk"], JSON.stringify(Object.fromEntries(fresh)));
      for (const [name] of fresh) created.push(`secret ${name}`);
      return Object.fromEntries(fresh);
    });
    const login = await steps("Owner account", async () => {
      if (!secrets.OWNER_API_KEY) return "the owner's account made on the first run (its password was printed then)";
      say(`$ curl -X POST ${url}/api/v1/bootstrap -H "authorization: <OWNER_API_KEY>"${dryRun ? "   (dry run: not run)" : ""}`);
      if (dryRun) return `${ownerEmail ?? "<owner email>"} / <generated password>`;
      // The secrets reach the Worker as a new version a few seconds after `secret bulk`: a 401 until then.
      let response;
      for (let attempt = 1; attempt <= 10; attempt++) {
        response = await fetch(`${url}/api/v1/bootstrap`, { method: "POST", headers: { authorization: secrets.OWNER_API_KEY } });
        if (response.ok || attempt === 10 || (response.status !== 401 && response.status < 500)) break;
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
      const body = await response.json().catch(() => ({}));
      if (!response.ok || !body.owner?.email)
        throw new Error(`POST /api/v1/bootstrap answered ${response.status} ${body.owner?.reason ?? ""}`.trim());
      return secrets.OWNER_PASSWORD ? `${body.owner.email} / ${secrets.OWNER_PASSWORD}   (shown once: keep it)` : body.owner.email;
    });

    say(`\n${dryRun ? "Dry run: nothing was changed." : "Deployed."}`);
    if (created.length > 0) say(`Created: ${created.join(", ")}.`);
    if (reused.length > 0) say(`Reused: ${reused.join(", ")}.`);
    say(`\nShop:          ${shopUrl}`);
    say(`Console:       ${shopUrl}/console`);
    say(`Owner login:   ${login}`);
    say("\nLeft for you (docs/operations.md, Deploy):");
    say(`- Card payments: wrangler secret put STRIPE_SECRET_KEY, add the Stripe webhook ${shopUrl}/webhooks/stripe,`);
    say("  wrangler secret put STRIPE_WEBHOOK_SECRET, and STRIPE_PUBLISHABLE_KEY in wrangler.toml.");
    say("- Emails: onboard your domain to Cloudflare Email Service and set EMAIL_FROM in wrangler.toml.");
    say("- A custom domain: dashboard → Workers → edge-storefront → Settings → Domains & Routes, then");
    say("  npm run deploy -- --url https://your.domain so emailed links use it.");
  } catch (err) {
    console.error(`\nStep "${step}" failed: ${err.message}`);
    console.error("Fix the cause and run `npm run deploy` again: it reuses what was already created and set.");
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await deploy(process.argv.slice(2));
