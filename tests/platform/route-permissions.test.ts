import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../worker/app";
import { issueTokens } from "../../worker/identity/tokens";
import { PERMISSIONS, type Permission } from "../../worker/platform/context";
import { ROUTE_PERMISSIONS } from "../../worker/platform/route-permissions";
import { api, createProduct, merchant, unique, type ApiResult } from "../helpers";

/**
 * The route permission table (worker/platform/route-permissions.ts) against the app: it names exactly the app's
 * routes, and every route it says needs a permission (or the owner) refuses, with 403 and no write, each staff member
 * and each STAFF API key holding any single other permission, and lets the holder of the right one through.
 */

const UNKNOWN = "00000000-0000-4000-8000-00000000dead";

/** The app's routes as `METHOD /path`, as the table keys them. */
function servedRoutes(): string[] {
  const served = new Set<string>();
  for (const r of app.routes) if (r.method !== "ALL") served.add(`${r.method} ${r.path}`);
  return [...served];
}

describe("the route permission table", () => {
  it("names every route the app serves and no other (a new route needs its entry)", () => {
    const served = servedRoutes();
    const listed = Object.keys(ROUTE_PERMISSIONS);
    expect(served.filter((r) => !listed.includes(r)), "routes without an entry").toEqual([]);
    expect(listed.filter((r) => !served.includes(r)), "entries for no route").toEqual([]);
  });

  it("names only known permissions", () => {
    const known = new Set<string>(["public", "own", "staff", "owner", "signature", ...PERMISSIONS]);
    for (const [route, rule] of Object.entries(ROUTE_PERMISSIONS)) {
      expect(known.has(rule.needs), route).toBe(true);
      for (const p of Object.values(rule.also ?? {})) expect(PERMISSIONS, route).toContain(p);
    }
  });
});

/**
 * A request that passes each route's own validation, for the routes whose body is read before the permission is
 * checked (elsewhere `{}` does). Path parameters name nothing that exists, so a permitted caller gets the call's
 * own 404 or 400, never a change to data another test relies on.
 */
const SAMPLES: Record<string, { body?: unknown; query?: string }> = {
  "POST /v2/sign-on": { body: { loginId: { email: "walk-sign-on@example.com" } } },
  "POST /_api/iam/authentication/v2/sign-on": { body: { loginId: { email: "walk-sign-on@example.com" } } },
  "POST /v1/activation-email": { body: { identityId: UNKNOWN } },
  "POST /_api/iam/recovery/v1/activation-email": { body: { identityId: UNKNOWN } },
  "PATCH /api/v1/identity-settings": { body: { settings: { captcha: false } } },
  "PATCH /_api/iam/authentication/api/v1/identity-settings": { body: { settings: { captcha: false } } },
  "POST /api/v1/staff": { body: { email: "walk-invite@example.com" } },
  "PATCH /api/v1/staff/:id": { body: { permissions: [] } },
  "POST /api/v1/api-keys": { body: { name: "walk", role: "STAFF" } },
  "PATCH /api/v1/api-keys/:id": { body: { permissions: [] } },
  "PATCH /api/v1/store-settings": { body: { settings: { name: "Walked shop" } } },
  "PATCH /api/v1/pricing-settings": { body: { settings: { pricesIncludeTax: false } } },
  "PATCH /stores/v2/inventoryItems/product/:productId": { body: { inventoryItem: { trackQuantity: false } } },
  "PATCH /v2/inventoryItems/product/:productId": { body: { inventoryItem: { trackQuantity: false } } },
  "POST /stores/v2/inventoryItems/increment": { body: { incrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", incrementBy: 1 }] } },
  "POST /v2/inventoryItems/increment": { body: { incrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", incrementBy: 1 }] } },
  "POST /stores/v2/inventoryItems/decrement": { body: { decrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", decrementBy: 1 }] } },
  "POST /v2/inventoryItems/decrement": { body: { decrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", decrementBy: 1 }] } },
  "POST /v1/orders/:id/refund-status": { body: { status: "FULLY_REFUNDED" } },
  "POST /ecom/v1/orders/:id/refund-status": { body: { status: "FULLY_REFUNDED" } },
  "POST /api/v1/webhook-sources": { body: { name: "walk-source" } },
  "PATCH /api/v1/webhook-sources/:id": { body: { enabled: false } },
  "POST /api/v1/webhook-sources/:id/rotate": { body: {} },
  "POST /api/v1/webhook-subscriptions": { body: { url: "https://example.com/walk", eventTypes: "*" } },
  "PATCH /api/v1/webhook-subscriptions/:id": { body: { enabled: false } },
  "POST /ecom/v1/abandoned-checkouts/:id/add-activity": { body: { customActivity: { title: "Called" } } },
  "POST /v1/abandoned-checkouts/:id/add-activity": { body: { customActivity: { title: "Called" } } },
  "PATCH /api/v1/automation-settings": { body: { settings: { lowStockThreshold: 3 } } },
};

function requestOf(route: string): { method: string; path: string; body?: unknown } {
  const [method, pattern] = route.split(" ");
  const path = pattern.replace(/:[A-Za-z]+/g, UNKNOWN);
  const sample = SAMPLES[route];
  return { method, path: sample?.query ? `${path}?${sample.query}` : path, body: sample ? sample.body : method === "GET" || method === "DELETE" ? undefined : {} };
}

/** Rows and KV entries a response says it wrote (the Server-Timing counters every response carries). */
function writesOf(res: ApiResult): { rows: number; kv: number } {
  const timing = res.headers.get("server-timing") ?? "";
  const count = (name: string) => Number(new RegExp(`${name};desc="(\\d+)`).exec(timing)?.[1] ?? NaN);
  return { rows: count("d1-writes"), kv: count("kv-writes") };
}

interface Caller {
  label: string;
  key: string;
  holds: Permission | null;
}

async function staffWith(permissions: Permission[]): Promise<string> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.prepare(
    "INSERT INTO identities (id, email, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'STAFF', ?, 1, ?, ?)",
  )
    .bind(id, `walk-${unique()}@example.com`, JSON.stringify(permissions), now, now)
    .run();
  return (await issueTokens(env, { role: "member", clientId: "test-client", visitorId: crypto.randomUUID(), identityId: id })).access_token;
}

async function staffKeyWith(permissions: Permission[]): Promise<string> {
  const res = await merchant("POST", "/api/v1/api-keys", { name: `walk ${permissions.join(",") || "none"}`, role: "STAFF", permissions });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.key;
}

describe("every route that needs a permission or the owner, walked with each single permission", () => {
  const callers: Caller[] = [];

  beforeAll(async () => {
    // A product of the merchant's own, so the demo-catalogue call finds the store not empty and loads nothing.
    await createProduct({ name: `Walk ${unique()}` });
    for (const p of [...PERMISSIONS, null]) {
      const list = p ? [p] : [];
      callers.push({ label: `staff member holding ${p ?? "nothing"}`, key: await staffWith(list), holds: p });
      callers.push({ label: `STAFF key holding ${p ?? "nothing"}`, key: await staffKeyWith(list), holds: p });
    }
  });

  const walked = Object.entries(ROUTE_PERMISSIONS).filter(([, rule]) => rule.needs === "owner" || (PERMISSIONS as readonly string[]).includes(rule.needs));

  for (const [route, rule] of walked) {
    // Twelve callers a route: generous on a shared 2-core machine.
    it(`${route} (${rule.needs})`, { timeout: 180_000 }, async () => {
      const { method, path, body } = requestOf(route);
      for (const caller of callers) {
        const res = await api(method, path, { key: caller.key, body });
        const what = `${caller.label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
        if (caller.holds !== null && caller.holds === rule.needs) {
          expect(res.status, what).not.toBe(403);
          expect(res.status, what).toBeLessThan(500);
        } else {
          expect(res.status, what).toBe(403);
          expect(res.body.details?.applicationError?.code, what).toBe("PERMISSION_DENIED");
          expect(writesOf(res), what).toEqual({ rows: 0, kv: 0 });
        }
      }
    });
  }

  it("staff reads need no permission: a staff member and a STAFF key holding nothing are let through", { timeout: 300_000 }, async () => {
    const reads = Object.entries(ROUTE_PERMISSIONS).filter(([, rule]) => rule.needs === "staff");
    expect(reads.length).toBeGreaterThan(30);
    const none = callers.filter((c) => c.holds === null);
    for (const [route] of reads) {
      const { method, path, body } = requestOf(route);
      for (const caller of none) {
        const res = await api(method, path, { key: caller.key, body });
        expect(res.status, `${route} ${caller.label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`).not.toBe(403);
        expect(res.status, route).toBeLessThan(500);
      }
    }
  });
});
