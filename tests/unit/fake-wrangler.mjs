#!/usr/bin/env node
// A stand-in for wrangler in the deploy tests: records each argv in $FAKE_DIR/calls, keeps the account's resources
// and secrets in $FAKE_DIR/account.json, and answers in wrangler 4's output formats. FAKE_FAIL="<argv prefix>" fails
// the first command that starts with it; FAKE_URL is the address `deploy` prints.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const dir = process.env.FAKE_DIR;
const stateFile = path.join(dir, "account.json");
const state = existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : { d1: [], kv: [], r2: [], queues: [], secrets: {} };
const args = process.argv.slice(2);
const line = args.join(" ");
appendFileSync(path.join(dir, "calls"), `${line}\n`);
if (process.env.FAKE_FAIL && line.startsWith(process.env.FAKE_FAIL)) {
  console.error("✘ [ERROR] A request to the Cloudflare API failed. Authentication error [code: 10000]");
  process.exit(1);
}
const save = () => writeFileSync(stateFile, JSON.stringify(state));
const table = (rows) => {
  const head = Object.keys(rows[0] ?? { id: "", name: "" });
  const row = (cells) => `│ ${cells.join(" │ ")} │`;
  return ["┌─┐", row(head), "├─┤", ...rows.map((r) => row(head.map((k) => r[k]))), "└─┘"].join("\n");
};
const id = (n) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");

if (line === "d1 list --json")
  console.log(JSON.stringify(state.d1.map((d) => ({ uuid: d.uuid, name: d.name, created_at: "2026-01-01T00:00:00Z", version: "production" }))));
else if (args[0] === "d1" && args[1] === "create") {
  const uuid = `${id(8)}-${id(4)}-4${id(3)}-8${id(3)}-${id(12)}`;
  state.d1.push({ uuid, name: args[2] });
  save();
  console.log(`✅ Successfully created DB '${args[2]}' in region WEUR\nCreated your new D1 database.\n`);
  console.log(
    `To access your new D1 Database in your Worker, add the following snippet to your configuration file:\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "${args[2]}"\ndatabase_id = "${uuid}"`,
  );
} else if (line === "kv namespace list") console.log(JSON.stringify(state.kv, null, 2));
else if (args[0] === "kv" && args[2] === "create") {
  const ns = { id: id(32), title: args[3], supports_url_encoding: true };
  state.kv.push(ns);
  save();
  console.log(
    `🌀 Creating namespace with title "${args[3]}"\n✨ Success!\nTo access your new KV Namespace in your Worker, add the following snippet to your configuration file:\n[[kv_namespaces]]\nbinding = "${args[3]}"\nid = "${ns.id}"`,
  );
} else if (line === "r2 bucket list")
  console.log(`Listing buckets...\n${state.r2.map((b) => `name:           ${b}\ncreation_date:  2026-01-01T00:00:00.000Z`).join("\n\n")}`);
else if (args[0] === "r2" && args[2] === "create") {
  state.r2.push(args[3]);
  save();
  console.log(`Creating bucket '${args[3]}'...\n✅ Created bucket '${args[3]}' with default storage class of Standard.`);
} else if (line === "queues list")
  console.log(
    table(state.queues.map((q) => ({ id: id(32), name: q, created_on: "2026-01-01", modified_on: "2026-01-01", producers: "0", consumers: "0" }))),
  );
else if (args[0] === "queues" && args[1] === "create") {
  state.queues.push(args[2]);
  save();
  console.log(`🌀 Creating queue '${args[2]}'\n✅ Created queue '${args[2]}'`);
} else if (line.startsWith("d1 migrations apply")) console.log("✅ No migrations to apply!");
else if (line === "deploy") {
  state.deployed = (state.deployed ?? 0) + 1;
  save();
  console.log(
    `Total Upload: 100 KiB\nUploaded edge-storefront (1.00 sec)\nDeployed edge-storefront triggers (0.50 sec)\n  ${process.env.FAKE_URL}\n  schedule: */5 * * * *\nCurrent Version ID: ${id(8)}`,
  );
} else if (line === "secret list --format json")
  console.log(
    JSON.stringify(
      Object.keys(state.secrets).map((name) => ({ name, type: "secret_text" })),
      null,
      "  ",
    ),
  );
else if (line === "secret bulk") {
  const secrets = JSON.parse(readFileSync(0, "utf8"));
  Object.assign(state.secrets, secrets);
  save();
  console.log(`Finished processing secrets file:\n✨ ${Object.keys(secrets).length} secrets successfully uploaded`);
} else {
  console.error(`fake wrangler: unknown command ${line}`);
  process.exit(1);
}
