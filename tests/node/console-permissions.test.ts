import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_ACTIONS } from "#web/components/console/action-permissions";
import { PERMISSION_LABELS, PERMISSIONS, type Permission } from "#worker/platform/context";
import { consoleAccount, consoleCookie, postConsoleForm } from "./console-fixtures";
import { BROWSER_UA, startWorker, type RunningWorker } from "./worker";

/**
 * The console's side of the permission table (web/components/console/action-permissions.ts): it names every page
 * with a form action, and each action that needs a permission (or the owner) is refused, with 403 and no D1 write,
 * to a staff member holding any single other permission (or none).
 */

const root = path.resolve(import.meta.dirname, "../..");
const UNKNOWN = "00000000-0000-4000-8000-00000000dead";

/** Fields that get each form past its own checks to the service's (ids name nothing, so nothing could change). */
const FIELDS: Record<string, Record<string, string>> = {
  "/console/staff invite": { email: "console-walk@example.com" },
  "/console/settings/api-keys create": { name: "Walk", role: "STAFF" },
  "/console/settings ": { name: "Walked shop", "checkoutHeader.logoSize": "MEDIUM", "checkoutHeader.alignment": "CENTER" },
  "/console/products/new save": { "product.name": "Walked", "product.priceData.price": "5" },
  "/console/products/:productId save": { "product.name": "Walked", "product.priceData.price": "5" },
  "/console/collections/new ": { name: "Walked" },
  "/console/collections/:id save": { name: "Walked", slug: "walked", description: "" },
  "/console/collections/:id add": { productId: UNKNOWN },
  "/console/collections/:id remove": { productId: UNKNOWN },
  "/console/collections/:id delete": { confirm: "yes" },
  "/console/inventory ": { lowStockThreshold: "3" },
  "/console/inventory/:productId adjust": { amount: "1", variantId: UNKNOWN, direction: "add" },
  "/console/automations/carts/:id ": { "customActivity.title": "Called the shopper" },
  "/console/automations/back-in-stock/item report": { "?": `productId=${UNKNOWN}&variantId=${UNKNOWN}` },
  "/console/webhooks/sources/:id rotate": { overlapMinutes: "60" },
  "/console/automations/tasks done": { taskId: UNKNOWN },
  "/console/automations/tasks reopen": { taskId: UNKNOWN },
  "/console/webhooks create-source": { name: "walk-source" },
  "/console/webhooks create-subscription": { url: "http://127.0.0.1:9/walk", eventTypes: "test.walk.never-sent" },
  "/console/webhooks source-enabled": { id: UNKNOWN, enabled: "false" },
  "/console/webhooks subscription-enabled": { id: UNKNOWN, enabled: "false" },
  "/console/webhooks/sources/:id enabled": { enabled: "false" },
  "/console/webhooks/sources/:id remove-key": { keyId: UNKNOWN },
  "/console/webhooks/sources/:id delete": { confirm: "yes" },
  "/console/webhooks/subscriptions/:id enabled": { enabled: "false" },
  "/console/webhooks/subscriptions/:id redeliver": { deliveryId: UNKNOWN },
  "/console/webhooks/subscriptions/:id delete": { confirm: "yes" },
  "/console/events replay": { id: UNKNOWN },
  "/console/settings/members approve": { id: UNKNOWN },
  "/console/settings/members reject": { id: UNKNOWN },
  "/console/settings/members block": { id: UNKNOWN },
  "/console/settings/members unblock": { id: UNKNOWN },
  "/console/staff permissions": { id: UNKNOWN },
  "/console/staff resend": { id: UNKNOWN },
  "/console/staff block": { id: UNKNOWN },
  "/console/staff unblock": { id: UNKNOWN },
  "/console/settings/api-keys permissions": { id: UNKNOWN },
  "/console/settings/api-keys revoke": { id: UNKNOWN, name: "x" },
  "/console/orders/:orderId fulfil": { "lineItems[0].id": UNKNOWN, "lineItems[0].quantity": "1", "trackingInfo.trackingNumber": "1Z" },
  "/console/orders/:orderId refund": { status: "FULLY_REFUNDED" },
  "/console/orders/:orderId refund-payment": { all: "on", confirm: "yes" },
  "/console/products/:id/media remove": { mediaId: UNKNOWN },
  "/console/products/:id/media alt": { mediaId: UNKNOWN, altText: "A mug" },
  "/console/products/:id/media reorder": { order: UNKNOWN },
  "/console/products/:id/media choice": { mediaId: UNKNOWN, choice: '["Colour","Red"]' },
  "/console/products ": { op: "ribbon-clear", ids: UNKNOWN },
  "/console/pricing/tax ": { "settings.taxableAddress": "SHIPPING" },
};

/** A CSV file posted as the import page's form does (multipart), with a console cookie. */
function postCsv(w: RunningWorker, cookie: string, page: string): Promise<Response> {
  const body =
    '--WalkBoundary\r\nContent-Disposition: form-data; name="file"; filename="walk.csv"\r\nContent-Type: text/csv\r\n\r\nhandleId,fieldType,name,price\nwalk,Product,Walked,5\n\r\n--WalkBoundary--\r\n';
  const headers = { "content-type": "multipart/form-data; boundary=WalkBoundary", origin: w.url, cookie, "user-agent": BROWSER_UA };
  return w.fetch(page, { method: "POST", headers, body, redirect: "manual" });
}

/** The console pages (route patterns) whose module has a form action, from the route config. */
function pagesWithActions(): string[] {
  const config = readFileSync(path.join(root, "web/routes.ts"), "utf8");
  const pages: string[] = [];
  for (const m of config.matchAll(/(?:route\("([^"]*)",\s*|index\()"(routes\/console\/[^"]+)"/g)) {
    const file = readFileSync(path.join(root, "web", m[2]), "utf8");
    if (!/export (async function|const) action\b|export \{[^}]*\baction\b/.test(file)) continue;
    const sub = m[1] ?? "";
    pages.push(sub.startsWith("console/") ? `/${sub}` : sub ? `/console/${sub}` : "/console");
  }
  return pages;
}

describe("the console's action permission table", () => {
  it("names every console page that has a form action", () => {
    const pages = pagesWithActions();
    expect(pages.length).toBeGreaterThan(30);
    const listed = new Set(Object.keys(CONSOLE_ACTIONS).map((k) => k.slice(0, k.indexOf(" "))));
    expect(pages.filter((p) => !listed.has(p))).toEqual([]);
    expect([...listed].filter((p) => !pages.includes(p))).toEqual([]);
  });
});

describe("every console action that needs a permission or the owner, posted by staff holding a wrong one", () => {
  let w: RunningWorker;
  const staff = new Map<Permission | null, string>();

  beforeAll(async () => {
    w = await startWorker();
    for (const p of [...PERMISSIONS, null]) {
      const account = await consoleAccount(w, "STAFF", p ? [p] : []);
      staff.set(p, await consoleCookie(w, account));
    }
  }, 120_000);
  afterAll(() => w?.dispose());

  const walked = Object.entries(CONSOLE_ACTIONS).filter(([, needs]) => needs !== "public");
  for (const [action, needs] of walked) {
    it(`${action} (${needs})`, { timeout: 120_000 }, async () => {
      const [pattern, intent] = [action.slice(0, action.indexOf(" ")), action.slice(action.indexOf(" ") + 1)];
      const { "?": query, ...sample } = FIELDS[action] ?? {};
      const page = pattern.replace(/:[A-Za-z]+/g, UNKNOWN) + (query ? `?${query}` : "");
      const fields = { ...(intent ? { intent } : {}), ...sample };
      for (const [holds, cookie] of staff) {
        if (holds !== null && holds === needs) continue;
        const res = action === "/console/products/import " ? await postCsv(w, cookie, page) : await postConsoleForm(w, cookie, page, fields);
        const body = await res.text();
        const what = `staff holding ${holds ?? "nothing"}: ${res.status} ${body
          .replace(/<[^>]+>/g, " ")
          .replace(/\s+/g, " ")
          .slice(0, 200)}`;
        expect(res.status, what).toBe(403);
        expect(res.headers.get("server-timing") ?? "", what).toContain('d1-writes;desc="0 rows written"');
      }
    });
  }

  it("the holder of the right permission is not refused (a sample of actions)", { timeout: 120_000 }, async () => {
    const samples: [string, Permission][] = [
      ["/console/settings/members block", "settings.manage"],
      ["/console/orders/:orderId mark-paid", "orders.write"],
      ["/console/events replay", "automations.manage"],
      ["/console/collections/:id add", "catalog.write"],
    ];
    for (const [action, holds] of samples) {
      const [pattern, intent] = action.split(" ");
      const res = await postConsoleForm(w, staff.get(holds)!, pattern.replace(/:[A-Za-z]+/g, UNKNOWN), { intent, ...FIELDS[action] });
      expect(res.status, action).not.toBe(403);
      expect(res.status, action).toBeLessThan(500);
    }
  });
});

describe("API keys' permissions in the console", () => {
  let w: RunningWorker;
  beforeAll(async () => {
    w = await startWorker();
  }, 120_000);
  afterAll(() => w?.dispose());

  it("the owner chooses a STAFF key's permissions at creation, sees them in the list and changes them", { timeout: 120_000 }, async () => {
    const owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    const created = await postConsoleForm(w, owner, "/console/settings/api-keys", {
      intent: "create",
      name: "Stock sync",
      role: "STAFF",
      permissions: ["inventory.write", "orders.write"],
    });
    expect(created.status).toBe(200);
    const key = /data-testid="new-api-key">(sk_[A-Za-z0-9_-]+)</.exec(await created.text())?.[1];
    expect(key).toBeTruthy();
    const row = await w.db.prepare("SELECT id, permissions FROM api_keys WHERE name = 'Stock sync'").first<{ id: string; permissions: string }>();
    expect(JSON.parse(row!.permissions)).toEqual(["inventory.write", "orders.write"]);

    const page = await (await w.fetch("/console/settings/api-keys", { headers: { cookie: owner, "user-agent": BROWSER_UA } })).text();
    for (const p of PERMISSIONS) expect(page).toContain(PERMISSION_LABELS[p]);
    const ticked = [...page.matchAll(/name="permissions" checked="" value="([a-z.]+)"/g)].map((m) => m[1]);
    expect(ticked).toEqual(["inventory.write", "orders.write"]);

    // The key holds what was chosen: orders yes, catalogue no.
    const write = (k: string) =>
      w.fetch("/v1/products", {
        method: "POST",
        headers: { authorization: k, "content-type": "application/json" },
        body: JSON.stringify({ product: { name: "Keyed", priceData: { price: 1 } } }),
      });
    expect((await write(key!)).status).toBe(403);
    const changed = await postConsoleForm(w, owner, "/console/settings/api-keys", {
      intent: "permissions",
      id: row!.id,
      permissions: ["catalog.write"],
    });
    expect(changed.status).toBe(200);
    expect((await write(key!)).status).toBe(200);
  });
});
