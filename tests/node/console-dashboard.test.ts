import { mkdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, useStore } from "./commerce-fixtures";
import { consoleAccount, consoleBrowser, consoleCookie, unexpected } from "./console-fixtures";
import { BROWSER_UA, type RunningWorker } from "./worker";

/**
 * The console's dashboard and abandoned carts (issue 13) on the built Worker: the figures come from SQL aggregates
 * in the store's own days, each links to its screen, the charts are accessible SVG with a table; a shopper's
 * abandoned cart goes through the sweep, the recovery email and the recovery link to an order, and the merchant sees
 * each step on the dashboard and the cart's page.
 */

const { store, needsChromium } = useStore("console dashboard");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
/** The text of the dashboard figure with this label (the link's value), from server HTML. */
const figure = (html: string, label: string) => new RegExp(`<span class="dash-label">${label}</span> <strong class="dash-value">([^<]*)</strong>`).exec(html)?.[1];

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

describe("console dashboard", () => {
  let owner = "";

  beforeAll(async () => {
    if (!store()) return;
    owner = await consoleCookie(store().w, await consoleAccount(store().w, "OWNER"));
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
    const now = new Date().toISOString();
    await w.db.batch([
      w.db.prepare("INSERT INTO tasks (id, kind, title, description, dedupe_key, status, created_date) VALUES ('t1', 'LOW_STOCK', 'Low', 'd', 'k1', 'OPEN', ?), ('t2', 'LOW_STOCK', 'Done', 'd', 'k2', 'DONE', ?)").bind(now, now),
      w.db.prepare("INSERT INTO event_failures (id, type, body, state, error, attempts, first_failed_at, last_failed_at, dead_at) VALUES ('e1', 'x', '{}', 'DEAD', 'boom', 5, ?, ?, ?), ('e2', 'x', '{}', 'REPLAYED', 'boom', 5, ?, ?, ?)").bind(now, now, now, now, now, now),
      w.db.prepare("INSERT INTO settings (key, value, updated_date) VALUES ('store', json(?), ?)").bind(JSON.stringify({ timeZone: zone }), now),
    ]);

    const res = await get(w, owner, "/console");
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).toContain(`store&#x27;s time zone, ${zone}`);
    expect(figure(html, "Sales today")).toBe("$30.00");
    expect(figure(html, "Orders today")).toBe("1");
    expect(figure(html, "Sales, last 30 days")).toBe("$80.00");
    expect(figure(html, "Orders, last 30 days")).toBe("2");
    expect(figure(html, "Average order, last 30 days")).toBe("$40.00");
    expect(figure(html, "Open tasks")).toBe("1");
    expect(figure(html, "Dead events")).toBe("1");
    const low = (await w.db.prepare("SELECT COUNT(*) AS n FROM variants v JOIN products p ON p.id = v.product_id WHERE p.track_inventory = 1 AND v.visible = 1 AND coalesce(v.quantity, 0) < 5").first<{ n: number }>())!.n;
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
      expect(await b.page.getByRole("row").filter({ hasText: "$30.00 (1 order)" }).count()).toBe(1);
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
});
