import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveChromium, launchChromium, newContext, SKIP_NOTE } from "./chromium";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * A real browser on the built Worker: Debian's chromium through playwright-core, against Miniflare listening on
 * 127.0.0.1. CI installs chromium with apt-get (tests/node/chromium.ts).
 */

describe("the storefront in a browser", () => {
  let w: RunningWorker | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!haveChromium) return;
    w = await startWorker({ port: 0 });
    const res = await w.fetch("/api/v1/demo-catalogue", { method: "POST", headers: { authorization: OWNER_KEY } });
    expect(((await res.json()) as { loaded: boolean }).loaded).toBe(true);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await w?.dispose();
  });

  it("hydrates the home page and shows the demo products with sized, described images", async (ctx) => {
    if (!haveChromium) {
      console.warn(`browser test skipped: ${SKIP_NOTE}`);
      ctx.skip(SKIP_NOTE);
    }
    // The home page's new arrivals: the newest products first (ties in the order the product query breaks them).
    const { results } = await w!.db.prepare("SELECT name FROM products WHERE visible = 1 ORDER BY created_date DESC, id ASC").all<{ name: string }>();
    const demoNames = results.map((r) => r.name);
    expect(demoNames.length).toBeGreaterThanOrEqual(60);

    const context = await newContext(browser!, { userAgent: BROWSER_UA, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText ?? ""}`));
    page.on("response", (res) => {
      if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
    });

    try {
      const res = await page.goto(`${w!.url}/`, { waitUntil: "load" });
      expect(res!.status()).toBe(200);
      await page.waitForSelector("html[data-hydrated]", { timeout: 15_000 });

      await expect(page.locator("h1").textContent()).resolves.toBe("Good things for outside and in");
      const arrivals = page.locator('ul.product-grid[aria-label="New arrivals"]');
      const names = await arrivals.locator("li.card .card-title").allTextContents();
      expect(names).toEqual(demoNames.slice(0, 10));

      const images = await arrivals.locator("li.card img").evaluateAll((imgs) =>
        (imgs as HTMLImageElement[]).map((img) => ({
          src: img.getAttribute("src") ?? "",
          alt: img.getAttribute("alt"),
          width: img.getAttribute("width"),
          height: img.getAttribute("height"),
        })),
      );
      expect(images.length).toBe(names.length);
      for (const img of images) {
        // Described, or empty when the description would only repeat the card's title (the link's name).
        expect(img.alt, img.src).not.toBeNull();
        expect(Number(img.width), img.src).toBeGreaterThan(0);
        expect(Number(img.height), img.src).toBeGreaterThan(0);
        expect(img.src).toMatch(/\/demo\/[a-z0-9-]+\.svg$/);
      }

      // The images above the fold actually load (lazy ones below it load as the shopper scrolls).
      const first = arrivals.locator("li.card img").first();
      await expect
        .poll(() => first.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: 10_000 })
        .toBe(true);

      // The collections, each with its picture and count.
      await expect(page.locator("ul.collection-grid li").count()).resolves.toBeGreaterThan(1);

      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
