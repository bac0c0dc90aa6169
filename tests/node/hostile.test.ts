import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import apiRoutes from "../hostile/api-routes.json";
import { startServer } from "../../bench/server.mjs";

/**
 * Hostile traffic against the built Worker served the way `npm start` serves it: `wrangler dev` (its proxy in front
 * of workerd), not only Miniflare, so the dev server's own failure modes are covered too.
 *
 * Every API route (tests/hostile/api-routes.json, kept equal to the app's route table by tests/platform/routes.test.ts)
 * and every page action gets generated bad input (fast-check, seeded: HOSTILE_SEED=<n> replays a run): bodies, ids,
 * query strings, content types and credentials. Whatever arrives, the shop answers without a 5xx, without dropping
 * the connection, with the API's error shape for every API 4xx, and a refused request writes nothing.
 */

const root = path.resolve(import.meta.dirname, "../..");
const SEED = Number(process.env.HOSTILE_SEED ?? Date.now() % 1_000_000);
const RUNS_PER_ROUTE = 4;
const CONCURRENCY = 8;

let base = "";
let ownerKey = "";
let clientId = "";
let stop = () => {};
let state = "";

interface Probe {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Outcome {
  probe: Probe;
  status: number | string;
  text: string;
}

async function send(p: Probe): Promise<Outcome> {
  try {
    const res = await fetch(base + p.path, {
      method: p.method,
      headers: p.headers,
      body: p.method === "GET" || p.method === "HEAD" ? undefined : p.body,
      redirect: "manual",
    });
    return { probe: p, status: res.status, text: await res.text() };
  } catch (err) {
    // A dropped connection: as bad as a 5xx.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      probe: p,
      status: `network error: ${cause?.code ?? ""} ${cause?.message ?? (err as Error).message} at ${new Date().toISOString()}`,
      text: "",
    };
  }
}

/** Sends every probe, CONCURRENCY at a time, keeping the order of the outcomes. */
async function sendAll(probes: Probe[]): Promise<Outcome[]> {
  const out: Outcome[] = new Array(probes.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < probes.length) {
        const i = next++;
        out[i] = await send(probes[i]);
      }
    }),
  );
  return out;
}

const describeProbe = (o: Outcome) =>
  `${o.probe.method} ${o.probe.path.slice(0, 200)} [${Object.entries(o.probe.headers)
    .map(([k, v]) => `${k}: ${String(v).slice(0, 40)}`)
    .join(
      "; ",
    )}] body ${typeof o.probe.body === "string" ? JSON.stringify(o.probe.body.slice(0, 120)) : `no body`} -> ${o.status} ${o.text.slice(0, 200)}`;

/** The API's error shape: {message, details: {applicationError | validationError}}. */
function isErrorShape(text: string): boolean {
  try {
    const body = JSON.parse(text) as {
      message?: unknown;
      details?: { applicationError?: { code?: unknown }; validationError?: { fieldViolations?: unknown } };
    };
    return (
      typeof body.message === "string" &&
      (typeof body.details?.applicationError?.code === "string" || Array.isArray(body.details?.validationError?.fieldViolations))
    );
  } catch {
    return false;
  }
}

/**
 * A collection-by-slug miss answers Wix's bare not-found, `{message, details: {}}`, so the Wix SDK reports
 * `applicationError.code === 404`, the one not-found a headless site tells apart from a failure.
 */
function isSlugMiss(o: Outcome): boolean {
  if (o.status !== 404 || !/\/collections\/slug\//.test(o.probe.path)) return false;
  try {
    const body = JSON.parse(o.text) as { message?: unknown; details?: unknown };
    return typeof body.message === "string" && JSON.stringify(body.details) === "{}";
  } catch {
    return false;
  }
}

/** Every outcome: no 5xx, no dropped connection; an API 4xx is in the error shape. Lists every offender. */
function expectWellBehaved(outcomes: Outcome[], { api }: { api: boolean }) {
  const bad = outcomes.filter(
    (o) => typeof o.status !== "number" || o.status >= 500 || (api && o.status >= 400 && !isErrorShape(o.text) && !isSlugMiss(o)),
  );
  expect(bad.map(describeProbe), `seed ${SEED}: replay with HOSTILE_SEED=${SEED}`).toEqual([]);
}

/**
 * Row counts of every table but the rate limiter's (a refused login attempt is meant to count). Asynchronous on
 * purpose: blocking the event loop for the seconds `wrangler d1 execute` takes would keep undici from seeing the dev
 * server close idle keep-alive connections, and the next probes would fail on sockets that were already closed.
 */
async function digest(): Promise<Record<string, number>> {
  const run = async (sql: string) => {
    const { stdout } = await promisify(execFile)(
      "npx",
      ["wrangler", "d1", "execute", "DB", "--local", "--persist-to", state, "--json", "--command", sql],
      {
        cwd: root,
        encoding: "utf8",
        env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "1" },
      },
    );
    return JSON.parse(stdout)[0].results as Record<string, unknown>[];
  };
  const tables = (
    await run(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('d1_migrations', 'rate_limits')",
    )
  ).map((r) => String(r.name));
  // One row of scalar subqueries (D1 caps the terms of a compound SELECT).
  const [row] = await run(`SELECT ${tables.map((t) => `(SELECT COUNT(*) FROM "${t}") AS "${t}"`).join(", ")}`);
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

// ---------------------------------------------------------------------------------------------------------------
// Generators

const nasty = ["%E0%A4%A", "%ZZ", "%00", "..", "%2e%2e%2f", "'; DROP TABLE products;--", "null", "-1", "0", "\u202e", "💥", "a".repeat(3000)];

/** A path parameter: ids that exist nowhere, broken escapes, traversal, SQL, huge. */
const idArb = fc
  .oneof(
    fc.uuid(),
    fc.constantFrom(...nasty),
    fc.string({ maxLength: 60 }).map(encodeURIComponent),
    fc.string({ unit: "grapheme", maxLength: 20 }).map(encodeURIComponent),
    // A bare "." or ".." segment is resolved by the URL itself before it is sent (RFC 3986 dot segments), so the probe
    // would land on another path, e.g. a page, whose answers the page probes check: keep API probes on their route.
  )
  .filter((id) => id !== "." && id !== "..");

const queryArb = fc.oneof(
  fc.constant(""),
  fc
    .dictionary(
      fc.constantFrom("limit", "offset", "q", "id", ".r", "status", "sort", "includeMerchantSpecificData", "paging.limit"),
      fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("-1", "1e309", "NaN", "%E0", "eyJ9")),
    )
    .map((d) => {
      const s = new URLSearchParams(d).toString();
      return s ? `?${s}` : "";
    }),
  fc.constantFrom("?.r=%%%", "?limit=99999999999999999999", "?a=%E0%A4%A", "?.r=eyJxdWVyeSI6IHsiZmlsdGVyIjogIn19"),
);

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

/** A request body: broken JSON, wrong types, hostile structures, and sometimes plausible JSON with wrong values. */
const bodyArb = fc.oneof(
  fc.constantFrom(
    '{"product": {"name": "x",',
    "{",
    "}",
    "[",
    "null",
    "true",
    "0",
    '""',
    "\u0000",
    "{'a': 1}",
    deep(5000),
    '{"__proto__": {"admin": true}}',
    '{"constructor": {"prototype": {"x": 1}}}',
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .dictionary(
      fc.constantFrom(
        "product",
        "collection",
        "lineItems",
        "query",
        "name",
        "email",
        "password",
        "items",
        "options",
        "inventoryItem",
        "incrementData",
        "fulfillment",
        "paging",
        "filter",
      ),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constant(JSON.stringify({ product: { name: "x".repeat(100_000) } })),
);

const contentTypeArb = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "garbage",
  "",
);

function credentialArb(tokens: { stale: string; visitor: string }) {
  return fc.constantFrom("", "Bearer nonsense", "OauthNG.JWS.e30.e30.xx", "x".repeat(5000), tokens.stale, tokens.visitor, "null");
}

function probeArb(route: { method: string; path: string }, authArb: fc.Arbitrary<string>) {
  return fc
    .record({ ids: fc.array(idArb, { minLength: 3, maxLength: 3 }), query: queryArb, body: bodyArb, type: contentTypeArb, auth: authArb })
    .map(({ ids, query, body, type, auth }): Probe => {
      let i = 0;
      const filled = route.path.replace(/:[A-Za-z]+|\*/g, () => ids[i++ % ids.length]);
      const headers: Record<string, string> = {};
      if (type) headers["content-type"] = type;
      if (auth) headers.authorization = auth;
      return { method: route.method, path: filled + query, headers, body };
    });
}

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  state = mkdtempSync(path.join(tmpdir(), "hostile-"));
  // The build is the one `npm run test:node` just made.
  ({ base, stop, ownerKey, clientId } = await startServer({ build: false, state }));
}, 120_000);

afterAll(() => {
  stop();
  rmSync(state, { recursive: true, force: true });
});

async function visitorToken(): Promise<string> {
  const res = await fetch(`${base}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grantType: "anonymous", clientId }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** An API key that worked once and was revoked. */
async function revokedKey(): Promise<string> {
  const created = await fetch(`${base}/api/v1/api-keys`, {
    method: "POST",
    headers: { authorization: ownerKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "hostile-revoked", role: "STAFF" }),
  });
  expect(created.status).toBe(200);
  const { apiKey, key } = (await created.json()) as { apiKey: { id: string }; key: string };
  expect((await fetch(`${base}/api/v1/api-keys/${apiKey.id}`, { method: "DELETE", headers: { authorization: ownerKey } })).status).toBe(200);
  return key;
}

describe("hostile traffic under wrangler dev", () => {
  it("answers early refusals of large bodies with 413, and the requests after them on the same connection normally", async () => {
    const big = JSON.stringify({ product: { name: "x".repeat(2_000_000) } });
    const statuses: Record<string, (number | string)[]> = { big: [], query: [], unauthenticated: [] };
    for (let i = 0; i < 20; i++) {
      statuses.big.push(
        (
          await send({
            method: "POST",
            path: "/stores/v1/products",
            headers: { authorization: ownerKey, "content-type": "application/json" },
            body: big,
          })
        ).status,
      );
      statuses.query.push(
        (
          await send({
            method: "POST",
            path: "/stores-reader/v1/products/query-platformized",
            headers: { "content-type": "application/json" },
            body: "{}",
          })
        ).status,
      );
      statuses.unauthenticated.push(
        (
          await send({
            method: "POST",
            path: "/stores/v1/products",
            headers: { "content-type": "application/json" },
            body: '{"product":{"name":"y"}}',
          })
        ).status,
      );
    }
    expect(statuses).toEqual({ big: Array(20).fill(413), query: Array(20).fill(200), unauthenticated: Array(20).fill(401) });
  });

  it("refuses a chunked body without Content-Length at the limit, while it streams in", async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode("x".repeat(65_536));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"product":{"name":"'));
        if (sent >= 8 * 1_048_576) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${base}/stores/v1/products`, {
      method: "POST",
      headers: { authorization: ownerKey, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(isErrorShape(await res.text())).toBe(true);
    expect((await send({ method: "GET", path: "/api/health", headers: {} })).status).toBe(200);
  });

  it("answers broken percent-encoding in a path with a 4xx (API error shape) or the not-found page", async () => {
    for (const p of [
      "/stores/v1/products/%E0%A4%A",
      "/v1/collections/%E0%A4%A",
      "/stores/v1/products/%E0%A4%A/variants",
      "/back-in-stock-service/v1/back-in-stock-notification-requests/%E0%A4%A",
    ]) {
      const o = await send({ method: "DELETE", path: p, headers: { authorization: ownerKey } });
      expect([400, 404], describeProbe(o)).toContain(o.status);
      expect(isErrorShape(o.text), describeProbe(o)).toBe(true);
    }
    const page = await send({ method: "GET", path: "/products/%E0%A4%A", headers: {} });
    expect(page.status).toBe(404);
    expect(page.text).toContain("<html");
  });

  it("refuses page forms sent as JSON or an unknown type with 415, an oversized form with 413", async () => {
    for (const [type, body] of [
      ["application/json", '{"email":"a@b.c"}'],
      ["text/xml", "<a/>"],
      ["", "email=a"],
    ]) {
      const o = await send({ method: "POST", path: "/login", headers: { ...(type ? { "content-type": type } : {}), origin: base }, body });
      expect(o.status, describeProbe(o)).toBe(415);
    }
    const huge = await send({
      method: "POST",
      path: "/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
      body: `email=${"a".repeat(2 * 1_048_576)}`,
    });
    expect(huge.status).toBe(413);
    const good = await send({
      method: "POST",
      path: "/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
      body: "email=nobody%40example.com&password=not-the-password",
    });
    expect(good.status).toBeLessThan(500);
    expect(good.text).toContain("<html");
  });

  it("refuses every merchant and member call made with no, garbage, stale or another caller's credentials, and writes nothing", async () => {
    const tokens = { stale: await revokedKey(), visitor: await visitorToken() };
    const before = await digest();
    // A visitor's own current cart is theirs to change (an empty PATCH makes their cart): there the visitor token is
    // the caller's own credential, not another's, so those routes get only the foreign and broken ones.
    const credentialsFor = (path: string) => credentialArb(path.includes("/carts/current") ? { ...tokens, visitor: "" } : tokens);
    const probes = apiRoutes.flatMap((route, i) =>
      fc.sample(probeArb(route, credentialsFor(route.path)), { numRuns: RUNS_PER_ROUTE, seed: SEED + i }),
    );
    const outcomes = await sendAll(probes);
    expectWellBehaved(outcomes, { api: true });
    expect(await digest(), `seed ${SEED}`).toEqual(before);
  }, 180_000);

  it("answers the owner's malformed and mistyped calls to every route with a 4xx in the error shape, never a 5xx", async () => {
    const owner = fc.constant(ownerKey);
    const probes = apiRoutes.flatMap((route, i) => fc.sample(probeArb(route, owner), { numRuns: RUNS_PER_ROUTE, seed: SEED + 10_000 + i }));
    const outcomes = await sendAll(probes);
    expectWellBehaved(outcomes, { api: true });
    // And the shop still serves normally.
    expect(
      (
        await send({
          method: "POST",
          path: "/stores-reader/v1/products/query-platformized",
          headers: { "content-type": "application/json" },
          body: "{}",
        })
      ).status,
    ).toBe(200);
    expect((await send({ method: "GET", path: "/", headers: {} })).status).toBe(200);
  }, 180_000);

  it("survives generated posts to every page action and generated page URLs", async () => {
    const actions = [
      "/login",
      "/register",
      "/forgot-password",
      "/reset-password",
      "/verify",
      "/unsubscribe",
      "/cart",
      "/checkout",
      "/account/info",
      "/logout",
      "/console/login",
      "/console/logout",
      "/console/staff",
      "/products/does-not-exist",
    ];
    const pageProbe = fc
      .record({
        path: fc.oneof(
          fc.constantFrom(...actions),
          idArb.map((id) => `/products/${id}`),
          idArb.map((id) => `/collections/${id}`),
        ),
        query: queryArb,
        body: bodyArb,
        type: contentTypeArb,
        post: fc.boolean(),
      })
      .map(
        ({ path: p, query, body, type, post }): Probe => ({
          method: post ? "POST" : "GET",
          path: p + query,
          headers: { origin: base, ...(type ? { "content-type": type } : {}) },
          body,
        }),
      );
    const outcomes = await sendAll(fc.sample(pageProbe, { numRuns: 300, seed: SEED + 20_000 }));
    expectWellBehaved(outcomes, { api: false });
  }, 120_000);

  it("applies a storm of signed webhooks sent three times each, side by side, exactly once", async () => {
    const auth = { authorization: ownerKey, "content-type": "application/json" };
    const created = await fetch(`${base}/v1/products`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        product: { name: "Storm tee", productType: "physical", priceData: { price: 10 }, stock: { trackInventory: true, quantity: 100 } },
      }),
    });
    expect(created.status).toBe(200);
    const productId = ((await created.json()) as { product: { id: string } }).product.id;
    const source = await fetch(`${base}/api/v1/webhook-sources`, { method: "POST", headers: auth, body: JSON.stringify({ name: "hostile-erp" }) });
    expect(source.status).toBe(200);
    const { secret } = (await source.json()) as { secret: string };
    const hook = new Webhook(secret);
    const deliveries = Array.from({ length: 30 }, (_, i) => {
      const body = JSON.stringify({ type: "inventory.updated", timestamp: new Date().toISOString(), data: { items: [{ productId, adjustBy: 1 }] } });
      const id = `msg_storm_${SEED}_${i}`;
      const at = new Date();
      return {
        body,
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": hook.sign(id, at, body),
        },
      };
    });
    // Each delivery three times at once, plus a forged copy of each.
    const probes = deliveries.flatMap((d): Probe[] => [
      ...Array.from({ length: 3 }, () => ({ method: "POST", path: "/webhooks/hostile-erp", headers: d.headers, body: d.body })),
      { method: "POST", path: "/webhooks/hostile-erp", headers: { ...d.headers, "webhook-signature": "v1,Zm9yZ2Vk" }, body: d.body },
    ]);
    const outcomes = await sendAll(probes);
    expectWellBehaved(outcomes, { api: true });
    const statuses = outcomes.map((o) => (o.status === 200 ? (JSON.parse(o.text) as { status: string }).status : o.status));
    expect(statuses.filter((s) => s === "ACCEPTED")).toHaveLength(30);
    expect(statuses.filter((s) => s === "DUPLICATE")).toHaveLength(60);
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    // The queue applies each accepted event once: 100 + 30, and it stays there.
    const quantity = async () =>
      (
        (await (await fetch(`${base}/v1/products/${productId}`, { headers: { authorization: ownerKey } })).json()) as {
          product: { stock: { quantity: number } };
        }
      ).product.stock.quantity;
    const deadline = Date.now() + 60_000;
    while ((await quantity()) !== 130 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    expect(await quantity()).toBe(130);
    await new Promise((r) => setTimeout(r, 2000));
    expect(await quantity()).toBe(130);
  }, 120_000);
});
