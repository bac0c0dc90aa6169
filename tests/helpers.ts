import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../entry/index";
import type { Auth, Ctx } from "#worker/platform/context";
import { issueTokens } from "#worker/identity/tokens";
import { openDb } from "#worker/platform/db";
import { encodeDotR } from "#worker/platform/query";

/** The owner API key the test bindings configure (vitest.config.ts). */
export const OWNER_KEY = "test-owner-key";

export interface ApiResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Statuses whose responses have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * The Worker's answer to a request, read whole, once the work it left running after the response (waitUntil: edge
 * cache writes, the event flush) has finished: what a test checks next never races that work. `bindings` replaces
 * the test bindings (e.g. a queue the test reads itself).
 */
export async function fetchSettled(url: string, init?: RequestInit, bindings: Env = env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch!(new Request(url, init) as Request<unknown, IncomingRequestCfProperties>, bindings, ctx);
  const body = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(NULL_BODY.has(res.status) ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** Calls the Worker like a client: JSON in, JSON out. `key` sends the Authorization header (default: none). */
export async function api<T = any>(
  method: string,
  path: string,
  opts: { body?: unknown; key?: string; rawBody?: string; contentType?: string; headers?: Record<string, string>; env?: Env } = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = opts.key;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers["content-type"] = opts.contentType ?? "application/json";
  const res = await fetchSettled(`https://shop.test${path}`, { method, headers, body }, opts.env);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Merchant call with the owner key. */
export const merchant = <T = any>(method: string, path: string, body?: unknown) => api<T>(method, path, { body, key: OWNER_KEY });

/** A GET query in the SDK's `.r` encoding. */
export const getQuery = <T = any>(path: string, payload: unknown, key?: string) => api<T>("GET", `${path}?.r=${encodeDotR(payload)}`, { key });

/** Creates a product through the API and returns it. */
export async function createProduct(product: Record<string, unknown>) {
  const res = await merchant("POST", "/v1/products", { product: { priceData: { price: 10 }, ...product } });
  if (res.status !== 200) throw new Error(`createProduct failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.product;
}

/** Outbox rows, newest last. */
export async function outboxRows(entityId?: string) {
  const stmt = entityId
    ? env.DB.prepare("SELECT * FROM outbox WHERE entity_id = ? ORDER BY event_time, rowid").bind(entityId)
    : env.DB.prepare("SELECT * FROM outbox ORDER BY event_time, rowid");
  const { results } = await stmt.all<{ id: string; type: string; entity_id: string; data: string; actor_type: string; flushed_at: string | null }>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) }));
}

/** A snapshot of the catalogue tables, to assert that a refused write changed nothing. */
export async function catalogueSnapshot() {
  const tables = ["products", "variants", "collections", "collection_products", "outbox"];
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t] = (await env.DB.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()).results;
  return out;
}

/** A unique suffix so tests sharing a database never collide. */
export const unique = () => Math.random().toString(36).slice(2, 8);

/**
 * catalogueSnapshot without the outbox's delivery columns (flushed_at, attempts), which the flush after an
 * earlier response may still be updating: compare it before and after a refused write.
 */
export async function settledCatalogueSnapshot() {
  const snap = await catalogueSnapshot();
  snap.outbox = snap.outbox.map((row) => {
    const { flushed_at: _f, attempts: _a, ...rest } = row as Record<string, unknown>;
    return rest;
  });
  return snap;
}

/** The ids of a query response's products (or collections), in order. */
export const idsOf = (list: { id: string }[]) => list.map((x) => x.id);

/**
 * A service context for calling services directly, whose background work (`waitUntil`) the test can wait for, as
 * `auth` (default: the owner's API key), with env overrides (e.g. a fake email transport).
 */
export function serviceCtx(
  auth: Auth = { kind: "apiKey", keyId: "test", role: "OWNER" },
  envOverrides: Record<string, unknown> = {},
): { ctx: Ctx; settled: () => Promise<unknown> } {
  const pending: Promise<unknown>[] = [];
  const ctx: Ctx = {
    db: openDb(env.DB),
    env: { ...env, ...envOverrides } as Env,
    auth,
    currency: "USD",
    origin: "https://shop.test",
    waitUntil: (p) => void pending.push(p),
  };
  return { ctx, settled: () => Promise.all(pending) };
}

/**
 * SQLite's plan for a statement (a drizzle query, or SQL with its parameters), one step a line: what the index
 * tests assert on (a SEARCH through an index, never a SCAN of a table that grows with the store).
 */
export async function queryPlan(statement: { toSQL(): { sql: string; params: unknown[] } } | { sql: string; params: unknown[] }): Promise<string> {
  const { sql, params } = "toSQL" in statement ? statement.toSQL() : statement;
  const rows = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return rows.results.map((r) => r.detail).join("\n");
}

/** An ACTIVE staff identity holding these permissions, and an access token for it (what a staff login yields). */
export async function staffWith(permissions: readonly string[]): Promise<{ id: string; token: string }> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO identities (id, email, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'STAFF', ?, 1, ?, ?)",
  )
    .bind(id, `staff-${id}@example.com`, JSON.stringify(permissions), now, now)
    .run();
  const tokens = await issueTokens(env, { role: "member", clientId: "test-client-id", visitorId: crypto.randomUUID(), identityId: id });
  return { id, token: tokens.access_token };
}
