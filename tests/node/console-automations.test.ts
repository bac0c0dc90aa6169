import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, haveChromium, hydrated, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The console's automations pages on the built Worker: the outbox of emails (a failed one shows its error
 * and is sent again with Retry; the preview is a sandboxed frame), back-in-stock requests by item with "report back
 * in stock", and the merchant's tasks with done / reopen. Every action is refused (403) to staff without
 * automations.manage, who see no buttons; every page reads D1 at most 3 times and passes axe.
 */

const { store, needsChromium } = useStore("console automations");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const emailRow = async (w: RunningWorker, id: string) =>
  (await w.db
    .prepare("SELECT status, attempts, error, sent_date AS sentDate FROM emails WHERE id = ?")
    .bind(id)
    .first<{ status: string; attempts: number; error: string | null; sentDate: string | null }>())!;

/** Waits (outside a test, where expect.poll is not allowed) until the check holds, or fails after 15 s. */
async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("timed out waiting");
}

describe("console automations: a failed email and Retry (send_email refusing the recipient)", () => {
  // A Worker of its own with a transport configured (EMAIL_FROM) whose local send_email binding accepts only one
  // address, so an invitation to anyone else fails the way an unverified destination does in production.
  let mail: RunningWorker;
  let owner = "";
  let viewer = "";
  let invited = "";
  let emailId = "";

  beforeAll(async () => {
    if (!haveChromium) return;
    mail = await startWorker({ port: 0, bindings: { EMAIL_FROM: "shop@example.test" }, emailRecipients: ["only-this@example.test"] });
    owner = await consoleCookie(mail, await consoleAccount(mail, "OWNER"));
    viewer = await consoleCookie(mail, await consoleAccount(mail, "STAFF", ["catalog.write", "inventory.write"]));
    invited = `invited-${Date.now()}@example.test`;
    const res = await mail.fetch("/api/v1/staff", {
      method: "POST",
      headers: { authorization: OWNER_KEY, "content-type": "application/json" },
      body: JSON.stringify({ email: invited, firstName: "Lin" }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await until(
      async () => (await mail.db.prepare(`SELECT status FROM emails WHERE "to" = ?`).bind(invited).first<{ status: string }>())?.status === "FAILED",
    );
    emailId = (await mail.db.prepare(`SELECT id FROM emails WHERE "to" = ?`).bind(invited).first<{ id: string }>())!.id;
  }, 60_000);

  afterAll(async () => {
    await mail?.dispose();
  });

  it("lists the failed email with its error, filtered by status and recipient, in at most 3 round trips", async (ctx) => {
    needsChromium(ctx);
    const res = await get(mail, viewer, `/console/automations/emails?status=FAILED&q=${encodeURIComponent(invited.slice(0, 12).toUpperCase())}`);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).toContain("1 email matches.");
    expect(html).toContain(`href="/console/automations/emails/${emailId}"`);
    expect(html).toContain(`email to ${invited} not allowed`);
    const sent = await (await get(mail, viewer, "/console/automations/emails?status=SENT")).text();
    expect(sent).toContain("No emails match these filters.");
    const bad = await get(mail, viewer, "/console/automations/emails?from=yesterday");
    expect(bad.status).toBe(200);
    expect(await bad.text()).toContain('id="emails-from-error"');
  });

  it("a staff member without automations.manage sees the error but no Retry, and the retry is refused (403)", async (ctx) => {
    needsChromium(ctx);
    const page = await get(mail, viewer, `/console/automations/emails/${emailId}`);
    expect(page.status).toBe(200);
    expect(roundTrips(page)).toBeLessThanOrEqual(3);
    const html = await page.text();
    expect(html).toContain(`email to ${invited} not allowed`);
    expect(html).not.toContain(">Retry</button>");
    expect(html).toContain("needs the automations permission");
    const refused = await postConsoleForm(mail, viewer, `/console/automations/emails/${emailId}`, { intent: "retry" });
    expect(refused.status).toBe(403);
    expect(await emailRow(mail, emailId)).toMatchObject({ status: "FAILED", attempts: 1 });
    // The activation link's token is the invited person's alone: hidden from the console, kept in the record.
    expect(html).toContain("token=[hidden]");
    expect(html).not.toMatch(/token=(?!\[hidden\])[A-Za-z0-9%_-]{10,}/);
    expect((await get(mail, viewer, "/console/automations/emails/no-such-email")).status).toBe(404);
  });

  it("in Chromium: the owner sees the error and the sandboxed preview, fixes the transport, and Retry sends it", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, mail, await consoleAccount(mail, "OWNER"));
    try {
      mkdirSync(shots, { recursive: true });
      await page.goto(`${mail.url}/console/automations/emails?status=FAILED`);
      await hydrated(page);
      await expectAccessible(page, "console emails");
      await page.screenshot({ path: path.join(shots, "console-emails-1280.png"), fullPage: true });
      await page.getByRole("link", { name: invited }).click();
      await page.waitForURL(`**/console/automations/emails/${emailId}`);
      await expect.poll(() => page.locator("h1").textContent()).toBe(`Email to ${invited}`);
      await expect.poll(() => page.locator(".automation-facts").textContent()).toContain(`email to ${invited} not allowed`);
      // The preview: a frame with no permissions at all (no scripts, no same origin), showing the message.
      const frame = page.locator("iframe.automation-preview");
      expect(await frame.getAttribute("sandbox")).toBe("");
      expect(await frame.getAttribute("srcdoc")).toContain("<!DOCTYPE html>");
      await expect.poll(() => page.frameLocator("iframe.automation-preview").getByText("Activate your account").first().isVisible()).toBe(true);
      await page.getByText("Plain-text version").click();
      await expect.poll(() => page.locator(".automation-text pre").textContent()).toContain("Hi Lin,");
      await expectAccessible(page, "console email");
      await page.screenshot({ path: path.join(shots, "console-email-1280.png"), fullPage: true });

      // The merchant verifies the address with the email service (here: the binding accepts everyone), then retries.
      await mail.setEmailRecipients(undefined);
      await page.goto(`${mail.url}/console/automations/emails/${emailId}`);
      await hydrated(page);
      await page.getByRole("button", { name: "Retry" }).click();
      await expect.poll(() => page.getByRole("status").first().textContent()).toBe(`Sent to ${invited}.`);
      await expect.poll(() => page.locator(".automation-facts .console-badge").textContent()).toBe("Sent");
      await expect(page.getByRole("button", { name: "Retry" }).count()).resolves.toBe(0);
      const row = await emailRow(mail, emailId);
      expect(row).toMatchObject({ status: "SENT", attempts: 2, error: null });
      expect(row.sentDate).toBeTruthy();
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
    // Sent once: a second retry is refused (409) and sends nothing more.
    const again = await postConsoleForm(mail, owner, `/console/automations/emails/${emailId}`, { intent: "retry" });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("Only a failed email can be retried");
    expect((await emailRow(mail, emailId)).attempts).toBe(2);
  });
});

const STORES_APP = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

/** A shopper's back-in-stock request through the storefront's API (anonymous, as the product page sends it). */
async function askBackInStock(w: RunningWorker, email: string, productId: string, variantId?: string) {
  const res = await w.fetch("/back-in-stock-service/v1/back-in-stock-notification-requests", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      request: { email, catalogReference: { appId: STORES_APP, catalogItemId: productId, ...(variantId ? { options: { variantId } } : {}) } },
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

const variantOf = async (w: RunningWorker, productId: string, choices: Record<string, string>) =>
  (await w.db
    .prepare("SELECT id, quantity FROM variants WHERE product_id = ? AND choices = json(?)")
    .bind(productId, JSON.stringify(choices))
    .first<{ id: string; quantity: number }>())!;

/** The counts per item straight from D1, keyed "productId/variantId". */
async function countsInDb(w: RunningWorker) {
  const { results } = await w.db
    .prepare(
      `SELECT catalog_item_id AS p, variant_id AS v, sum(status = 'RECEIVED') AS waiting, sum(status = 'NOTIFICATION_SENT') AS notified, sum(status = 'FAILED') AS failed
       FROM back_in_stock_requests GROUP BY catalog_item_id, variant_id`,
    )
    .all<{ p: string; v: string; waiting: number; notified: number; failed: number }>();
  return Object.fromEntries(results.map((r) => [`${r.p}/${r.v}`, { waiting: r.waiting, notified: r.notified, failed: r.failed }]));
}

describe("console automations: back in stock, tasks and the outbox list (demo store)", () => {
  let owner = "";
  let viewer = "";
  const stamp = Date.now();
  const forest = [`forest-a-${stamp}@example.test`, `forest-b-${stamp}@example.test`, `forest-gone-${stamp}@example.test`];
  const anyTee = `any-tee-${stamp}@example.test`;
  const whiteXl = `white-xl-${stamp}@example.test`;
  let forestXs = "";

  beforeAll(async () => {
    if (!haveChromium) return;
    const w = store().w;
    owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write", "inventory.write", "orders.write", "settings.manage"]));
    const tee = store().tee.id;
    forestXs = (await variantOf(w, tee, { Color: "Forest", Size: "XS" })).id;
    const white = (await variantOf(w, tee, { Color: "White", Size: "XL" })).id;
    for (const email of forest) await askBackInStock(w, email, tee, forestXs);
    await askBackInStock(w, anyTee, tee);
    await askBackInStock(w, whiteXl, tee, white);
    // One of the Forest shoppers has unsubscribed from marketing emails since asking.
    await w.db
      .prepare("INSERT INTO email_subscriptions (email, token, unsubscribed_date, created_date) VALUES (?, ?, ?, ?)")
      .bind(forest[2], `tok-${stamp}-unsubscribed-xyz`, new Date().toISOString(), new Date().toISOString())
      .run();
  });

  it("back in stock: the counts per item match the database, most waiting first, in at most 3 round trips", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const res = await get(s.w, viewer, "/console/automations/back-in-stock");
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const { context, page } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "STAFF", ["inventory.write"]));
    try {
      await page.goto(`${s.w.url}/console/automations/back-in-stock`);
      const rows = await page.$$eval("table.console-table tbody tr", (trs) =>
        trs.map((tr) => {
          const href = tr.querySelector("a")!.getAttribute("href")!;
          const q = new URL(href, "http://x").searchParams;
          const cells = [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim());
          return {
            key: `${q.get("productId")}/${q.get("variantId") ?? ""}`,
            name: tr.querySelector("a")!.textContent!,
            waiting: parseInt(cells[0], 10),
            notified: Number(cells[1]),
            failed: Number(cells[2]),
            stock: cells[3],
          };
        }),
      );
      const db = await countsInDb(s.w);
      expect(rows.length).toBe(Object.keys(db).length);
      for (const row of rows) expect({ waiting: row.waiting, notified: row.notified, failed: row.failed }, row.key).toEqual(db[row.key]);
      expect(rows.map((r) => r.waiting)).toEqual([...rows.map((r) => r.waiting)].sort((a, b) => b - a));
      const forestRow = rows.find((r) => r.key === `${s.tee.id}/${forestXs}`)!;
      expect(forestRow).toMatchObject({ name: `${s.tee.name} — Forest / XS`, waiting: 3, stock: "0 in stock" });
      expect(rows[0].key).toBe(forestRow.key);
      expect(rows.find((r) => r.key === `${s.tee.id}/`)).toMatchObject({ name: `${s.tee.name} (any variant)`, waiting: 1 });
    } finally {
      await context.close();
    }
  });

  it("back in stock: a staff member without automations.manage sees the requests but cannot report the item (403)", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const itemPath = `/console/automations/back-in-stock/item?productId=${s.tee.id}&variantId=${forestXs}`;
    const res = await get(s.w, viewer, itemPath);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    for (const email of forest) expect(html).toContain(email);
    expect(html).not.toContain("Report back in stock</button>");
    expect(html).toContain("needs the automations permission");
    const refused = await postConsoleForm(s.w, viewer, itemPath, { intent: "report" });
    expect(refused.status).toBe(403);
    expect((await countsInDb(s.w))[`${s.tee.id}/${forestXs}`]).toEqual({ waiting: 3, notified: 0, failed: 0 });
    expect((await get(s.w, viewer, "/console/automations/back-in-stock/item")).status).toBe(400);
    expect((await get(s.w, viewer, "/console/automations/back-in-stock/item?productId=no-such-product")).status).toBe(404);
  });

  it("in Chromium: the owner reports Forest/XS back in stock; the waiting shoppers are emailed and their requests change", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      mkdirSync(shots, { recursive: true });
      await page.goto(`${s.w.url}/console/automations/back-in-stock`);
      await hydrated(page);
      await expectAccessible(page, "console back in stock");
      await page.screenshot({ path: path.join(shots, "console-back-in-stock-1280.png"), fullPage: true });
      await page.getByRole("link", { name: `${s.tee.name} — Forest / XS` }).click();
      await page.waitForURL((u) => u.pathname === "/console/automations/back-in-stock/item" && u.searchParams.get("variantId") === forestXs);
      await expect.poll(() => page.locator("h1").textContent()).toBe(`Back in stock: ${s.tee.name} — Forest / XS`);
      await expectAccessible(page, "console back-in-stock item");
      const facts = () =>
        page
          .locator(".automation-facts")
          .innerText()
          .then((t) => t.replace(/\s+/g, " ").trim());
      await expect.poll(facts).toBe("Waiting 3 Notified 0 Failed 0 Stock now 0 in stock");
      await page.getByRole("button", { name: "Report back in stock" }).click();
      // The variant's three shoppers and the one waiting for any tee: three emailed, one unsubscribed.
      await expect
        .poll(() => page.getByRole("status").first().textContent())
        .toBe("Emailed 3 shoppers. 1 could not be emailed (the reason is on each request).");
      await expect.poll(() => page.locator("table.console-table tbody").textContent()).toContain("UNSUBSCRIBED");
      await expect.poll(facts).toBe("Waiting 0 Notified 2 Failed 1 Stock now 0 in stock");
      expect(await page.locator(".console-pager").count()).toBe(0); // one page of requests
      await page.screenshot({ path: path.join(shots, "console-back-in-stock-item-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
    const status = async (email: string) =>
      (await s.w.db
        .prepare("SELECT status, reason FROM back_in_stock_requests WHERE email = ?")
        .bind(email)
        .first<{ status: string; reason: string | null }>())!;
    for (const email of [forest[0], forest[1], anyTee]) {
      expect(await status(email)).toEqual({ status: "NOTIFICATION_SENT", reason: null });
      expect(
        (await s.w.db.prepare(`SELECT status FROM emails WHERE "to" = ? AND template = 'back-in-stock'`).bind(email).first<{ status: string }>())
          ?.status,
      ).toBe("QUEUED");
    }
    expect(await status(forest[2])).toEqual({ status: "FAILED", reason: "UNSUBSCRIBED" });
    expect(await status(whiteXl)).toMatchObject({ status: "RECEIVED" });
    expect((await countsInDb(s.w))[`${s.tee.id}/${forestXs}`]).toEqual({ waiting: 0, notified: 2, failed: 1 });
    // The emails are in the outbox, findable by recipient and template.
    const outbox = await (await get(s.w, viewer, `/console/automations/emails?template=back-in-stock&q=${stamp}`)).text();
    expect(outbox).toContain("4 emails match.");
    expect(outbox).toContain(forest[0]);
  });

  it("the outbox pages by 50 with the filters kept in the page links", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    // 60 recorded order confirmations to one customer (rows as the email service writes them).
    const to = `pages-${stamp}@example.test`;
    const base = Date.parse("2026-03-01T10:00:00Z");
    await s.w.db.batch(
      Array.from({ length: 60 }, (_, i) =>
        s.w.db
          .prepare(
            `INSERT INTO emails (id, "to", template, subject, html, text, status, created_date, attempts) VALUES (?, ?, 'order-confirmation', ?, '<p>x</p>', 'x', 'QUEUED', ?, 0)`,
          )
          .bind(`page-mail-${stamp}-${i}`, to, `Order #${1000 + i} confirmed`, new Date(base + i * 60_000).toISOString()),
      ),
    );
    const first = await get(s.w, viewer, `/console/automations/emails?q=pages-${stamp}&status=QUEUED`);
    expect(roundTrips(first)).toBeLessThanOrEqual(3);
    const one = await first.text();
    expect(one).toContain("60 emails match.");
    expect(one).toContain("Order #1059 confirmed"); // newest first
    expect(one).not.toContain("Order #1009 confirmed");
    expect(one).toContain("Page 1 of 2");
    const next = /href="(\/console\/automations\/emails\?[^"]*page=2[^"]*)"/.exec(one)![1].replace(/&amp;/g, "&");
    expect(next).toContain(`q=pages-${stamp}`);
    expect(next).toContain("status=QUEUED");
    const two = await (await get(s.w, viewer, next)).text();
    expect(two).toContain("Order #1009 confirmed");
    expect(two).not.toContain("Order #1010 confirmed");
    const past = await (await get(s.w, viewer, `/console/automations/emails?q=pages-${stamp}&page=3`)).text();
    expect(past).toContain("This page is past the last one (60 emails in all).");
    // Dates are whole UTC days, both included.
    const day = await (await get(s.w, viewer, `/console/automations/emails?q=pages-${stamp}&from=2026-03-01&to=2026-03-01`)).text();
    expect(day).toContain("60 emails match.");
    const none = await (await get(s.w, viewer, `/console/automations/emails?q=pages-${stamp}&from=2026-03-02`)).text();
    expect(none).toContain("No emails match these filters.");
  });

  it("tasks: a low-stock task from the inventory service, links to each task's subject, done and reopen (automations.manage only)", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const tee = s.tee.id;
    // The owner sets the low-stock threshold and sells down White/XL from 3 to 2: the automation opens a task.
    expect((await postConsoleForm(s.w, owner, "/console/inventory", { lowStockThreshold: "5" })).status).toBe(200);
    const white = await variantOf(s.w, tee, { Color: "White", Size: "XL" });
    const adjusted = await postConsoleForm(s.w, owner, `/console/inventory/${tee}`, {
      intent: "adjust",
      variantId: white.id,
      direction: "remove",
      amount: "1",
      reason: "Sold at the market",
    });
    expect(adjusted.status).toBe(200);
    const lowStock = async () =>
      s.w.db
        .prepare("SELECT id, title, status FROM tasks WHERE kind = 'LOW_STOCK' AND entity_id = ? AND dedupe_key = ?")
        .bind(tee, `low-stock:${tee}:${white.id}`)
        .first<{ id: string; title: string; status: string }>();
    await expect.poll(async () => (await lowStock())?.status, { timeout: 20_000 }).toBe("OPEN");
    const task = (await lowStock())!;
    // Tasks of the other kinds, as their automations write them.
    const now = new Date().toISOString();
    const insert = (id: string, kind: string, title: string, entityId: string, status = "OPEN", dedupe = `${kind}:${entityId}`) =>
      s.w.db
        .prepare(
          "INSERT INTO tasks (id, kind, title, description, entity_id, dedupe_key, status, created_date, completed_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(id, kind, title, `${title}: details`, entityId, dedupe, status, now, status === "DONE" ? now : null);
    await s.w.db.batch([
      insert(`t-cart-${stamp}`, "ABANDONED_CART", "High-value cart abandoned: $420.00", `ac-${stamp}`),
      insert(`t-hook-${stamp}`, "WEBHOOK_DISABLED", "Webhook to https://erp.example/hook was disabled", `sub-${stamp}`),
      insert(`t-import-${stamp}`, "IMPORT_FAILED", "Product import failed", `job-${stamp}`),
      // Done before, and its cause is open again in a newer task: reopening it would make two.
      insert(
        `t-old-${stamp}`,
        "WEBHOOK_DISABLED",
        "Webhook to https://erp.example/hook was disabled (last week)",
        `sub-${stamp}`,
        "DONE",
        `WEBHOOK_DISABLED:sub-${stamp}`,
      ),
    ]);

    const res = await get(s.w, viewer, "/console/automations/tasks");
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBeLessThanOrEqual(3);
    const html = await res.text();
    expect(html).toContain(task.title);
    expect(html).toContain(`href="/console/inventory/${tee}"`);
    expect(html).toContain(`href="/console/automations/carts/ac-${stamp}"`);
    expect(html).toContain(`href="/console/webhooks/subscriptions/sub-${stamp}"`);
    expect(html).toContain(`href="/console/products/import/job-${stamp}"`);
    expect(html).not.toContain("(last week)"); // open tasks by default
    expect(html).not.toContain('aria-label="Done: ');
    for (const [intent, id] of [
      ["done", task.id],
      ["reopen", `t-old-${stamp}`],
    ]) {
      const refused = await postConsoleForm(s.w, viewer, "/console/automations/tasks", { intent, taskId: id });
      expect(refused.status, intent).toBe(403);
    }
    expect((await lowStock())!.status).toBe("OPEN");
    const lowOnly = await (await get(s.w, viewer, "/console/automations/tasks?kind=LOW_STOCK")).text();
    expect(lowOnly).toContain(task.title);
    expect(lowOnly).not.toContain("Product import failed");

    const { context, page, problems } = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    try {
      await page.goto(`${s.w.url}/console/automations/tasks`);
      await hydrated(page);
      await expectAccessible(page, "console tasks");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-tasks-1280.png"), fullPage: true });
      await page.getByRole("button", { name: `Done: ${task.title}` }).click();
      await expect.poll(() => page.getByRole("status").first().textContent()).toBe(`Done: ${task.title}.`);
      await expect.poll(() => page.getByRole("button", { name: `Done: ${task.title}` }).count()).toBe(0);
      expect((await lowStock())!.status).toBe("DONE");
      await page.selectOption("#tasks-status", "DONE");
      await Promise.all([page.waitForURL((u) => u.searchParams.get("status") === "DONE"), page.getByRole("button", { name: "Show tasks" }).click()]);
      await page.getByRole("button", { name: `Reopen: ${task.title}` }).click();
      await expect.poll(() => page.getByRole("status").first().textContent()).toBe(`Reopened: ${task.title}.`);
      await expect.poll(async () => (await lowStock())!.status).toBe("OPEN");
      // The old webhook task cannot be reopened while the newer one about the same subscription is open.
      await page.getByRole("button", { name: /^Reopen: Webhook .* \(last week\)$/ }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("A newer open task about the same thing exists");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
    expect((await s.w.db.prepare("SELECT status FROM tasks WHERE id = ?").bind(`t-old-${stamp}`).first<{ status: string }>())!.status).toBe("DONE");
  });
});
