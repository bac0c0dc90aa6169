import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createProduct, fetchSettled, merchant, OWNER_KEY, staffWith, unique } from "../helpers";
import { newVisitor } from "../cart/cart-fixtures";
import { fillCheckout, placeOrder, visitorCheckout } from "../orders/order-fixtures";
import { signDownload } from "#worker/downloads/signing";
import { waitFor } from "../wait";

/**
 * Digital delivery: a merchant's file on a digital product, streamed into the private bucket; a paid order's signed
 * links (one email, the buyer's own order), downloads counted under the limit; every refusal with no bytes.
 */

const CARD = { card: { number: "4242 4242 4242 4242", expiry: "12/40", cvc: "123" } };

const bytesOf = (text: string) => new TextEncoder().encode(text);

/** PUT a file's bytes (raw body) as `key`. */
async function upload(
  productId: string,
  body: BodyInit,
  o: { key?: string; fileName?: string; type?: string; variantId?: string; headers?: Record<string, string> } = {},
) {
  const q = new URLSearchParams();
  if (o.fileName !== undefined) q.set("fileName", o.fileName);
  if (o.variantId) q.set("variantId", o.variantId);
  const res = await fetchSettled(`https://shop.test/api/v1/products/${productId}/downloads?${q}`, {
    method: "PUT",
    // In-process requests carry no Content-Length of their own: send it as an HTTP client would.
    headers: {
      authorization: o.key ?? OWNER_KEY,
      "content-type": o.type ?? "application/pdf",
      ...(body instanceof Uint8Array ? { "content-length": String(body.byteLength) } : {}),
      ...o.headers,
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function digitalProduct(content = `guide ${unique()}`) {
  const product = await createProduct({ name: `Guide ${unique()}`, productType: "digital", priceData: { price: 9 } });
  const up = await upload(product.id, bytesOf(content), { fileName: "Brew guide.pdf" });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  return { product, content };
}

/** A visitor's order for the product, paid by the test card (or placed offline). */
async function order(productId: string, paid = true, email = `buyer-${unique()}@example.com`) {
  const v = await visitorCheckout(productId);
  await fillCheckout(v.token, v.checkoutId, email);
  const res = await placeOrder(v.token, v.checkoutId, paid ? { paymentOption: CARD } : { id: v.checkoutId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...v, email, orderId: res.body.orderId as string };
}

const links = (orderId: string, token?: string) => api("GET", `/api/v1/orders/${orderId}/downloads`, { key: token });

/** GET a download link (absolute or a site path). */
async function download(url: string) {
  const u = new URL(url, "https://shop.test");
  const res = await fetchSettled(`https://shop.test${u.pathname}${u.search}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) };
}

const codeOf = (text: string) => JSON.parse(text).details.applicationError.code;

async function signedPath(orderId: string, lineId: string, expires: number) {
  return `/downloads/${orderId}/${lineId}?expires=${expires}&sig=${await signDownload(env, orderId, lineId, expires)}`;
}

describe("uploading a digital product's file", () => {
  it("streams it into the private bucket with its name and type; a replacement and a delete take effect", async () => {
    const { product } = await digitalProduct("first version");
    const list = await merchant("GET", `/api/v1/products/${product.id}/downloads`);
    expect(list.body.files).toMatchObject([{ variantId: null, fileName: "Brew guide.pdf", contentType: "application/pdf", size: 13 }]);
    const replaced = await upload(product.id, bytesOf("second, longer version"), { fileName: "guide-v2.pdf" });
    expect(replaced.status).toBe(200);
    const after = await merchant("GET", `/api/v1/products/${product.id}/downloads`);
    expect(after.body.files).toMatchObject([{ fileName: "guide-v2.pdf", size: 22 }]);
    // The bucket holds the new bytes only (the replaced object is removed).
    const objects = await env.DOWNLOADS.list({ prefix: `downloads/${product.id}/` });
    expect(objects.objects).toHaveLength(1);
    expect(await (await env.DOWNLOADS.get(objects.objects[0].key))!.text()).toBe("second, longer version");
    // Never served by the public media route.
    expect((await fetchSettled(`https://shop.test/media/${objects.objects[0].key}`)).status).toBe(404);
    const deleted = await merchant("DELETE", `/api/v1/products/${product.id}/downloads`);
    expect(deleted.status).toBe(200);
    expect((await merchant("GET", `/api/v1/products/${product.id}/downloads`)).body.files).toEqual([]);
    expect((await merchant("DELETE", `/api/v1/products/${product.id}/downloads`)).status).toBe(404);
  });

  it("refuses an oversized, unmeasured, empty or unnamed upload, and a physical product, storing nothing", async () => {
    const product = await createProduct({ name: `Guide ${unique()}`, productType: "digital" });
    const tooBig = await upload(product.id, bytesOf("x"), { fileName: "a.pdf", headers: { "content-length": String(100 * 1_048_576 + 1) } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.details.applicationError.code).toBe("PAYLOAD_TOO_LARGE");
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(bytesOf("chunked"));
        c.close();
      },
    });
    const unmeasured = await upload(product.id, stream, { fileName: "a.pdf" });
    expect(unmeasured.status).toBe(411);
    expect(unmeasured.body.details.applicationError.code).toBe("LENGTH_REQUIRED");
    const empty = await upload(product.id, new Uint8Array(0), { fileName: "a.pdf" });
    expect(empty.status).toBe(400);
    const unnamed = await upload(product.id, bytesOf("abc"));
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.details.validationError.fieldViolations[0].field).toBe("fileName");
    const physical = await createProduct({ name: `Mug ${unique()}` });
    const refused = await upload(physical.id, bytesOf("abc"), { fileName: "a.pdf" });
    expect(refused.status).toBe(400);
    expect(refused.body.details.applicationError.code).toBe("PRODUCT_NOT_DIGITAL");
    for (const id of [product.id, physical.id]) expect((await env.DOWNLOADS.list({ prefix: `downloads/${id}/` })).objects).toEqual([]);
    expect((await merchant("GET", `/api/v1/products/${product.id}/downloads`)).body.files).toEqual([]);
  });

  it("needs catalog.write: other staff are refused before a byte is stored", async () => {
    const product = await createProduct({ name: `Guide ${unique()}`, productType: "digital" });
    const clerk = await staffWith(["inventory.write"]);
    const refused = await upload(product.id, bytesOf("abc"), { fileName: "a.pdf", key: clerk.token });
    expect(refused.status).toBe(403);
    expect(refused.body.details.applicationError.code).toBe("PERMISSION_DENIED");
    expect((await env.DOWNLOADS.list({ prefix: `downloads/${product.id}/` })).objects).toEqual([]);
    const editor = await staffWith(["catalog.write"]);
    expect((await upload(product.id, bytesOf("abc"), { fileName: "a.pdf", key: editor.token })).status).toBe(200);
    expect((await api("DELETE", `/api/v1/products/${product.id}/downloads`, { key: clerk.token })).status).toBe(403);
  });

  it("keeps a variant's own file apart from the product's", async () => {
    const product = await createProduct({
      name: `Pattern ${unique()}`,
      productType: "digital",
      productOptions: [
        {
          name: "Format",
          choices: [
            { value: "A4", description: "A4" },
            { value: "Letter", description: "Letter" },
          ],
        },
      ],
      manageVariants: true,
    });
    const variant = (await merchant("GET", `/v1/products/${product.id}`)).body.product.variants.find(
      (v: { choices: Record<string, string> }) => v.choices.Format === "Letter",
    );
    expect((await upload(product.id, bytesOf("any"), { fileName: "a4.pdf" })).status).toBe(200);
    expect((await upload(product.id, bytesOf("letter"), { fileName: "letter.pdf", variantId: variant.id })).status).toBe(200);
    expect((await upload(product.id, bytesOf("x"), { fileName: "x.pdf", variantId: "no-such-variant" })).status).toBe(404);
    const files = (await merchant("GET", `/api/v1/products/${product.id}/downloads`)).body.files;
    expect(files.map((f: { variantId: string | null; fileName: string }) => [f.variantId, f.fileName])).toEqual([
      [null, "a4.pdf"],
      [variant.id, "letter.pdf"],
    ]);
  });
});

describe("a paid order's downloads", () => {
  it("emails one link per digital line, once, and the link downloads the file with its headers", async () => {
    const { product, content } = await digitalProduct();
    const o = await order(product.id);
    const mail = await waitFor(
      () =>
        env.DB.prepare("SELECT subject, text, html FROM emails WHERE \"to\" = ? AND template = 'digital-delivery'")
          .bind(o.email)
          .all<{ subject: string; text: string; html: string }>()
          .then((r) => (r.results.length ? r.results : null)),
      "the delivery email",
    );
    expect(mail).toHaveLength(1);
    expect(mail[0].subject).toMatch(/^Your downloads from .+ \(order #\d+\)$/);
    const emailed = /(https?:\/\/\S+\/downloads\/\S+)/.exec(mail[0].text)![1];
    const own = await links(o.orderId, o.token);
    expect(own.status).toBe(200);
    expect(own.body.availability).toBe("AVAILABLE");
    expect(own.body.downloads).toHaveLength(1);
    const link = own.body.downloads[0];
    expect(link).toMatchObject({ productName: product.name, fileName: "Brew guide.pdf", downloadsUsed: 0, downloadLimit: 5 });
    // The page and the email give the same link, valid for 30 days after payment.
    expect(new URL(link.url).search).toBe(new URL(emailed).search);
    const days = (Date.parse(link.expiresDate) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const got = await download(emailed);
    expect(got.status).toBe(200);
    expect(got.text).toBe(content);
    expect(got.headers.get("content-type")).toBe("application/pdf");
    expect(got.headers.get("content-length")).toBe(String(content.length));
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="Brew guide.pdf"; filename*=UTF-8''Brew%20guide.pdf`);
    expect((await links(o.orderId, o.token)).body.downloads[0].downloadsUsed).toBe(1);
    // A HEAD (a mail scanner checking the link) uses up no download.
    const u = new URL(emailed);
    const head = await fetchSettled(`https://shop.test${u.pathname}${u.search}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(content.length));
    expect((await links(o.orderId, o.token)).body.downloads[0].downloadsUsed).toBe(1);
    // A later payment event for the same order (a redelivery) sends nothing more.
    await new Promise((r) => setTimeout(r, 1500));
    const count = await env.DB.prepare("SELECT count(*) AS n FROM emails WHERE \"to\" = ? AND template = 'digital-delivery'")
      .bind(o.email)
      .first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("refuses forged, altered and expired links with 403 and no bytes", async () => {
    const { product } = await digitalProduct();
    const o = await order(product.id);
    const url = new URL((await links(o.orderId, o.token)).body.downloads[0].url);
    const lineId = url.pathname.split("/")[3];
    const sig = url.searchParams.get("sig")!;
    const expires = Number(url.searchParams.get("expires"));
    const flipped = `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`;
    const cases = [
      `/downloads/${o.orderId}/${lineId}?expires=${expires}&sig=${flipped}`,
      `/downloads/${o.orderId}/${lineId}?expires=${expires + 86_400}&sig=${sig}`,
      `/downloads/${o.orderId}/${lineId}?expires=${expires}`,
      `/downloads/${o.orderId}/${lineId}?expires=soon&sig=${sig}`,
    ];
    for (const path of cases) {
      const res = await download(path);
      expect(res.status, path).toBe(403);
      expect(codeOf(res.text), path).toBe("DOWNLOAD_LINK_INVALID");
    }
    const expired = await download(await signedPath(o.orderId, lineId, Math.floor(Date.now() / 1000) - 60));
    expect(expired.status).toBe(403);
    expect(codeOf(expired.text)).toBe("DOWNLOAD_LINK_EXPIRED");
    // None of them counted a download.
    expect((await links(o.orderId, o.token)).body.downloads[0].downloadsUsed).toBe(0);
  });

  it("stops at the download limit, even for parallel downloads", async () => {
    expect((await merchant("PATCH", "/api/v1/store-settings", { settings: { downloadLimit: 3 } })).status).toBe(200);
    try {
      const { product, content } = await digitalProduct();
      const o = await order(product.id);
      const url = (await links(o.orderId, o.token)).body.downloads[0].url;
      expect((await download(url)).status).toBe(200);
      const parallel = await Promise.all(Array.from({ length: 6 }, () => download(url)));
      const ok = parallel.filter((r) => r.status === 200);
      expect(ok).toHaveLength(2);
      for (const r of ok) expect(r.text).toBe(content);
      for (const r of parallel.filter((x) => x.status !== 200)) {
        expect(r.status).toBe(403);
        expect(codeOf(r.text)).toBe("DOWNLOAD_LIMIT_REACHED");
      }
      expect((await links(o.orderId, o.token)).body.downloads[0]).toMatchObject({ downloadsUsed: 3, downloadLimit: 3 });
    } finally {
      await merchant("PATCH", "/api/v1/store-settings", { settings: { downloadLimit: 5 } });
    }
  });

  it("takes the download limit and link days from store settings, refusing values out of range", async () => {
    for (const [field, value] of [
      ["downloadLimit", 0],
      ["downloadLimit", 1.5],
      ["downloadLinkDays", 366],
      ["downloadLinkDays", "30"],
    ] as const) {
      const res = await merchant("PATCH", "/api/v1/store-settings", { settings: { [field]: value } });
      expect(res.status, `${field} ${value}`).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0].field).toBe(`settings.${field}`);
    }
    const saved = await merchant("GET", "/api/v1/store-settings");
    expect(saved.body.settings).toMatchObject({ downloadLimit: 5, downloadLinkDays: 30 });
  });

  it("in production, is not sold without DOWNLOAD_SIGNING_SECRET: 503 and no order written", async () => {
    const { product } = await digitalProduct();
    const v = await visitorCheckout(product.id);
    await fillCheckout(v.token, v.checkoutId);
    const production = { ...env, ENVIRONMENT: "production", PUBLIC_URL: "https://shop.test", DOWNLOAD_SIGNING_SECRET: undefined } as Env;
    const res = await api("POST", `/ecom/v1/checkouts/${v.checkoutId}/create-order`, { key: v.token, body: { id: v.checkoutId }, env: production });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.details.applicationError.code).toBe("DOWNLOADS_NOT_CONFIGURED");
    expect((await env.DB.prepare("SELECT id FROM orders WHERE checkout_id = ?").bind(v.checkoutId).all()).results).toHaveLength(0);
    // The same checkout is sold where links can be signed.
    expect((await placeOrder(v.token, v.checkoutId)).status).toBe(200);
  });

  it("opens nothing before payment, and closes after a full refund", async () => {
    const { product } = await digitalProduct();
    const unpaid = await order(product.id, false);
    const listed = await links(unpaid.orderId, unpaid.token);
    expect(listed.body.availability).toBe("NOT_PAID");
    expect(listed.body.downloads[0].url).toBeNull();
    const lineId = (await api("GET", `/ecom/v1/orders/${unpaid.orderId}`, { key: unpaid.token })).body.order.lineItems[0].id;
    const early = await download(await signedPath(unpaid.orderId, lineId, Math.floor(Date.now() / 1000) + 3600));
    expect(early.status).toBe(403);
    expect(codeOf(early.text)).toBe("DOWNLOAD_NOT_PAID");

    const paid = await order(product.id);
    const url = (await links(paid.orderId, paid.token)).body.downloads[0].url;
    expect((await download(url)).status).toBe(200);
    expect((await merchant("POST", `/ecom/v1/orders/${paid.orderId}/refund-status`, { status: "FULLY_REFUNDED" })).status).toBe(200);
    const refunded = await download(url);
    expect(refunded.status).toBe(403);
    expect(codeOf(refunded.text)).toBe("DOWNLOAD_REFUNDED");
    expect(refunded.headers.get("content-disposition")).toBeNull();
    const after = await links(paid.orderId, paid.token);
    expect(after.body.availability).toBe("REFUNDED");
    expect(after.body.downloads[0].url).toBeNull();
  });

  it("mints links only for the order's own buyer: anyone else gets 404", async () => {
    const { product } = await digitalProduct();
    const o = await order(product.id);
    const stranger = await newVisitor();
    for (const key of [stranger.token, OWNER_KEY, undefined]) {
      const res = await links(o.orderId, key);
      expect(res.status).toBe(404);
      expect(res.body.details.applicationError.code).toBe("ORDER_NOT_FOUND");
      expect(JSON.stringify(res.body)).not.toContain("/downloads/");
    }
  });
});
