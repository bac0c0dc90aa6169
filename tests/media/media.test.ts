import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { mediaSweepDue, sweepUnusedMedia } from "#worker/catalog/media";
import { removeProductMedia, reorderProductMedia, setProductMediaAltText } from "#worker/catalog/product-media";
import { deleteProduct } from "#worker/catalog/product-writes";
import { runSweeps } from "#worker/app/sweeps";
import { EventType } from "#worker/events/types";
import { MAX_IMAGE_BYTES, sniffImage, uploadImage, uploadImages } from "#worker/media/store";
import { openDb } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { createProduct, merchant, OWNER_KEY, outboxRows, serviceCtx, unique } from "../helpers";

/**
 * Product media in R2: images are recognised by their bytes, at most 10 MB, stored once per content
 * under their SHA-256 and served from the Worker with a year's immutable caching; removing a product or a media item
 * deletes the files no other product or collection still shows.
 */

// ----- image bytes -----------------------------------------------------------------------------------------------

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const le16 = (n: number) => [n & 255, (n >>> 8) & 255];
const le24 = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];
const text = (s: string) => [...s].map((c) => c.charCodeAt(0));
/** Random trailing bytes, so every test's file is new content (R2 keeps objects across tests in a file). */
const salt = () => [...crypto.getRandomValues(new Uint8Array(16))];

const png = (w: number, h: number, size = 0) => {
  const head = [0x89, ...text("PNG\r\n\x1a\n"), 0, 0, 0, 13, ...text("IHDR"), ...be32(w), ...be32(h), 8, 6, 0, 0, 0, ...salt()];
  const bytes = new Uint8Array(Math.max(size, head.length));
  bytes.set(head);
  return bytes;
};
const gif = (w: number, h: number) => new Uint8Array([...text("GIF89a"), ...le16(w), ...le16(h), 0, 0, 0, ...salt()]);
/** SOI, an APP0 segment, then a baseline frame header (SOF0) with the size. */
const jpeg = (w: number, h: number) =>
  new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    16,
    ...text("JFIF\0"),
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0xff,
    0xc0,
    0,
    17,
    8,
    (h >> 8) & 255,
    h & 255,
    (w >> 8) & 255,
    w & 255,
    3,
    ...salt(),
  ]);
const webpExtended = (w: number, h: number) =>
  new Uint8Array([...text("RIFF"), 0, 0, 0, 0, ...text("WEBPVP8X"), 10, 0, 0, 0, 0, 0, 0, 0, ...le24(w - 1), ...le24(h - 1), ...salt()]);
const webpLossy = (w: number, h: number) =>
  new Uint8Array([...text("RIFF"), 0, 0, 0, 0, ...text("WEBPVP8 "), 0, 0, 0, 0, 0, 0, 0, 0x9d, 0x01, 0x2a, ...le16(w), ...le16(h), ...salt()]);
const webpLossless = (w: number, h: number) => {
  const bits = (w - 1) | ((h - 1) << 14);
  return new Uint8Array([
    ...text("RIFF"),
    0,
    0,
    0,
    0,
    ...text("WEBPVP8L"),
    0,
    0,
    0,
    0,
    0x2f,
    bits & 255,
    (bits >>> 8) & 255,
    (bits >>> 16) & 255,
    (bits >>> 24) & 255,
    ...salt(),
  ]);
};
const avif = (w: number, h: number) =>
  new Uint8Array([
    0,
    0,
    0,
    28,
    ...text("ftypavif"),
    0,
    0,
    0,
    0,
    ...text("avifmif1miaf"),
    0,
    0,
    0,
    20,
    ...text("ispe"),
    0,
    0,
    0,
    0,
    ...be32(w),
    ...be32(h),
    ...salt(),
  ]);
const svg = () =>
  new TextEncoder().encode(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg><!--${unique()}-->`);

const fileOf = (bytes: Uint8Array<ArrayBuffer>, name = "photo.png", type = "image/png") => new File([bytes], name, { type });

const staff = (permissions: string[]) =>
  serviceCtx({ kind: "member", identityId: "staff-1", visitorId: "v", clientId: "c", role: "STAFF", permissions: permissions as never });

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const objectCount = async () => {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await env.MEDIA.list({ prefix: "media/", cursor });
    n += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
};
const keyOf = (url: string) => url.replace(/^\//, "");

describe("recognising images by their bytes", () => {
  it("knows JPEG, PNG, GIF, WebP (lossy, lossless, extended) and AVIF, with their pixel size", () => {
    expect(sniffImage(png(640, 480))).toEqual({ type: "image/png", width: 640, height: 480 });
    expect(sniffImage(gif(32, 16))).toEqual({ type: "image/gif", width: 32, height: 16 });
    expect(sniffImage(jpeg(1200, 800))).toEqual({ type: "image/jpeg", width: 1200, height: 800 });
    expect(sniffImage(webpLossy(300, 200))).toEqual({ type: "image/webp", width: 300, height: 200 });
    expect(sniffImage(webpLossless(1000, 700))).toEqual({ type: "image/webp", width: 1000, height: 700 });
    expect(sniffImage(webpExtended(4000, 3000))).toEqual({ type: "image/webp", width: 4000, height: 3000 });
    expect(sniffImage(avif(1920, 1080))).toEqual({ type: "image/avif", width: 1920, height: 1080 });
  });

  it("refuses SVG, text with an image name and truncated headers", async () => {
    expect(sniffImage(svg())).toBeNull();
    expect(sniffImage(new TextEncoder().encode("just some text, named photo.png"))).toBeNull();
    expect(sniffImage(new Uint8Array([0x89, 0x50, 0x4e]))).toBeNull();
    const { ctx } = serviceCtx();
    const before = await objectCount();
    const svgErr = await refusal(uploadImage(ctx, fileOf(svg(), "logo.svg", "image/svg+xml")));
    expect(svgErr.status).toBe(400);
    expect(svgErr.fieldViolations).toEqual([expect.objectContaining({ field: "file", violatedRule: "FORMAT" })]);
    expect(svgErr.fieldViolations![0].description).toMatch(/"logo\.svg" is an SVG drawing.*scripts/);
    const textErr = await refusal(uploadImage(ctx, fileOf(new TextEncoder().encode(`hello ${unique()}`), "notes.png")));
    expect(textErr.fieldViolations![0].description).toMatch(/"notes\.png" is not an image.*JPEG, PNG, GIF, WebP or AVIF/);
    expect(await objectCount()).toBe(before);
  });
});

describe("uploading", () => {
  it("accepts 10 MB and refuses a byte more with a clear error on the file field, storing nothing", async () => {
    const { ctx } = serviceCtx();
    const atLimit = await uploadImage(ctx, fileOf(png(10, 10, MAX_IMAGE_BYTES)));
    expect(atLimit).toEqual({ url: expect.stringMatching(/^\/media\/[0-9a-f]{64}\.png$/), width: 10, height: 10 });
    const before = await objectCount();
    const err = await refusal(uploadImage(ctx, fileOf(png(10, 10, MAX_IMAGE_BYTES + 1), "huge.png")));
    expect(err.status).toBe(400);
    expect(err.code).toBe("INVALID_ARGUMENT");
    expect(err.fieldViolations).toEqual([expect.objectContaining({ field: "file", violatedRule: "MAX_SIZE" })]);
    expect(err.fieldViolations![0].description).toBe('"huge.png" is 10 MB: images may be at most 10 MB');
    expect(await objectCount()).toBe(before);
  });

  it("stores the same bytes once, under their SHA-256, with the type they really are", async () => {
    const { ctx } = serviceCtx();
    const bytes = jpeg(800, 600);
    const before = await objectCount();
    const first = await uploadImage(ctx, fileOf(bytes, "a.png", "image/png"));
    const second = await uploadImage(ctx, fileOf(bytes, "copy of a.jpg", "image/jpeg"));
    expect(second).toEqual(first);
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(first.url).toBe(`/media/${hash}.jpg`);
    expect(await objectCount()).toBe(before + 1);
    const object = await env.MEDIA.head(`media/${hash}.jpg`);
    expect(object?.httpMetadata?.contentType).toBe("image/jpeg");
  });

  it("checks every file of a multiple upload before storing any", async () => {
    const { ctx } = serviceCtx();
    const before = await objectCount();
    const err = await refusal(uploadImages(ctx, [fileOf(png(5, 5), "good.png"), fileOf(svg(), "bad.svg"), fileOf(gif(2, 2), "fine.gif")]));
    expect(err.fieldViolations).toHaveLength(1);
    expect(err.fieldViolations![0].description).toMatch(/^"bad\.svg" is an SVG/);
    expect(await objectCount()).toBe(before);
    const ok = await uploadImages(ctx, [fileOf(png(5, 5), "good.png"), fileOf(gif(2, 2), "fine.gif")]);
    expect(ok.map((u) => u.url.split(".").pop())).toEqual(["png", "gif"]);
    expect(await objectCount()).toBe(before + 2);
  });

  it("needs catalog.write", async () => {
    const err = await refusal(uploadImage(staff(["orders.write"]).ctx, fileOf(png(1, 1))));
    expect(err.status).toBe(403);
    expect(err.description).toMatch(/catalog\.write/);
    expect((await uploadImage(staff(["catalog.write"]).ctx, fileOf(png(1, 1)))).url).toMatch(/^\/media\//);
  });

  it("POST /api/media takes a multipart file from an API client and answers its URL", async () => {
    const form = () => {
      const f = new FormData();
      f.append("file", fileOf(webpExtended(120, 90), "shirt.webp", "image/webp"));
      return f;
    };
    const res = await SELF.fetch("https://shop.test/api/media", { method: "POST", headers: { authorization: OWNER_KEY }, body: form() });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: expect.stringMatching(/^\/media\/[0-9a-f]{64}\.webp$/), width: 120, height: 90 });

    const anonymous = await SELF.fetch("https://shop.test/api/media", { method: "POST", body: form() });
    expect(anonymous.status).toBe(401);
    const textForm = new FormData();
    textForm.append("file", fileOf(new TextEncoder().encode("not an image"), "x.png"));
    const bad = await SELF.fetch("https://shop.test/api/media", { method: "POST", headers: { authorization: OWNER_KEY }, body: textForm });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as any;
    expect(body.details.validationError.fieldViolations[0]).toMatchObject({ field: "file", violatedRule: "FORMAT" });
    const json = await SELF.fetch("https://shop.test/api/media", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(415);
  });
});

describe("serving", () => {
  it("serves a file with its type, an ETag and a year's immutable caching, 304 when the browser has it", async () => {
    const { ctx } = serviceCtx();
    const bytes = png(3, 2, 300);
    const { url } = await uploadImage(ctx, fileOf(bytes));
    const res = await SELF.fetch(`https://shop.test${url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);

    const again = await SELF.fetch(`https://shop.test${url}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    // A resizing front's `?w=` is ignored here: the same file.
    expect((await SELF.fetch(`https://shop.test${url}?w=480`)).status).toBe(200);
  });

  it("answers 404 for unknown and malformed names", async () => {
    for (const path of [
      `/media/${"0".repeat(64)}.png`,
      "/media/nothing.png",
      `/media/${"a".repeat(64)}.svg`,
      "/media/..%2Fsecrets",
      `/media/${"A".repeat(64)}.png`,
    ]) {
      const res = await SELF.fetch(`https://shop.test${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as any).details.applicationError.code).toBe("MEDIA_NOT_FOUND");
    }
  });
});

describe("deleting what nobody uses", () => {
  it("deletes a deleted product's own files, keeps those another product or a collection still shows", async () => {
    const { ctx, settled } = serviceCtx();
    const shared = await uploadImage(ctx, fileOf(png(8, 8)));
    const own = await uploadImage(ctx, fileOf(gif(4, 4)));
    const cover = await uploadImage(ctx, fileOf(jpeg(50, 50)));
    const a = await createProduct({
      name: `Media A ${unique()}`,
      media: [{ url: own.url }, { url: shared.url }, { url: cover.url }, { url: "https://cdn.example/x.png" }],
    });
    const b = await createProduct({ name: `Media B ${unique()}`, media: [{ url: shared.url }] });
    const col = await merchant("POST", "/v1/collections", {
      collection: { name: `Media col ${unique()}`, media: { url: `https://shop.test${cover.url}` } },
    });
    expect(col.status, JSON.stringify(col.body)).toBe(200);

    await deleteProduct(ctx, a.id);
    await settled();
    expect(await env.MEDIA.head(keyOf(own.url))).toBeNull();
    expect(await env.MEDIA.head(keyOf(shared.url))).not.toBeNull();
    // The collection's image (an absolute URL of this shop) keeps its file.
    expect(await env.MEDIA.head(keyOf(cover.url))).not.toBeNull();

    await deleteProduct(ctx, b.id);
    await settled();
    expect(await env.MEDIA.head(keyOf(shared.url))).toBeNull();
  });

  it("removing a media item deletes its file unless another item still shows it", async () => {
    const { ctx, settled } = serviceCtx();
    const one = await uploadImage(ctx, fileOf(png(8, 9)));
    const two = await uploadImage(ctx, fileOf(png(9, 8)));
    const p = await createProduct({ name: `Media C ${unique()}`, media: [{ url: one.url }, { url: two.url }] });
    const other = await createProduct({ name: `Media D ${unique()}`, media: [{ url: two.url }] });
    const ids = p.media.items.map((m: { id: string }) => m.id);
    await removeProductMedia(ctx, p.id, ids);
    await settled();
    expect(await env.MEDIA.head(keyOf(one.url))).toBeNull();
    expect(await env.MEDIA.head(keyOf(two.url))).not.toBeNull();
    await removeProductMedia(ctx, other.id, [other.media.items[0].id]);
    await settled();
    expect(await env.MEDIA.head(keyOf(two.url))).toBeNull();
  });
});

describe("ordering and describing a product's media", () => {
  it("reorders (the first is the main image) with a ProductChanged event; a list that is not every item once writes nothing", async () => {
    const { ctx } = serviceCtx();
    const p = await createProduct({
      name: `Media E ${unique()}`,
      media: [{ url: "/media/a.png" }, { url: "/media/b.png" }, { url: "/media/c.png" }],
    });
    const [x, y, z] = p.media.items.map((m: { id: string }) => m.id);
    await reorderProductMedia(ctx, p.id, [z, x, y]);
    const after = (await merchant("GET", `/v1/products/${p.id}`)).body.product;
    expect(after.media.items.map((m: { id: string }) => m.id)).toEqual([z, x, y]);
    expect(after.media.mainMedia.id).toBe(z);
    const changed = (await outboxRows(p.id)).filter((r) => r.type === EventType.productChanged);
    expect(changed.at(-1)?.data.changedFields).toEqual(["media"]);

    const before = await env.DB.prepare("SELECT media, updated_date FROM products WHERE id = ?").bind(p.id).first();
    for (const bad of [
      [z, x],
      [z, x, y, y],
      [z, x, "nope"],
    ]) {
      const err = await refusal(reorderProductMedia(ctx, p.id, bad));
      expect(err.status).toBe(400);
      expect(err.fieldViolations![0].field).toMatch(/^mediaIds/);
    }
    expect(await env.DB.prepare("SELECT media, updated_date FROM products WHERE id = ?").bind(p.id).first()).toEqual(before);
    expect((await refusal(reorderProductMedia(staff(["inventory.write"]).ctx, p.id, [x, y, z]))).status).toBe(403);
  });

  it("sets and clears an item's alt text", async () => {
    const { ctx } = serviceCtx();
    const p = await createProduct({ name: `Media F ${unique()}`, media: [{ url: "/media/a.png" }] });
    const id = p.media.items[0].id;
    await setProductMediaAltText(ctx, p.id, id, "  Navy tee, front  ");
    expect((await merchant("GET", `/v3/products/${p.id}`)).body.product.media.main.altText).toBe("Navy tee, front");
    await setProductMediaAltText(ctx, p.id, id, "");
    expect((await merchant("GET", `/v3/products/${p.id}`)).body.product.media.main.altText).toBe("");
    expect((await refusal(setProductMediaAltText(ctx, p.id, id, "x".repeat(201)))).fieldViolations![0].field).toBe("altText");
  });
});

describe("the hourly media sweep", () => {
  it("runs at half past each hour", () => {
    expect(mediaSweepDue(new Date("2026-11-25T10:30:10Z"))).toBe(true);
    expect(mediaSweepDue(new Date("2026-11-25T10:00:00Z"))).toBe(false);
    expect(mediaSweepDue(new Date("2026-11-25T10:31:00Z"))).toBe(false);
  });

  it("deletes files nothing uses once they are a day old (an unattached API upload), keeps used and fresh ones", async () => {
    const { ctx } = serviceCtx();
    const unused = await uploadImage(ctx, fileOf(png(7, 7)));
    const used = await uploadImage(ctx, fileOf(png(6, 6)));
    await createProduct({ name: `Media G ${unique()}`, media: [{ url: used.url }] });
    // The sweep of the hour whose hex digit starts the file's name, some days from now.
    const at = (url: string, days: number) => {
      const d = new Date(Date.now() + days * 86_400_000);
      d.setUTCHours(parseInt(url["/media/".length], 16), 30, 0, 0);
      return d;
    };
    await sweepUnusedMedia(env, openDb(env.DB), at(unused.url, -2));
    expect(await env.MEDIA.head(keyOf(unused.url))).not.toBeNull();

    const swept = await runSweeps(env, { now: at(unused.url, 3) });
    expect(swept.mediaDeleted).toBeGreaterThanOrEqual(1);
    expect(await env.MEDIA.head(keyOf(unused.url))).toBeNull();
    await sweepUnusedMedia(env, openDb(env.DB), at(used.url, 3));
    expect(await env.MEDIA.head(keyOf(used.url))).not.toBeNull();
  });
});
