import { describe, expect, it } from "vitest";
import { PERMISSIONS, type Permission } from "#worker/platform/context";
import { api, catalogueSnapshot, createProduct, merchant, staffWith, unique } from "../helpers";

/**
 * Staff permissions: the owner grants each staff member named permissions, and every merchant write
 * checks its permission in the service, so the API (and the console, which calls the same services) refuses a staff
 * member who lacks it with 403 and writes nothing, and lets one who holds it through. Reads need only the staff role.
 */

const UNKNOWN = "00000000-0000-4000-8000-00000000dead";

/**
 * One call per guarded write, grouped by the permission it needs. Calls on an unknown id are used where the write
 * needs a target: the permission is checked first, so without it the answer is 403, and with it the call goes on to
 * its own 404 (or succeeds).
 */
const WRITES: Record<Permission, { name: string; call: (token: string) => Promise<{ status: number }> }[]> = {
  "catalog.write": [
    {
      name: "create a product",
      call: (t) => api("POST", "/v1/products", { key: t, body: { product: { name: `P ${unique()}`, priceData: { price: 5 } } } }),
    },
    { name: "update a product", call: (t) => api("PATCH", `/v1/products/${UNKNOWN}`, { key: t, body: { product: { name: "New name" } } }) },
    { name: "delete a product", call: (t) => api("DELETE", `/v1/products/${UNKNOWN}`, { key: t }) },
    { name: "create a collection", call: (t) => api("POST", "/v1/collections", { key: t, body: { collection: { name: `C ${unique()}` } } }) },
    {
      name: "upload media",
      // A text file: the permission is checked before the body is read, so a holder gets the file's own 400.
      call: (t) =>
        api("POST", "/api/media", {
          key: t,
          contentType: "multipart/form-data; boundary=XyZ",
          rawBody:
            '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nnot a png\r\n--XyZ--\r\n',
        }),
    },
    {
      name: "bulk update",
      call: (t) => api("POST", "/v1/bulk/products/update", { key: t, body: { productIds: [UNKNOWN], set: { ribbon: "Sale" } } }),
    },
  ],
  "inventory.write": [
    {
      name: "increment stock",
      call: (t) =>
        api("POST", "/v2/inventoryItems/increment", {
          key: t,
          body: { incrementData: [{ productId: UNKNOWN, variantId: "00000000-0000-0000-0000-000000000000", incrementBy: 1 }] },
        }),
    },
    {
      name: "update an inventory item",
      call: (t) => api("PATCH", `/v2/inventoryItems/product/${UNKNOWN}`, { key: t, body: { inventoryItem: { trackQuantity: false } } }),
    },
  ],
  "orders.write": [
    { name: "mark an order paid", call: (t) => api("POST", `/ecom/v1/orders/${UNKNOWN}/mark-as-paid`, { key: t, body: {} }) },
    { name: "cancel an order", call: (t) => api("POST", `/ecom/v1/orders/${UNKNOWN}/cancel`, { key: t, body: { restockAllItems: true } }) },
    {
      name: "fulfil an order",
      call: (t) =>
        api("POST", `/ecom/v1/orders/${UNKNOWN}/fulfillments`, { key: t, body: { trackingInfo: { trackingNumber: "1Z", shippingProvider: "UPS" } } }),
    },
    {
      name: "set the refund status",
      call: (t) => api("POST", `/ecom/v1/orders/${UNKNOWN}/refund-status`, { key: t, body: { status: "FULLY_REFUNDED" } }),
    },
  ],
  "automations.manage": [
    {
      name: "change automation settings",
      call: (t) => api("PATCH", "/api/v1/automation-settings", { key: t, body: { settings: { lowStockThreshold: 3 } } }),
    },
    { name: "complete a task", call: (t) => api("POST", `/api/v1/tasks/${UNKNOWN}/complete`, { key: t }) },
    // A loopback port nothing listens on and an event type nothing sends: the subscription made never reaches out.
    {
      name: "create a webhook subscription",
      call: (t) =>
        api("POST", "/api/v1/webhook-subscriptions", {
          key: t,
          body: { url: "http://127.0.0.1:9/hook", eventTypes: [`test.permissions.${unique()}`] },
        }),
    },
    { name: "replay a failed event", call: (t) => api("POST", `/api/v1/events/failures/${UNKNOWN}/replay`, { key: t }) },
    { name: "run the sweeps", call: (t) => api("POST", "/api/v1/events/sweep", { key: t }) },
  ],
  "settings.manage": [
    {
      name: "change pricing settings",
      call: (t) => api("PATCH", "/api/v1/pricing-settings", { key: t, body: { settings: { pricesIncludeTax: false } } }),
    },
    {
      name: "create a coupon",
      call: (t) => api("POST", "/api/v1/coupons", { key: t, body: { coupon: { code: `C${unique().slice(0, 8)}`, name: "Ten", percentOff: 10 } } }),
    },
    { name: "approve a member", call: (t) => api("POST", `/api/v1/members/${UNKNOWN}/approve`, { key: t }) },
  ],
  "members.impersonate": [
    { name: "sign a member on", call: (t) => api("POST", "/v2/sign-on", { key: t, body: { loginId: { email: `sso-${unique()}@example.com` } } }) },
  ],
  "cms.write": [
    {
      name: "create a content page",
      call: (t) =>
        api("POST", "/wix-data/v2/items", {
          key: t,
          body: { dataCollectionId: "Pages", dataItem: { data: { slug: `p-${unique()}`, title: "Page" } } },
        }),
    },
    { name: "remove a content page", call: (t) => api("DELETE", `/wix-data/v2/items/${UNKNOWN}?dataCollectionId=Pages`, { key: t }) },
  ],
};

describe("staff permissions on every merchant write", () => {
  for (const permission of PERMISSIONS) {
    describe(permission, () => {
      for (const write of WRITES[permission]) {
        it(`refuses to ${write.name} without ${permission} (403, nothing written) and allows it with`, async () => {
          // Everything but this one permission.
          const without = await staffWith(PERMISSIONS.filter((p) => p !== permission));
          const before = await catalogueSnapshot();
          const refused = (await write.call(without.token)) as { status: number; body: any };
          expect(refused.status, JSON.stringify(refused.body)).toBe(403);
          expect(refused.body.details?.applicationError?.description).toMatch(new RegExp(permission.replace(".", "\\.")));
          expect(await catalogueSnapshot()).toEqual(before);

          const holder = await staffWith([permission]);
          const allowed = (await write.call(holder.token)) as { status: number; body: any };
          expect(allowed.status, JSON.stringify(allowed.body)).not.toBe(403);
          expect(allowed.status).toBeLessThan(500);
        });
      }
    });
  }
});

describe("stock set through a product update", () => {
  it("needs inventory.write as well as catalog.write (a stock change like any other)", async () => {
    const product = await createProduct({ name: `Stocked ${unique()}`, priceData: { price: 5 } });
    const patch = { product: { stock: { trackInventory: true, quantity: 5 } } };
    const catalogOnly = await staffWith(["catalog.write"]);
    const refused = (await api("PATCH", `/v1/products/${product.id}`, { key: catalogOnly.token, body: patch })) as { status: number; body: any };
    expect(refused.status).toBe(403);
    expect(refused.body.details?.applicationError?.description).toMatch(/inventory\.write/);
    // A rename alone is fine with catalog.write.
    expect((await api("PATCH", `/v1/products/${product.id}`, { key: catalogOnly.token, body: { product: { name: "Renamed" } } })).status).toBe(200);
    const both = await staffWith(["catalog.write", "inventory.write"]);
    const allowed = (await api("PATCH", `/v1/products/${product.id}`, { key: both.token, body: patch })) as { status: number; body: any };
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(allowed.body.product.stock.quantity).toBe(5);
  });
});

describe("granting and reading permissions", () => {
  it("the owner sets a staff member's permissions through PATCH /api/v1/staff/{id}; it applies on their next request", async () => {
    const staff = await staffWith([]);
    const product = await createProduct({ name: `Granted ${unique()}` });
    const attempt = () => api("PATCH", `/v1/products/${product.id}`, { key: staff.token, body: { product: { name: "Renamed by staff" } } });
    expect((await attempt()).status).toBe(403);

    const granted = await merchant("PATCH", `/api/v1/staff/${staff.id}`, { permissions: ["catalog.write", "catalog.write"] });
    expect(granted.status).toBe(200);
    expect(granted.body.staffMember.permissions).toEqual(["catalog.write"]);
    expect((await attempt()).status).toBe(200);

    await merchant("PATCH", `/api/v1/staff/${staff.id}`, { permissions: [] });
    expect((await attempt()).status).toBe(403);
  });

  it("refuses unknown permissions, and only the owner may grant them", async () => {
    const staff = await staffWith(["catalog.write", "settings.manage"]);
    const bad = await merchant("PATCH", `/api/v1/staff/${staff.id}`, { permissions: ["everything"] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.validationError.fieldViolations[0].field).toBe("permissions[0]");
    const self = await api("PATCH", `/api/v1/staff/${staff.id}`, { key: staff.token, body: { permissions: [...PERMISSIONS] } });
    expect(self.status).toBe(403);
    const listed = await api("GET", "/api/v1/staff", { key: staff.token });
    expect(listed.body.staff.find((s: { id: string }) => s.id === staff.id).permissions).toEqual(["catalog.write", "settings.manage"]);
  });

  it("a staff member without any permission can still read merchant data", async () => {
    const staff = await staffWith([]);
    expect((await api("POST", "/ecom/v1/orders/search", { key: staff.token, body: {} })).status).toBe(200);
    expect((await api("GET", "/api/v1/tasks", { key: staff.token })).status).toBe(200);
    expect((await api("POST", "/v2/inventoryItems/query", { key: staff.token, body: { query: {} } })).status).toBe(200);
  });

  it("invites a staff member with permissions", async () => {
    const email = `invited-${unique()}@example.com`;
    const res = await merchant("POST", "/api/v1/staff", { email, permissions: ["orders.write"] });
    expect(res.status).toBe(200);
    expect(res.body.staffMember).toMatchObject({ email, role: "STAFF", status: "PENDING", permissions: ["orders.write"] });
  });
});
