import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleCookie, postConsoleForm } from "./console-fixtures";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * Webhooks on the built Worker with ENVIRONMENT=production, over HTTP:
 * - outgoing subscriptions accept only https URLs of public internet hosts: every private, loopback, link-local,
 *   shared, special-purpose or IPv4-in-IPv6 address, in any spelling URL parsing accepts, and every name outside
 *   public DNS (single labels, .internal, .local, wildcard-DNS services, a trailing dot) is a 400 on `url`;
 * - incoming sources in the console: the event types a source may send are picked from the types the shop takes
 *   from outside, and staff without inventory.write cannot set up a source that changes stock.
 * Nothing here is ever sent over the network: no event that a subscription wants is made, and the test checks that
 * creating subscriptions wrote no delivery and no event.
 */

let w: RunningWorker;

beforeAll(async () => {
  w = await startWorker({ bindings: { ENVIRONMENT: "production" } });
});

afterAll(async () => {
  await w?.dispose();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await w.fetch(path, {
    method,
    headers: { authorization: OWNER_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const count = async (table: string) => (await w.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;

// A type nothing in this test emits: a subscription to it never gets a delivery.
const QUIET_TYPE = "com.wix.ecommerce.catalog.api.v1.CollectionDeleted";

const REFUSED_URLS = [
  "https://127.0.0.1/in",
  "https://127.1/in",
  "https://2130706433/in",
  "https://0x7f.0.0.1/in",
  "https://0177.0.0.1/in",
  "https://10.0.0.1/in",
  "https://172.20.1.1/in",
  "https://192.168.0.10/in",
  "https://169.254.169.254/latest/meta-data/",
  "https://100.64.0.1/in",
  "https://100.127.255.254/in",
  "https://0.0.0.0/in",
  "https://198.18.0.1/in",
  "https://192.0.2.1/in",
  "https://224.0.0.1/in",
  "https://255.255.255.255/in",
  "https://[::1]/in",
  "https://[::]/in",
  "https://[::ffff:127.0.0.1]/in",
  "https://[::ffff:10.0.0.1]/in",
  "https://[::ffff:169.254.169.254]/in",
  "https://[::127.0.0.1]/in",
  "https://[64:ff9b::127.0.0.1]/in",
  "https://[2002:7f00:1::1]/in",
  "https://[fd00::1]/in",
  "https://[fc12:3456::1]/in",
  "https://[fe80::1]/in",
  "https://[fec0::1]/in",
  "https://[ff02::1]/in",
  "https://[2001:db8::1]/in",
  "https://localhost/in",
  "https://localhost./in",
  "https://api.localhost/in",
  "https://metadata/in",
  "https://metadata.google.internal/computeMetadata/v1/",
  "https://metadata.google.internal./computeMetadata/v1/",
  "https://printer.local/in",
  "https://router.home.arpa/in",
  "https://shop.test/in",
  "https://hooks.example/in",
  "https://x.invalid/in",
  "https://abc.onion/in",
  "https://127.0.0.1.nip.io/in",
  "https://10.0.0.1.sslip.io/in",
  "https://foo.xip.io/in",
  "http://hooks.example.com/in",
];

describe("outgoing webhook targets in production", () => {
  it("refuses every non-public target with 400 on url, and takes a public https URL", async () => {
    const before = await count("webhook_subscriptions");
    for (const url of REFUSED_URLS) {
      const res = await call("POST", "/api/v1/webhook-subscriptions", { url, eventTypes: [QUIET_TYPE] });
      expect(res.status, url).toBe(400);
      const [violation] = res.body.details.validationError.fieldViolations;
      expect(violation.field, url).toBe("url");
      expect(violation.description, url).toMatch(url.startsWith("http:") ? /^must use https$/ : /^must be a public address: .+ is /);
    }
    expect(await count("webhook_subscriptions")).toBe(before);

    const created = await call("POST", "/api/v1/webhook-subscriptions", { url: "https://hooks.example.com/in", eventTypes: [QUIET_TYPE] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.subscription).toMatchObject({ url: "https://hooks.example.com/in", enabled: true });
    const v6 = await call("POST", "/api/v1/webhook-subscriptions", { url: "https://[2606:4700:4700::1111]/in", eventTypes: [QUIET_TYPE] });
    expect(v6.status, JSON.stringify(v6.body)).toBe(200);

    // Moving a subscription to a refused address is refused the same way.
    for (const url of ["https://[::ffff:7f00:1]/in", "https://localhost./in", "https://100.100.100.200/in"]) {
      const res = await call("PATCH", `/api/v1/webhook-subscriptions/${created.body.subscription.id}`, { url });
      expect(res.status, url).toBe(400);
    }
    expect((await call("GET", `/api/v1/webhook-subscriptions/${created.body.subscription.id}`)).body.subscription.url).toBe(
      "https://hooks.example.com/in",
    );

    // Creating a subscription sends nothing: no delivery and no event exist.
    expect(await count("webhook_deliveries")).toBe(0);
    expect(await count("outbox")).toBe(0);
  });
});

describe("incoming webhook sources in the production console", () => {
  const page = async (cookie: string, path: string) => (await w.fetch(path, { headers: { cookie, "user-agent": BROWSER_UA } })).text();

  it("sets the types a source may send; staff without inventory.write cannot set up a stock source", async () => {
    const owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    const automator = await consoleCookie(w, await consoleAccount(w, "STAFF", ["automations.manage"]));

    // The form offers only the types the shop takes from outside.
    const form = await page(owner, "/console/webhooks");
    const offered = [...form.matchAll(/<input type="checkbox" id="source-type-\d+" name="eventTypes"[^>]*value="([^"]+)"/g)].map((m) => m[1]);
    expect(offered).toEqual(["inventory.updated"]);

    // An internal type posted anyway, or none at all: 400 with the reason, nothing created.
    const internal = await postConsoleForm(w, owner, "/console/webhooks", {
      intent: "create-source",
      name: "sneaky",
      format: "standard",
      eventTypes: "wix.stores.catalog.v3.inventory_item_stock_status_updated",
    });
    expect(internal.status).toBe(400);
    expect(await internal.text()).toContain("is an internal event type");
    const none = await postConsoleForm(w, owner, "/console/webhooks", { intent: "create-source", name: "empty", format: "standard" });
    expect(none.status).toBe(400);
    expect(await none.text()).toMatch(/must name at least one event type/i);
    expect(await count("webhook_sources")).toBe(0);

    // Staff who may manage automations but not change stock: 403, nothing created.
    const refused = await postConsoleForm(w, automator, "/console/webhooks", {
      intent: "create-source",
      name: "sidedoor",
      format: "standard",
      eventTypes: "inventory.updated",
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("inventory.write");
    expect(await count("webhook_sources")).toBe(0);

    const created = await postConsoleForm(w, owner, "/console/webhooks", {
      intent: "create-source",
      name: "warehouse",
      format: "standard",
      eventTypes: "inventory.updated",
    });
    expect(created.status).toBe(200);
    const source = (await w.db
      .prepare("SELECT id, event_types, configured_by FROM webhook_sources WHERE name = 'warehouse'")
      .first<{ id: string; event_types: string; configured_by: string }>())!;
    expect(JSON.parse(source.event_types)).toEqual(["inventory.updated"]);
    expect(JSON.parse(source.configured_by)).toMatchObject({ kind: "member", role: "OWNER" });
    const detailRes = await w.fetch(`/console/webhooks/sources/${source.id}`, { headers: { cookie: owner, "user-agent": BROWSER_UA } });
    // The configurer's rights are read in the same batch as the source (the session is the other round trip).
    expect(Number(/desc="(\d+) round trips"/.exec(detailRes.headers.get("server-timing") ?? "")?.[1])).toBeLessThanOrEqual(2);
    const detail = await detailRes.text();
    expect(detail).toContain("May send");
    expect(detail).toContain("Set or adjust stock counts");
    expect(detail).toContain("The owner");

    // The staff member cannot rotate it, nor save its types; the owner's source stays as it was.
    const attempts: Record<string, string>[] = [
      { intent: "rotate", overlapMinutes: "60" },
      { intent: "event-types", eventTypes: "inventory.updated" },
    ];
    for (const fields of attempts) {
      const res = await postConsoleForm(w, automator, `/console/webhooks/sources/${source.id}`, fields);
      expect(res.status, fields.intent).toBe(403);
    }
    expect(
      (await w.db.prepare("SELECT configured_by FROM webhook_sources WHERE id = ?").bind(source.id).first<{ configured_by: string }>())!
        .configured_by,
    ).toBe(source.configured_by);
  });
});
