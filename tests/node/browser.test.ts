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
      await expect.poll(() => first.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: 10_000 }).toBe(true);

      // The collections, each with its picture and count.
      await expect(page.locator("ul.collection-grid li").count()).resolves.toBeGreaterThan(1);

      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("product cards and navigation are plain links that navigate in the app, fetch a hovered card's page ahead, and work without JavaScript", async (ctx) => {
    if (!haveChromium) ctx.skip(SKIP_NOTE);
    const context = await newContext(browser!, { userAgent: BROWSER_UA, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const documents: string[] = [];
    page.on("request", (req) => {
      if (req.resourceType() === "document") documents.push(new URL(req.url()).pathname);
    });
    try {
      await page.goto(`${w!.url}/`);
      await page.waitForSelector("html[data-hydrated]", { timeout: 15_000 });
      const card = page.locator('ul.product-grid[aria-label="New arrivals"] a.card-link').nth(1);
      const href = (await card.getAttribute("href"))!;
      expect(href).toMatch(/^\/products\/[a-z0-9-]+$/);
      // Resting on a card for a moment fetches its page's data ahead, as React Router's prefetch="intent" does.
      await card.hover();
      await expect.poll(() => page.locator(`link[rel=prefetch][href^="${href}.data"]`).count()).toBeGreaterThan(0);
      // A click navigates in the app: no new document, and what the page held survives.
      await page.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true));
      await card.click();
      await page.waitForURL((u) => u.pathname === href);
      await expect
        .poll(() => page.locator("h1").textContent())
        .toBe(await w!.db.prepare("SELECT name FROM products WHERE slug = ?").bind(href.split("/").pop()).first("name"));
      expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
      // The footer's links are the same kind.
      await page.locator('footer a[href="/shop"]').click();
      await page.waitForURL((u) => u.pathname === "/shop");
      expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
      // So are the header's menu links, and the one for the page shown is marked current.
      const current = page.locator("nav[aria-label='Main'] a[aria-current='page']");
      await expect.poll(() => current.allTextContents()).toEqual(["Shop all"]);
      const menuLink = page.locator("nav[aria-label='Main'] a[href^='/pages/']").first();
      const linkName = await menuLink.textContent();
      await menuLink.click();
      await page.waitForURL((u) => u.pathname.startsWith("/pages/"));
      await expect.poll(() => current.allTextContents()).toEqual([linkName]);
      expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
      expect(documents).toEqual(["/"]);
      // The inline stylesheet came with the first page only and is rendered again on the client from what the server
      // sent: after hydration and the navigations it is still there, once and whole, and still styles the page.
      const styles = await page.evaluate(() => [...document.head.querySelectorAll("style")].map((s) => s.textContent ?? ""));
      expect(styles).toHaveLength(1);
      expect(styles[0]).toMatch(/^:root\{/);
      expect(styles[0].length).toBeGreaterThan(10_000);
      expect(await page.evaluate(() => getComputedStyle(document.querySelector(".skip-link")!).position)).toBe("absolute");
      expect(await page.evaluate(() => getComputedStyle(document.querySelector(".header-bar")!).display)).toBe("grid");
    } finally {
      await context.close();
    }
    // Without JavaScript a card is an ordinary link to the product's page.
    const plain = await newContext(browser!, { userAgent: BROWSER_UA, javaScriptEnabled: false });
    try {
      const page = await plain.newPage();
      await page.goto(`${w!.url}/`);
      const card = page.locator('ul.product-grid[aria-label="New arrivals"] a.card-link').first();
      const href = (await card.getAttribute("href"))!;
      await Promise.all([page.waitForURL((u) => u.pathname === href), card.click()]);
      expect(await page.locator("h1").textContent()).toBeTruthy();
    } finally {
      await plain.close();
    }
  });
});
