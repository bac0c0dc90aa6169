import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Miniflare, type Log } from "miniflare";

/**
 * The *built* Worker (`react-router build` → build/server, build/client) under Miniflare on Node, with the bindings
 * of the generated build/server/wrangler.json, a fresh in-memory D1 with the migrations applied, and the owner key.
 * This is the code `npm start` serves, without wrangler's CLI around it.
 */

export const OWNER_KEY = "node-test-owner-key";

const root = path.resolve(import.meta.dirname, "../..");
const serverDir = path.join(root, "build/server");

interface BuildConfig {
  main: string;
  compatibility_date: string;
  compatibility_flags?: string[];
  vars?: Record<string, string>;
  assets?: { directory: string };
  d1_databases?: { binding: string; database_id: string }[];
  kv_namespaces?: { binding: string; id: string }[];
  r2_buckets?: { binding: string; bucket_name: string }[];
  send_email?: { name: string; destination_address?: string; allowed_destination_addresses?: string[]; allowed_sender_addresses?: string[] }[];
  durable_objects?: { bindings: { name: string; class_name: string }[] };
  migrations?: { new_sqlite_classes?: string[] }[];
  queues?: {
    producers?: { binding: string; queue: string }[];
    consumers?: { queue: string; max_batch_size?: number; max_batch_timeout?: number; max_retries?: number; dead_letter_queue?: string }[];
  };
}

function readBuildConfig(): BuildConfig {
  const file = path.join(serverDir, "wrangler.json");
  if (!existsSync(file)) throw new Error("No build/server/wrangler.json: run `npx react-router build` first (npm run test:node does).");
  return JSON.parse(readFileSync(file, "utf8")) as BuildConfig;
}

/** Every .js file under build/server, the entry first: the bundle has non-literal dynamic imports, so list them all. */
function serverModules(main: string) {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".js")) files.push(full);
    }
  };
  walk(serverDir);
  const entry = path.join(serverDir, main);
  return [entry, ...files.filter((f) => f !== entry).sort()].map((p) => ({ type: "ESModule" as const, path: p }));
}

/**
 * The SQL statements of the migrations, in order. drizzle-kit separates statements with `--> statement-breakpoint`,
 * so splitting there (never on `;`) keeps CREATE TRIGGER … BEGIN …; …; END in one piece.
 */
export function migrationStatements(): string[] {
  const dir = path.join(root, "migrations");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .flatMap((f) => readFileSync(path.join(dir, f), "utf8").split("--> statement-breakpoint"))
    .map((s) => s.trim())
    .filter((s) => s.replace(/--[^\n]*\n?/g, "").trim().length > 0);
}

export interface StartOptions {
  /** Listen on 127.0.0.1 at this port (0 = a free one), for a browser. Without it, use `dispatchFetch`. */
  port?: number;
  /** Extra bindings (e.g. a different owner key). */
  bindings?: Record<string, string>;
  /**
   * Recipients the local send_email binding accepts (Miniflare refuses any other with "email to … not allowed": the
   * local transport's failure mode). Unset: it accepts every recipient.
   */
  emailRecipients?: string[];
  /** Miniflare's log, e.g. to read what the local send_email binding says it sent (From:, To:, Subject:). */
  log?: Log;
}

export interface RunningWorker {
  mf: Miniflare;
  /** The origin to fetch, e.g. http://127.0.0.1:43125 (or http://localhost:8787 without a port). */
  url: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  db: D1Database;
  /** Changes the recipients the send_email binding accepts (undefined: all), keeping the data (Miniflare reloads). */
  setEmailRecipients(recipients: string[] | undefined): Promise<void>;
  /**
   * Restarts the runtime as the dev server does on a rebuild: requests in flight are cut and the local queue's
   * messages are lost; D1 and KV keep their data.
   */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

/** Starts the built Worker with a fresh, migrated, empty store. */
export async function startWorker(opts: StartOptions = {}): Promise<RunningWorker> {
  const config = readBuildConfig();
  const doClasses = new Set((config.migrations ?? []).flatMap((m) => m.new_sqlite_classes ?? []));
  const emailOptions = (recipients: string[] | undefined) =>
    config.send_email
      ? { send_email: config.send_email.map((b) => (recipients ? { ...b, allowed_destination_addresses: recipients } : b)) }
      : undefined;
  const options = {
    modules: serverModules(config.main),
    modulesRoot: serverDir,
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags,
    bindings: { ...config.vars, ENVIRONMENT: "development", OWNER_API_KEY: OWNER_KEY, ...opts.bindings },
    d1Databases: Object.fromEntries((config.d1_databases ?? []).map((d) => [d.binding, d.database_id])),
    kvNamespaces: Object.fromEntries((config.kv_namespaces ?? []).map((k) => [k.binding, k.id])),
    r2Buckets: Object.fromEntries((config.r2_buckets ?? []).map((r) => [r.binding, r.bucket_name])),
    // Miniflare's local send_email: accepts the message, writes it to a temporary .eml file and logs its path.
    email: emailOptions(opts.emailRecipients),
    durableObjects: Object.fromEntries(
      (config.durable_objects?.bindings ?? []).map((b) => [b.name, { className: b.class_name, useSQLite: doClasses.has(b.class_name) }]),
    ),
    queueProducers: Object.fromEntries((config.queues?.producers ?? []).map((p) => [p.binding, { queueName: p.queue }])),
    queueConsumers: Object.fromEntries(
      (config.queues?.consumers ?? []).map((c) => [
        c.queue,
        { maxBatchSize: c.max_batch_size, maxBatchTimeout: c.max_batch_timeout, maxRetries: c.max_retries, deadLetterQueue: c.dead_letter_queue },
      ]),
    ),
    // The assets router sends every path that is not a file in build/client on to the Worker.
    assets: config.assets ? { directory: path.resolve(serverDir, config.assets.directory), routerConfig: { has_user_worker: true } } : undefined,
    // Offline: otherwise Miniflare downloads the real Request.cf data when it starts.
    cf: false,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.port !== undefined ? { host: "127.0.0.1", port: opts.port } : {}),
  } satisfies ConstructorParameters<typeof Miniflare>[0];
  let current: typeof options = options;
  const mf = new Miniflare(options);
  const ready = await mf.ready;
  const db = await mf.getD1Database("DB");
  const statements = migrationStatements();
  await db.batch(statements.map((s) => db.prepare(s)));
  const running: RunningWorker = {
    mf,
    url: ready.origin.replace(/\/$/, ""),
    db: db as unknown as D1Database,
    fetch: (p, init) => mf.dispatchFetch(`${running.url}${p}`, init as never) as unknown as Promise<Response>,
    setEmailRecipients: async (recipients) => {
      current = { ...options, email: emailOptions(recipients) };
      await running.restart();
    },
    restart: async () => {
      // A reload poisons the old binding stubs and may move the port: fetch both again (the data stays).
      await mf.setOptions(current);
      running.url = (await mf.ready).origin.replace(/\/$/, "");
      running.db = (await mf.getD1Database("DB")) as unknown as D1Database;
    },
    dispose: () => mf.dispose(),
  };
  return running;
}

/** A desktop Chrome user agent: isbot counts Node's and HeadlessChrome's own as bots. */
export const BROWSER_UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

/** The public origin (PUBLIC_URL) of a Worker started by startProductionWorker. */
export const PRODUCTION_ORIGIN = "https://shop.example";

export interface ProductionWorker extends RunningWorker {
  /** Fetches a path at an https origin (default PRODUCTION_ORIGIN; another host is what a forged Host header gives). */
  fetchAt(path: string, init?: RequestInit, origin?: string): Promise<Response>;
}

/**
 * Starts the built Worker in production mode: ENVIRONMENT=production and PUBLIC_URL=PRODUCTION_ORIGIN, unless
 * `bindings` say otherwise (e.g. `{ PUBLIC_URL: "" }`), for the rules that hold only in production.
 */
export async function startProductionWorker(opts: StartOptions = {}): Promise<ProductionWorker> {
  const running = await startWorker({ ...opts, bindings: { ENVIRONMENT: "production", PUBLIC_URL: PRODUCTION_ORIGIN, ...opts.bindings } });
  return Object.assign(running, {
    fetchAt: (path: string, init?: RequestInit, origin = PRODUCTION_ORIGIN) =>
      running.mf.dispatchFetch(`${origin}${path}`, init as never) as unknown as Promise<Response>,
  });
}

/** The built Worker with the demo catalogue loaded, and a visible physical product without options or tracked stock. */
export async function startDemoShop(): Promise<{ w: RunningWorker; productId: string }> {
  const w = await startWorker();
  const loaded = await w.fetch("/api/v1/demo-catalogue", {
    method: "POST",
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: "{}",
  });
  if (loaded.status !== 200) throw new Error(`demo catalogue: ${loaded.status}`);
  const product = await w.db
    .prepare(
      "SELECT id FROM products WHERE visible = 1 AND product_type = 'physical' AND product_options = '[]' AND track_inventory = 0 ORDER BY numeric_id LIMIT 1",
    )
    .first<{ id: string }>();
  return { w, productId: product!.id };
}

/**
 * A shopper's browser without JavaScript, as plain fetches: browsing starts no session, so its cookie is the one its
 * first action sets, and every request after carries it.
 */
export function formBrowser(w: RunningWorker) {
  let cookie: string | undefined;
  const remember = (res: Response) => {
    const set = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="));
    if (set) cookie = set.split(";")[0];
    return res;
  };
  const headers = () => ({ "user-agent": BROWSER_UA, ...(cookie ? { cookie } : {}) });
  return {
    get: async (p: string) => remember(await w.fetch(p, { headers: headers(), redirect: "manual" })),
    post: async (p: string, fields: Record<string, string>) =>
      remember(
        await w.fetch(p, {
          method: "POST",
          headers: { ...headers(), origin: w.url, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
          redirect: "manual",
        }),
      ),
  };
}
