import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addToCart, expectAccessible, fillContact, hydrated, lastEmail, shopper, uniqueEmail, useStore } from "./commerce-fixtures";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected, type ConsoleAccount } from "./console-fixtures";
import { BROWSER_UA, OWNER_KEY, type RunningWorker } from "./worker";

/**
 * The console's dashboard and abandoned carts on the built Worker: the figures come from SQL aggregates
 * in the store's own days, each links to its screen, the charts are accessible SVG with a table; a shopper's
 * abandoned cart goes through the sweep, the recovery email and the recovery link to an order, and the merchant sees
 * each step on the dashboard and the cart's page.
 */

const { store, needsChromium } = useStore("console dashboard");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
/** The text of the dashboard figure with this label (the link's value), from server HTML. */
const figure = (html: string, label: string) =>
  new RegExp(`<span class="dash-label">${label}</span> <strong class="dash-value">([^<]*)</strong>`).exec(html)?.[1];

let orderNumber = 900_000;
async function seedOrder(w: RunningWorker, at: Date, total: number, status = "APPROVED") {
  const id = crypto.randomUUID();
  const iso = at.toISOString();
  await w.db
    .prepare(
      "INSERT INTO orders (id, number, checkout_id, cart_id, owner_kind, owner_id, status, payment_status, currency, subtotal, total, details, purchased_date, created_date, updated_date) VALUES (?, ?, ?, ?, 'visitor', 'v', ?, 'PAID', 'USD', ?, ?, '{}', ?, ?, ?)",
    )
    .bind(id, ++orderNumber, `chk-${id}`, `cart-${id}`, status, total, total, iso, iso, iso)
    .run();
}

const usd = (minor: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);
const sweep = (w: RunningWorker) =>
  w.fetch("/api/v1/events/sweep", { method: "POST", headers: { authorization: OWNER_KEY, "content-type": "application/json" }, body: "{}" });
const storedSettings = async (w: RunningWorker) =>
  (await w.db.prepare("SELECT value FROM settings WHERE key = 'automations'").first<{ value: string }>())?.value ?? null;

async function until<T>(read: () => Promise<T | null | undefined>, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("console dashboard", () => {
  let ownerAccount: ConsoleAccount;
  let owner = "";
  let viewer = "";

  beforeAll(async () => {
    if (!store()) return;
    ownerAccount = await consoleAccount(store().w, "OWNER");
    owner = await consoleCookie(store().w, ownerAccount);
    viewer = await consoleCookie(store().w, await consoleAccount(store().w, "STAFF", ["orders.write"]));
  });

  it("shows sales, orders and average order in the store's days from SQL aggregates, the attention counts, and accessible charts (≤3 D1 round trips)", async (ctx) => {
    needsChromium(ctx);
    const { w, browser } = store();
    // Kiritimati is UTC+14: the minute before its midnight is "yesterday" there, though it may be today in UTC.
    const zone = "Pacific/Kiritimati";
    const localToday = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
    const [y, m, d] = localToday.split("-").map(Number);
    const localMidnight = Date.UTC(y, m - 1, d) - 14 * 3600_000;
    await seedOrder(w, new Date(Date.now() - 1000), 3000); // today: $30.00
    await seedOrder(w, new Date(localMidnight - 60_000), 5000); // yesterday there: $50.00
    await seedOrder(w, new Date(), 9900, "CANCELED"); // not a sale
    await seedOrder(w, new Date(Date.now() - 40 * 24 * 3600_000), 7000); // before the 30 days
    // $19.95 of today's $30.00 order given back: counted as a refund, not as a sale.
    const refundedId = (await w.db
      .prepare("SELECT id FROM orders WHERE number = ?")
      .bind(orderNumber - 3)
      .first<{ id: string }>())!.id;
    await w.db
      .prepare(
        "INSERT INTO order_activities (id, order_id, type, details, actor_type, created_date) VALUES (?, ?, 'ORDER_PARTIALLY_REFUNDED', json(?), 'APP', ?)",
      )
      .bind(crypto.randomUUID(), refundedId, JSON.stringify({ amount: 1995, totalRefunded: 1995, provider: "stripe" }), new Date().toISOString())
      .run();
    const now = new Date().toISOString();
    await w.db.batch([
      w.db
        .prepare(
          "INSERT INTO tasks (id, kind, title, description, dedupe_key, status, created_date) VALUES ('t1', 'LOW_STOCK', 'Low', 'd', 'k1', 'OPEN', ?), ('t2', 'LOW_STOCK', 'Done', 'd', 'k2', 'DONE', ?)",
        )
        .bind(now, now),
      w.db
        .prepare(
          "INSERT INTO event_failures (id, type, body, state, error, attempts, first_failed_at, last_failed_at, dead_at) VALUES ('e1', 'x', '{}', 'DEAD', 'boom', 5, ?, ?, ?), ('e2', 'x', '{}', 'REPLAYED', 'boom', 5, ?, ?, ?)",
        )
        .bind(now, now, now, now, now, now),
      w.db.prepare("INSERT INTO settings (key, value, updated_date) VALUES ('store', json(?), ?)").bind(JSON.stringify({ timeZone: zone }), now),
    ]);

    const res = await get(w, owner, "/console");
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).toContain(`store&#x27;s time zone, ${zone}`);
    expect(figure(html, "Gross sales today")).toBe("$30.00");
    expect(figure(html, "Refunds today")).toBe("$19.95");
    expect(figure(html, "Sales today")).toBe("$10.05");
    expect(figure(html, "Orders today")).toBe("1");
    expect(figure(html, "Gross sales, last 30 days")).toBe("$80.00");
    expect(figure(html, "Refunds, last 30 days")).toBe("$19.95");
    expect(figure(html, "Sales, last 30 days")).toBe("$60.05");
    expect(figure(html, "Orders, last 30 days")).toBe("2");
    expect(figure(html, "Average order, last 30 days")).toBe("$30.03");
    expect(figure(html, "Open tasks")).toBe("1");
    expect(figure(html, "Dead events")).toBe("1");
    const low = (await w.db
      .prepare(
        "SELECT COUNT(*) AS n FROM variants v JOIN products p ON p.id = v.product_id WHERE p.track_inventory = 1 AND v.visible = 1 AND coalesce(v.quantity, 0) < 5",
      )
      .first<{ n: number }>())!.n;
    expect(low).toBeGreaterThan(0);
    expect(figure(html, "Low-stock items")).toBe(String(low));

    const signedIn = await consoleAccount(w, "STAFF");
    const b = await consoleBrowser(browser, w, signedIn);
    try {
      // A staff member with no permission sees the figures and a notice.
      await expect.poll(() => b.page.getByRole("status").filter({ hasText: "has not given you any permission" }).count()).toBe(1);
      const chart = b.page.getByRole("img", { name: "Sales per day, last 30 days" });
      await expect.poll(() => chart.count()).toBe(1);
      expect(await chart.getAttribute("aria-labelledby")).toMatch(/ /);
      await b.page.getByText("Sales per day, last 30 days: the figures as a table").click();
      expect(await b.page.getByRole("row").filter({ hasText: "$10.05 (1 order): $30.00 gross less $19.95 refunded" }).count()).toBe(1);
      await expect.poll(() => b.page.getByRole("img", { name: "Recovery rate per week, last 8 weeks" }).count()).toBe(1);
      // Each figure links to its screen.
      expect(await b.page.getByRole("link", { name: /Open tasks/ }).getAttribute("href")).toBe("/console/automations/tasks");
      expect(await b.page.getByRole("link", { name: /Dead events/ }).getAttribute("href")).toBe("/console/events");
      expect(await b.page.getByRole("link", { name: /Low-stock items/ }).getAttribute("href")).toBe("/console/inventory");
      expect(await b.page.getByRole("link", { name: /Abandoned carts/ }).getAttribute("href")).toBe("/console/automations?status=ABANDONED");
      await expectAccessible(b.page, "the dashboard");
      mkdirSync(shots, { recursive: true });
      await b.page.screenshot({ path: path.join(shots, "console-dashboard-1280.png"), fullPage: true });
      expect(unexpected(b.problems)).toEqual([]);
    } finally {
      await b.context.close();
    }

    // Without a zone the days are UTC's, and the page says so.
    await w.db.prepare("DELETE FROM settings WHERE key = 'store'").run();
    const utc = await (await get(w, owner, "/console")).text();
    expect(utc).toContain("Days are counted in UTC (the store has no time zone set)");
  });

  it("a shopper's abandoned cart: the sweep finds it, the recovery email goes out, the merchant sees both, the shopper comes back and buys, and the dashboard shows the recovered revenue", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { w } = s;
    const email = uniqueEmail("cart-shopper");

    // The shopper puts two of a product in the cart, gives an email at checkout, and leaves.
    const shop = await shopper(s);
    await addToCart(shop.page, s, { productId: s.plain.id, quantity: "2" });
    await shop.page.goto(`${w.url}/checkout`);
    await hydrated(shop.page);
    await fillContact(shop.page, email);
    await shop.page.getByRole("button", { name: "Continue to delivery" }).click();
    await shop.page.waitForURL("**/checkout?step=delivery");
    const { cartId } = (await w.db
      .prepare("SELECT c.id AS cartId FROM carts c JOIN checkouts k ON k.id = c.checkout_id WHERE json_extract(k.buyer_info, '$.email') = ?")
      .bind(email)
      .first<{ cartId: string }>())!;

    // Two hours pass (the cart's clock moved back past the 60-minute threshold); the sweep reports it and the
    // queue's processor makes the abandoned cart with its schedule; then the first reminder falls due and goes out.
    await w.db
      .prepare("UPDATE carts SET last_activity = ? WHERE id = ?")
      .bind(new Date(Date.now() - 2 * 3600_000).toISOString(), cartId)
      .run();
    expect(((await (await sweep(w)).json()) as { automations: { abandonedCarts: number } }).automations.abandonedCarts).toBe(1);
    const record = await until(
      () => w.db.prepare("SELECT id FROM abandoned_checkouts WHERE cart_id = ?").bind(cartId).first<{ id: string }>(),
      "the abandoned cart",
    );
    await w.db
      .prepare("UPDATE recovery_emails SET due_date = ? WHERE abandoned_checkout_id = ? AND step = 1")
      .bind(new Date(Date.now() - 1000).toISOString(), record.id)
      .run();
    await sweep(w);
    const sent = await until(
      () =>
        w.db
          .prepare(
            "SELECT r.email_id AS emailId, e.subject AS subject FROM recovery_emails r JOIN emails e ON e.id = r.email_id WHERE r.abandoned_checkout_id = ? AND r.status = 'SENT'",
          )
          .bind(record.id)
          .first<{ emailId: string; subject: string }>(),
      "the recovery email",
    );

    // The merchant: the dashboard counts it, the list shows it, its page tells the story with the email.
    const merchant = await consoleBrowser(s.browser, w, ownerAccount);
    const { page } = merchant;
    try {
      const figureText = async (label: string) =>
        (
          await page
            .getByRole("link", { name: new RegExp(`^${label}`) })
            .locator(".dash-value")
            .textContent()
        )?.trim();
      await page.goto(`${w.url}/console`);
      expect(await figureText("Abandoned carts")).toBe("1");
      expect(await figureText("Recovered carts")).toBe("0");
      await page.getByRole("link", { name: /^Abandoned carts/ }).click();
      await page.waitForURL((u) => u.pathname === "/console/automations" && u.searchParams.get("status") === "ABANDONED");
      const row = page.getByRole("row").filter({ hasText: email });
      await expect.poll(() => row.count()).toBe(1);
      expect(await row.textContent()).toContain("Abandoned");
      expect(await row.locator("td").nth(2).textContent()).toBe("2");
      await expectAccessible(page, "the abandoned carts list");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-abandoned-carts-1280.png"), fullPage: true });

      await row.getByRole("link").click();
      await page.waitForURL(`**/console/automations/carts/${record.id}`);
      await expect.poll(() => page.getByText(`Email 1 sent to ${email}`).count()).toBe(1);
      expect(await page.getByText(`Subject: “${sent.subject}” to ${email}`).count()).toBe(1);
      expect(await page.getByText("Email 2 scheduled for").count()).toBe(1);
      const itemRow = page.getByRole("row").filter({ hasText: s.plain.name });
      expect(await itemRow.locator("td").nth(1).textContent()).toBe("2");

      // A custom activity, added by the owner, joins the timeline.
      await page.fill("#f-customActivity-title", "Called the shopper");
      await page.fill("#f-customActivity-description", "They will finish the order tonight.");
      await page.getByRole("button", { name: "Add activity" }).click();
      await expect.poll(() => page.getByRole("status").filter({ hasText: "Activity added." }).count()).toBe(1);
      // The notice comes with the action's answer; the timeline with the page's reload right after it.
      await expect.poll(() => page.locator(".carts-timeline").getByText("Called the shopper").count()).toBe(1);
      expect(await page.locator(".carts-timeline").getByText("They will finish the order tonight.").count()).toBe(1);
      await expectAccessible(page, "an abandoned cart");
      await page.screenshot({ path: path.join(shots, "console-abandoned-cart-1280.png"), fullPage: true });

      // The email as the shopper saw it, on the outbox's page.
      await page.getByRole("link", { name: "View the email" }).click();
      await page.waitForURL(`**/console/automations/emails/${sent.emailId}`);
      const preview = page.locator("iframe.automation-preview");
      expect(await preview.getAttribute("sandbox")).toBe("");
      expect(await preview.getAttribute("title")).toContain(sent.subject);
      await expect.poll(() => page.frameLocator("iframe.automation-preview").getByRole("link", { name: "Return to your cart" }).count()).toBe(1);

      // The shopper follows the link in the email and buys.
      const link = /Return to your cart: (\S+)/.exec(await lastEmail(s, email, "abandoned-cart"))![1];
      await shop.page.goto(`${w.url}${new URL(link).pathname}`);
      await shop.page.waitForURL((u) => u.pathname === "/cart");
      // Its checkout already has the contact step done: open that step again, then as any card checkout.
      await shop.page.goto(`${w.url}/checkout?step=contact`);
      await hydrated(shop.page);
      await fillContact(shop.page, email);
      await shop.page.getByRole("button", { name: "Continue to delivery" }).click();
      await shop.page.waitForURL("**/checkout?step=delivery");
      await shop.page.getByRole("button", { name: "Continue to payment" }).click();
      await shop.page.waitForURL("**/checkout?step=payment");
      await shop.page.fill("#f-cardNumber", "4242 4242 4242 4242");
      await shop.page.fill("#f-cardExpiry", "11/38");
      await shop.page.fill("#f-cardCvc", "555");
      await shop.page.getByRole("button", { name: /Place order/ }).click();
      await shop.page.waitForURL(/\/orders\/[^/]+\/confirmation$/);
      const recovered = await until(
        () =>
          w.db
            .prepare("SELECT recovered_total AS total FROM abandoned_checkouts WHERE id = ? AND status = 'RECOVERED'")
            .bind(record.id)
            .first<{ total: number }>(),
        "the recovery",
      );
      expect(recovered.total).toBeGreaterThan(0);

      await page.goto(`${w.url}/console`);
      expect(await figureText("Recovered carts")).toBe("1");
      expect(await figureText("Recovered revenue")).toBe(usd(recovered.total));
      expect(await figureText("Recovery rate")).toBe("100%");
      await page.getByText("Recovery rate per week, last 8 weeks: the figures as a table").click();
      expect(await page.getByRole("row").filter({ hasText: "100% (1 of 1)" }).count()).toBe(1);
      await expectAccessible(page, "the dashboard after the recovery");
      await page.screenshot({ path: path.join(shots, "console-dashboard-1280.png"), fullPage: true });

      // The cart's page ends with the recovery and its revenue.
      await page.goto(`${w.url}/console/automations/carts/${record.id}`);
      expect(await page.getByText(`Recovered: bought for ${usd(recovered.total)}`).count()).toBe(1);
      await page.goto(`${w.url}/console/automations?status=RECOVERED`);
      expect(await page.getByRole("row").filter({ hasText: email }).count()).toBe(1);
      // The preview's images are the email's own absolute links to the shop's public origin (http://localhost:8787),
      // where nothing listens during this test: the browser's note about that is not a fault of the pages.
      const previewImages = (p: string) => p === "console error: Failed to load resource: net::ERR_CONNECTION_REFUSED";
      expect(unexpected(merchant.problems).filter((p) => !previewImages(p))).toEqual([]);
      expect(unexpected(shop.problems)).toEqual([]);
    } finally {
      await merchant.context.close();
      await shop.context.close();
    }
  });

  it("staff without automations.manage see the carts and settings but get 403 on the settings form and the custom activity; bad settings are reported at their fields with nothing written", async (ctx) => {
    needsChromium(ctx);
    const { w } = store();
    const { id } = (await w.db.prepare("SELECT id FROM abandoned_checkouts LIMIT 1").first<{ id: string }>())!;
    const list = await get(w, viewer, "/console/automations");
    expect(list.status).toBe(200);
    expect(roundTrips(list)).toBeLessThanOrEqual(3);
    const listHtml = await list.text();
    expect(listHtml).toContain("Changing these needs the");
    expect(listHtml).not.toContain('name="abandonedCartIdleMinutes"');
    const cart = await get(w, viewer, `/console/automations/carts/${id}`);
    expect(cart.status).toBe(200);
    expect(roundTrips(cart)).toBeLessThanOrEqual(3);
    expect(await cart.text()).not.toContain('name="customActivity.title"');

    const before = await storedSettings(w);
    const activities = async () =>
      (await w.db.prepare("SELECT COUNT(*) AS n FROM abandoned_checkout_activities WHERE abandoned_checkout_id = ?").bind(id).first<{ n: number }>())!
        .n;
    const activitiesBefore = await activities();
    const good = {
      abandonedCartEnabled: "on",
      abandonedCartIdleMinutes: "30",
      step1On: "on",
      step1Hours: "1",
      step2On: "on",
      step2Hours: "24",
      recoveryLinkDays: "30",
      highValueCartTotal: "200",
      lowStockThreshold: "5",
    };
    expect((await postConsoleForm(w, viewer, "/console/automations", good)).status).toBe(403);
    expect((await postConsoleForm(w, viewer, `/console/automations/carts/${id}`, { "customActivity.title": "Sneaky note" })).status).toBe(403);
    expect(await storedSettings(w)).toBe(before);
    expect(await activities()).toBe(activitiesBefore);

    // Bad input from the owner: each error at its field, what was typed kept, nothing written.
    const notNumber = await postConsoleForm(w, owner, "/console/automations", { ...good, abandonedCartIdleMinutes: "soon" });
    expect(notNumber.status).toBe(400);
    const notNumberHtml = await notNumber.text();
    expect(notNumberHtml).toMatch(/<p class="console-field-error" id="f-abandonedCartIdleMinutes-error">Must be a whole number<\/p>/);
    expect(notNumberHtml).toMatch(/id="f-abandonedCartIdleMinutes"[^>]*value="soon"/);
    const unordered = await postConsoleForm(w, owner, "/console/automations", { ...good, step2Hours: "0.5" });
    expect(unordered.status).toBe(400);
    expect(await unordered.text()).toMatch(/id="carts-schedule-error">Must be in increasing order</);
    const tooLate = await postConsoleForm(w, owner, "/console/automations", { ...good, step2Hours: "1000" });
    expect(tooLate.status).toBe(400);
    expect(await tooLate.text()).toMatch(/id="f-step2Hours-error">/);
    const noTitle = await postConsoleForm(w, owner, `/console/automations/carts/${id}`, { "customActivity.title": "  " });
    expect(noTitle.status).toBe(400);
    expect(await noTitle.text()).toMatch(/id="f-customActivity-title-error">/);
    expect(await storedSettings(w)).toBe(before);
    expect(await activities()).toBe(activitiesBefore);

    // A good change is saved through the settings service: step 2 switched off, a shorter threshold.
    const saved = await postConsoleForm(w, owner, "/console/automations", { ...good, step2On: "" });
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain("Settings saved.");
    const value = JSON.parse((await storedSettings(w))!);
    expect(value.abandonedCartIdleMinutes).toBe(30);
    expect(value.recoveryEmailDelaysMinutes).toEqual([60]);
  });
});
