import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, shopper, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The CMS on the shop: the header and footer links come from the menus (not from the collections), content pages at
 * /pages/{slug} (cached for visitors, fresh after a CMS write, 404 for an unknown slug), and the console's Content
 * section where a merchant edits a page and the header menu and the shop shows both.
 */

const { store, needsChromium } = useStore("cms pages");

const visit = (w: RunningWorker, p: string) => w.fetch(p, { headers: { "user-agent": BROWSER_UA } });

/** The links of one `nav` (by its label) or of the footer, as "text -> href". */
function links(html: string, where: "Main" | "footer"): string[] {
  const part =
    where === "footer" ? (/<footer[\s\S]*?<\/footer>/.exec(html)?.[0] ?? "") : (/<nav aria-label="Main"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? "");
  return [...part.matchAll(/<a [^>]*href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map((m) => `${m[2].replace(/&amp;/g, "&")} -> ${m[1]}`);
}

async function api(w: RunningWorker, method: string, p: string, body?: unknown) {
  const res = await w.fetch(p, {
    method,
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect(res.status, `${method} ${p}: ${JSON.stringify(json)}`).toBe(200);
  return json;
}

describe("CMS menus and pages on the shop", () => {
  it("the demo shop's header and footer list the menus' pages, and each page renders at /pages/{slug}", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const home = await visit(w, "/");
    const html = await home.text();
    expect(links(html, "Main")).toEqual([
      "Shop all -> /shop",
      "T-shirts -> /collections/t-shirts",
      "Shoes -> /collections/shoes",
      "Home -> /collections/home",
      "Coffee & tea -> /collections/coffee",
      "About -> /pages/about",
      "Shipping and returns -> /pages/shipping-and-returns",
    ]);
    expect(links(html, "footer")).toEqual(
      expect.arrayContaining([
        "About -> /pages/about",
        "Privacy -> /pages/privacy",
        "Terms -> /pages/terms",
        "Shipping and returns -> /pages/shipping-and-returns",
      ]),
    );
    const page = await visit(w, "/pages/shipping-and-returns");
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain("<h1>Shipping and returns</h1>");
    expect(body).toMatch(/<h2>(<span>)?Returns(<\/span>)?<\/h2>/);
    expect(body).toContain("<strong>free on orders over $75</strong>");
    expect(body).toContain('content="Delivery times, shipping costs and how to return an order within 30 days."');
    const missing = await visit(w, "/pages/no-such-page");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Page not found");
  });

  it("a new visible collection does not change the header (it used to push a category out of the first six)", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const before = links(await (await visit(w, "/shop")).text(), "Main");
    // First in alphabetical order, so the old header (the first 6 collections by name) would have shown it.
    await api(w, "POST", "/v1/collections", { collection: { name: `Aardvark picks ${Date.now()}`, visible: true } });
    const after = await (await visit(w, "/shop")).text();
    expect(links(after, "Main")).toEqual(before);
    expect(links(after, "footer").some((l) => l.startsWith("Aardvark picks"))).toBe(true);
  });

  it("a visitor's page comes from the edge cache and shows a CMS write at once", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    await visit(w, "/pages/terms");
    const cached = await visit(w, "/pages/terms");
    expect(cached.headers.get("x-page-cache")).toBe("hit");
    const { dataItems } = await api(w, "POST", "/wix-data/v2/items/query", { dataCollectionId: "Pages", query: { filter: { slug: "terms" } } });
    const terms = dataItems[0];
    await api(w, "POST", "/wix-data/v2/items/update", {
      dataCollectionId: "Pages",
      dataItem: { id: terms.id, data: { slug: "terms", title: "Terms of sale", body: "Updated terms." } },
    });
    const fresh = await visit(w, "/pages/terms");
    expect(fresh.headers.get("x-page-cache")).toBe("miss");
    const html = await fresh.text();
    expect(html).toContain("<h1>Terms of sale</h1>");
    expect(html).toContain("Updated terms.");
  });
});

describe("console Content section", () => {
  let editor = { email: "", password: "" };
  let viewerCookie = "";

  beforeAll(async () => {
    if (!store()) return;
    editor = await consoleAccount(store().w, "STAFF", ["cms.write"]);
    viewerCookie = await consoleCookie(store().w, await consoleAccount(store().w, "STAFF", ["catalog.write"]));
  }, 60_000);

  it("a merchant edits a page and the header menu in Chromium, and the shop shows both", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const { context, page, problems } = await consoleBrowser(store().browser, w, editor);
    try {
      await page.click("nav[aria-label='Console sections'] >> text=Content");
      await page.waitForURL((u) => u.pathname === "/console/content");
      await hydrated(page);
      await page.click("table >> text=About");
      await page.waitForURL((u) => u.pathname.startsWith("/console/content/pages/"));
      await page.fill("#f-dataItem-data-title", "Our story");
      await page.fill("#f-dataItem-data-body", "Founded in **2019** by two friends.\n\n- small batches\n- fair prices");
      await page.click("button[name=intent][value=save]");
      await page.waitForSelector("text=Saved “Our story”.");

      // A bad slug is refused next to its field and nothing is saved.
      await page.fill("#f-dataItem-data-slug", "Our Story!");
      await page.click("button[name=intent][value=save]");
      await page.waitForSelector("text=Nothing was saved");
      expect(await page.locator("#f-dataItem-data-slug").getAttribute("aria-invalid")).toBe("true");

      await page.goto(`${w.url}/console/content/menus/header-menu`);
      await hydrated(page);
      await page.selectOption("#content-menu-add", { label: "Privacy (/pages/privacy)" });
      await page.click("button[name=intent][value=add]");
      await page.waitForSelector("text=Added the page to the menu.");
      await page.click("button[aria-label='Move “Privacy” up']");
      await page.waitForSelector("text=Moved “Privacy” up.");
      await page.click("button[aria-label='Remove “Shipping and returns” from the menu']");
      await page.waitForSelector("text=Removed “Shipping and returns” from the menu.");
      // A collection and a free URL join the header too.
      await page.selectOption("#content-menu-add", { label: "Bags (/collections/bags)" });
      await page.click("button[name=intent][value=add]");
      await page.waitForSelector("text=Added the collection to the menu.");
      await page.fill("#content-menu-url-title", "Journal");
      await page.fill("#content-menu-url", "https://journal.example.com/");
      await page.click("button[name=intent][value=addUrl]");
      await page.waitForSelector("text=Added the link to the menu.");
      await expectAccessible(page, "console content menu");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }

    const { context: shop, page: visitor } = await shopper(store());
    try {
      await visitor.goto(`${w.url}/`);
      await hydrated(visitor);
      expect(await visitor.locator("nav[aria-label='Main'] a").allTextContents()).toEqual([
        "Shop all",
        "T-shirts",
        "Shoes",
        "Home",
        "Coffee & tea",
        "Our story",
        "Privacy",
        "Bags",
        "Journal",
      ]);
      await visitor.click("nav[aria-label='Main'] >> text=Our story");
      await visitor.waitForURL((u) => u.pathname === "/pages/about");
      await expect.poll(() => visitor.locator("h1").textContent()).toBe("Our story");
      expect(await visitor.locator(".rich-content strong").textContent()).toBe("2019");
      expect(await visitor.locator(".rich-content li").allTextContents()).toEqual(["small batches", "fair prices"]);
    } finally {
      await shop.close();
    }
  });

  it("staff without cms.write see the content but every change is refused and nothing is written", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const before = await w.db.prepare("SELECT COUNT(*) AS n, MAX(updated_date) AS at FROM cms_items").first();
    const list = await w.fetch("/console/content", { headers: { cookie: viewerCookie, "user-agent": BROWSER_UA } });
    expect(list.status).toBe(200);
    expect(await list.text()).not.toContain('href="/console/content/pages/new"');
    const created = await postConsoleForm(w, viewerCookie, "/console/content/pages/new", {
      intent: "save",
      "dataItem.data.title": "Sneaky",
      "dataItem.data.slug": "sneaky",
    });
    expect(created.status).toBe(403);
    const moved = await postConsoleForm(w, viewerCookie, "/console/content/menus/footer-menu", { intent: "remove", pageId: "x" });
    expect(moved.status).toBe(403);
    expect(await w.db.prepare("SELECT COUNT(*) AS n, MAX(updated_date) AS at FROM cms_items").first()).toEqual(before);
  });
});
