import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haveChromium, launchChromium, newContext, SKIP_NOTE } from "./chromium";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The catalogue pages (home, shop, collections, search, product, 404, sitemap, robots) on the built Worker, in
 * Debian's Chromium through playwright-core, with the demo catalogue loaded. A shopper searches, filters, picks a
 * variant by keyboard, with and without JavaScript; a crawler gets complete HTML; every page carries a CSP whose
 * nonce matches its inline scripts; axe-core finds no accessibility violations; screenshots at phone and desktop
 * widths go to test-artifacts/screenshots/. Chromium comes from tests/node/chromium.ts.
 */

const BOT_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const SHOTS = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let w: RunningWorker;
let browser: Browser | undefined;

beforeAll(async () => {
  w = await startWorker(haveChromium ? { port: 0 } : {});
  const res = await w.fetch("/api/v1/demo-catalogue", { method: "POST", headers: { authorization: OWNER_KEY } });
  expect(((await res.json()) as { loaded: boolean }).loaded).toBe(true);
  if (haveChromium) browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.dispose();
});

const html = async (p: string, ua = BROWSER_UA) => {
  const res = await w.fetch(p, { headers: { "user-agent": ua, accept: "text/html" } });
  return { res, text: await res.text() };
};

/** What a shopper's browser complained about: console errors, failed requests, CSP violations, uncaught errors. */
interface Watched {
  page: Page;
  context: BrowserContext;
  problems: string[];
}

async function open(opts: { width?: number; javaScript?: boolean } = {}): Promise<Watched> {
  const context = await newContext(browser!, {
    userAgent: BROWSER_UA,
    viewport: { width: opts.width ?? 1280, height: 900 },
    javaScriptEnabled: opts.javaScript ?? true,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (msg) => {
    // The 404 page's own status shows up as a failed resource load; everything else is a problem.
    if (msg.type() === "error" && !/status of 404/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("requestfailed", (req) => {
    if (!/ERR_ABORTED/.test(req.failure()?.errorText ?? "")) problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
  });
  // A CSP violation is also reported as an event in the page; record them where the test can read them.
  await context.addInitScript(() => {
    (window as unknown as { __csp: string[] }).__csp = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __csp: string[] }).__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  return { page, context, problems };
}

async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []);
}

async function hydrated(page: Page) {
  await page.waitForSelector("html[data-hydrated]", { timeout: 15_000 });
}

const skipWithoutChromium = (ctx: { skip: (note: string) => void }) => {
  if (!haveChromium) {
    console.warn(`catalogue browser test skipped: ${SKIP_NOTE}`);
    ctx.skip(SKIP_NOTE);
  }
};

async function productsWhere(sql: string, ...binds: unknown[]) {
  return (
    await w.db
      .prepare(`SELECT name, slug, brand, min_price AS minPrice, in_stock AS inStock FROM products WHERE visible = 1 AND ${sql}`)
      .bind(...binds)
      .all<{ name: string; slug: string; brand: string | null; minPrice: number; inStock: number }>()
  ).results;
}

describe("a shopper in Chromium", () => {
  it("finds a product by searching from the header", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context, problems } = await open();
    try {
      await page.goto(`${w.url}/`);
      await hydrated(page);
      await page.getByRole("searchbox", { name: "Search products" }).first().fill("yirgacheffe");
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/search\?q=yirgacheffe/);
      await expect(page.locator("h1").textContent()).resolves.toContain("yirgacheffe");
      const names = await page.locator(".product-grid .card-title").allTextContents();
      expect(names).toEqual(["Ethiopia Yirgacheffe, 250 g"]);
      await expect(page.locator("#results-count").textContent()).resolves.toBe("1 product");
      await page.getByRole("link", { name: "Ethiopia Yirgacheffe, 250 g" }).click();
      await page.waitForURL(/\/products\/ethiopia-yirgacheffe/);
      await expect.poll(() => page.locator("h1").textContent()).toBe("Ethiopia Yirgacheffe, 250 g");

      // A search that finds nothing says so and offers help and collections to browse.
      await page.goto(`${w.url}/search?q=${encodeURIComponent("zebra umbrella")}`);
      await expect(page.getByRole("heading", { name: /Nothing matches “zebra umbrella”/ }).count()).resolves.toBe(1);
      await expect(page.getByRole("link", { name: "browse all products" }).count()).resolves.toBe(1);
      await expect(page.locator(".empty-state .chips a").count()).resolves.toBeGreaterThan(3);
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("narrows a collection with filters; the URL carries the filter state and the counts add up", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context, problems } = await open();
    try {
      await page.goto(`${w.url}/collections/t-shirts`);
      await hydrated(page);
      const inCollection = `id IN (SELECT product_id FROM collection_products cp JOIN collections c ON c.id = cp.collection_id WHERE c.slug = 't-shirts')`;
      const all = await productsWhere(inCollection);
      await expect(page.locator("#results-count").textContent()).resolves.toBe(`${all.length} products`);

      // A brand: the checkbox applies at once and the URL says so.
      const fernhill = all.filter((p) => p.brand === "Fernhill");
      expect(fernhill.length).toBeGreaterThan(0);
      const brandBox = page.getByRole("checkbox", { name: /^Fernhill/ });
      await expect(brandBox.locator("xpath=..").textContent()).resolves.toContain(`(${fernhill.length})`);
      await brandBox.check();
      await page.waitForURL(/brand=Fernhill/);
      // Wait for the narrowed list itself: the unfiltered one also contains every Fernhill name.
      await expect.poll(() => page.locator(".product-grid .card").count()).toBe(fernhill.length);
      expect((await page.locator(".product-grid .card-title").allTextContents()).sort()).toEqual(fernhill.map((p) => p.name).sort());

      // A price ceiling, typed and applied with the button.
      await page.getByLabel("Max ($)").fill("30");
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL(/max=30/);
      const cheap = fernhill.filter((p) => p.minPrice <= 3000);
      await expect.poll(() => page.locator(".product-grid .card").count()).toBe(cheap.length);
      expect(new URL(page.url()).searchParams.getAll("brand")).toEqual(["Fernhill"]);

      // Reloading the URL shows the same thing (the state is all in the URL), and a chip removes one filter.
      await page.reload();
      await hydrated(page);
      expect(await page.locator(".product-grid .card").count()).toBe(cheap.length);
      await page.getByRole("link", { name: "Remove filter Brand: Fernhill" }).click();
      await page.waitForURL((u) => !u.searchParams.has("brand") && u.searchParams.get("max") === "30");
      await expect.poll(() => page.locator(".product-grid .card").count()).toBe(all.filter((p) => p.minPrice <= 3000).length);

      // Sorting by price puts the cheapest first.
      await page.getByLabel("Sort by").selectOption("price-asc");
      await page.waitForURL(/sort=price-asc/);
      const cheapestFirst = [...all.filter((p) => p.minPrice <= 3000)].sort((a, b) => a.minPrice - b.minPrice);
      await expect.poll(async () => (await page.locator(".product-grid .card-title").allTextContents())[0]).toBe(cheapestFirst[0].name);
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("picks a variant by keyboard: the URL and the price follow, and sold-out choices are marked", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context, problems } = await open();
    try {
      await page.goto(`${w.url}/products/everyday-organic-tee`);
      await hydrated(page);
      await expect(page.locator(".product-price .price-now").first().textContent()).resolves.toBe("$28.00");
      await expect(page.getByRole("button", { name: "Add to cart" }).isDisabled()).resolves.toBe(true);

      // Colour swatches are a radio group with names: focus the first and move with the arrow keys.
      const colours = page.locator("fieldset.option", { has: page.locator("legend", { hasText: "Color" }) });
      await page.getByRole("radio", { name: "Navy" }).focus();
      await page.keyboard.press("ArrowRight");
      await page.waitForURL(/Color=White/);
      await expect(colours.locator("legend").textContent()).resolves.toContain("White");
      await page.keyboard.press("ArrowRight");
      await page.waitForURL(/Color=Forest/);

      // Forest in XS is sold out: its size choice says so (to a screen reader too).
      const xs = page.getByRole("radio", { name: "XS" });
      await expect.poll(() => xs.getAttribute("aria-describedby")).toBeTruthy();
      const note = await page.locator(`#${await xs.getAttribute("aria-describedby")}`).textContent();
      expect(note).toBe("sold out");
      await expect(page.locator(".choice[data-state='sold-out'] label", { hasText: "XS" }).count()).resolves.toBe(1);

      // Tab into the sizes and pick XL with the arrow keys: the price goes up by the XL extra.
      await page.getByRole("radio", { name: "S", exact: true }).focus();
      for (const size of ["M", "L", "XL"]) {
        await page.keyboard.press("ArrowRight");
        await page.waitForURL(new RegExp(`Size=${size}\\b`));
      }
      expect(new URL(page.url()).search).toBe("?Color=Forest&Size=XL");
      await expect.poll(() => page.locator(".product-price .price-now").first().textContent()).toBe("$30.00");
      await expect(page.getByRole("radio", { name: "XL" }).isChecked()).resolves.toBe(true);
      await expect(page.evaluate(() => document.activeElement?.getAttribute("value"))).resolves.toBe("XL");
      await expect(page.locator(".stock").textContent()).resolves.toMatch(/^In stock/);
      await expect(page.getByRole("button", { name: "Add to cart" }).isEnabled()).resolves.toBe(true);

      // The add-to-cart form carries what the cart needs.
      const form = page.locator("form.add-to-cart");
      await expect(form.getAttribute("action")).resolves.toBe("/cart");
      await expect(form.locator("input[name=intent]").inputValue()).resolves.toBe("add");
      await expect(form.locator("input[name='option.Color']").inputValue()).resolves.toBe("Forest");
      await expect(form.locator("input[name='option.Size']").inputValue()).resolves.toBe("XL");
      await expect(form.locator("input[name=variantId]").inputValue()).resolves.toMatch(/^[0-9a-f-]{36}$/);
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("offers the back-in-stock sign-up for a sold-out item", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context, problems } = await open();
    try {
      await page.goto(`${w.url}/products/everyday-organic-tee?Color=Forest&Size=XS`);
      await hydrated(page);
      await expect(page.locator(".stock").textContent()).resolves.toMatch(/^Sold out/);
      await expect(page.getByRole("button", { name: "Add to cart" }).count()).resolves.toBe(0);
      await expect(page.getByRole("heading", { name: "Get an email when it is back" }).count()).resolves.toBe(1);
      const email = page.getByLabel("Email");
      await expect(email.getAttribute("type")).resolves.toBe("email");
      await expect(page.locator("form.back-in-stock input[name=intent]").inputValue()).resolves.toBe("notify");
      const variantId = await page.locator("form.back-in-stock input[name=variantId]").inputValue();
      expect(variantId).toMatch(/^[0-9a-f-]{36}$/);

      // Signing up stores a request for that variant and says so where the form was.
      const address = `bis-${Date.now()}@example.test`;
      await email.fill(address);
      await page.getByRole("button", { name: "Notify me" }).click();
      await expect
        .poll(() => page.locator(".back-in-stock[role=status]").textContent())
        .toContain(`we will email ${address} when Everyday Organic Tee is back in stock`);
      const row = await w.db
        .prepare("SELECT status, variant_id AS variantId, item_url AS itemUrl FROM back_in_stock_requests WHERE email = ?")
        .bind(address)
        .first<{ status: string; variantId: string; itemUrl: string }>();
      expect(row).toEqual({ status: "RECEIVED", variantId, itemUrl: `${w.url}/products/everyday-organic-tee?Color=Forest&Size=XS` });
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a bad email for back-in-stock is refused next to the field, and nothing is stored", async () => {
    const before = (await w.db.prepare("SELECT count(*) AS n FROM back_in_stock_requests").first<{ n: number }>())!.n;
    const { text: page } = await html("/products/everyday-organic-tee?Color=Forest&Size=XS");
    const variantId = page.match(/name="variantId" value="([^"]+)"/)![1];
    const res = await w.fetch("/products/everyday-organic-tee?Color=Forest&Size=XS", {
      method: "POST",
      headers: { "user-agent": BROWSER_UA, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "notify", email: "not an email", variantId }).toString(),
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toMatch(/<input id="[^"]+" type="email"[^>]*aria-invalid="true"[^>]*aria-describedby="([^"]+)-error"/);
    expect(text).toContain('class="field-error">Enter an email address like name@example.com.</p>');
    expect(text).toContain('value="not an email"');
    expect((await w.db.prepare("SELECT count(*) AS n FROM back_in_stock_requests").first<{ n: number }>())!.n).toBe(before);
  });

  it("adds to the cart in place with JavaScript: the button shows it is busy and the header count goes up", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context, problems } = await open();
    try {
      await page.goto(`${w.url}/products/campfire-hoodie?Color=Forest&Size=M`);
      await hydrated(page);
      await expect(page.getByTestId("cart-count").textContent()).resolves.toMatch(/^0/);
      await page.getByLabel("Quantity").fill("2");
      // Hold the cart's answer a moment, to see the pending state a slow connection shows.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route("**/cart.data**", async (route) => {
        await held;
        await route.continue();
      });
      await page.getByRole("button", { name: "Add to cart" }).click();
      const busy = page.getByRole("button", { name: "Adding…" });
      await expect.poll(() => busy.count()).toBe(1);
      await expect(busy.isDisabled()).resolves.toBe(true);
      release();
      await expect.poll(() => page.getByTestId("cart-count").textContent()).toMatch(/^2 items/);
      await expect(page.locator(".add-result").textContent()).resolves.toContain("Added to your cart.");
      // The page stayed where it was.
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/products/campfire-hoodie?Color=Forest&Size=M");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("adds to the cart without JavaScript: the form posts to /cart and comes back with the count", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context } = await open({ javaScript: false });
    try {
      await page.goto(`${w.url}/products/morning-ridge-blend?Grind=Filter`);
      await page.getByRole("button", { name: "Add to cart" }).click();
      await page.waitForURL(/\/products\/morning-ridge-blend\?Grind=Filter&added=1/);
      await expect(page.locator(".add-result").textContent()).resolves.toContain("Added to your cart.");
      await expect(page.getByTestId("cart-count").textContent()).resolves.toMatch(/^1 item/);
    } finally {
      await context.close();
    }
  });
});

describe("without JavaScript", () => {
  it("the filter form and the variant picker still work as plain GET forms", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context } = await open({ javaScript: false });
    try {
      await page.goto(`${w.url}/collections/t-shirts`);
      await page.locator("summary", { hasText: "Filters" }).first().isVisible();
      await page.getByRole("checkbox", { name: /^In stock only/ }).check();
      await page.getByRole("checkbox", { name: /^XL/ }).check();
      await page.getByRole("button", { name: "Apply filters" }).click();
      await page.waitForURL(/instock=1/);
      const url = new URL(page.url());
      expect(url.searchParams.get("opt.Size")).toBe("XL");
      const expected = await productsWhere(
        `in_stock = 1 AND id IN (SELECT product_id FROM collection_products cp JOIN collections c ON c.id = cp.collection_id WHERE c.slug = 't-shirts')
         AND EXISTS (SELECT 1 FROM variants v WHERE v.product_id = products.id AND v.visible = 1 AND json_extract(v.choices, '$.Size') = 'XL')`,
      );
      expect(await page.locator(".product-grid .card").count()).toBe(expected.length);
      await expect(page.locator("#results-count").textContent()).resolves.toBe(`${expected.length} products`);

      await page.goto(`${w.url}/products/campfire-hoodie`);
      // Without JavaScript a shopper clicks the choices' labels, then asks for the selection.
      const choice = (name: string) => page.locator(".choice", { has: page.getByRole("radio", { name, exact: true }) }).locator("label");
      await choice("Rust").click();
      await choice("XXL").click();
      await page.getByRole("button", { name: "Show selection" }).click();
      await page.waitForURL(/Color=Rust&Size=XXL/);
      await expect(page.locator(".product-price .price-now").first().textContent()).resolves.toBe("$78.00");
      await expect(page.locator("form.add-to-cart input[name='option.Size']").inputValue()).resolves.toBe("XXL");
      await expect(page.getByRole("button", { name: "Add to cart" }).isEnabled()).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe("listing pages", () => {
  it("page through all products: counts, page links and the canonical URL follow the page", async () => {
    const total = (await w.db.prepare("SELECT count(*) AS n FROM products WHERE visible = 1").first<{ n: number }>())!.n;
    expect(total).toBeGreaterThan(48);
    const first = (await html("/shop")).text;
    expect(first).toContain(`>1–24 of ${total} products</p>`);
    expect(first).toMatch(/<a rel="next" href="\/shop\?page=2"/);
    const second = (await html("/shop?page=2")).text;
    expect(second).toContain(`>25–48 of ${total} products</p>`);
    expect(second).toMatch(/<a aria-current="page" aria-label="Page 2" href="\/shop\?page=2"/);
    expect(second).toMatch(/<a rel="prev" href="\/shop"/);
    expect(second).toContain(`<link rel="canonical" href="${w.url}/shop?page=2"/>`);
    // Pages hold different products, newest first across them.
    const names = (t: string) => [...t.matchAll(/class="card-title">([^<]+)</g)].map((m) => m[1]);
    expect(names(first)).toHaveLength(24);
    expect(names(second)).toHaveLength(24);
    expect(names(second).filter((n) => names(first).includes(n))).toEqual([]);
    // A page past the end says there is nothing there, rather than failing.
    const beyond = await html("/shop?page=99");
    expect(beyond.res.status).toBe(200);
    expect(beyond.text).toContain(">No products on page 99</p>");
    const last = Math.ceil(total / 24);
    expect(beyond.text).toMatch(new RegExp(`This list ends on page <!-- -->${last}<!-- -->\\. <a href="/shop\\?page=${last}"`));
  });

  it("bad filter values in the URL are ignored, never an error", async () => {
    for (const q of ["?min=abc&max=-5", "?sort=constructor", "?page=-3", `?opt.${"x".repeat(80)}=1`, `?brand=${"b".repeat(200)}`, "?min=50&max=10"]) {
      const { res } = await html(`/shop${q}`);
      expect(res.status, q).toBe(200);
    }
    // min above max is read as the range between them.
    const swapped = (await html("/shop?min=50&max=10")).text;
    expect(swapped).toContain("Price 10–50");
  });
});

describe("streamed parts", () => {
  it("data already read is part of the page: a product's suggestions always, the home page's sale row once cached", async () => {
    const product = await html("/products/everyday-organic-tee");
    expect(product.text).not.toContain("Loading suggestions");
    expect(product.text.match(/<section class="related"[\s\S]*?<\/section>/)?.[0]).toMatch(/class="card-title">[^<]+</);
    await html("/?first=1"); // reads the sale row into the catalogue cache (another query: not the cached page)
    const home = await html("/?again=1");
    expect(home.text).not.toContain("Loading sale items");
    expect(home.text).toMatch(/<h2 id="sale-heading">On sale<\/h2>[\s\S]*?class="card-title"/);
  });
});

describe("crawlers, sitemap and robots", () => {
  it("bots get complete HTML: the deferred sections are in the page, not their placeholders", async () => {
    const product = await html("/products/everyday-organic-tee", BOT_UA);
    expect(product.res.status).toBe(200);
    expect(product.text).toContain('id="related-heading"');
    expect(product.text).not.toContain("Loading suggestions");
    expect(product.text.match(/<section class="related"[\s\S]*?<\/section>/)?.[0]).toMatch(/class="card-title">[^<]+</);
    const home = await html("/", BOT_UA);
    expect(home.text).not.toContain("Loading collections");
    expect(home.text).not.toContain("Loading sale items");
    expect(home.text).toMatch(/<h2 id="sale-heading">On sale<\/h2>[\s\S]*?class="card-title"/);
    const collection = await html("/collections/t-shirts", BOT_UA);
    expect(collection.text).toContain("Apply filters");
    // Titles, descriptions, canonical URLs and Open Graph on every page.
    for (const page of [product, home, collection]) {
      expect(page.text).toMatch(/<title>[^<]+<\/title>/);
      expect(page.text).toMatch(/<meta name="description" content="[^"]+"/);
      expect(page.text).toMatch(new RegExp(`<link rel="canonical" href="${w.url}/[^"]*"`));
      expect(page.text).toMatch(/<meta property="og:title" content="[^"]+"/);
    }
  });

  it("sitemap.xml lists home, shop, collections and every visible product with absolute URLs", async () => {
    const res = await w.fetch("/sitemap.xml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
    const xml = await res.text();
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    const visible = (await w.db.prepare("SELECT slug FROM products WHERE visible = 1").all<{ slug: string }>()).results;
    const collections = (await w.db.prepare("SELECT slug FROM collections WHERE visible = 1 AND slug != 'all-products'").all<{ slug: string }>())
      .results;
    expect(locs).toContain(`${w.url}/`);
    expect(locs).toContain(`${w.url}/shop`);
    for (const c of collections) expect(locs).toContain(`${w.url}/collections/${c.slug}`);
    for (const p of visible) expect(locs).toContain(`${w.url}/products/${p.slug}`);
    expect(locs).toHaveLength(2 + collections.length + visible.length);
  });

  it("robots.txt keeps crawlers out of checkout and the account, and points at the sitemap", async () => {
    const res = await w.fetch("/robots.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const lines = (await res.text()).split("\n");
    expect(lines).toEqual(expect.arrayContaining(["User-agent: *", "Disallow: /checkout", "Disallow: /account", `Sitemap: ${w.url}/sitemap.xml`]));
    expect(lines).not.toContain("Disallow: /cart");
  });
});

describe("security headers and structured data", () => {
  it("every page has a CSP with a fresh nonce that every inline script carries (or, served from the edge cache, its scripts' hashes)", async () => {
    const nonces = new Set<string>();
    let fresh = 0;
    for (const p of ["/", "/shop", "/collections/t-shirts", "/search?q=tee", "/products/everyday-organic-tee", "/no-such-page"]) {
      const { res, text } = await html(p);
      const csp = res.headers.get("content-security-policy") ?? "";
      if (res.headers.get("x-page-cache") === "hit") {
        // A cached anonymous page is the same for every visitor, so a nonce would be public: its inline scripts are
        // allowed by their SHA-256 hashes instead (tests/node/anonymous-browsing.test.ts checks each one).
        expect(csp, p).toMatch(/^script-src ('sha256-[A-Za-z0-9+/=]+' )+'strict-dynamic'; /);
        expect(csp, p).not.toContain("nonce");
        continue;
      }
      fresh++;
      const nonce = csp.match(/script-src 'nonce-([A-Za-z0-9+/=]+)' 'strict-dynamic'/)?.[1];
      expect(nonce, p).toBeTruthy();
      for (const directive of ["object-src 'none'", "base-uri 'self'", "frame-ancestors 'none'", "form-action 'self'"])
        expect(csp, p).toContain(directive);
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      nonces.add(nonce!);
      // The stylesheet is inline in the head (no request stands between the HTML and the first paint), once, before
      // any linked stylesheet (so a route's own stylesheet still wins).
      const head = text.slice(0, text.indexOf("</head>"));
      expect(head, p).toMatch(/^<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"\/>/);
      expect(head.match(/<style>:root\{/g)?.length, p).toBe(1);
      const linked = head.indexOf('rel="stylesheet"');
      if (linked >= 0) expect(head.indexOf("<style>:root{"), p).toBeLessThan(linked);
      const scripts = [...text.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
      expect(scripts.length, p).toBeGreaterThan(1);
      for (const attrs of scripts) {
        // External module scripts are loaded by the nonce'd inline module ('strict-dynamic'); every <script> here is inline.
        expect(attrs, `${p}: ${attrs}`).toContain(`nonce="${nonce}"`);
      }
    }
    expect(nonces.size).toBe(fresh);
    expect(fresh).toBeGreaterThan(0); // the not-found page is never cached
  });

  it("a description written as HTML shows as formatted text, and as plain text in the summary and meta tags", async () => {
    const created = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        product: {
          name: "Html Described Tee",
          slug: "html-described-tee",
          priceData: { price: 20 },
          description: "<p>A tee.</p><ul><li>soft</li><li>organic</li></ul><script>window.__pwned=1</script>",
        },
      }),
    });
    expect(created.status).toBe(200);
    const { text } = await html("/products/html-described-tee");
    expect(text).not.toMatch(/&lt;(p|ul|li|script)/);
    expect(text).not.toContain("__pwned");
    expect(text).toContain('<p class="product-summary">A tee. soft; organic</p>');
    expect(text).toContain('<meta name="description" content="A tee. soft; organic"/>');
    expect(text).toContain('<meta property="og:description" content="A tee. soft; organic"/>');
    const about = text.match(/<div class="rich-content">([\s\S]*?)<\/div><\/section>/)?.[1] ?? "";
    expect(about).toMatch(/<ul><li><p><span>soft<\/span><\/p><\/li><li><p><span>organic<\/span><\/p><\/li><\/ul>/);
  });

  it("JSON-LD Product data parses, and a name with </script> in it cannot break out", async (ctx) => {
    const name = `Tricky </script><script>window.__pwned=1</script> Mug`;
    const created = await w.fetch("/v1/products", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        product: {
          name,
          slug: "tricky-mug",
          description: "A mug whose name tries to close its script element.",
          priceData: { price: 12 },
          media: [
            { url: "/demo/mug-a3b59a.svg", altText: "A sage stoneware mug", width: 800, height: 800 },
            {
              url: "/demo/mug-turning.mp4",
              mediaType: "video",
              title: "The mug, turning",
              thumbnailUrl: "/demo/mug-a3b59a.svg",
              width: 640,
              height: 360,
            },
          ],
          richDescription: {
            nodes: [
              {
                type: "PARAGRAPH",
                nodes: [
                  { type: "TEXT", textData: { text: "Read ", decorations: [] } },
                  {
                    type: "TEXT",
                    textData: {
                      text: "the guide",
                      decorations: [{ type: "LINK", linkData: { link: { url: "https://example.com/guide", target: "BLANK" } } }],
                    },
                  },
                ],
              },
              {
                type: "PARAGRAPH",
                nodes: [
                  {
                    type: "TEXT",
                    textData: { text: "bad link", decorations: [{ type: "LINK", linkData: { link: { url: "javascript:window.__pwned=2" } } }] },
                  },
                ],
              },
              { type: "HTML", htmlData: { html: "<img src=x onerror=window.__pwned=3><script>window.__pwned=4</script>" } },
              { type: "PARAGRAPH", nodes: [{ type: "TEXT", textData: { text: "<b>not bold</b>", decorations: [] } }] },
            ],
          },
        },
      }),
    });
    expect(created.status).toBe(200);
    const { text } = await html("/products/tricky-mug");
    const blocks = [...text.matchAll(/<script type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    const data = JSON.parse(blocks[0]);
    expect(data).toMatchObject({
      "@context": "https://schema.org",
      "@type": "Product",
      name,
      offers: { "@type": "Offer", price: "12.00", priceCurrency: "USD", availability: "https://schema.org/InStock" },
    });
    expect(blocks[0]).not.toContain("</script");
    // The rich description: the link is kept with a safe rel, the javascript: one loses its href, HTML nodes are dropped.
    const about = text.match(/<div class="rich-content">([\s\S]*?)<\/div><\/section>/)?.[1] ?? "";
    expect(about).toContain('<a href="https://example.com/guide" rel="noopener noreferrer" target="_blank">the guide</a>');
    expect(about).not.toContain("javascript:");
    expect(about).toContain("bad link");
    expect(about).not.toContain("onerror");
    expect(about).not.toContain("<script");
    expect(about).toContain("&lt;b&gt;not bold&lt;/b&gt;");
    // The gallery: the picture first (eager, sized), then the video with its poster, and a thumbnail for each.
    const gallery = text.match(/<section class="gallery"[\s\S]*?<\/section>/)?.[0] ?? "";
    expect(gallery).toMatch(
      /<img src="\/demo\/mug-a3b59a.svg"[^>]*alt="A sage stoneware mug" width="800" height="800" loading="eager" fetchPriority="high"/,
    );
    expect(gallery).toMatch(
      /<video controls="" preload="none" playsInline="" poster="\/demo\/mug-a3b59a.svg" width="640" height="360" aria-label="The mug, turning"><source src="\/demo\/mug-turning.mp4" type="video\/mp4"\/>/,
    );
    expect(gallery.match(/<ul class="gallery-thumbs"[\s\S]*?<\/ul>/)?.[0].match(/<li>/g)).toHaveLength(2);

    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const { page, context, problems } = await open();
    try {
      await page.goto(`${w.url}/products/tricky-mug`);
      await hydrated(page);
      await expect(page.locator("h1").textContent()).resolves.toBe(name);
      await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
      const ld = await page.locator('script[type="application/ld+json"]').textContent();
      expect(JSON.parse(ld!).name).toBe(name);
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("accessibility and looks", () => {
  const PAGES = [
    ["home", "/"],
    ["shop", "/shop"],
    ["collection", "/collections/t-shirts"],
    ["search", "/search?q=tee"],
    ["product", "/products/everyday-organic-tee?Color=Forest&Size=XS"],
    ["not-found", "/no-such-page"],
  ] as const;

  it("axe-core finds no violations on home, shop, a collection, search, a product and the 404 page; screenshots at 375 and 1280 px", async (ctx) => {
    skipWithoutChromium(ctx);
    for (const width of [375, 1280]) {
      const { page, context, problems } = await open({ width });
      try {
        for (const [name, p] of PAGES) {
          const res = await page.goto(`${w.url}${p}`, { waitUntil: "networkidle" });
          expect(res!.status(), p).toBe(name === "not-found" ? 404 : 200);
          await hydrated(page);
          await page.addScriptTag({ content: axeSource });
          const result = await page.evaluate(async () => {
            const axe = (
              window as unknown as {
                axe: {
                  run: (
                    ctx: Document,
                    opts: object,
                  ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
                };
              }
            ).axe;
            return axe.run(document, { resultTypes: ["violations"] });
          });
          const violations = result.violations.map(
            (v) =>
              `${v.id} (${v.impact}): ${v.help} — ${v.nodes
                .map((n) => n.target.join(" "))
                .slice(0, 3)
                .join(", ")}`,
          );
          expect(violations, `${name} at ${width}px`).toEqual([]);
          // No horizontal scrolling at phone width.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${name} at ${width}px scrolls sideways`).toBeLessThanOrEqual(0);
          // A full-page picture: load the lazy images below the fold first, as scrolling would.
          await page.evaluate(() => {
            for (const img of document.images) img.loading = "eager";
          });
          await page.waitForLoadState("networkidle");
          await page.screenshot({ path: path.join(SHOTS, `catalogue-${name}-${width}.png`), fullPage: true });
          expect(await cspViolations(page), `${name} at ${width}px`).toEqual([]);
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it("fits a 320 px phone: no page scrolls sideways", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context } = await open({ width: 320 });
    try {
      for (const [name, p] of PAGES) {
        await page.goto(`${w.url}${p}`, { waitUntil: "networkidle" });
        await hydrated(page);
        // Whatever sticks out past the right edge, outside the rows meant to scroll sideways (navigation, gallery).
        const sticking = await page.evaluate(() => {
          const scrolls = (e: Element) => ["auto", "scroll", "hidden"].includes(getComputedStyle(e).overflowX);
          const inScroller = (e: Element) => {
            for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) if (scrolls(a)) return true;
            return false;
          };
          return [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5 && !inScroller(e))
            .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px`);
        });
        expect(sticking, `${name} at 320px`).toEqual([]);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${name} at 320px scrolls sideways`).toBeLessThanOrEqual(0);
      }
    } finally {
      await context.close();
    }
  });

  it("the skip link is the first stop for a keyboard and jumps to the content", async (ctx) => {
    skipWithoutChromium(ctx);
    const { page, context } = await open();
    try {
      await page.goto(`${w.url}/shop`);
      await hydrated(page);
      await page.keyboard.press("Tab");
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Skip to content");
      const box = await page.locator(".skip-link").boundingBox();
      expect(box!.y).toBeGreaterThanOrEqual(0);
      await page.keyboard.press("Enter");
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("main-content");
    } finally {
      await context.close();
    }
  });
});
