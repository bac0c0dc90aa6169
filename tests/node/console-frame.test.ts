import { beforeAll, describe, expect, it } from "vitest";
import { hydrated, lastEmail, useStore } from "./commerce-fixtures";
import { consoleAccount, consoleBrowser, consoleCookie, unexpected, type ConsoleAccount } from "./console-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The console keeps the merchant inside it: its errors (403, 404) in the console's frame, an invited staff member
 * landing at its sign-in, edits guarded against leaving unsaved, and a phone-sized layout without sideways scroll.
 */

const { store, needsChromium } = useStore("console frame");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const post = (w: RunningWorker, p: string, fields: Record<string, string>) =>
  w.fetch(p, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: w.url, "user-agent": BROWSER_UA },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

let orderNumber = 930_000;
async function seedOrder(w: RunningWorker, total: number) {
  const id = crypto.randomUUID();
  const iso = new Date().toISOString();
  await w.db
    .prepare(
      "INSERT INTO orders (id, number, checkout_id, cart_id, owner_kind, owner_id, buyer_email, status, payment_status, currency, subtotal, total, details, purchased_date, created_date, updated_date) VALUES (?, ?, ?, ?, 'visitor', 'v', 'phone-buyer@example.com', 'APPROVED', 'PAID', 'USD', ?, ?, json(?), ?, ?, ?)",
    )
    .bind(
      id,
      ++orderNumber,
      `chk-${id}`,
      `cart-${id}`,
      total,
      total,
      JSON.stringify({ priceSummary: { total: { amount: (total / 100).toFixed(2), formattedAmount: `$${(total / 100).toFixed(2)}` } } }),
      iso,
      iso,
      iso,
    )
    .run();
}

describe("console frame", () => {
  let owner: ConsoleAccount;
  let ownerCookie = "";

  beforeAll(async () => {
    if (!store()) return;
    owner = await consoleAccount(store().w, "OWNER");
    ownerCookie = await consoleCookie(store().w, owner);
  });

  it("shows a 404 and a 403 inside the console's frame, not the shop's", async (ctx) => {
    needsChromium(ctx);
    const { w } = store();
    const missing = await get(w, ownerCookie, "/console/no-such-page");
    expect(missing.status).toBe(404);
    const html = await missing.text();
    expect(html).toContain('aria-label="Console sections"');
    expect(html).toMatch(/<h1[^>]*>Page not found<\/h1>/);
    expect(html).not.toContain("Search the shop");

    const gone = await get(w, ownerCookie, `/console/orders/${crypto.randomUUID()}`);
    expect(gone.status).toBe(404);
    const goneHtml = await gone.text();
    expect(goneHtml).toContain('aria-label="Console sections"');
    expect(goneHtml).toContain("No such order.");

    const staff = await consoleCookie(w, await consoleAccount(w, "STAFF", ["orders.write"]));
    const refused = await get(w, staff, "/console/staff");
    expect(refused.status).toBe(403);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain('aria-label="Console sections"');
    expect(refusedHtml).toMatch(/<h1[^>]*>Not allowed<\/h1>/);
    expect(refusedHtml).toContain("Only the store owner manages staff.");
    expect(refusedHtml).not.toContain("Search the shop");
  });

  it("sends a newly activated staff member to the console's sign-in", async (ctx) => {
    needsChromium(ctx);
    const { w } = store();
    const email = `invited-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const invited = await w.fetch("/api/v1/staff", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: OWNER_KEY },
      body: JSON.stringify({ email, permissions: ["orders.write"] }),
    });
    expect(invited.status, await invited.clone().text()).toBe(200);
    const link = new URL((await lastEmail(store(), email, "activation-link")).match(/https?:\/\/\S+/)![0]);
    const token = link.searchParams.get("token")!;
    const done = await post(w, "/reset-password", { token, password: "staff password 1", confirmPassword: "staff password 1" });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/console/login?activated=1");
    const signIn = await (await w.fetch("/console/login?activated=1", { headers: { "user-agent": BROWSER_UA } })).text();
    expect(signIn).toContain("Your account is active. Sign in with the password you just set.");
    expect((await get(w, await consoleCookie(w, { email, password: "staff password 1" }), "/console")).status).toBe(200);
  });

  it("asks before leaving a form with unsaved changes (stay keeps them, leave goes), and not after saving", async (ctx) => {
    needsChromium(ctx);
    const { w, browser } = store();
    const b = await consoleBrowser(browser, w, owner);
    try {
      const { page } = b;
      await page.goto(`${w.url}/console/collections/new`);
      await hydrated(page);
      // Nothing typed: leaving asks nothing.
      await page.getByRole("link", { name: "Orders", exact: true }).click();
      await page.waitForURL((u) => u.pathname === "/console/orders");
      await page.goto(`${w.url}/console/collections/new`);
      await hydrated(page);
      await page.fill("#f-name", "Half-typed collection");
      await page.getByRole("link", { name: "Orders", exact: true }).click();
      const dialog = page.getByRole("alertdialog", { name: "Leave without saving?" });
      await expect.poll(() => dialog.count()).toBe(1);
      await page.getByRole("button", { name: "Stay on this page" }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe("/console/collections/new");
      expect(await page.inputValue("#f-name")).toBe("Half-typed collection");
      await page.getByRole("link", { name: "Orders", exact: true }).click();
      await page.getByRole("button", { name: "Leave and lose changes" }).click();
      await page.waitForURL((u) => u.pathname === "/console/orders");

      // Saving is not leaving.
      await page.goto(`${w.url}/console/collections/new`);
      await hydrated(page);
      await page.fill("#f-name", `Saved collection ${crypto.randomUUID().slice(0, 6)}`);
      await page
        .getByRole("button", { name: /Create|Save/ })
        .first()
        .click();
      await page.waitForURL((u) => /^\/console\/collections\/[^/]+$/.test(u.pathname) && u.pathname !== "/console/collections/new");
      expect(await page.getByRole("alertdialog").count()).toBe(0);

      // Closing the tab with changes: the browser asks.
      await page.goto(`${w.url}/console/collections/new`);
      await hydrated(page);
      await page.fill("#f-name", "Closing with changes");
      const asked = new Promise<string>((resolve) =>
        page.once("dialog", async (d) => {
          resolve(d.type());
          await d.accept();
        }),
      );
      await page.close({ runBeforeUnload: true });
      expect(await asked).toBe("beforeunload");
      expect(unexpected(b.problems)).toEqual([]);
    } finally {
      await b.context.close();
    }
  });

  it("fits a 375 px phone: the product editor has no sideways scroll and the orders list shows status and total", async (ctx) => {
    needsChromium(ctx);
    const { w, browser } = store();
    await seedOrder(w, 4599);
    const b = await consoleBrowser(browser, w, owner, { width: 375 });
    try {
      const { page } = b;
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      await page.goto(`${w.url}/console/products/new`);
      await hydrated(page);
      expect(await overflow()).toBeLessThanOrEqual(0);
      const created = await w.fetch("/stores/v1/products", {
        method: "POST",
        headers: { authorization: OWNER_KEY, "content-type": "application/json" },
        body: JSON.stringify({
          product: {
            name: `Phone Tee ${crypto.randomUUID().slice(0, 6)}`,
            priceData: { price: 25 },
            manageVariants: true,
            productOptions: [
              { name: "Size", choices: [{ value: "Small" }, { value: "Medium" }, { value: "Large" }] },
              { name: "Colour", choices: [{ value: "Forest green" }, { value: "Midnight blue" }] },
            ],
          },
        }),
      });
      expect(created.status).toBe(200);
      await page.goto(`${w.url}/console/products/${((await created.json()) as { product: { id: string } }).product.id}`);
      await hydrated(page);
      expect(await overflow()).toBeLessThanOrEqual(0);

      await page.goto(`${w.url}/console/orders`);
      await hydrated(page);
      expect(await overflow()).toBeLessThanOrEqual(0);
      const row = page.getByRole("row").filter({ hasText: `#${orderNumber}` });
      for (const text of ["$45.99", "Paid"]) {
        const cell = row.getByText(text, { exact: true }).first();
        expect(await cell.isVisible(), text).toBe(true);
        const box = (await cell.boundingBox())!;
        expect(box.x + box.width, `${text} is on screen`).toBeLessThanOrEqual(375);
      }
      expect(unexpected(b.problems)).toEqual([]);
    } finally {
      await b.context.close();
    }
  });
});
