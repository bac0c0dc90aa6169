import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { addToCart, checkOutByCard, expectAccessible, hydrated, shopper, uniqueEmail, useStore } from "./commerce-fixtures";
import { BROWSER_UA, type RunningWorker } from "./worker";

/**
 * The console's pricing pages: coupons, discount rules, shipping, tax and additional fees, each a thin
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
  w.db
    .prepare(
      "SELECT id, code, times_used AS timesUsed, usage_limit AS usageLimit, minimum_subtotal AS minimumSubtotal, discount, revision FROM coupons WHERE code_key = lower(?)",
    )
    .bind(code)
    .first<{
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
/** The fields a browser would post from a pricing page's form as served (inputs, ticked checkboxes, selected options). */
function formFields(page: string): Record<string, string> {
  const html = /<form[^>]*pricing-form[\s\S]*?<\/form>/.exec(page)?.[0] ?? "";
  const fields: Record<string, string> = { intent: "save" };
  const unescapeHtml = (v: string) =>
    v
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  for (const m of html.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(m[0])?.[1];
    if (!name || (/type="checkbox"/.test(m[0]) && !/checked/.test(m[0]))) continue;
    fields[name] = unescapeHtml(/value="([^"]*)"/.exec(m[0])?.[1] ?? "");
  }
  for (const m of html.matchAll(/<select[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option[^>]*value="([^"]*)"[^>]*selected/.exec(m[2]) ?? /<option[^>]*value="([^"]*)"/.exec(m[2]);
    fields[m[1]] = unescapeHtml(selected?.[1] ?? "");
  }
  return fields;
}
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

  it("a coupon created in the console works at checkout: the total drops by its amount and the order records it", {
    timeout: 120_000,
  }, async (ctx) => {
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
      await page.fill("#f-coupon-code", code);
      await page.fill("#f-coupon-name", "Seven fifty off");
      await page.selectOption("#f-kind", "AMOUNT");
      await page.fill("#f-coupon-percentOffRate", "7.50");
      await page.fill("#f-coupon-minimumSubtotal", "20.00");
      await page.fill("#f-coupon-usageLimit", "5");
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
      const order = (await s.w.db
        .prepare("SELECT subtotal, total, details FROM orders WHERE number = ?")
        .bind(Number(orderNumber))
        .first<{ subtotal: number; total: number; details: string }>())!;
      const details = JSON.parse(order.details) as {
        appliedDiscounts: { coupon?: { code: string; name: string } }[];
        priceSummary: { discount: { amount: string }; shipping: { amount: string } };
      };
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
    const base = {
      intent: "save",
      "coupon.code": "GOOD1",
      "coupon.name": "Good",
      kind: "PERCENT",
      "coupon.percentOffRate": "10",
      "coupon.minimumSubtotal": "",
      "coupon.usageLimit": "",
      "coupon.startTime": "",
      "coupon.expirationTime": "",
      "coupon.active": "on",
    };

    const tooMuch = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, "coupon.percentOffRate": "150" });
    expect(tooMuch.status).toBe(400);
    const html = await tooMuch.text();
    expect(html).toMatch(/id="f-coupon-percentOffRate-error"[^>]*>[^<]*100/);
    expect(html).toMatch(/id="f-coupon-percentOffRate"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-coupon-percentOffRate"/);
    expect(html).toMatch(/value="150"/);
    expect(html).toMatch(/value="GOOD1"/);

    const noCode = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, "coupon.code": "" });
    expect(noCode.status).toBe(400);
    expect(await noCode.text()).toMatch(/id="f-coupon-code-error"/);

    const dup = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, "coupon.code": "welcome10" });
    expect(dup.status).toBe(409);
    expect(await dup.text()).toMatch(/id="f-coupon-code-error"[^>]*>[^<]*already uses the code/);

    const badDate = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", {
      ...base,
      "coupon.startTime": "2026-12-01T00:00",
      "coupon.expirationTime": "2026-11-01T00:00",
    });
    expect(badDate.status).toBe(400);
    expect(await badDate.text()).toMatch(/id="f-coupon-expirationTime-error"/);

    const badMoney = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", { ...base, kind: "AMOUNT", "coupon.percentOffRate": "5.001" });
    expect(badMoney.status).toBe(400);
    expect(await badMoney.text()).toMatch(/id="f-coupon-percentOffRate-error"[^>]*>[^<]*decimal places/);
    expect(await count(s.w, "coupons")).toBe(before);

    // An edit with a stale revision is a conflict and changes nothing.
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    const stale = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${welcome.id}`, {
      ...base,
      "coupon.code": "WELCOME10",
      "coupon.name": "Renamed",
      revision: String(welcome.revision - 1 || 99),
    });
    expect(stale.status).toBe(409);
    expect((await couponRow(s.w, "WELCOME10"))!.revision).toBe(welcome.revision);
  });

  it("edits, disables and deletes a coupon (delete asks first)", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const made = await postConsoleForm(s.w, owner, "/console/pricing/coupons/new", {
      intent: "save",
      "coupon.code": "SHIPFREE",
      "coupon.name": "Free shipping",
      kind: "FREE_SHIPPING",
      "coupon.percentOffRate": "",
      "coupon.active": "on",
    });
    expect(made.status).toBe(302);
    const row = (await couponRow(s.w, "SHIPFREE"))!;
    expect(JSON.parse(row.discount)).toMatchObject({ targetType: "SHIPPING" });
    const off = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${row.id}`, {
      intent: "save",
      "coupon.code": "SHIPFREE",
      "coupon.name": "Free shipping",
      kind: "PERCENT",
      "coupon.percentOffRate": "15",
      revision: String(row.revision),
    });
    expect(off.status).toBe(302);
    const edited = (await s.w.db
      .prepare("SELECT active, discount FROM coupons WHERE id = ?")
      .bind(row.id)
      .first<{ active: number; discount: string }>())!;
    expect(edited.active).toBe(0);
    expect(JSON.parse(edited.discount)).toMatchObject({ targetType: "GLOBAL", discountType: "PERCENTAGE", percentage: 15 });
    expect(await (await get(s.w, owner, "/console/pricing")).text()).toMatch(/SHIPFREE[\s\S]*?15% off[\s\S]*?Off/);

    const ask = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${row.id}`, { intent: "delete", "coupon.code": "SHIPFREE" });
    expect(ask.status).toBe(200);
    expect(await ask.text()).toContain("Yes, delete coupon SHIPFREE");
    expect(await couponRow(s.w, "SHIPFREE")).toBeTruthy();
    const gone = await postConsoleForm(s.w, owner, `/console/pricing/coupons/${row.id}`, {
      intent: "delete",
      confirm: "yes",
      "coupon.code": "SHIPFREE",
    });
    expect(gone.status).toBe(302);
    expect(await couponRow(s.w, "SHIPFREE")).toBeNull();
    expect((await get(s.w, owner, `/console/pricing/coupons/${row.id}`)).status).toBe(404);
  });

  it("a discount rule scheduled in the future does not apply yet; moved to now it does; switched off it stops", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const hour = 3600_000;
    const local = (t: number) => new Date(t).toISOString().slice(0, 16);
    const name = `Night sale ${Date.now() % 100000}`;
    const rule = {
      intent: "save",
      "discountRule.name": name,
      "discountRule.discounts.values[0].discountType": "PERCENTAGE",
      "discountRule.discounts.values[0].percentage": "20",
      "discountRule.discounts.values[0].targetType": "GLOBAL",
      "discountRule.trigger.conditionType": "NONE",
      "discountRule.trigger.subtotalRange.from": "",
      "discountRule.trigger.subtotalRange.to": "",
      "discountRule.trigger.couponCode.code": "",
      "discountRule.activeTimeInfo.end": "",
      "discountRule.active": "on",
    };
    const made = await postConsoleForm(s.w, owner, "/console/pricing/discounts/new", {
      ...rule,
      "discountRule.activeTimeInfo.start": local(Date.now() + 24 * hour),
    });
    expect(made.status, await made.clone().text()).toBe(302);
    const stored = (await s.w.db
      .prepare("SELECT id, revision, start_date AS startDate FROM discount_rules WHERE name = ?")
      .bind(name)
      .first<{ id: string; revision: number; startDate: string }>())!;
    expect(Date.parse(stored.startDate)).toBeGreaterThan(Date.now() + 23 * hour);
    expect(await (await get(s.w, owner, "/console/pricing/discounts")).text()).toMatch(
      new RegExp(`${name}[\\s\\S]*?20% off the order[\\s\\S]*?Scheduled`),
    );

    const { context, page } = await shopper(s);
    try {
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "Navy", "option.Size": "L", quantity: "1", returnTo: "/cart" });
      await hydrated(page);
      expect(await grandTotal(page)).toBe(2800);
      await expect(page.locator(".summary").textContent()).resolves.not.toContain(name);

      // Moved to an hour ago in the console: the same cart now gets 20% off, named.
      const now = await postConsoleForm(s.w, owner, `/console/pricing/discounts/${stored.id}`, {
        ...rule,
        "discountRule.activeTimeInfo.start": local(Date.now() - hour),
        revision: String(stored.revision),
      });
      expect(now.status).toBe(302);
      await page.reload();
      await expect(page.locator(".summary").textContent()).resolves.toContain(name);
      expect(await grandTotal(page)).toBe(2800 - 560);

      // Switched off: gone again.
      const off = await postConsoleForm(s.w, owner, `/console/pricing/discounts/${stored.id}`, {
        ...rule,
        "discountRule.active": [],
        "discountRule.activeTimeInfo.start": local(Date.now() - hour),
        revision: String(stored.revision + 1),
      });
      expect(off.status).toBe(302);
      await page.reload();
      expect(await grandTotal(page)).toBe(2800);
    } finally {
      await context.close();
    }

    // Bad input at its field, nothing written.
    const before = await count(s.w, "discount_rules");
    const bad = await postConsoleForm(s.w, owner, "/console/pricing/discounts/new", {
      ...rule,
      "discountRule.name": "Too much",
      "discountRule.discounts.values[0].percentage": "150",
      "discountRule.activeTimeInfo.start": "",
    });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toMatch(/id="f-discountRule-discounts-values-0--percentage-error"/);
    expect(html).toMatch(/value="Too much"/);
    const badRange = await postConsoleForm(s.w, owner, "/console/pricing/discounts/new", {
      ...rule,
      "discountRule.trigger.conditionType": "SUBTOTAL_RANGE",
      "discountRule.trigger.subtotalRange.from": "ten",
      "discountRule.activeTimeInfo.start": "",
    });
    expect(badRange.status).toBe(400);
    expect(await badRange.text()).toMatch(/id="f-discountRule-trigger-subtotalRange-from-error"/);
    expect(await count(s.w, "discount_rules")).toBe(before);
  });

  it("a shipping rate edited in the console changes the checkout's shipping line", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const us = (await s.w.db.prepare("SELECT id FROM shipping_regions WHERE name = 'United States'").first<{ id: string }>())!;
    const merchant = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      const page = merchant.page;
      await page.goto(`${s.w.url}/console/pricing/shipping`);
      await hydrated(page);
      await expect(page.locator("tr", { hasText: "United States" }).textContent()).resolves.toContain("Standard delivery: $5.95, free from $75.00");
      await page.getByRole("link", { name: "United States" }).click();
      await page.waitForURL(`**/console/pricing/shipping/${us.id}`);
      await expect(page.locator("#f-shippingRegion-options-0--title").inputValue()).resolves.toBe("Standard delivery");
      await page.fill("#f-shippingRegion-options-0--rate", "6.50");
      await page.getByRole("button", { name: "Save region" }).click();
      await page.waitForURL((u) => u.pathname === "/console/pricing/shipping" && u.searchParams.has("saved"));
      await expect(page.locator("tr", { hasText: "United States" }).textContent()).resolves.toContain("Standard delivery: $6.50");
      expect(unexpected(merchant.problems)).toEqual([]);
    } finally {
      await merchant.context.close();
    }
    // The other options and the pickup address are as they were.
    const options = JSON.parse(
      (await s.w.db.prepare("SELECT options FROM shipping_regions WHERE id = ?").bind(us.id).first<{ options: string }>())!.options,
    ) as { code: string; rate: number; pickupDetails: unknown }[];
    expect(options.map((o) => [o.code, o.rate])).toEqual([
      ["standard", 650],
      ["express", 1495],
      ["pickup", 0],
    ]);
    expect(options[2].pickupDetails).toMatchObject({ address: { city: "Portland" } });

    const { context, page } = await shopper(s);
    try {
      await addToCart(page, s, { productId: s.tee.id, "option.Color": "Navy", "option.Size": "S", quantity: "1", returnTo: "/cart" });
      const orderNumber = await checkOutByCard(page, s, uniqueEmail("console-shipping"));
      await expect(page.locator(".order-details").textContent()).resolves.toMatch(/Shipping\s*\$6\.50/);
      const order = (await s.w.db
        .prepare("SELECT total, details FROM orders WHERE number = ?")
        .bind(Number(orderNumber))
        .first<{ total: number; details: string }>())!;
      expect((JSON.parse(order.details) as { priceSummary: { shipping: { amount: string } } }).priceSummary.shipping.amount).toBe("6.50");
      expect(order.total).toBe(2800 + 650);
    } finally {
      await context.close();
    }

    // A rule and bad input: errors at the row's field, nothing written.
    const before = (await s.w.db.prepare("SELECT revision FROM shipping_regions WHERE id = ?").bind(us.id).first<{ revision: number }>())!.revision;
    const fields = formFields(await (await get(s.w, owner, `/console/pricing/shipping/${us.id}`)).text());
    const bad = await postConsoleForm(s.w, owner, `/console/pricing/shipping/${us.id}`, {
      ...fields,
      "shippingRegion.options[1].rate": "abc",
      "shippingRegion.countries": "US, USA",
    });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toMatch(/id="f-shippingRegion-options-1--rate-error"/);
    expect(html).toMatch(/id="f-shippingRegion-countries-error"[^>]*>[^<]*country code/);
    expect(html).toMatch(/value="abc"/);
    // A new option (the blank row, after the three) repeating a code: the error sits on that row's code.
    const again = await postConsoleForm(s.w, owner, `/console/pricing/shipping/${us.id}`, {
      ...fields,
      "shippingRegion.options[3].code": "standard",
      "shippingRegion.options[3].title": "Again",
      "shippingRegion.options[3].rate": "1.00",
    });
    expect(again.status).toBe(400);
    const againHtml = await again.text();
    expect(againHtml).toMatch(/id="f-shippingRegion-options-3--code-error"[^>]*>[^<]*repeats the code standard/i);
    expect(againHtml).toMatch(/value="Again"/);
    expect((await s.w.db.prepare("SELECT revision FROM shipping_regions WHERE id = ?").bind(us.id).first<{ revision: number }>())!.revision).toBe(
      before,
    );
    // Back to the demo's rate, with a weight rule on express (over 5 kg: $24.95).
    const saved = await postConsoleForm(s.w, owner, `/console/pricing/shipping/${us.id}`, {
      ...fields,
      "shippingRegion.options[0].rate": "5.95",
      "shippingRegion.options[1].rules[0].basis": "WEIGHT",
      "shippingRegion.options[1].rules[0].operator": "GT",
      "shippingRegion.options[1].rules[0].value": "5",
      "shippingRegion.options[1].rules[0].rate": "24.95",
    });
    expect(saved.status, await saved.clone().text()).toBe(302);
    const after = JSON.parse(
      (await s.w.db.prepare("SELECT options FROM shipping_regions WHERE id = ?").bind(us.id).first<{ options: string }>())!.options,
    ) as { code: string; rate: number; rules: unknown[] }[];
    expect(after.map((o) => [o.code, o.rate])).toEqual([
      ["standard", 595],
      ["express", 1495],
      ["pickup", 0],
    ]);
    expect(after[1].rules).toEqual([{ basis: "WEIGHT", operator: "GT", value: 5, rate: 2495 }]);
  });

  it("tax groups, tax regions with group rates, the prices-include-tax setting and additional fees: saved through their services, refused at their field", {
    timeout: 60_000,
  }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const group = await postConsoleForm(s.w, owner, "/console/pricing/tax/groups/new", {
      intent: "save",
      "taxGroup.name": "Books",
      "taxGroup.catalogItemIds": s.plain.id,
    });
    expect(group.status, await group.clone().text()).toBe(302);
    const books = (await s.w.db
      .prepare("SELECT id, catalog_item_ids AS items FROM tax_groups WHERE name = 'Books'")
      .first<{ id: string; items: string }>())!;
    expect(JSON.parse(books.items)).toEqual([s.plain.id]);

    const region = {
      intent: "save",
      "taxRegion.country": "us",
      "taxRegion.subdivision": "",
      "taxRegion.name": "",
      "taxRegion.defaultRate": "8.25",
      "taxRegion.calculation": "DEFAULT",
      "taxRegion.taxShipping": "on",
      "taxRegion.groupRates[0].taxGroupId": books.id,
      "taxRegion.groupRates[0].rate": "2.5",
    };
    const made = await postConsoleForm(s.w, owner, "/console/pricing/tax/regions/new", region);
    expect(made.status, await made.clone().text()).toBe(302);
    const us = (await s.w.db
      .prepare("SELECT id, default_rate AS rate, group_rates AS groupRates, tax_shipping AS taxShipping FROM tax_regions WHERE country = 'US'")
      .first<{ id: string; rate: number; groupRates: string; taxShipping: number }>())!;
    expect(us.rate).toBe(8.25);
    expect(JSON.parse(us.groupRates)).toEqual([{ taxGroupId: books.id, rate: 2.5 }]);
    expect(us.taxShipping).toBe(1);
    const taxPage = await (await get(s.w, owner, "/console/pricing/tax")).text();
    expect(taxPage).toMatch(/US[\s\S]*?8\.25%[\s\S]*?2\.5%/);

    const regions = await count(s.w, "tax_regions");
    const dup = await postConsoleForm(s.w, owner, "/console/pricing/tax/regions/new", region);
    expect(dup.status).toBe(409);
    expect(await dup.text()).toMatch(/id="f-taxRegion-country-error"[^>]*>[^<]*already exists/);
    const tooHigh = await postConsoleForm(s.w, owner, `/console/pricing/tax/regions/${us.id}`, {
      ...region,
      "taxRegion.defaultRate": "150",
      "taxRegion.groupRates[0].rate": "abc",
    });
    expect(tooHigh.status).toBe(400);
    const html = await tooHigh.text();
    expect(html).toMatch(/id="f-taxRegion-defaultRate-error"/);
    expect(html).toMatch(/id="f-taxRegion-groupRates-0--rate-error"/);
    expect(html).toMatch(/value="abc"/);
    expect(await count(s.w, "tax_regions")).toBe(regions);
    expect((await s.w.db.prepare("SELECT default_rate AS rate FROM tax_regions WHERE id = ?").bind(us.id).first<{ rate: number }>())!.rate).toBe(
      8.25,
    );

    // Prices include tax: the store setting, on and off again.
    const setting = async () =>
      JSON.parse((await s.w.db.prepare("SELECT value FROM settings WHERE key = 'pricing'").first<{ value: string }>())?.value ?? "{}") as {
        pricesIncludeTax?: boolean;
      };
    const on = await postConsoleForm(s.w, owner, "/console/pricing/tax", {
      "settings.pricesIncludeTax": "on",
      "settings.taxableAddress": "SHIPPING",
    });
    expect(on.status).toBe(200);
    expect(await on.text()).toContain("prices include tax");
    expect((await setting()).pricesIncludeTax).toBe(true);
    const bad = await postConsoleForm(s.w, owner, "/console/pricing/tax", { "settings.taxableAddress": "MOON" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/id="f-settings-taxableAddress-error"/);
    expect((await setting()).pricesIncludeTax).toBe(true);
    expect((await postConsoleForm(s.w, owner, "/console/pricing/tax", { "settings.taxableAddress": "SHIPPING" })).status).toBe(200);
    expect((await setting()).pricesIncludeTax).toBe(false);

    // Fees.
    const fee = {
      intent: "save",
      "additionalFee.name": "Careful packing",
      "additionalFee.code": "packing",
      "additionalFee.type": "HANDLING_FEE",
      charge: "AMOUNT",
      "additionalFee.amount": "2.50",
      "additionalFee.minimumSubtotal": "",
      "additionalFee.active": "on",
    };
    expect((await postConsoleForm(s.w, owner, "/console/pricing/fees/new", fee)).status).toBe(302);
    const stored = (await s.w.db.prepare("SELECT id, amount FROM additional_fees WHERE code = 'packing'").first<{ id: string; amount: number }>())!;
    expect(stored.amount).toBe(250);
    expect(await (await get(s.w, owner, "/console/pricing/fees")).text()).toMatch(/Careful packing[\s\S]*?\$2\.50[\s\S]*?Active/);
    const fees = await count(s.w, "additional_fees");
    const dupFee = await postConsoleForm(s.w, owner, "/console/pricing/fees/new", fee);
    expect(dupFee.status).toBe(409);
    expect(await dupFee.text()).toMatch(/id="f-additionalFee-code-error"[^>]*>[^<]*already uses the code/);
    const badFee = await postConsoleForm(s.w, owner, "/console/pricing/fees/new", {
      ...fee,
      "additionalFee.code": "other",
      charge: "PERCENT",
      "additionalFee.amount": "150",
    });
    expect(badFee.status).toBe(400);
    expect(await badFee.text()).toMatch(/id="f-additionalFee-amount-error"/);
    expect(await count(s.w, "additional_fees")).toBe(fees);

    // Cleaned up through the console, so later tests price as before.
    expect((await postConsoleForm(s.w, owner, `/console/pricing/fees/${stored.id}`, { intent: "delete", confirm: "yes" })).status).toBe(302);
    expect((await postConsoleForm(s.w, owner, `/console/pricing/tax/regions/${us.id}`, { intent: "delete", confirm: "yes" })).status).toBe(302);
    expect(await count(s.w, "additional_fees")).toBe(fees - 1);
    expect(await count(s.w, "tax_regions")).toBe(regions - 1);
  });

  it("without JavaScript: a refused save shows its error and keeps what was typed; create, then delete after the confirmation page", {
    timeout: 60_000,
  }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"), { javaScriptEnabled: false });
    try {
      await page.goto(`${s.w.url}/console/pricing/discounts/new`);
      await page.fill("#f-discountRule-name", "Plain form sale");
      await page.fill("#f-discountRule-discounts-values-0--percentage", "150");
      await page.selectOption("#f-discountRule-trigger-conditionType", "ITEM_QUANTITY_RANGE");
      await page.fill("#f-discountRule-trigger-subtotalRange-from", "3");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Create rule" }).click()]);
      await expect(page.locator("#f-discountRule-discounts-values-0--percentage-error").textContent()).resolves.toMatch(/100/);
      await expect(page.locator("#f-discountRule-name").inputValue()).resolves.toBe("Plain form sale");
      await expect(page.locator("#f-discountRule-trigger-conditionType").inputValue()).resolves.toBe("ITEM_QUANTITY_RANGE");
      await expect(page.locator("#f-discountRule-trigger-subtotalRange-from").inputValue()).resolves.toBe("3");
      expect(await s.w.db.prepare("SELECT COUNT(*) AS n FROM discount_rules WHERE name = 'Plain form sale'").first<{ n: number }>()).toEqual({
        n: 0,
      });

      await page.fill("#f-discountRule-discounts-values-0--percentage", "15");
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Create rule" }).click()]);
      expect(new URL(page.url()).pathname).toBe("/console/pricing/discounts");
      await expect(page.locator("tr", { hasText: "Plain form sale" }).textContent()).resolves.toMatch(
        /15% off the order.*Items in the cart: at least 3/,
      );

      await Promise.all([page.waitForNavigation(), page.getByRole("link", { name: "Plain form sale" }).click()]);
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Delete…" }).click()]);
      await expect(page.getByRole("alert").filter({ hasText: "for good" }).count()).resolves.toBe(1);
      expect(await s.w.db.prepare("SELECT COUNT(*) AS n FROM discount_rules WHERE name = 'Plain form sale'").first<{ n: number }>()).toEqual({
        n: 1,
      });
      await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: /Yes, delete/ }).click()]);
      await expect(page.locator(".console-notice").textContent()).resolves.toContain("Deleted");
      expect(await s.w.db.prepare("SELECT COUNT(*) AS n FROM discount_rules WHERE name = 'Plain form sale'").first<{ n: number }>()).toEqual({
        n: 0,
      });
    } finally {
      await context.close();
    }
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
    const form = {
      intent: "save",
      "coupon.code": "STAFF1",
      "coupon.name": "Staff",
      kind: "PERCENT",
      "coupon.percentOffRate": "5",
      "coupon.active": "on",
    };
    expect((await postConsoleForm(s.w, viewer, "/console/pricing/coupons/new", form)).status).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/coupons/${welcome.id}`, { ...form, "coupon.code": "WELCOME10" })).status).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/coupons/${welcome.id}`, { intent: "delete" })).status).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/coupons/${welcome.id}`, { intent: "delete", confirm: "yes" })).status).toBe(403);
    expect(await count(s.w, "coupons")).toBe(before);
    expect((await couponRow(s.w, "WELCOME10"))!.revision).toBe(welcome.revision);

    // The other pricing pages: readable, no write controls, every action refused.
    const us = (await s.w.db
      .prepare("SELECT id, revision FROM shipping_regions WHERE name = 'United States'")
      .first<{ id: string; revision: number }>())!;
    for (const [list, newPath, label, item] of [
      ["/console/pricing/discounts", "/console/pricing/discounts/new", "New discount rule", "discountRule"],
      ["/console/pricing/shipping", "/console/pricing/shipping/new", "New shipping region", "shippingRegion"],
      ["/console/pricing/tax", "/console/pricing/tax/regions/new", "New tax region", "taxRegion"],
      ["/console/pricing/tax/groups", "/console/pricing/tax/groups/new", "New tax group", "taxGroup"],
      ["/console/pricing/fees", "/console/pricing/fees/new", "New fee", "additionalFee"],
    ] as const) {
      const html = await (await get(s.w, viewer, list)).text();
      expect(html, list).not.toContain(label);
      expect((await postConsoleForm(s.w, viewer, newPath, { intent: "save", [`${item}.name`]: "Staff made" })).status, newPath).toBe(403);
    }
    const region = await (await get(s.w, viewer, `/console/pricing/shipping/${us.id}`)).text();
    expect(region).not.toMatch(/<button[^>]*type="submit"[^>]*>[^<]*(Save|Create|Delete)/);
    expect(region).toContain("<fieldset disabled");
    const fields = formFields(region);
    expect(
      (await postConsoleForm(s.w, viewer, `/console/pricing/shipping/${us.id}`, { ...fields, "shippingRegion.options[0].rate": "0.01" })).status,
    ).toBe(403);
    expect((await postConsoleForm(s.w, viewer, `/console/pricing/shipping/${us.id}`, { intent: "delete", confirm: "yes" })).status).toBe(403);
    expect((await s.w.db.prepare("SELECT revision FROM shipping_regions WHERE id = ?").bind(us.id).first<{ revision: number }>())!.revision).toBe(
      us.revision,
    );
    expect(await s.w.db.prepare("SELECT COUNT(*) AS n FROM discount_rules WHERE name = 'Staff made'").first<{ n: number }>()).toEqual({ n: 0 });
    const taxPage = await (await get(s.w, viewer, "/console/pricing/tax")).text();
    expect(taxPage).not.toContain("Save tax settings");
    expect(
      (await postConsoleForm(s.w, viewer, "/console/pricing/tax", { "settings.pricesIncludeTax": "on", "settings.taxableAddress": "SHIPPING" }))
        .status,
    ).toBe(403);
    expect(await s.w.db.prepare("SELECT COUNT(*) AS n FROM tax_groups WHERE name = 'Staff made'").first<{ n: number }>()).toEqual({ n: 0 });
  });

  it("each pricing page costs at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    const us = (await s.w.db.prepare("SELECT id FROM shipping_regions WHERE name = 'United States'").first<{ id: string }>())!;
    const rule = (await s.w.db.prepare("SELECT id FROM discount_rules LIMIT 1").first<{ id: string }>())!;
    const group = (await s.w.db.prepare("SELECT id FROM tax_groups LIMIT 1").first<{ id: string }>())!;
    for (const p of [
      "/console/pricing",
      "/console/pricing/coupons/new",
      `/console/pricing/coupons/${welcome.id}`,
      "/console/pricing/discounts",
      `/console/pricing/discounts/${rule.id}`,
      "/console/pricing/shipping",
      `/console/pricing/shipping/${us.id}`,
      "/console/pricing/tax",
      "/console/pricing/tax/regions/new",
      "/console/pricing/tax/groups",
      `/console/pricing/tax/groups/${group.id}`,
      "/console/pricing/fees",
      "/console/pricing/fees/new",
    ]) {
      const res = await get(s.w, owner, p);
      expect(res.status, p).toBe(200);
      expect(roundTrips(res), p).toBeLessThanOrEqual(3);
    }
  });

  it("in Chromium: the pricing pages pass axe at 1280 px", { timeout: 120_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const welcome = (await couponRow(s.w, "WELCOME10"))!;
    const us = (await s.w.db.prepare("SELECT id FROM shipping_regions WHERE name = 'United States'").first<{ id: string }>())!;
    const rule = (await s.w.db.prepare("SELECT id FROM discount_rules LIMIT 1").first<{ id: string }>())!;
    const group = (await s.w.db.prepare("SELECT id FROM tax_groups LIMIT 1").first<{ id: string }>())!;
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      mkdirSync(shots, { recursive: true });
      for (const [p, name, tab] of [
        ["/console/pricing", "coupons", "Coupons"],
        [`/console/pricing/coupons/${welcome.id}`, "coupon", "Coupons"],
        ["/console/pricing/discounts", "discounts", "Discount rules"],
        [`/console/pricing/discounts/${rule.id}`, "discount", "Discount rules"],
        ["/console/pricing/shipping", "shipping", "Shipping"],
        [`/console/pricing/shipping/${us.id}`, "shipping-region", "Shipping"],
        ["/console/pricing/tax", "tax", "Tax"],
        ["/console/pricing/tax/regions/new", "tax-region", "Tax"],
        ["/console/pricing/tax/groups", "tax-groups", "Tax"],
        [`/console/pricing/tax/groups/${group.id}`, "tax-group", "Tax"],
        ["/console/pricing/fees", "fees", "Additional fees"],
        ["/console/pricing/fees/new", "fee", "Additional fees"],
      ] as const) {
        await page.goto(`${s.w.url}${p}`);
        await hydrated(page);
        // The section's tabs mark where the page belongs (an editor under its list's tab).
        await expect(page.locator('nav[aria-label="Pricing"] a.active').textContent()).resolves.toBe(tab);
        await expectAccessible(page, `console pricing ${name}`);
        await page.screenshot({ path: path.join(shots, `console-pricing-${name}-1280.png`), fullPage: true });
      }
      // A refused save: the summary and the field's error, axe clean too.
      await page.goto(`${s.w.url}/console/pricing/coupons/new`);
      await hydrated(page);
      await page.fill("#f-coupon-code", "HALF");
      await page.fill("#f-coupon-name", "Too generous");
      await page.fill("#f-coupon-percentOffRate", "150");
      await page.getByRole("button", { name: "Create coupon" }).click();
      await expect.poll(() => page.locator("#f-coupon-percentOffRate-error").count()).toBe(1);
      await expect(page.locator("#f-coupon-code").inputValue()).resolves.toBe("HALF");
      await expectAccessible(page, "console pricing coupon with an error");
      await page.screenshot({ path: path.join(shots, "console-pricing-coupon-error-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
