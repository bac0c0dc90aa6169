import { mkdirSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../wait";
import { haveChromium, launchChromium, SKIP_NOTE } from "./chromium";
import { expectAccessible, hydrated } from "./commerce-fixtures";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The console's webhooks and dead events, in Chromium on the built Worker:
 * (a) an incoming source's secret rotated from the console while the sender still signs with the old one: both
 *     accepted inside the overlap, the old one refused after it (time moved by ending the overlap in D1), and the
 *     source's page shows each request's outcome (processed, duplicate, refused and why);
 * (b) an outgoing subscription created in the console; "Send a test event" reaches a receiver on 127.0.0.1 that
 *     verifies it with the `standardwebhooks` package, and the delivery log shows the attempt's status and latency;
 * (c) a dead event (a warehouse shipped more than the shop had: every retry failed) replayed from the console after
 *     the merchant restocked: the stock change happens and the dead count goes down;
 * (d) staff without automations.manage see no write controls and get 403 from every action; no GET page ever holds
 *     a secret; each page costs at most 3 D1 round trips and passes axe; screenshots at 1280 px.
 */

const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let w: RunningWorker;
let browser: Browser;
let server: Server;
let receiverUrl = "";
const received: Received[] = [];
/** The demo tee's White / XL (3 in stock) and another of its variants. */
let tee = { id: "", whiteXl: "", other: "" };

beforeAll(async () => {
  if (!haveChromium) return;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      // "/down" is a receiver that is broken: every request gets a 500.
      if (req.url === "/down") res.writeHead(500, { "content-type": "text/plain" }).end("receiver down for maintenance");
      else res.writeHead(200, { "content-type": "text/plain" }).end("got it");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Queue retries without delay, so a failing event is dead within seconds.
  w = await startWorker({ port: 0, bindings: { EVENT_RETRY_BASE_SECONDS: "0", WEBHOOK_RETRY_SCHEDULE: "1,1", WEBHOOK_TIMEOUT_SECONDS: "2" } });
  const demo = await w.fetch("/api/v1/demo-catalogue", {
    method: "POST",
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: "{}",
  });
  expect(demo.status).toBe(200);
  const product = (await w.db.prepare("SELECT id FROM products WHERE slug = 'everyday-organic-tee'").first<{ id: string }>())!;
  const variant = async (choices: Record<string, string>) =>
    (await w.db
      .prepare("SELECT id FROM variants WHERE product_id = ? AND choices = json(?)")
      .bind(product.id, JSON.stringify(choices))
      .first<{ id: string }>())!.id;
  tee = { id: product.id, whiteXl: await variant({ Color: "White", Size: "XL" }), other: await variant({ Color: "Navy", Size: "M" }) };
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await w?.dispose();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

function needsChromium(ctx: { skip: (note: string) => void }) {
  if (haveChromium) return;
  console.warn(`console webhooks browser tests skipped: ${SKIP_NOTE}`);
  ctx.skip(SKIP_NOTE);
}

/** A warehouse posting a Standard Webhooks request signed with `secret` (the `standardwebhooks` package signs). */
async function send(source: string, secret: string, data: unknown, id = `msg_${crypto.randomUUID()}`) {
  const body = JSON.stringify({ type: "inventory.updated", timestamp: new Date().toISOString(), data });
  const now = new Date();
  const headers = {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, now, body),
  };
  const res = await w.fetch(`/webhooks/${source}`, { method: "POST", headers, body });
  return { status: res.status, body: (await res.json()) as { status?: string } };
}

const quantity = async (variantId: string) =>
  (await w.db.prepare("SELECT quantity FROM variants WHERE id = ?").bind(variantId).first<{ quantity: number }>())!.quantity;

/** Secrets seen in action answers during the run: no GET page may ever contain one. */
const secrets: string[] = [];
let sourceId = "";
let subscriptionId = "";

describe("console webhooks and dead events", () => {
  it("(a) rotates an incoming source's secret: old and new accepted inside the overlap, the old refused after it", async (ctx) => {
    needsChromium(ctx);
    const owner = await consoleAccount(w, "OWNER");
    const { context, page, problems } = await consoleBrowser(browser, w, owner);
    try {
      await page.goto(`${w.url}/console/webhooks`);
      await hydrated(page);
      // Bad input: the error next to the name, nothing created.
      await page.fill("#source-name", "Not A Path!");
      await page.click("text=Create source");
      await expect.poll(() => page.locator("#source-name-error").textContent()).toMatch(/lower-case/);
      expect(await page.inputValue("#source-name")).toBe("Not A Path!");
      expect((await w.db.prepare("SELECT COUNT(*) AS n FROM webhook_sources").first<{ n: number }>())!.n).toBe(0);

      await page.fill("#source-name", "warehouse");
      await page.fill("#source-description", "The warehouse's stock feed");
      await page.click("text=Create source");
      const oldSecret = (await page.locator("[data-secret]").textContent({ timeout: 10_000 }))!.trim();
      expect(oldSecret).toMatch(/^whsec_/);
      secrets.push(oldSecret);
      await expect.poll(() => page.getByRole("link", { name: "warehouse" }).count()).toBe(1);
      sourceId = (await w.db.prepare("SELECT id FROM webhook_sources WHERE name = 'warehouse'").first<{ id: string }>())!.id;

      const stock = { items: [{ productId: tee.id, variantId: tee.other, setQuantity: 7 }] };
      expect(await send("warehouse", oldSecret, stock)).toMatchObject({ status: 200, body: { status: "ACCEPTED" } });

      // Rotate from the source's page with an hour's overlap.
      await page.getByRole("link", { name: "warehouse" }).click();
      await page.waitForURL(`**/console/webhooks/sources/${sourceId}`);
      await page.selectOption("#rotate-overlap", "60");
      await page.click("text=Make a new secret");
      const newSecret = (await page.locator("[data-secret]").textContent({ timeout: 10_000 }))!.trim();
      expect(newSecret).toMatch(/^whsec_/);
      expect(newSecret).not.toBe(oldSecret);
      secrets.push(newSecret);
      await expect.poll(() => page.getByText("Overlap: still accepted").count()).toBe(1);

      // Inside the overlap the sender may still sign with the old secret, or already with the new one.
      expect(await send("warehouse", oldSecret, stock)).toMatchObject({ status: 200, body: { status: "ACCEPTED" } });
      expect(await send("warehouse", newSecret, stock)).toMatchObject({ status: 200, body: { status: "ACCEPTED" } });
      const repeated = `msg_repeat_${Date.now()}`;
      await send("warehouse", newSecret, stock, repeated);
      expect(await send("warehouse", newSecret, stock, repeated)).toMatchObject({ status: 200, body: { status: "DUPLICATE" } });

      // The hour passes (the old key's expiry moved into the past): the old secret is refused, the new one works.
      const past = new Date(Date.now() - 1000).toISOString();
      await w.db.prepare("UPDATE webhook_sources SET keys = json_set(keys, '$[0].expiresAt', ?) WHERE id = ?").bind(past, sourceId).run();
      expect((await send("warehouse", oldSecret, stock)).status).toBe(401);
      expect(await send("warehouse", newSecret, stock)).toMatchObject({ status: 200, body: { status: "ACCEPTED" } });

      // The source's page: the old key expired, and every request with its outcome.
      await page.reload();
      await hydrated(page);
      await expect.poll(() => page.getByText("Expired", { exact: true }).count()).toBe(1);
      const rows = page.locator("table[class~=console-table]").last().locator("tbody tr");
      await expect.poll(() => rows.count()).toBe(7);
      const received = await page.locator("#received-heading ~ div table").textContent();
      expect(received).toContain("Refused");
      expect(received).toContain("401 webhook-signature does not match any of the source's secrets");
      expect(received).toContain("Duplicate");
      expect(received).toContain(repeated);
      expect(received).toContain("Processed");
      // The filter keeps its choice in the URL.
      await page.selectOption("#received-status", "REFUSED");
      await page.click("text=Filter");
      await page.waitForURL(/status=REFUSED/);
      await expect.poll(() => rows.count()).toBe(1);
      await page.goto(`${w.url}/console/webhooks/sources/${sourceId}`);
      await hydrated(page);
      await expectAccessible(page, "console webhook source");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-webhook-source-1280.png"), fullPage: true });
      await waitFor(async () => (await quantity(tee.other)) === 7 || null, "the warehouse's stock to be applied");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("(b) an outgoing subscription's test event reaches a local receiver that verifies it with standardwebhooks", async (ctx) => {
    needsChromium(ctx);
    const owner = await consoleAccount(w, "OWNER");
    const { context, page, problems } = await consoleBrowser(browser, w, owner);
    try {
      await page.goto(`${w.url}/console/webhooks`);
      await hydrated(page);
      // No event type ticked: the error is next to the list, and nothing is created.
      await page.fill("#subscription-url", `${receiverUrl}/hooks`);
      await page.click("text=Create subscription");
      await expect.poll(() => page.locator("#subscription-types-error").count()).toBe(1);
      expect(await page.inputValue("#subscription-url")).toBe(`${receiverUrl}/hooks`);
      expect((await w.db.prepare("SELECT COUNT(*) AS n FROM webhook_subscriptions").first<{ n: number }>())!.n).toBe(0);

      await page.getByLabel("com.wix.ecommerce.catalog.api.v1.ProductCreated").check();
      await page.getByLabel("wix.ecom.v1.order_created").check();
      await page.click("text=Create subscription");
      const secret = (await page.locator("[data-secret]").textContent({ timeout: 10_000 }))!.trim();
      expect(secret).toMatch(/^whsec_/);
      secrets.push(secret);
      subscriptionId = (await w.db.prepare("SELECT id FROM webhook_subscriptions").first<{ id: string }>())!.id;
      expect(JSON.parse((await w.db.prepare("SELECT event_types FROM webhook_subscriptions").first<{ event_types: string }>())!.event_types)).toEqual(
        ["com.wix.ecommerce.catalog.api.v1.ProductCreated", "wix.ecom.v1.order_created"],
      );
      await page.click("text=Open it");
      await page.waitForURL(`**/console/webhooks/subscriptions/${subscriptionId}`);
      await hydrated(page);
      await page.click("text=Send a test event");
      await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Test event sent");

      const [request] = await waitFor(
        () => (received.some((r) => r.path === "/hooks") ? received.filter((r) => r.path === "/hooks") : null),
        "the test event at the receiver",
      );
      const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
        type: string;
        data: { type: string; data: { subscriptionId: string } };
      };
      expect(payload.type).toBe("webhook.test");
      expect(payload.data.data.subscriptionId).toBe(subscriptionId);
      // Another secret does not verify it.
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 9).toString("base64")}`).verify(request.body, request.headers as Record<string, string>),
      ).toThrow();

      // The delivery log shows the attempt: delivered, HTTP 200, its latency and the receiver's answer.
      await expect
        .poll(
          async () => {
            await page.reload();
            return page.locator("tbody[data-delivery]").first().textContent();
          },
          { timeout: 15_000 },
        )
        .toMatch(/webhook\.test.*Delivered.*#1 ✓.*200\d+ ms.*got it/);
      await expectAccessible(page, "console webhook subscription");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-webhook-subscription-1280.png"), fullPage: true });

      // Redeliver it: a second attempt, logged under the same delivery.
      await page.click("text=Redeliver");
      await expect
        .poll(
          async () => {
            await page.reload();
            return page.locator("tbody[data-delivery] tr").count();
          },
          { timeout: 15_000 },
        )
        .toBe(2);
      expect(received.filter((r) => r.path === "/hooks")).toHaveLength(2);

      await page.goto(`${w.url}/console/webhooks`);
      await hydrated(page);
      await expectAccessible(page, "console webhooks");
      await page.screenshot({ path: path.join(shots, "console-webhooks-1280.png"), fullPage: true });
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("(b) without JavaScript: a subscription to a broken receiver; its failed delivery shows every attempt and is counted on the list", async (ctx) => {
    needsChromium(ctx);
    const owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    // The plain form post a browser without JavaScript makes: the answer is the page, with the secret shown once.
    const created = await postConsoleForm(w, owner, "/console/webhooks", {
      intent: "create-subscription",
      url: `${receiverUrl}/down`,
      eventTypes: "wix.ecom.v1.order_created",
      description: "Broken receiver",
    });
    expect(created.status).toBe(200);
    const secret = /data-secret="true">(whsec_[^<]+)</.exec(await created.text())?.[1];
    expect(secret).toMatch(/^whsec_/);
    secrets.push(secret!);
    const id = (await w.db.prepare("SELECT id FROM webhook_subscriptions WHERE description = 'Broken receiver'").first<{ id: string }>())!.id;
    expect((await postConsoleForm(w, owner, `/console/webhooks/subscriptions/${id}`, { intent: "test" })).status).toBe(200);
    // Three attempts (retries 1 s apart), all answered 500: the delivery failed.
    await waitFor(
      async () =>
        (await w.db.prepare("SELECT status FROM webhook_deliveries WHERE subscription_id = ?").bind(id).first<{ status: string }>())?.status ===
          "FAILED" || null,
      "the delivery to fail",
    );
    expect(received.filter((r) => r.path === "/down")).toHaveLength(3);

    const list = await (await get(w, owner, "/console/webhooks")).text();
    expect(list).toContain(`href="/console/webhooks/subscriptions/${id}?status=FAILED"`);
    expect(list).toContain("1 failed");
    const log = await (await get(w, owner, `/console/webhooks/subscriptions/${id}?status=FAILED`)).text();
    expect(log).toContain("1 delivery.");
    expect(log.match(/<td class="num">500<\/td>/g)).toHaveLength(3);
    expect(log.match(/HTTP 500/g)!.length).toBeGreaterThanOrEqual(3);
    expect(log).toContain("receiver down for maintenance");
    expect(log).toContain("Failed");
    expect(log).not.toContain(secret!);
    // Deleting it takes its log with it.
    expect((await postConsoleForm(w, owner, `/console/webhooks/subscriptions/${id}`, { intent: "delete", confirm: "yes" })).status).toBe(302);
    expect((await w.db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subscription_id = ?").bind(id).first<{ n: number }>())!.n).toBe(0);
  });

  it("(c) a dead event replayed from the console reaches its effect, and the dead count goes down", async (ctx) => {
    needsChromium(ctx);
    const owner = await consoleAccount(w, "OWNER");
    const ownerCookie = await consoleCookie(w, owner);
    const secret = secrets[1];
    expect(await quantity(tee.whiteXl)).toBe(3);
    // The warehouse shipped 5 of White / XL, but the shop has 3: every retry fails, and the event is dead.
    const sent = await send("warehouse", secret, { items: [{ productId: tee.id, variantId: tee.whiteXl, adjustBy: -5 }] });
    expect(sent.status).toBe(200);
    await waitFor(
      async () => (await w.db.prepare("SELECT COUNT(*) AS n FROM event_failures WHERE state = 'DEAD'").first<{ n: number }>())!.n === 1 || null,
      "the event to be dead",
      60_000,
    );
    const listed = await get(w, ownerCookie, "/console/events");
    expect(listed.status).toBe(200);
    expect(roundTrips(listed)).toBeLessThanOrEqual(3);
    const html = await listed.text();
    expect(html).toContain("1 dead event.");
    expect(html).toContain("inventory.updated");
    expect(html).toMatch(/INSUFFICIENT_INVENTORY: Only 3 of .* left in stock \(asked for 5\)/);
    // The source's page says what became of the event it accepted.
    const sourcePage = async () => (await get(w, ownerCookie, `/console/webhooks/sources/${sourceId}`)).text();
    // Only that one: the other requests it accepted went through.
    expect((await sourcePage()).match(/A processor failed for good/g)).toHaveLength(1);
    expect((await sourcePage()).match(/Processed by its processors/g)!.length).toBeGreaterThanOrEqual(5);

    // The merchant restocks (the stock page), then replays the event from the dead-events page.
    const restocked = await postConsoleForm(w, ownerCookie, `/console/inventory/${tee.id}`, {
      intent: "adjust",
      variantId: tee.whiteXl,
      direction: "add",
      amount: "10",
      reason: "Found a box",
    });
    expect(restocked.status).toBe(200);
    expect(await quantity(tee.whiteXl)).toBe(13);
    const { context, page, problems } = await consoleBrowser(browser, w, owner);
    try {
      await page.goto(`${w.url}/console/events?type=inventory.updated`);
      await hydrated(page);
      await expectAccessible(page, "console dead events");
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: path.join(shots, "console-events-1280.png"), fullPage: true });
      await page.getByRole("button", { name: /^Replay inventory\.updated/ }).click();
      await expect.poll(() => page.locator("[data-dead-count]").getAttribute("data-dead-count")).toBe("0");
      await waitFor(async () => (await quantity(tee.whiteXl)) === 8 || null, "the replayed adjustment");
      expect(await quantity(tee.whiteXl)).toBe(8);
      // Applied once, with the warehouse named in the stock history.
      const log = await w.db
        .prepare("SELECT COUNT(*) AS n FROM inventory_changes WHERE variant_id = ? AND reason LIKE 'Inventory adjustment from warehouse%'")
        .bind(tee.whiteXl)
        .first<{ n: number }>();
      expect(log!.n).toBe(1);
      expect((await sourcePage()).match(/Processed after a replay/g)).toHaveLength(1);
      expect(await sourcePage()).not.toContain("A processor failed for good");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }

    // "Replay all matching the filter": two more shipments the shop cannot cover (it has 8) die; after a big delivery
    // both are replayed at once and apply: 8 + 100 − 30 − 40.
    for (const adjustBy of [-30, -40]) await send("warehouse", secret, { items: [{ productId: tee.id, variantId: tee.whiteXl, adjustBy }] });
    await waitFor(
      async () => (await w.db.prepare("SELECT COUNT(*) AS n FROM event_failures WHERE state = 'DEAD'").first<{ n: number }>())!.n === 2 || null,
      "two dead events",
      60_000,
    );
    await postConsoleForm(w, ownerCookie, `/console/inventory/${tee.id}`, {
      intent: "adjust",
      variantId: tee.whiteXl,
      direction: "add",
      amount: "100",
      reason: "Big delivery",
    });
    const all = await postConsoleForm(w, ownerCookie, "/console/events", { intent: "replay-all", type: "inventory.updated" });
    expect(all.status).toBe(200);
    expect(await all.text()).toContain("Replayed 2 dead inventory.updated events.");
    await waitFor(async () => (await quantity(tee.whiteXl)) === 38 || null, "both replayed adjustments");
  }, 150_000);

  it("(d) staff without automations.manage see no write controls and get 403; no page shows a secret; ≤3 round trips", async (ctx) => {
    needsChromium(ctx);
    const owner = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    const viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write", "orders.write"]));
    const keyId = (await w.db
      .prepare("SELECT json_extract(keys, '$[1].id') AS id FROM webhook_sources WHERE id = ?")
      .bind(sourceId)
      .first<{ id: string }>())!.id;
    const deliveryId = (await w.db
      .prepare("SELECT id FROM webhook_deliveries WHERE subscription_id = ?")
      .bind(subscriptionId)
      .first<{ id: string }>())!.id;
    const pages = [
      "/console/webhooks",
      `/console/webhooks/sources/${sourceId}`,
      `/console/webhooks/subscriptions/${subscriptionId}`,
      "/console/events",
    ];
    for (const p of pages) {
      for (const cookie of [owner, viewer]) {
        const res = await get(w, cookie, p);
        expect(res.status, p).toBe(200);
        expect(roundTrips(res), p).toBeLessThanOrEqual(3);
        const html = await res.text();
        for (const s of secrets) expect(html, `${p} shows a secret`).not.toContain(s);
        expect(html).not.toContain("whsec_");
        if (cookie === viewer) expect(html, `${p} offers a write to a viewer`).not.toMatch(/name="intent"/);
        // (The events page has no dead event left to replay by now.)
        else if (p !== "/console/events") expect(html).toMatch(/name="intent"/);
      }
    }

    const refused: [string, Record<string, string>][] = [
      ["/console/webhooks", { intent: "create-source", name: "sneaky", format: "standard" }],
      ["/console/webhooks", { intent: "create-subscription", url: `${receiverUrl}/sneaky`, eventTypes: "*" }],
      ["/console/webhooks", { intent: "source-enabled", id: sourceId, enabled: "false" }],
      ["/console/webhooks", { intent: "subscription-enabled", id: subscriptionId, enabled: "false" }],
      [`/console/webhooks/sources/${sourceId}`, { intent: "rotate", overlapMinutes: "60" }],
      [`/console/webhooks/sources/${sourceId}`, { intent: "remove-key", keyId }],
      [`/console/webhooks/sources/${sourceId}`, { intent: "enabled", enabled: "false" }],
      [`/console/webhooks/sources/${sourceId}`, { intent: "delete", confirm: "yes" }],
      [`/console/webhooks/subscriptions/${subscriptionId}`, { intent: "rotate" }],
      [`/console/webhooks/subscriptions/${subscriptionId}`, { intent: "test" }],
      [`/console/webhooks/subscriptions/${subscriptionId}`, { intent: "enabled", enabled: "false" }],
      [`/console/webhooks/subscriptions/${subscriptionId}`, { intent: "redeliver", deliveryId }],
      [`/console/webhooks/subscriptions/${subscriptionId}`, { intent: "delete", confirm: "yes" }],
      ["/console/events", { intent: "replay", id: "anything" }],
      ["/console/events", { intent: "replay-all", type: "" }],
    ];
    const before = await w.db
      .prepare(
        "SELECT (SELECT COUNT(*) FROM webhook_sources) + (SELECT COUNT(*) FROM webhook_subscriptions) + (SELECT COUNT(*) FROM webhook_deliveries) AS n, (SELECT keys FROM webhook_sources WHERE id = ?) AS keys",
      )
      .bind(sourceId)
      .first();
    for (const [p, fields] of refused) {
      const res = await postConsoleForm(w, viewer, p, fields);
      expect(res.status, `${p} ${fields.intent}`).toBe(403);
      expect(await res.text()).toContain("You may not do this");
    }
    const after = await w.db
      .prepare(
        "SELECT (SELECT COUNT(*) FROM webhook_sources) + (SELECT COUNT(*) FROM webhook_subscriptions) + (SELECT COUNT(*) FROM webhook_deliveries) AS n, (SELECT keys FROM webhook_sources WHERE id = ?) AS keys",
      )
      .bind(sourceId)
      .first();
    expect(after).toEqual(before);
    expect(
      (await w.db.prepare("SELECT enabled FROM webhook_subscriptions WHERE id = ?").bind(subscriptionId).first<{ enabled: number }>())!.enabled,
    ).toBe(1);

    // The owner disables the source: the sender is refused (403), and the page says why.
    expect((await postConsoleForm(w, owner, "/console/webhooks", { intent: "source-enabled", id: sourceId, enabled: "false" })).status).toBe(200);
    expect((await send("warehouse", secrets[1], { items: [{ productId: tee.id, variantId: tee.other, setQuantity: 1 }] })).status).toBe(403);
    expect(await (await get(w, owner, `/console/webhooks/sources/${sourceId}?status=REFUSED`)).text()).toContain(
      "403 The webhook source is disabled by the merchant",
    );
    // A delete without its tick is refused next to the tick, and deletes nothing.
    const unticked = await postConsoleForm(w, owner, `/console/webhooks/sources/${sourceId}`, { intent: "delete" });
    expect(unticked.status).toBe(400);
    expect(await unticked.text()).toContain('id="delete-source-confirm-error"');
    const deleted = await postConsoleForm(w, owner, `/console/webhooks/sources/${sourceId}`, { intent: "delete", confirm: "yes" });
    expect(deleted.status).toBe(302);
    expect((await get(w, owner, `/console/webhooks/sources/${sourceId}`)).status).toBe(404);
  });
});
