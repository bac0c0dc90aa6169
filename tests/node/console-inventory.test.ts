import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, hydrated, useStore } from "./commerce-fixtures";
import { BROWSER_UA, type RunningWorker } from "./worker";

/**
 * The console's inventory: the low-stock view and its threshold (the automations' setting), and a
 * product's stock page — tracking, quantities, preorder, adjustments with a reason, the history with its causes —
 * each change through the inventory service (inventory.write), so a restock fires back-in-stock emails as the API's
 * does; bad input is reported next to its field and writes nothing.
 */

const { store, needsChromium } = useStore("console inventory");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const STORES_APP = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const variantOf = async (w: RunningWorker, productId: string, choices: Record<string, string>) =>
  (await w.db
    .prepare("SELECT id, quantity FROM variants WHERE product_id = ? AND choices = json(?)")
    .bind(productId, JSON.stringify(choices))
    .first<{ id: string; quantity: number }>())!;
const changes = async (w: RunningWorker, productId: string) =>
  (await w.db.prepare("SELECT COUNT(*) AS n FROM inventory_changes WHERE product_id = ?").bind(productId).first<{ n: number }>())!.n;
const lowCount = async (w: RunningWorker, threshold: number) =>
  (await w.db
    .prepare(
      "SELECT COUNT(*) AS n FROM variants v JOIN products p ON p.id = v.product_id WHERE p.track_inventory = 1 AND v.visible = 1 AND coalesce(v.quantity, 0) < ?",
    )
    .bind(threshold)
    .first<{ n: number }>())!.n;

describe("console inventory", () => {
  let owner = "";
  let stocker = "";
  let viewer = "";

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    stocker = await consoleCookie(w, await consoleAccount(w, "STAFF", ["inventory.write"]));
    viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write"]));
  });

  it("lists what runs low below the threshold, lowest first, and lets only automations.manage change the threshold", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const res = await get(s.w, stocker, "/console/inventory");
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).toContain(`${await lowCount(s.w, 5)} variants are below 5.`);
    expect(html).toContain("White / XL"); // 3 left
    expect(html.indexOf("Forest / XS")).toBeLessThan(html.indexOf("White / XL")); // 0 before 3
    expect(html).not.toContain('name="lowStockThreshold"');
    const refused = await postConsoleForm(s.w, stocker, "/console/inventory", { lowStockThreshold: "50" });
    expect(refused.status).toBe(403);

    const bad = await postConsoleForm(s.w, owner, "/console/inventory", { lowStockThreshold: "lots" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/id="f-lowStockThreshold-error"/);
    const raised = await postConsoleForm(s.w, owner, "/console/inventory", { lowStockThreshold: "30" });
    expect(raised.status).toBe(200);
    expect(await (await get(s.w, owner, "/console/inventory")).text()).toContain(`${await lowCount(s.w, 30)} variants are below 30.`);
    const off = await postConsoleForm(s.w, owner, "/console/inventory", { lowStockThreshold: "" });
    expect(await off.text()).toContain("Low-stock alerts are off.");
    await postConsoleForm(s.w, owner, "/console/inventory", { lowStockThreshold: "5" });
  });

  it("sets quantities with a reason and adjusts by an amount; the history shows each change with its cause", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const tee = s.tee.id;
    const navyM = await variantOf(s.w, tee, { Color: "Navy", Size: "M" });
    const page = await get(s.w, stocker, `/console/inventory/${tee}`);
    expect(page.status).toBe(200);
    expect(roundTrips(page)).toBeLessThanOrEqual(3);
    const form = await page.text();
    const variantIds = [...form.matchAll(/name="inventoryItem\.variants\[\d+\]\.variantId" value="([^"]+)"/g)].map((m) => m[1]);
    expect(variantIds).toContain(navyM.id);

    // The whole form, as a browser without JavaScript posts it: every variant's quantity as it is, Navy/M changed.
    const fields: Record<string, string> = { intent: "save", "inventoryItem.trackQuantity": "on", reason: "Stock count" };
    const qty = (i: number) => `inventoryItem.variants[${i}].quantity`;
    variantIds.forEach((id, i) => {
      fields[`inventoryItem.variants[${i}].variantId`] = id;
      fields[qty(i)] = new RegExp(`name="inventoryItem\\.variants\\[${i}\\]\\.quantity"[^>]*value="(\\d+)"`).exec(form)?.[1] ?? "0";
    });
    const navy = variantIds.indexOf(navyM.id);
    const before = await changes(s.w, tee);
    const bad = await postConsoleForm(s.w, stocker, `/console/inventory/${tee}`, { ...fields, [qty(navy)]: "-4" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain(`id="f-inventoryItem-variants-${navy}--quantity-error"`);
    expect(await changes(s.w, tee)).toBe(before);
    expect((await variantOf(s.w, tee, { Color: "Navy", Size: "M" })).quantity).toBe(navyM.quantity);

    const saved = await postConsoleForm(s.w, stocker, `/console/inventory/${tee}`, { ...fields, [qty(navy)]: "17" });
    expect(saved.status).toBe(200);
    expect((await variantOf(s.w, tee, { Color: "Navy", Size: "M" })).quantity).toBe(17);
    expect(await changes(s.w, tee)).toBe(before + 1); // only the variant that changed

    const tooMany = await postConsoleForm(s.w, stocker, `/console/inventory/${tee}`, {
      intent: "adjust",
      variantId: navyM.id,
      direction: "remove",
      amount: "18",
      reason: "Damaged",
    });
    expect(tooMany.status).toBe(409);
    const added = await postConsoleForm(s.w, stocker, `/console/inventory/${tee}`, {
      intent: "adjust",
      variantId: navyM.id,
      direction: "add",
      amount: "5",
      reason: "Delivery from the mill",
    });
    expect(added.status).toBe(200);
    expect((await variantOf(s.w, tee, { Color: "Navy", Size: "M" })).quantity).toBe(22);

    const history = await (await get(s.w, viewer, `/console/inventory/${tee}`)).text();
    expect(history).toContain("Delivery from the mill");
    expect(history).toContain("Stock count");
    expect(history).toMatch(/<td class="num">\+5<\/td><td class="num">22<\/td><td>Manual/);
    // The viewer sees but may not change.
    expect(history).toContain("Changing stock needs the permission");
    const refused = await postConsoleForm(s.w, viewer, `/console/inventory/${tee}`, {
      intent: "adjust",
      variantId: navyM.id,
      direction: "add",
      amount: "5",
    });
    expect(refused.status).toBe(403);
    expect((await variantOf(s.w, tee, { Color: "Navy", Size: "M" })).quantity).toBe(22);
    expect((await get(s.w, viewer, "/console/inventory/no-such-product")).status).toBe(404);
  });

  it("a restock from the console sends the back-in-stock email the shopper asked for", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const forestXs = await variantOf(s.w, s.tee.id, { Color: "Forest", Size: "XS" });
    expect(forestXs.quantity).toBe(0);
    const email = `waiting-${Date.now()}@example.test`;
    const asked = await s.w.fetch("/back-in-stock-service/v1/back-in-stock-notification-requests", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        request: { email, catalogReference: { appId: STORES_APP, catalogItemId: s.tee.id, options: { variantId: forestXs.id } } },
      }),
    });
    expect(asked.status).toBe(200);
    const res = await postConsoleForm(s.w, stocker, `/console/inventory/${s.tee.id}`, {
      intent: "adjust",
      variantId: forestXs.id,
      direction: "add",
      amount: "4",
      reason: "Restock",
    });
    expect(res.status).toBe(200);
    await expect
      .poll(
        async () =>
          (await s.w.db.prepare(`SELECT COUNT(*) AS n FROM emails WHERE "to" = ? AND template = 'back-in-stock'`).bind(email).first<{ n: number }>())!
            .n,
        { timeout: 20_000 },
      )
      .toBe(1);
  });

  it("in Chromium: both pages pass axe at 1280 px", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      mkdirSync(shots, { recursive: true });
      await page.goto(`${s.w.url}/console/inventory`);
      await hydrated(page);
      await expectAccessible(page, "console inventory");
      await page.screenshot({ path: path.join(shots, "console-inventory-1280.png"), fullPage: true });
      await page.getByRole("link", { name: s.tee.name }).first().click();
      await page.waitForURL(`**/console/inventory/${s.tee.id}`);
      await expect.poll(() => page.locator("h1").textContent()).toBe(`Stock of ${s.tee.name}`);
      await expectAccessible(page, "console product stock");
      await page.screenshot({ path: path.join(shots, "console-stock-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
