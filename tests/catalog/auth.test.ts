import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "#worker/platform/ids";
import { api, createProduct, getQuery, merchant, OWNER_KEY, outboxRows, settledCatalogueSnapshot as snapshot, unique } from "../helpers";

/** Who may call the catalogue: every write needs the merchant's API key; reads are open to everyone. */

let productId: string;
let collectionId: string;
let mediaId: string;
let variantId: string;

beforeAll(async () => {
  const p = await createProduct({
    name: `Guarded ${unique()}`,
    brand: "Fernhill",
    ribbon: "New",
    manageVariants: true,
    productOptions: [{ name: "Color", optionType: "color", choices: [{ value: "#1F3A5F", description: "Navy" }] }],
    media: [{ url: "https://cdn.example.com/a.jpg" }],
  });
  productId = p.id;
  mediaId = p.media.items[0].id;
  variantId = p.variants[0].id;
  const c = await merchant("POST", "/v1/collections", { collection: { name: `Guarded ${unique()}` } });
  expect(c.status).toBe(200);
  collectionId = c.body.collection.id;
});

/** Every catalogue write, with a body that would succeed for the merchant. */
function writeRoutes(): [string, string, unknown][] {
  const id = productId;
  return [
    ["POST", "/v1/products", { product: { name: `Intruder ${unique()}`, priceData: { price: 1 } } }],
    ["PATCH", `/v1/products/${id}`, { product: { name: "Defaced" } }],
    ["PATCH", `/v1/products/${id}/variants`, { variants: [{ variantIds: [variantId], price: 0 }] }],
    ["POST", `/v1/products/${id}/variants/resetToDefault`, {}],
    ["POST", `/v1/products/${id}/media`, { media: [{ url: "https://cdn.example.com/b.jpg" }] }],
    ["PATCH", `/v1/products/${id}/choices/media`, { media: [{ option: "Color", choice: "Navy", mediaIds: [mediaId] }] }],
    ["POST", `/v1/products/${id}/choices/media/delete`, { media: [{ option: "Color", choice: "Navy", mediaIds: [mediaId] }] }],
    ["POST", `/v1/products/${id}/media/delete`, { mediaIds: [mediaId] }],
    ["DELETE", `/v1/products/${id}/options`, undefined],
    ["POST", `/v1/products/${id}/remove-brand`, {}],
    ["POST", `/v1/products/${id}/remove-ribbon`, {}],
    ["POST", "/v1/bulk/products/update", { ids: [id], set: { price: 0 } }],
    ["POST", "/v1/bulk/products/adjust-properties", { ids: [id], adjust: { price: { amount: 1 } } }],
    ["POST", "/v1/collections", { collection: { name: `Intruder ${unique()}` } }],
    ["PATCH", `/v1/collections/${collectionId}`, { collection: { name: "Defaced" } }],
    ["POST", `/v1/collections/${collectionId}/productIds`, { productIds: [id] }],
    ["POST", `/v1/collections/${collectionId}/productIds/delete`, { productIds: [id] }],
    ["DELETE", `/v1/collections/${collectionId}`, undefined],
    ["DELETE", `/v1/products/${id}`, undefined],
  ];
}

/** The same writes at the gateway prefix the SDK uses. */
const gateway = (routes: [string, string, unknown][]) =>
  routes.map(([m, p, b]) => [m, p.replace(/^\/v1\//, "/stores/v1/"), b] as [string, string, unknown]);

function expect401(res: { status: number; body: any; headers: Headers }, label: string) {
  expect(res.status, label).toBe(401);
  expect(res.body, label).toMatchObject({ message: "Unauthenticated", details: { applicationError: { code: "UNAUTHENTICATED", data: {} } } });
  expect(typeof res.body.details.applicationError.description).toBe("string");
  expect(res.headers.get("x-wix-request-id")).toMatch(/^[0-9a-f-]{36}$/);
}

describe("catalogue writes without the merchant's key", () => {
  it("answer 401 UNAUTHENTICATED without an Authorization header, at both mounts, and change nothing", async () => {
    const before = await snapshot();
    for (const [method, path, body] of [...writeRoutes(), ...gateway(writeRoutes())]) {
      expect401(await api(method, path, { body }), `${method} ${path}`);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("answer 401 for an empty Authorization header (the SDK's client without auth sends one)", async () => {
    const before = await snapshot();
    for (const [method, path, body] of writeRoutes()) expect401(await api(method, path, { body, key: "" }), `${method} ${path}`);
    expect(await snapshot()).toEqual(before);
  });

  it("answer 401 for a wrong key, raw or as a Bearer token, and change nothing", async () => {
    const before = await snapshot();
    for (const key of ["wrong-key", `Bearer wrong-key`, `${OWNER_KEY}x`, "x".repeat(600)]) {
      for (const [method, path, body] of writeRoutes()) expect401(await api(method, path, { body, key }), `${key.slice(0, 20)} ${method} ${path}`);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("check the caller before the body: an anonymous bad body gets 401, not a validation error", async () => {
    const before = await snapshot();
    expect401(await api("POST", "/v1/products", { body: { product: { name: "" } } }), "invalid product");
    expect401(await api("POST", "/v1/products", { rawBody: "{not json" }), "malformed JSON");
    expect401(await api("PATCH", `/v1/products/${productId}/variants`, { body: { variants: "all" } }), "invalid variants");
    expect401(await api("POST", "/v1/bulk/products/update", { body: {} }), "empty bulk");
    expect(await snapshot()).toEqual(before);
  });

  it("answer 401 for a revoked API key", async () => {
    const key = `revoked-${unique()}`;
    await env.DB.prepare("INSERT INTO api_keys (id, name, key_hash, role, created_date, revoked_date) VALUES (?, ?, ?, 'STAFF', ?, ?)")
      .bind(crypto.randomUUID(), "revoked", await sha256Hex(key), new Date().toISOString(), new Date().toISOString())
      .run();
    const before = await snapshot();
    expect401(await api("PATCH", `/v1/products/${productId}`, { body: { product: { name: "Defaced" } }, key }), "revoked key");
    expect(await snapshot()).toEqual(before);
  });
});

describe("catalogue writes with the merchant's key", () => {
  it("accept the raw key (as the SDK's ApiKeyStrategy sends it) and a Bearer token; events name the APP actor", async () => {
    const raw = await api("POST", "/stores/v1/products", {
      body: { product: { name: `Raw Key ${unique()}`, priceData: { price: 2 } } },
      key: OWNER_KEY,
    });
    expect(raw.status).toBe(200);
    const bearer = await api("PATCH", `/stores/v1/products/${raw.body.product.id}`, {
      body: { product: { name: "Bearer Renamed" } },
      key: `Bearer ${OWNER_KEY}`,
    });
    expect(bearer.status).toBe(200);
    expect(bearer.body.product.name).toBe("Bearer Renamed");
    const events = await outboxRows(raw.body.product.id);
    expect(events.map((e: any) => [e.type.split(".").pop(), e.actor_type, e.actor_id])).toEqual([
      ["ProductCreated", "APP", "owner"],
      ["ProductChanged", "APP", "owner"],
    ]);
  });

  it("accept a staff API key created in the console, and record it as the actor", async () => {
    const key = `staff-${unique()}`;
    const keyId = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO api_keys (id, name, key_hash, role, created_date) VALUES (?, ?, ?, 'STAFF', ?)")
      .bind(keyId, "staff", await sha256Hex(key), new Date().toISOString())
      .run();
    const res = await api("POST", "/v1/products", { body: { product: { name: `Staff ${unique()}`, priceData: { price: 3 } } }, key });
    expect(res.status).toBe(200);
    const del = await api("DELETE", `/v1/products/${res.body.product.id}`, { key: `Bearer ${key}` });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    expect((await outboxRows(res.body.product.id)).map((e: any) => [e.actor_type, e.actor_id])).toEqual([
      ["APP", keyId],
      ["APP", keyId],
    ]);
  });

  it("reach every write route (the guard lets the merchant through everywhere)", async () => {
    // The list runs in an order where each call still has what it needs; the last ones delete things.
    for (const [method, path, body] of writeRoutes()) {
      const res = await api(method, path, { body, key: OWNER_KEY });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body).toBeTypeOf("object");
    }
    expect((await merchant("GET", `/v1/products/${productId}`)).status).toBe(404);
  });
});

describe("catalogue reads", () => {
  it("work without any Authorization", async () => {
    const p = await createProduct({ name: `Public ${unique()}`, productOptions: [{ name: "Size", choices: [{ value: "S" }] }] });
    const v = p.variants[0].id;
    const reads: [string, string, unknown?][] = [
      ["GET", `/v1/products/${p.id}`],
      ["GET", `/stores-reader/v1/products/${p.id}?id=${p.id}`],
      ["POST", `/stores-reader/v1/products/${p.id}/productOptionsAvailability`, { id: p.id, options: { Size: "S" } }],
      ["POST", `/stores-reader/v1/products/${p.id}/variants/query`, { id: p.id, choices: { Size: "S" } }],
      ["POST", "/stores-reader/v1/variants/query", { query: { filter: { productId: p.id } } }],
      ["GET", `/stores-reader/v1/variants/${p.id}-${v}?id=${p.id}-${v}`],
      ["POST", "/stores-reader/v1/products/query-platformized", { query: { filter: { id: p.id } } }],
      ["GET", `/stores/v3/products/${p.id}`],
      ["POST", "/stores/v3/products/query", { query: { filter: { id: p.id } } }],
    ];
    for (const [method, path, body] of reads) {
      const res = await api(method, path, { body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    const query = await getQuery("/stores-reader/v1/products/query-platformized", { query: { filter: { id: p.id } } });
    expect(query.body.products.map((x: any) => x.id)).toEqual([p.id]);
  });

  it("refuse a wrong key with 401 rather than silently serving it as a shopper", async () => {
    const p = await createProduct({ name: `Public ${unique()}` });
    expect401(await api("GET", `/v1/products/${p.id}`, { key: "wrong-key" }), "GET product");
    expect401(await api("POST", "/v1/products/query-platformized", { body: {}, key: "wrong-key" }), "query");
  });
});
