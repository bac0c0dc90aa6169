import { beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS, type Permission } from "#worker/platform/context";
import { ROUTE_PERMISSIONS, type Need } from "#worker/platform/route-permissions";
import { api, createProduct, merchant, staffWith, unique, type ApiResult } from "../helpers";

/**
 * The walk of the route permission table (worker/platform/route-permissions.ts): every route whose entry needs one
 * of `needs` is called by a staff member and a STAFF API key holding each single permission (and none). The holder
 * of the right one is not refused with 403; every other caller gets 403 and nothing is written. The walk is split
 * over a few test files (each runs in its own isolate).
 */

const UNKNOWN = "00000000-0000-4000-8000-00000000dead";

/**
 * A request that passes each route's own validation, for the routes whose body is read before the permission is
 * checked (elsewhere `{}` does). Path parameters name nothing that exists, so a permitted caller gets the call's
 * own 404 or 400, never a change to data another test relies on. `refusal`: the code a caller without the permission
 * gets, where it is not PERMISSION_DENIED.
 */
const SAMPLES: Record<string, { body?: unknown; query?: string; alsoHeld?: Permission[]; refusal?: string }> = {
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
  "POST /stores/v2/inventoryItems/increment": {
    body: { incrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", incrementBy: 1 }] },
  },
  "POST /v2/inventoryItems/increment": {
    body: { incrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", incrementBy: 1 }] },
  },
  "POST /stores/v2/inventoryItems/decrement": {
    body: { decrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", decrementBy: 1 }] },
  },
  "POST /v2/inventoryItems/decrement": {
    body: { decrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", decrementBy: 1 }] },
  },
  "POST /v1/orders/:id/refund-status": { body: { status: "FULLY_REFUNDED" } },
  "POST /ecom/v1/orders/:id/refund-status": { body: { status: "FULLY_REFUNDED" } },
  // Refunds answer the spec's refund-blocking reason FORBIDDEN.
  "POST /v1/orders/:id/refunds": { body: { amount: "1.00" }, refusal: "FORBIDDEN" },
  "POST /ecom/v1/orders/:id/refunds": { body: { amount: "1.00" }, refusal: "FORBIDDEN" },
  // A source takes stock updates (the only type a source may take), which needs inventory.write as well.
  "POST /api/v1/webhook-sources": { body: { name: "walk-source" }, alsoHeld: ["inventory.write"] },
  "PATCH /api/v1/webhook-sources/:id": { body: { enabled: false } },
  "POST /api/v1/webhook-sources/:id/rotate": { body: {} },
  // A loopback port nothing listens on and an event type nothing sends: the subscription made never reaches out.
  "POST /api/v1/webhook-subscriptions": { body: { url: "http://127.0.0.1:9/walk", eventTypes: ["test.walk.never-sent"] } },
  "PATCH /api/v1/webhook-subscriptions/:id": { body: { enabled: false } },
  "POST /ecom/v1/abandoned-checkouts/:id/add-activity": { body: { customActivity: { title: "Called" } } },
  "POST /v1/abandoned-checkouts/:id/add-activity": { body: { customActivity: { title: "Called" } } },
  "PATCH /api/v1/automation-settings": { body: { settings: { lowStockThreshold: 3 } } },
};

function requestOf(route: string): { method: string; path: string; body?: unknown } {
  const [method, pattern] = route.split(" ");
  const path = pattern.replace(/:[A-Za-z]+/g, UNKNOWN);
  const sample = SAMPLES[route];
  return {
    method,
    path: sample?.query ? `${path}?${sample.query}` : path,
    body: sample ? sample.body : method === "GET" || method === "DELETE" ? undefined : {},
  };
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
  holds: Permission | "all" | null;
}

async function staffKeyWith(permissions: Permission[]): Promise<string> {
  const res = await merchant("POST", "/api/v1/api-keys", { name: `walk ${permissions.join(",") || "none"}`, role: "STAFF", permissions });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.key;
}

/** Walks every route whose entry needs one of `needs` (and, with `staffReads`, checks the staff reads too). */
export function walkRoutes(needs: Need[], opts: { staffReads?: boolean } = {}): void {
  describe(`every route that needs ${needs.join(", ")}, walked with each single permission`, () => {
    const callers: Caller[] = [];

    beforeAll(async () => {
      // A product of the merchant's own, so the demo-catalogue call finds the store not empty and loads nothing.
      await createProduct({ name: `Walk ${unique()}` });
      for (const p of [...PERMISSIONS, null]) {
        const list = p ? [p] : [];
        callers.push({ label: `staff member holding ${p ?? "nothing"}`, key: (await staffWith(list)).token, holds: p });
        callers.push({ label: `STAFF key holding ${p ?? "nothing"}`, key: await staffKeyWith(list), holds: p });
      }
    });

    const walked = Object.entries(ROUTE_PERMISSIONS).filter(([, rule]) => needs.includes(rule.needs));

    for (const [route, rule] of walked) {
      // Twelve callers a route: generous on a shared 2-core machine.
      it(`${route} (${rule.needs})`, { timeout: 180_000 }, async () => {
        const { method, path, body } = requestOf(route);
        // A call whose sample also needs other permissions: its rightful holder holds them all; single holders are refused.
        const alsoHeld = SAMPLES[route]?.alsoHeld ?? [];
        const rightful = alsoHeld.length
          ? [
              {
                label: `staff member holding ${[rule.needs, ...alsoHeld].join(" + ")}`,
                key: (await staffWith([rule.needs as Permission, ...alsoHeld])).token,
                holds: "all" as const,
              },
            ]
          : [];
        for (const caller of [...callers, ...rightful]) {
          const res = await api(method, path, { key: caller.key, body });
          const what = `${caller.label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
          if (caller.holds === "all" || (!alsoHeld.length && caller.holds !== null && caller.holds === rule.needs)) {
            expect(res.status, what).not.toBe(403);
            expect(res.status, what).toBeLessThan(500);
          } else {
            expect(res.status, what).toBe(403);
            expect(res.body.details?.applicationError?.code, what).toBe(SAMPLES[route]?.refusal ?? "PERMISSION_DENIED");
            expect(writesOf(res), what).toEqual({ rows: 0, kv: 0 });
          }
        }
      });
    }

    if (opts.staffReads)
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
}
