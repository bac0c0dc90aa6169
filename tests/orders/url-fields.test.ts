import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { orderView } from "#web/components/account/order.server";
import { addToCartRequest, cartInfoSchema } from "#worker/cart/schemas";
import { collectionInputSchema, mediaRequest } from "#worker/catalog/schemas";
import { createSubscriptionRequest, updateSubscriptionRequest } from "#worker/webhooks/subscriptions";
import { redirectUriProblem } from "#worker/identity/clients";
import { fulfillmentRequest } from "#worker/orders/schemas";
import { httpHref } from "#worker/platform/urls";
import { httpUrl } from "#worker/platform/validation";
import { api, createProduct, merchant, unique } from "../helpers";
import { cartCalls, newVisitor, STORES } from "../cart/cart-fixtures";
import { trackedProduct } from "./inventory-fixtures";
import { placedOrder } from "./order-fixtures";

/**
 * Every URL the API or the console takes is an http(s) URL (platform/urls.ts, validation.ts httpUrl), so no stored
 * link can run script or open a local file when a page or an email makes a link of it; pages also re-check stored
 * URLs before linking them (rows stored before the rule).
 */

const HOSTILE = [
  "javascript:alert(1)",
  "JavaScript:alert(document.cookie)",
  " javascript:alert(1)",
  "java\tscript:alert(1)",
  "\u0001javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "ftp://example.com/x",
  "not a url",
];
/** Fields that also take a path on this site refuse what a browser reads as another host. */
const NOT_A_PATH = ["//evil.example/x.png", "/\\evil.example/x.png"];

const violations = (schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } }, input: unknown) => {
  const r = schema.safeParse(input);
  return r.success ? [] : r.error!.issues.map((i) => i.path.join("."));
};

describe("URL fields", () => {
  it("a fulfilment with a javascript: tracking link gets 400 and writes nothing", async () => {
    const p = await trackedProduct(5);
    const o = await placedOrder(p.id, 1);
    const count = async () => ({
      fulfillments: (await env.DB.prepare("SELECT count(*) AS n FROM order_fulfillments WHERE order_id = ?").bind(o.orderId).first<{ n: number }>())!
        .n,
      activities: (await env.DB.prepare("SELECT count(*) AS n FROM order_activities WHERE order_id = ?").bind(o.orderId).first<{ n: number }>())!.n,
      order: await env.DB.prepare("SELECT fulfillment_status, updated_date FROM orders WHERE id = ?").bind(o.orderId).first(),
    });
    const before = await count();
    for (const body of [
      { trackingInfo: { trackingNumber: "1Z", trackingLink: "javascript:alert(1)" } },
      { fulfillment: { trackingInfo: { trackingNumber: "1Z", trackingLink: "javascript:alert(1)" } } },
      { trackingInfo: { trackingNumber: "1Z", trackingLink: "data:text/html,<script>alert(1)</script>" } },
    ]) {
      const res = await merchant("POST", `/ecom/v1/orders/${o.orderId}/fulfillments`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0].field).toMatch(/trackingInfo\.trackingLink$/);
    }
    expect(await count()).toEqual(before);
    const ok = await merchant("POST", `/ecom/v1/orders/${o.orderId}/fulfillments`, {
      trackingInfo: { trackingNumber: "1Z", trackingLink: "https://track.example/1Z" },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });

  // Every URL field changed, each with a builder of its input: [name, schema, input for a URL, field path].
  const fields: [string, Parameters<typeof violations>[0], (url: string) => unknown, string, { sitePath?: boolean }][] = [
    ["fulfilment trackingLink", fulfillmentRequest, (url) => ({ trackingInfo: { trackingLink: url } }), "trackingInfo.trackingLink", {}],
    [
      "fulfilment fulfillment.trackingLink",
      fulfillmentRequest,
      (url) => ({ fulfillment: { trackingInfo: { trackingLink: url } } }),
      "fulfillment.trackingInfo.trackingLink",
      {},
    ],
    ["product media url", mediaRequest, (url) => ({ media: [{ url }] }), "media.0.url", { sitePath: true }],
    [
      "product media thumbnailUrl",
      mediaRequest,
      (url) => ({ media: [{ url: "https://cdn.example/v.mp4", thumbnailUrl: url }] }),
      "media.0.thumbnailUrl",
      { sitePath: true },
    ],
    ["collection media url", collectionInputSchema, (url) => ({ name: "C", media: { url } }), "media.url", { sitePath: true }],
    [
      "custom line item media (string)",
      addToCartRequest,
      (url) => ({ customLineItems: [{ quantity: 1, price: "1", productName: { original: "X" }, media: url }] }),
      "customLineItems.0.media",
      { sitePath: true },
    ],
    [
      "custom line item media.url",
      addToCartRequest,
      (url) => ({ customLineItems: [{ quantity: 1, price: "1", productName: { original: "X" }, media: { url } }] }),
      "customLineItems.0.media",
      { sitePath: true },
    ],
    [
      "custom line item url (string)",
      addToCartRequest,
      (url) => ({ customLineItems: [{ quantity: 1, price: "1", productName: { original: "X" }, url }] }),
      "customLineItems.0.url",
      { sitePath: true },
    ],
    [
      "custom line item url.url",
      addToCartRequest,
      (url) => ({ customLineItems: [{ quantity: 1, price: "1", productName: { original: "X" }, url: { url } }] }),
      "customLineItems.0.url",
      { sitePath: true },
    ],
    ["cart overrideCheckoutUrl", cartInfoSchema, (url) => ({ overrideCheckoutUrl: url }), "overrideCheckoutUrl", { sitePath: true }],
    ["webhook subscription url (create)", createSubscriptionRequest, (url) => ({ url, eventTypes: "*" }), "url", {}],
    ["webhook subscription url (update)", updateSubscriptionRequest, (url) => ({ url }), "url", {}],
  ];

  it.each(fields)("%s takes http(s) only", (_name, schema, input, path, opts) => {
    for (const bad of [...HOSTILE, ...NOT_A_PATH]) {
      const found = violations(schema, input(bad));
      expect(
        found.some((f) => f.startsWith(path)),
        `${JSON.stringify(bad)} → ${found.join(", ") || "accepted"}`,
      ).toBe(true);
    }
    expect(violations(schema, input("https://cdn.example/a.png?x=1"))).toEqual([]);
    expect(violations(schema, input("http://localhost:8787/a.png"))).toEqual([]);
    if (opts.sitePath) expect(violations(schema, input("/media/abc.png"))).toEqual([]);
  });

  it("the API refuses a hostile URL in each field shoppers and merchants send, writing nothing", async () => {
    const p = await createProduct({ name: `URL Target ${unique()}`, media: [{ url: "https://cdn.example/a.jpg" }] });
    const before = JSON.stringify((await merchant("GET", `/v1/products/${p.id}`)).body);
    const media = await merchant("POST", `/v1/products/${p.id}/media`, { media: [{ url: "javascript:alert(1)" }] });
    expect(media.status).toBe(400);
    expect(JSON.stringify((await merchant("GET", `/v1/products/${p.id}`)).body)).toBe(before);
    const video = await merchant("POST", `/v1/products/${p.id}/media`, {
      media: [{ url: "https://cdn.example/v.mp4", mediaType: "video", thumbnailUrl: "data:image/png;base64,AAAA" }],
    });
    expect(video.status).toBe(400);
    expect(
      (await merchant("POST", "/v1/collections", { collection: { name: `Bad ${unique()}`, media: { url: "vbscript:msgbox(1)" } } })).status,
    ).toBe(400);
    expect((await merchant("POST", "/api/v1/webhook-subscriptions", { url: "javascript:alert(1)", eventTypes: "*" })).status).toBe(400);

    const v = await newVisitor();
    const cart = cartCalls(v.token);
    expect((await cart.add({ lineItems: [{ catalogReference: { appId: STORES, catalogItemId: p.id }, quantity: 1 }] })).status).toBe(200);
    const patched = await cart.patch({ cartInfo: { overrideCheckoutUrl: "javascript:alert(1)" } });
    expect(patched.status).toBe(400);
    expect((await cart.get()).body.cart.overrideCheckoutUrl).toBeUndefined();

    const bis = await api("POST", "/back-in-stock-service/v1/back-in-stock-notification-requests", {
      body: {
        request: { email: `bis-${unique()}@example.com`, catalogReference: { appId: STORES, catalogItemId: p.id }, itemUrl: "javascript:alert(1)" },
      },
    });
    expect(bis.status).toBe(400);
    expect(bis.body.details.validationError.fieldViolations[0].field).toBe("request.itemUrl");
    const image = await api("POST", "/back-in-stock-service/v1/back-in-stock-notification-requests", {
      body: {
        request: { email: `bis-${unique()}@example.com`, catalogReference: { appId: STORES, catalogItemId: p.id } },
        itemDetails: { image: "data:image/svg+xml,<svg onload=alert(1)>" },
      },
    });
    expect(image.status).toBe(400);
  });

  it("OAuth redirect URIs keep their own rule: custom app schemes for native apps, never script or local ones", () => {
    expect(redirectUriProblem("com.example.app:/callback")).toBeNull();
    expect(redirectUriProblem("https://site.example/callback")).toBeNull();
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "vbscript:msgbox(1)", "file:///etc/passwd"])
      expect(redirectUriProblem(bad), bad).not.toBeNull();
  });

  it("pages link only http(s) URLs, whatever a row stored before the rule holds", () => {
    expect(httpHref("https://track.example/1Z")).toBe("https://track.example/1Z");
    for (const bad of [...HOSTILE, ...NOT_A_PATH, null, 42]) expect(httpHref(bad), String(bad)).toBeNull();
    expect(httpHref("/media/a.png", { sitePath: true })).toBe("/media/a.png");
    expect(httpUrl().safeParse("  https://a.example/x ").data).toBe("https://a.example/x");

    const shape = (trackingLink: string) =>
      orderView({
        id: "o1",
        number: "1",
        purchasedDate: "2026-01-01T00:00:00.000Z",
        status: "APPROVED",
        paymentStatus: "PAID",
        fulfillmentStatus: "FULFILLED",
        lineItems: [],
        activities: [],
        fulfillments: [
          {
            id: "f1",
            lineItems: [{ id: "l1", quantity: 1 }],
            trackingInfo: { trackingNumber: "1Z", trackingLink },
            createdDate: "2026-01-02T00:00:00.000Z",
          },
        ],
      } as never).shipments[0].trackingLink;
    expect(shape("javascript:alert(1)")).toBeNull();
    expect(shape("data:text/html,x")).toBeNull();
    expect(shape("https://track.example/1Z")).toBe("https://track.example/1Z");
  });
});
