import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, shopper, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The console's collections: the list (search by name, sort and pages in the URL, answered by the
 * collections query, the built-in All Products shown but not editable), each collection's page (name, slug,
 * description, image; its products with a picker to add more and a button to remove one) and deleting with a
 * confirmation, all through the catalogue's collection services (catalog.write).
 */

const { store, needsChromium } = useStore("console collections");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const listed = (html: string) =>
  [...html.matchAll(/class="collections-name"[^>]*>([^<]*)</g)].map((m) => m[1].replace(/&amp;/g, "&").replace(/&#x27;/g, "'"));
const count = async (w: RunningWorker, sql: string, ...binds: unknown[]) =>
  (await w.db
    .prepare(sql)
    .bind(...binds)
    .first<{ n: number }>())!.n;

async function apiCollection(w: RunningWorker, collection: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const res = await w.fetch("/v1/collections", {
    method: "POST",
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: JSON.stringify({ collection }),
  });
  const body = (await res.json()) as { collection: { id: string; slug: string } };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.collection;
}

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

/** A full-page screenshot at the 1280 px laptop width. */
async function consoleScreenshot(page: Page, name: string) {
  mkdirSync(shots, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(shots, `${name}-1280.png`), fullPage: true });
}

describe("console collections", () => {
  let writer = "";
  let viewer = "";
  const prefix = `Zephyr ${Date.now()}`;

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    writer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write"]));
    viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["inventory.write"]));
    // 27 collections sharing a name prefix: more than one page of 25. One is hidden from shoppers.
    for (let i = 1; i <= 27; i++) await apiCollection(w, { name: `${prefix} ${String(i).padStart(2, "0")}`, visible: i !== 3 });
  }, 60_000);

  it("lists one page of collections for the search in the URL, in at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const all = await count(w, "SELECT COUNT(*) AS n FROM collections");
    const res = await get(w, writer, "/console/collections");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).toContain(`${all} collections; page 1 of ${Math.ceil(all / 25)}.`);
    expect(listed(html)).toHaveLength(25);
    // The built-in All Products collection is listed, marked, and has no link to an editor.
    expect(html).toContain("All Products");
    expect(html).toContain("Built in");
    expect(html).not.toContain("/console/collections/00000000-000000-000000-000000000001");
    expect(html).toContain('href="/console/collections/new"');

    const q = encodeURIComponent(prefix.toLowerCase());
    const first = await get(w, writer, `/console/collections?q=${q}`);
    expect(roundTrips(first)).toBeLessThanOrEqual(3);
    const page1 = await first.text();
    expect(page1).toContain("27 collections match; page 1 of 2.");
    expect(listed(page1)).toEqual(Array.from({ length: 25 }, (_, i) => `${prefix} ${String(i + 1).padStart(2, "0")}`));
    expect(page1).toMatch(/href="\/console\/collections\?q=zephyr\+\d+&amp;page=2"/);
    const page2 = await (await get(w, writer, `/console/collections?q=${q}&page=2`)).text();
    expect(listed(page2)).toEqual([`${prefix} 26`, `${prefix} 27`]);
    // Hidden collections are the merchant's too; sorted newest first, the last created leads.
    const newest = await (await get(w, writer, `/console/collections?q=${q}&sort=newest`)).text();
    expect(listed(newest)[0]).toBe(`${prefix} 27`);
    expect(await (await get(w, writer, "/console/collections?q=no%20such%20thing")).text()).toContain("No collections match this search.");
    // A staff member without catalog.write sees the list but no way to create one.
    const viewerHtml = await (await get(w, viewer, "/console/collections")).text();
    expect(listed(viewerHtml)).toHaveLength(25);
    expect(viewerHtml).not.toContain('href="/console/collections/new"');
  });

  it("in Chromium: searches with the keyboard and passes axe at 1280 px", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["catalog.write"]));
    try {
      await page.goto(`${s.w.url}/console/collections`);
      await hydrated(page);
      await page.keyboard.press("/");
      await page.keyboard.type(prefix);
      await Promise.all([page.waitForURL((u) => u.searchParams.get("q") === prefix), page.keyboard.press("Enter")]);
      await expect.poll(() => page.locator("[role=status]").textContent()).toContain("27 collections match");
      await expectAccessible(page, "console collections");
      await page.goto(`${s.w.url}/console/collections`);
      await consoleScreenshot(page, "console-collections");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("in Chromium: creates (a bad slug is refused next to its field), edits, adds two products with the picker, removes one, and deletes with a confirmation", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const w = s.w;
    const name = `Autumn picks ${Date.now()}`;
    const slug = name.toLowerCase().replace(/ /g, "-");
    const rows = () => count(w, "SELECT COUNT(*) AS n FROM collections WHERE name = ?", name);
    const { context, page, problems } = await consoleBrowser(s.browser, w, await consoleAccount(w, "STAFF", ["catalog.write"]));
    try {
      await page.goto(`${w.url}/console/collections`);
      await hydrated(page);
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/console/collections/new"),
        page.getByRole("link", { name: "New collection" }).click(),
      ]);
      await page.fill("#f-name", name);
      await page.fill("#f-slug", "Autumn Picks!");
      await page.fill("#f-description", "Warm layers for cold mornings.");
      await page.fill("#f-media-url", "/demo/backpack-1f3a5f.svg");
      await page.getByRole("button", { name: "Create collection" }).click();
      await expect.poll(() => page.locator("#f-slug-error").textContent()).toContain("lower-case letters, digits and single dashes");
      expect(await page.getAttribute("#f-slug", "aria-invalid")).toBe("true");
      expect(await page.getAttribute("#f-slug", "aria-describedby")).toContain("f-slug-error");
      expect(await page.inputValue("#f-name")).toBe(name);
      expect(await page.inputValue("#f-description")).toBe("Warm layers for cold mornings.");
      expect(await page.inputValue("#f-media-url")).toBe("/demo/backpack-1f3a5f.svg");
      expect(await rows()).toBe(0);

      await page.fill("#f-slug", slug);
      await Promise.all([
        page.waitForURL((u) => /^\/console\/collections\/[0-9a-f-]{36}$/.test(u.pathname)),
        page.getByRole("button", { name: "Create collection" }).click(),
      ]);
      const id = new URL(page.url()).pathname.split("/").pop()!;
      expect(await rows()).toBe(1);
      await expect.poll(() => page.locator(".console-notice").textContent()).toContain(`Created “${name}”`);

      // Edit: a new description, saved with Ctrl+S.
      await page.fill("#f-description", "Warm layers and hot drinks.");
      await page.keyboard.press("Control+s");
      await expect.poll(() => page.locator(".console-notice").textContent()).toContain(`Saved “${name}”`);
      expect(await w.db.prepare("SELECT description FROM collections WHERE id = ?").bind(id).first("description")).toBe(
        "Warm layers and hot drinks.",
      );

      // An image uploaded from a file (to R2, served at /media/<hash>): an SVG is refused at the file field first.
      await page.setInputFiles("#f-imageFile", {
        name: "logo.svg",
        mimeType: "image/svg+xml",
        buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      });
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect.poll(() => page.locator("#f-imageFile-error").textContent()).toContain("SVG");
      expect(await page.getAttribute("#f-imageFile", "aria-invalid")).toBe("true");
      expect(await w.db.prepare("SELECT json_extract(media, '$.url') AS url FROM collections WHERE id = ?").bind(id).first("url")).toBe(
        "/demo/backpack-1f3a5f.svg",
      );
      await page.setInputFiles("#f-imageFile", { name: "autumn.png", mimeType: "image/png", buffer: PNG });
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect.poll(() => page.locator(".console-notice").textContent()).toContain(`Saved “${name}”`);
      const uploaded = (await w.db
        .prepare("SELECT json_extract(media, '$.url') AS url FROM collections WHERE id = ?")
        .bind(id)
        .first<string>("url"))!;
      expect(uploaded).toMatch(/^\/media\/[0-9a-f]{64}\.png$/);
      expect(await page.inputValue("#f-media-url")).toBe(uploaded);
      const served = await w.fetch(uploaded);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/png");

      // The picker: search, add two products without a page load (a marker on window survives), then remove one.
      await page.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true));
      await page.fill("#picker-find", "organic tee");
      await Promise.all([
        page.waitForURL((u) => u.searchParams.get("find") === "organic tee"),
        page.getByRole("button", { name: "Find", exact: true }).click(),
      ]);
      await page.getByRole("button", { name: `Add ${s.tee.name}`, exact: true }).click();
      await expect.poll(() => page.locator(".collections-product").allTextContents()).toEqual([s.tee.name]);
      await page.fill("#picker-find", s.plain.name);
      await Promise.all([
        page.waitForURL((u) => u.searchParams.get("find") === s.plain.name),
        page.getByRole("button", { name: "Find", exact: true }).click(),
      ]);
      await page.getByRole("button", { name: `Add ${s.plain.name}`, exact: true }).click();
      await expect.poll(() => page.locator(".collections-product").count()).toBe(2);
      expect(await count(w, "SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?", id)).toBe(2);
      await expect.poll(() => page.locator(".collection-picker li", { hasText: s.plain.name }).first().textContent()).toContain("In this collection");
      await expectAccessible(page, "console collection page");
      await consoleScreenshot(page, "console-collection");

      await page.getByRole("button", { name: `Remove ${s.tee.name} from this collection` }).click();
      await expect.poll(() => page.locator(".collections-product").allTextContents()).toEqual([s.plain.name]);
      expect(await count(w, "SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?", id)).toBe(1);
      expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);

      // The shop's collection page shows what remains.
      const shop = await shopper(s);
      try {
        await shop.page.goto(`${w.url}/collections/${slug}`);
        const body = await shop.page.locator("main").textContent();
        expect(body).toContain(name);
        expect(body).toContain(s.plain.name);
        expect(body).not.toContain(s.tee.name);
      } finally {
        await shop.context.close();
      }

      // Delete, after the browser's confirm dialog: dismissed first (nothing happens), then accepted.
      page.once("dialog", (d) => void d.dismiss());
      await page.getByRole("button", { name: "Delete collection" }).click();
      expect(await rows()).toBe(1);
      page.once("dialog", (d) => void d.accept());
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/console/collections"),
        page.getByRole("button", { name: "Delete collection" }).click(),
      ]);
      await expect.poll(() => page.locator(".console-notice").textContent()).toContain(`Deleted the collection “${name}”`);
      expect(await rows()).toBe(0);
      expect(await count(w, "SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?", id)).toBe(0);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("without JavaScript: creates (after a refused slug), adds a product with the picker, and deletes after a confirmation page", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const w = s.w;
    const name = `Plain form ${Date.now()}`;
    const rows = () => count(w, "SELECT COUNT(*) AS n FROM collections WHERE name = ?", name);
    const { context, page } = await consoleBrowser(s.browser, w, await consoleAccount(w, "STAFF", ["catalog.write"]), { javaScriptEnabled: false });
    try {
      await page.goto(`${w.url}/console/collections/new`);
      await page.fill("#f-name", name);
      await page.fill("#f-slug", "no spaces allowed");
      await page.fill("#f-description", "Made without scripts.");
      await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Create collection" }).click()]);
      await page.waitForSelector("#f-slug-error");
      expect(await page.inputValue("#f-name")).toBe(name);
      expect(await page.inputValue("#f-description")).toBe("Made without scripts.");
      expect(await page.inputValue("#f-slug")).toBe("no spaces allowed");
      expect(await rows()).toBe(0);
      // An empty slug is made from the name.
      await page.fill("#f-slug", "");
      await Promise.all([
        page.waitForURL((u) => /^\/console\/collections\/[0-9a-f-]{36}$/.test(u.pathname)),
        page.getByRole("button", { name: "Create collection" }).click(),
      ]);
      expect(await rows()).toBe(1);
      const id = new URL(page.url()).pathname.split("/").pop()!;
      expect(await w.db.prepare("SELECT slug FROM collections WHERE id = ?").bind(id).first("slug")).toBe(name.toLowerCase().replace(/ /g, "-"));

      await page.fill("#picker-find", s.plain.name);
      await Promise.all([
        page.waitForURL((u) => u.searchParams.get("find") === s.plain.name),
        page.getByRole("button", { name: "Find", exact: true }).click(),
      ]);
      await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: `Add ${s.plain.name}`, exact: true }).click()]);
      await expect.poll(() => page.locator(".collections-product").allTextContents()).toEqual([s.plain.name]);
      expect(await count(w, "SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?", id)).toBe(1);

      await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Delete collection" }).click()]);
      await page.waitForSelector(".collection-confirm");
      expect(await rows()).toBe(1);
      await Promise.all([
        page.waitForURL((u) => u.pathname === "/console/collections"),
        page.getByRole("button", { name: `Yes, delete “${name}”` }).click(),
      ]);
      expect(await rows()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it("answers a collection's page, picker search included, in at most 3 D1 round trips; refuses a taken slug at its field", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const cname = `Round trips ${Date.now()}`;
    const c = await apiCollection(w, { name: cname });
    const res = await get(w, writer, `/console/collections/${c.id}?find=tee`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    expect(await res.text()).toContain(`Add ${store().tee.name}`);
    expect(roundTrips(await get(w, writer, `/console/collections/${c.id}`))).toBeLessThanOrEqual(3);
    expect((await get(w, writer, "/console/collections/no-such-id")).status).toBe(404);

    const taken = await postConsoleForm(w, writer, `/console/collections/${c.id}`, {
      intent: "save",
      name: "Renamed",
      slug: "t-shirts",
      description: "",
      mediaUrlBefore: "",
      "media.url": "",
    });
    expect(taken.status).toBe(409);
    const html = await taken.text();
    expect(html).toContain('id="f-slug-error"');
    expect(html).toContain("Another collection already uses this slug.");
    expect(html).toContain('value="Renamed"');
    expect(await w.db.prepare("SELECT name FROM collections WHERE id = ?").bind(c.id).first("name")).toBe(cname);
  });

  it("refuses every write to staff without catalog.write (403, nothing written) and shows them no write controls", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const c = await apiCollection(w, { name: `Guarded ${Date.now()}` });
    const members = () => count(w, "SELECT COUNT(*) AS n FROM collection_products WHERE collection_id = ?", c.id);
    const page = await (await get(w, viewer, `/console/collections/${c.id}?find=tee`)).text();
    expect(page).toContain(`Guarded`);
    expect(page).not.toContain('name="intent"');
    expect(page).not.toContain("Delete collection");
    expect(page).not.toContain("Add products");
    const newPage = await get(w, viewer, "/console/collections/new");
    expect(newPage.status).toBe(403);
    expect(await newPage.text()).not.toContain('id="f-name"');

    const before = await w.db.prepare("SELECT name, slug, description, updated_date FROM collections WHERE id = ?").bind(c.id).first();
    const posts: [string, Record<string, string>][] = [
      ["/console/collections/new", { intent: "save", name: `Sneaky ${Date.now()}`, slug: "", description: "", "media.url": "", mediaUrlBefore: "" }],
      [`/console/collections/${c.id}`, { intent: "save", name: "Sneaky", slug: c.slug, description: "changed", "media.url": "", mediaUrlBefore: "" }],
      [`/console/collections/${c.id}`, { intent: "add", productId: store().tee.id }],
      [`/console/collections/${c.id}`, { intent: "remove", productId: store().tee.id }],
      [`/console/collections/${c.id}`, { intent: "delete" }],
      [`/console/collections/${c.id}`, { intent: "delete", confirm: "yes" }],
    ];
    for (const [p, fields] of posts) {
      const res = await postConsoleForm(w, viewer, p, fields);
      expect(res.status, `${p} ${fields.intent}${fields.confirm ? " confirmed" : ""}`).toBe(403);
      expect(await res.text()).toContain("You may not do this");
    }
    // An image upload too (multipart, as the form sends it with a file).
    const multipart = new FormData();
    for (const [k, v] of Object.entries({ intent: "save", name: "Sneaky", slug: c.slug, description: "", "media.url": "", mediaUrlBefore: "" }))
      multipart.append(k, v);
    multipart.append("imageFile", new Blob([PNG], { type: "image/png" }), "sneaky.png");
    // Encoded here: Miniflare's fetch does not take Node's FormData as a body.
    const encoded = new Response(multipart);
    const upload = await w.fetch(`/console/collections/${c.id}`, {
      method: "POST",
      body: new Uint8Array(await encoded.arrayBuffer()),
      headers: { "content-type": encoded.headers.get("content-type")!, origin: w.url, cookie: viewer, "user-agent": BROWSER_UA },
      redirect: "manual",
    });
    expect(upload.status).toBe(403);
    expect(await count(w, "SELECT COUNT(*) AS n FROM collections WHERE name LIKE 'Sneaky%'")).toBe(0);
    expect(await w.db.prepare("SELECT name, slug, description, updated_date FROM collections WHERE id = ?").bind(c.id).first()).toEqual(before);
    expect(await members()).toBe(0);
  });
});
