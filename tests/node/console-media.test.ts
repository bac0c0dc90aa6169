import { mkdirSync } from "node:fs";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, unexpected, type ConsoleAccount } from "./console-fixtures";
import { expectAccessible, hydrated, shopper, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The console's media page: a staff member with catalog.write uploads images with the plain file input,
 * orders them (the first is the main image the shop shows, served from /media/<sha256> with a year's immutable
 * caching), links one to a choice and describes it; a file that is not an image is refused next to the field and
 * nothing is stored; without catalog.write the upload is refused with 403.
 */

const { store, needsChromium } = useStore("console media");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

/** A real w×h PNG of one colour (what a merchant's camera roll would give, only smaller). */
function png(w: number, h: number, [r, g, b]: [number, number, number]): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const typed = Buffer.concat([Buffer.from(type, "ascii"), body]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed) >>> 0);
    return Buffer.concat([head, typed, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const sha256 = async (bytes: Buffer) => Buffer.from(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes))).toString("hex");
const roundTrips = (header: string | null | undefined) => Number(/desc="(\d+) round trips"/.exec(header ?? "")?.[1] ?? NaN);
const mediaOf = async (w: RunningWorker, id: string) =>
  JSON.parse((await w.db.prepare("SELECT media FROM products WHERE id = ?").bind(id).first<{ media: string }>())!.media) as {
    id: string;
    url: string;
    altText?: string;
    width: number;
    height: number;
  }[];
const objectCount = async (w: RunningWorker) => (await (await w.mf.getR2Bucket("MEDIA")).list({ prefix: "media/" })).objects.length;
const thumbs = (page: Page) => page.locator(".media-item .media-thumb img").evaluateAll((imgs) => imgs.map((i) => i.getAttribute("src")));

async function uploadForm(w: RunningWorker, cookie: string, productId: string, file: { name: string; type: string; bytes: Buffer }) {
  const form = new FormData();
  form.set("intent", "upload");
  form.set("file", new File([new Uint8Array(file.bytes)], file.name, { type: file.type }));
  // Encoded here: Miniflare's dispatchFetch does not pass a FormData body's multipart type on.
  const encoded = new Response(form);
  const type = encoded.headers.get("content-type")!;
  return w.fetch(`/console/products/${productId}/media`, {
    method: "POST",
    headers: { origin: w.url, cookie, "user-agent": BROWSER_UA, "content-type": type },
    body: new Uint8Array(await encoded.arrayBuffer()),
    redirect: "manual",
  });
}

describe("console media", () => {
  let editor: ConsoleAccount;
  let viewerCookie = "";
  let editorCookie = "";
  let product = { id: "", slug: "" };

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    editor = await consoleAccount(w, "STAFF", ["catalog.write"]);
    editorCookie = await consoleCookie(w, editor);
    viewerCookie = await consoleCookie(w, await consoleAccount(w, "STAFF", ["inventory.write"]));
    const res = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        product: {
          name: "Harbour Scarf",
          priceData: { price: 35 },
          productOptions: [
            {
              name: "Colour",
              optionType: "drop_down",
              choices: [
                { value: "Red", description: "Red" },
                { value: "Blue", description: "Blue" },
              ],
            },
          ],
        },
      }),
    });
    const body = (await res.json()) as { product: { id: string; slug: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    product = body.product;
  });

  it("uploads with the file input, makes the second image main, and the shop shows it from /media/<hash>", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const red = png(64, 48, [200, 30, 40]);
    const blue = png(40, 40, [20, 60, 200]);
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, editor);
    try {
      const res = await page.goto(`${s.w.url}/console/products/${product.id}/media`);
      expect(res!.status()).toBe(200);
      expect(roundTrips(res!.headers()["server-timing"])).toBeLessThanOrEqual(3);
      await hydrated(page);
      await expect.poll(() => page.locator("h1").textContent()).toBe("Media of Harbour Scarf");

      await page.setInputFiles("#media-file", { name: "red.png", mimeType: "image/png", buffer: red });
      await page.click("button:has-text('Upload')");
      await expect.poll(() => thumbs(page), { timeout: 15_000 }).toEqual([`/media/${await sha256(red)}.png`]);
      await expect.poll(() => page.locator(".media-drop [role=status]").textContent()).toBe("Uploaded 1 image.");
      expect((await mediaOf(s.w, product.id)).map((m) => [m.width, m.height])).toEqual([[64, 48]]);

      await page.setInputFiles("#media-file", { name: "blue.png", mimeType: "image/png", buffer: blue });
      await page.click("button:has-text('Upload')");
      await expect.poll(() => thumbs(page), { timeout: 15_000 }).toEqual([`/media/${await sha256(red)}.png`, `/media/${await sha256(blue)}.png`]);

      // The second image becomes the main one.
      await page.locator(".media-item").nth(1).locator("button:has-text('Make main image')").click();
      await expect.poll(() => thumbs(page)).toEqual([`/media/${await sha256(blue)}.png`, `/media/${await sha256(red)}.png`]);
      await expect
        .poll(async () => (await mediaOf(s.w, product.id)).map((m) => m.url))
        .toEqual([`/media/${await sha256(blue)}.png`, `/media/${await sha256(red)}.png`]);
      await expect.poll(() => page.locator(".console-notice").textContent()).toBe("Order saved.");

      // Shown for the Blue choice, and described.
      const main = page.locator(".media-item").first();
      await main.locator("select").selectOption({ label: "Colour: Blue" });
      await main.locator("button:has-text('Attach')").click();
      await expect.poll(() => page.locator(".console-notice").textContent()).toBe("Shown for Colour: Blue.");
      await expect.poll(() => page.locator(".media-item").first().locator(".media-choices").textContent()).toContain("Colour: Blue");
      await page.locator(".media-item").first().locator("input[name=altText]").fill("Blue wool scarf, folded");
      await page.locator(".media-item").first().locator("button:has-text('Save')").click();
      await expect.poll(async () => (await mediaOf(s.w, product.id))[0].altText).toBe("Blue wool scarf, folded");
      await expect.poll(() => page.locator(".console-notice").textContent()).toBe("Alt text saved.");

      await expectAccessible(page, "console media page");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-media-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }

    // The storefront's product page leads with the new main image, served immutable from the Worker.
    const shop = await shopper(s);
    try {
      await shop.page.goto(`${s.w.url}/products/${product.slug}`);
      const src = await shop.page.locator(".gallery-item img").first().getAttribute("src");
      expect(src).toMatch(new RegExp(`/media/${await sha256(blue)}\\.png$`));
      expect(await shop.page.locator(".gallery-item img").first().getAttribute("alt")).toBe("Blue wool scarf, folded");
      const file = await s.w.fetch(new URL(src!, s.w.url).pathname);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
      expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(Buffer.from(await file.arrayBuffer()).equals(blue)).toBe(true);
      // The browser really decoded it (its srcset's `w` descriptors scale naturalWidth, so only "some width").
      await expect
        .poll(() =>
          shop.page
            .locator(".gallery-item img")
            .first()
            .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
        )
        .toBe(true);
    } finally {
      await shop.context.close();
    }
  });

  it("takes images dropped on the drop zone (JavaScript), one request for the lot", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const green = png(30, 20, [20, 160, 60]);
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, editor);
    try {
      await page.goto(`${s.w.url}/console/products/${product.id}/media`);
      await hydrated(page);
      const before = (await thumbs(page)).length;
      const posts: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "POST") posts.push(r.url());
      });
      // What a drop from the desktop delivers: a DataTransfer holding the files.
      await page.locator("[data-testid=media-drop]").evaluate(
        (zone, bytes) => {
          const dt = new DataTransfer();
          dt.items.add(new File([new Uint8Array(bytes)], "green.png", { type: "image/png" }));
          zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
          zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        },
        [...green],
      );
      await expect.poll(() => thumbs(page), { timeout: 15_000 }).toHaveLength(before + 1);
      expect((await thumbs(page)).at(-1)).toBe(`/media/${await sha256(green)}.png`);
      expect(posts).toHaveLength(1);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("refuses a text file named .png next to the file field, storing and adding nothing (with and without JavaScript)", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const text = Buffer.from("Dear customer, this is a note and not a picture.\n");
    const before = { media: await mediaOf(s.w, product.id), objects: await objectCount(s.w) };

    const { context, page } = await consoleBrowser(s.browser, s.w, editor);
    try {
      await page.goto(`${s.w.url}/console/products/${product.id}/media`);
      await hydrated(page);
      await page.setInputFiles("#media-file", { name: "notes.png", mimeType: "image/png", buffer: text });
      await page.click("button:has-text('Upload')");
      await expect
        .poll(() => page.locator("#media-file-error").textContent(), { timeout: 15_000 })
        .toMatch(/"notes\.png" is not an image this shop accepts/);
      expect(await page.locator("#media-file").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#media-file").getAttribute("aria-describedby")).toContain("media-file-error");
    } finally {
      await context.close();
    }

    // A browser without JavaScript posts the form as a page: the same error, next to the field, status 400.
    const res = await uploadForm(s.w, editorCookie, product.id, { name: "notes.png", type: "image/png", bytes: text });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/id="media-file-error"[^>]*>&quot;notes\.png&quot; is not an image/);

    expect(await mediaOf(s.w, product.id)).toEqual(before.media);
    expect(await objectCount(s.w)).toBe(before.objects);
  });

  it("refuses staff without catalog.write (403) and shows them no upload form", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const before = { media: await mediaOf(s.w, product.id), objects: await objectCount(s.w) };
    const refused = await uploadForm(s.w, viewerCookie, product.id, { name: "ok.png", type: "image/png", bytes: png(8, 8, [1, 2, 3]) });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("You may not do this");
    expect(await mediaOf(s.w, product.id)).toEqual(before.media);
    expect(await objectCount(s.w)).toBe(before.objects);

    const page = await s.w.fetch(`/console/products/${product.id}/media`, { headers: { cookie: viewerCookie, "user-agent": BROWSER_UA } });
    expect(page.status).toBe(200);
    expect(roundTrips(page.headers.get("server-timing"))).toBeLessThanOrEqual(3);
    const html = await page.text();
    expect(html).toContain("Media of Harbour Scarf");
    expect(html).not.toContain('id="media-file"');
    expect(html).not.toContain("Make main image");

    // The products table links each product to its media page.
    const list = await (await s.w.fetch(`/console/products?q=Harbour`, { headers: { cookie: viewerCookie, "user-agent": BROWSER_UA } })).text();
    expect(list).toContain(`href="/console/products/${product.id}/media"`);
  });
});
