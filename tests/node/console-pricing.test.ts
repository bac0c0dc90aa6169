import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { addToCart, checkOutByCard, expectAccessible, hydrated, shopper, uniqueEmail, useStore } from "./commerce-fixtures";
import { BROWSER_UA, type RunningWorker } from "./worker";

/**
 * The console's pricing pages (issue 13): coupons, discount rules, shipping, tax and additional fees, each a thin
 * form over the pricing service the API calls. What a merchant sets here is what the shopper's cart and checkout
 * are priced with; bad input is shown at its field with nothing written; staff without settings.manage see no
 * write controls and are refused (403) by the services.
 */

const { store, needsChromium } = useStore("console pricing");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const count = async (w: RunningWorker, table: string) => (await w.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())!.n;
const couponRow = (w: RunningWorker, code: string) =>
  w.db.prepare("SELECT id, code, times_used AS timesUsed, usage_limit AS usageLimit, minimum_subtotal AS minimumSubtotal, discount, revision FROM coupons WHERE code_key = lower(?)").bind(code).first<{
    id: string;
    code: string;
    timesUsed: number;
    usageLimit: number | null;
    minimumSubtotal: number | null;
    discount: string;
    revision: number;
  }>();
/** "$1,234.50" → 123450 (cents). */
const cents = (text: string | null) => Math.round(Number((text ?? "").replace(/[^0-9.]/g, "")) * 100);
const grandTotal = async (page: Page) => cents(await page.locator(".summary .grand-total dd").textContent());

describe("console pricing", () => {
  let owner = "";
  let viewer = "";

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write", "orders.write"]));
  });

  it("a coupon created in the console works at checkout: the total drops by its amount and the order records it", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const code = `TAKE7-${Date.now() % 100000}`;
    const merchant = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      const page = merchant.page;
      await page.goto(`${s.w.url}/console/pricing`);
      await hydrated(page);
      await page.getByRole("link", { name: "New coupon" }).click();
      await page.waitForURL("**/console/pricing/coupons/new");
      await page.fill("#cp-code", code);
      await page.fill("#cp-name", "Seven fifty off");
      await page.selectOption("#cp-kind", "AMOUNT");
      await page.fill("#cp-value", "7.50");
      await page.fill("#cp-minimum", "20.00");
      await page.fill("#cp-limit", "5");
      await page.getByRole("button", { name: "Create coupon" }).click();
      await page.waitForURL((u) => u.pathname === "/console/pricing" && u.searchParams.has("saved"));
      const row = page.locator("tr", { hasText: code });
      await expect(row.textContent()).resolves.toMatch(/\$7\.50 off.*\$20\.00.*0 of 5.*Active/);
      expect(unexpected(merchant.problems)).toEqual([]);
    } finally {
      await merchant.context.close();
    }
    const stored = (await couponRow(s.w, code))!;
    expect(JSON.parse(stored.discount)).toMatchObject({ targetType: "GLOBAL", discountType: "FIXED_AMOUNT", fixedAmount: 750 });
    expect(stored.minimumSubtotal).toBe(2000);

    // The shopper: 2 × $28 tee, then the code (in lower case) on the cart; the server prices it.
    const { context, page, problems } = await shopper(s);
    try {
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "Navy", "option.Size": "M", quantity: "2", returnTo: "/cart" });
      await hydrated(page);
      const before = await grandTotal(page);
      expect(before).toBe(5600);
      await page.fill("#f-couponCode", code.toLowerCase());
      await page.getByRole("button", { name: "Apply" }).click();
      await expect.poll(() => page.locator(".summary").textContent()).toContain(`Coupon ${code.toLowerCase()}`);
      await expect.poll(() => grandTotal(page)).toBe(before - 750);

      const orderNumber = await checkOutByCard(page, s, uniqueEmail("console-coupon"));
      await expect(page.locator(".order-details").textContent()).resolves.toMatch(/Discount \(.*\)/i);
      const order = (await s.w.db.prepare("SELECT subtotal, total, details FROM orders WHERE number = ?").bind(Number(orderNumber)).first<{ subtotal: number; total: number; details: string }>())!;
      const details = JSON.parse(order.details) as { appliedDiscounts: { coupon?: { code: string; name: string } }[]; priceSummary: { discount: { amount: string }; shipping: { amount: string } } };
      expect(details.appliedDiscounts.map((d) => d.coupon?.code.toLowerCase())).toContain(code.toLowerCase());
      expect(details.priceSummary.discount.amount).toBe("7.50");
      // $56 − $7.50, plus standard shipping ($5.95: the $48.50 left is under the $75 free-shipping threshold); no tax regions.
      expect(order.total).toBe(5600 - 750 + 595);
      expect((await couponRow(s.w, code))!.timesUsed).toBe(1);
      expect(problems.filter((p) => !p.includes("status of 400"))).toEqual([]);
    } finally {
      await context.close();
    }
    // The console's list shows the use.
    const list = await (await get(s.w, owner, "/console/pricing")).text();
    expect(list).toMatch(new RegExp(`${code}[\\s\\S]*?1 of 5`));
  });

  it("refuses bad coupons at their field, keeps what was typed and writes nothing", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const before = await count(s.w, "coupons");
    const base = { intent: "save", code: "GOOD1", name: "Good", kind: "PERCENT", value: "10", minimum: "", limit: "", start: "", end: "", active: "on" };

    const tooMuch = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, value: "150" });
    expect(tooMuch.status).toBe(400);
    const html = await tooMuch.text();
    expect(html).toMatch(/id="cp-value-error"[^>]*>[^<]*100/);
    expect(html).toMatch(/id="cp-value"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="cp-value"/);
    expect(html).toMatch(/value="150"/);
    expect(html).toMatch(/value="GOOD1"/);

    const noCode = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, code: "" });
    expect(noCode.status).toBe(400);
    expect(await noCode.text()).toMatch(/id="cp-code-error"/);

    const dup = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, code: "welcome10" });
    expect(dup.status).toBe(409);
    expect(await dup.text()).toMatch(/id="cp-code-error"[^>]*>[^<]*already uses the code/);

    const badDate = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, start: "2026-12-01T00:00", end: "2026-11-01T00:00" });
    expect(badDate.status).toBe(400);
    expect(await badDate.text()).toMatch(/id="cp-end-error"/);

    const badMoney = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, kind: "AMOUNT", value: "5.001" });
    expect(badMoney.status).toBe(400);
    expect(await badMoney.text()).toMatch(/id="cp-value-error"[^>]*>[^<]*decimal places/);
    expect(await count(s.w, "coupons")).toBe(before);

    // An edit with a stale revision is a conflict and changes nothing.
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    const stale = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${welcome.id}`, { ...base, code: "WELCOME10", name: "Renamed", revision: String(welcome.revision - 1 || 99) });
    expect(stale.status).toBe(409);
    expect((await couponRow(s.w, "WELCOME10"))!.revision).toBe(welcome.revision);
  });

  it("edits, disables and deletes a coupon (delete asks first)", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const made = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { intent: "save", code: "SHIPFREE", name: "Free shipping", kind: "FREE_SHIPPING", value: "", active: "on" });
    expect(made.status).toBe(302);
    const row = (await couponRow(s.w, "SHIPFREE"))!;
    expect(JSON.parse(row.discount)).toMatchObject({ targetType: "SHIPPING" });
    const off = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${row.id}`, { intent: "save", code: "SHIPFREE", name: "Free shipping", kind: "PERCENT", value: "15", revision: String(row.revision) });
    expect(off.status).toBe(302);
    const edited = (await s.w.db.prepare("SELECT active, discount FROM coupons WHERE id = ?").bind(row.id).first<{ active: number; discount: string }>())!;
    expect(edited.active).toBe(0);
    expect(JSON.parse(edited.discount)).toMatchObject({ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: 15 });
    expect(await (await get(s.w, owner, "/console/pricing")).text()).toMatch(/SHIPFREE[\s\S]*?15% off[\s\S]*?Off/);

    const ask = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${row.id}`, { intent: "delete", code: "SHIPFREE" });
    expect(ask.status).toBe(200);
    expect(await ask.text()).toContain("Yes, delete coupon SHIPFREE");
    expect(await couponRow(s.w, "SHIPFREE")).toBeTruthy();
    const gone = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${row.id}`, { intent: "delete", confirm: "yes", code: "SHIPFREE" });
    expect(gone.status).toBe(302);
    expect(await couponRow(s.w, "SHIPFREE")).toBeNull();
    expect((await get(s.w, owner, `/console/pricing/coupons/${row.id}`)).status).toBe(404);
  });

  it("staff without settings.manage see no write controls and every action answers 403", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    const list = await (await get(s.w, viewer, "/console/pricing")).text();
    expect(list).toContain("WELCOME10");
    expect(list).not.toContain("New coupon");
    const edit = await (await get(s.w, viewer, `/console/pricing/coupons/${welcome.id}`)).text();
    expect(edit).not.toMatch(/<button[^>]*type="submit"[^>]*>[^<]*(Save|Delete)/);
    expect(edit).toContain("needs the permission");
    const before = await count(s.w, "coupons");
    const form = { intent: "save", code: "STAFF1", name: "Staff", kind: "PERCENT", value: "5", active: "on" };
    expect((await postConsoleForm(s.w, viewer, "/console/pricing/coupons/new", form)).status).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/coupons/${welcome.id}`, { ...form, code: "WELCOME10" })).status).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/coupons/${welcome.id}`, { intent: "delete" })).status).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/coupons/${welcome.id}`, { intent: "delete", confirm: "yes" })).status).toBe(403);
    expect(await count(s.w, "coupons")).toBe(before);
    expect((await couponRow(s.w, "WELCOME10"))!.revision).toBe(welcome.revision);
  });

  it("each pricing page costs at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    for (const p of ["/console/pricing", "/console/pricing/coupons/new", `/console/pricing/coupons/${welcome.id}`]) {
      const res = await get(s.w, owner, p);
      expect(res.status, p).toBe(200);
      expect(roundTrips(res), p).toBeLessThanOrEqual(3);
    }
  });

  it("in Chromium: the pricing pages pass axe at 1280 px", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      mkdirSync(shots, { recursive: true });
      for (const [p, name] of [
        ["/console/pricing", "coupons"],
        [`/console/pricing/coupons/${welcome.id}`, "coupon"],
      ] as const) {
        await page.goto(`${s.w.url}${p}`);
        await hydrated(page);
        await expectAccessible(page, `console pricing ${name}`);
        await page.screenshot({ path: path.join(shots, `console-pricing-${name}-1280.png`), fullPage: true });
      }
      // A refused save: the summary and the field's error, axe clean too.
      await page.goto(`${s.w.url}/console/pricing/coupons/new`);
      await hydrated(page);
      await page.fill("#cp-code", "HALF");
      await page.fill("#cp-name", "Too generous");
      await page.fill("#cp-value", "150");
      await page.getByRole("button", { name: "Create coupon" }).click();
      await expect.poll(() => page.locator("#cp-value-error").count()).toBe(1);
      await expect(page.locator("#cp-code").inputValue()).resolves.toBe("HALF");
      await expectAccessible(page, "console pricing coupon with an error");
      await page.screenshot({ path: path.join(shots, "console-pricing-coupon-error-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
