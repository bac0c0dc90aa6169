import { mkdirSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { Log, LogLevel } from "miniflare";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addToCart, expectAccessible, hydrated, shopper, uniqueEmail, useStore } from "./commerce-fixtures";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The console's Settings: the store's name, logo and checkout header as shoppers see them, the emails'
 * sender as it reaches the transport, API keys (shown once, refused once revoked), member approval and blocks, the
 * sign-up rules, and staff removed by the owner. Every change goes through the services, which refuse staff without
 * settings.manage (or anyone but the owner, for staff, keys and sign-up rules) with 403.
 */

const { store, needsChromium } = useStore("console settings");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const storeRow = async (w: RunningWorker) =>
  (await w.db.prepare("SELECT value FROM settings WHERE key = 'store'").first<{ value: string }>())?.value ?? null;
const api = (w: RunningWorker, method: string, p: string, body?: unknown, authorization?: string) =>
  w.fetch(p, {
    method,
    headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A real PNG (solid colour), so the browser draws it and the media service accepts it by its bytes. */
function png(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => [r, g, b][i % 3])]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

async function shot(page: Page, name: string) {
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `console-settings-${name}-1280.png`), fullPage: true });
}

describe("console settings", () => {
  let ownerAccount: Awaited<ReturnType<typeof consoleAccount>>;
  let owner = "";
  let viewer = "";

  beforeAll(async () => {
    if (!store()) return;
    const w = store().w;
    ownerAccount = await consoleAccount(w, "OWNER");
    owner = await consoleCookie(w, ownerAccount);
    // May edit the catalogue, not the settings.
    viewer = await consoleCookie(w, await consoleAccount(w, "STAFF", ["catalog.write"]));
  });

  it("the store's name and logo set in the console show in the shop's header and in the checkout's brand header, large and centred", {
    timeout: 90_000,
  }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    for (const p of [
      "/console/settings",
      "/console/staff",
      "/console/settings/api-keys",
      "/console/settings/members",
      "/console/settings/identity",
    ]) {
      const res = await get(s.w, owner, p);
      expect(res.status, p).toBe(200);
      expect(roundTrips(res), p).toBeLessThanOrEqual(3);
    }

    // Bad input: the error next to its field, what was typed kept, nothing written.
    const before = await storeRow(s.w);
    const bad = await postConsoleForm(s.w, owner, "/console/settings", {
      name: "  ",
      contactEmail: "not an email",
      timeZone: "Mars/Olympus",
      "checkoutHeader.logoSize": "HUGE",
      "checkoutHeader.alignment": "CENTER",
      senderName: "",
      senderEmail: "",
    });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toMatch(/id="f-timeZone-error"/);
    expect(badHtml).toMatch(/id="f-name-error"/);
    expect(badHtml).toMatch(/id="f-contactEmail-error"/);
    expect(badHtml).toMatch(/id="f-checkoutHeader-logoSize-error"/);
    expect(badHtml).toContain('value="not an email"');
    expect(await storeRow(s.w)).toBe(before);
    // Console pages' titles carry the store's name: the default one until it is changed below.
    expect(await (await get(s.w, owner, "/console/orders")).text()).toMatch(/<title>Orders — Console — (?!Fernhill Goods)[^<]+<\/title>/);

    const { context, page, problems } = await consoleBrowser(s.browser, s.w, ownerAccount);
    try {
      await page.goto(`${s.w.url}/console/settings`);
      await hydrated(page);
      // Not an image: refused at the file field, nothing saved.
      await page.fill("#f-name", "Fernhill Goods");
      await page.setInputFiles("#f-logo", {
        name: "logo.svg",
        mimeType: "image/svg+xml",
        buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      });
      await page.click("text=Save store settings");
      await expect.poll(() => page.locator("#f-logo-error").textContent()).toMatch(/SVG/);
      expect(await page.inputValue("#f-name")).toBe("Fernhill Goods");
      expect(await storeRow(s.w)).toBe(before);

      await page.setInputFiles("#f-logo", { name: "logo.png", mimeType: "image/png", buffer: png(180, 60, [31, 79, 138]) });
      await page.check("#f-checkoutHeader-logoSize-LARGE");
      await page.check("#f-checkoutHeader-alignment-CENTER");
      await page.fill("#f-contactEmail", "hello@fernhill.example");
      await page.fill("#f-timeZone", "Europe/Paris");
      await page.click("text=Save store settings");
      await page.waitForSelector("text=Saved. The shop shows “Fernhill Goods” with the new logo.");
      // The console's own tab follows the save at once (the layout's data is read again after a post).
      await expect.poll(() => page.title()).toBe("Store settings — Console — Fernhill Goods");
      await page.reload();
      await hydrated(page);
      expect(await page.inputValue("#f-name")).toBe("Fernhill Goods");
      expect(await page.isChecked("#f-checkoutHeader-alignment-CENTER")).toBe(true);
      expect(await page.getAttribute(".settings-logo img", "src")).toMatch(/^\/media\/[0-9a-f]{64}\.png$/);
      await expectAccessible(page, "store settings");
      await shot(page, "store");
      // The dashboard counts its days in the store's time zone.
      await page.goto(`${s.w.url}/console`);
      expect(await page.textContent("main")).toContain("Days are counted in the store's time zone, Europe/Paris.");
      expect(await page.title()).toBe("Dashboard — Console — Fernhill Goods");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }

    // The shopper's side: the header, then the checkout's brand header.
    const buyer = await shopper(s);
    try {
      await buyer.page.goto(`${s.w.url}/`);
      expect(await buyer.page.textContent("header .brand span")).toBe("Fernhill Goods");
      const headerLogo = buyer.page.locator("header .brand-logo");
      expect(await headerLogo.getAttribute("src")).toMatch(/^\/media\/[0-9a-f]{64}\.png$/);
      await expect.poll(() => headerLogo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(180);
      await addToCart(buyer.page, s, { productId: s.plain.id, quantity: "1" });
      await buyer.page.goto(`${s.w.url}/checkout`);
      const brand = buyer.page.locator('[data-testid="checkout-brand"]');
      expect(await brand.getAttribute("data-align")).toBe("center");
      const logo = brand.locator("img");
      expect(await logo.getAttribute("alt")).toBe("Fernhill Goods");
      const [box, frame] = [await logo.boundingBox(), await brand.boundingBox()];
      // Large: 72 px tall; centred: its middle at the header's middle.
      expect(Math.round(box!.height)).toBe(72);
      expect(Math.abs(box!.x + box!.width / 2 - (frame!.x + frame!.width / 2))).toBeLessThan(2);
      await expectAccessible(buyer.page, "checkout with the brand header");
    } finally {
      await buyer.context.close();
    }

    // Moved right: the checkout follows.
    const right = await postConsoleForm(s.w, owner, "/console/settings", {
      name: "Fernhill Goods",
      contactEmail: "hello@fernhill.example",
      timeZone: "Europe/Paris",
      "checkoutHeader.logoSize": "SMALL",
      "checkoutHeader.alignment": "RIGHT",
      senderName: "",
      senderEmail: "",
    });
    expect(right.status).toBe(200);
    const again = await shopper(s);
    try {
      await addToCart(again.page, s, { productId: s.plain.id, quantity: "1" });
      await again.page.goto(`${s.w.url}/checkout`);
      const brand = again.page.locator('[data-testid="checkout-brand"]');
      expect(await brand.getAttribute("data-align")).toBe("right");
      const [box, frame] = [await brand.locator("img").boundingBox(), await brand.boundingBox()];
      expect(Math.round(box!.height)).toBe(32);
      expect(Math.abs(box!.x + box!.width - (frame!.x + frame!.width))).toBeLessThan(2);
    } finally {
      await again.context.close();
    }

    // The shop reads the KV copy once per catalogue version (kept with the catalogue cache, which the change
    // purged) and writes nothing; a lost copy is put back from D1 by the next sweep, which purges again.
    // Each look at a new address: an anonymous home page is kept in the edge cache.
    let looks = 0;
    const home = async () => {
      const res = await s.w.fetch(`/?look=${++looks}`, { headers: { "user-agent": BROWSER_UA } });
      return { html: await res.text(), timing: res.headers.get("server-timing") ?? "" };
    };
    const shown = await home();
    expect(shown.html).toContain("<span>Fernhill Goods</span>");
    expect(shown.html).toContain('href="mailto:hello@fernhill.example"');
    expect(shown.timing).toContain('desc="0 KV writes"');
    // A copy lost behind the shop's back: what the shop already read stays; the next catalogue version reads the
    // defaults until the sweep puts the copy back and purges.
    const kv = await s.w.mf.getKVNamespace("SESSIONS");
    await kv.delete("store:settings");
    expect((await home()).html).toContain("<span>Fernhill Goods</span>");
    await kv.put("catalog:version", `lost-${Date.now()}`);
    await new Promise((r) => setTimeout(r, 1_100)); // the isolate reuses the version it read for a second
    expect((await home()).html).toContain("<span>Edge Storefront</span>");
    expect((await api(s.w, "POST", "/api/v1/events/sweep", {}, OWNER_KEY)).status).toBe(200);
    expect((await home()).html).toContain("<span>Fernhill Goods</span>");
  });

  it("an API key created in the console works against the API, is never on a GET page, and is refused once revoked", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const bad = await postConsoleForm(s.w, owner, "/console/settings/api-keys", { intent: "create", name: "", role: "STAFF" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/id="f-name-error"/);

    const created = await postConsoleForm(s.w, owner, "/console/settings/api-keys", { intent: "create", name: "Warehouse sync", role: "STAFF" });
    expect(created.status).toBe(200);
    const key = /data-testid="new-api-key">(sk_[A-Za-z0-9_-]+)</.exec(await created.text())?.[1];
    expect(key, "the key, shown once").toBeTruthy();
    const row = await s.w.db
      .prepare("SELECT id, key_hash, key_prefix FROM api_keys WHERE name = 'Warehouse sync'")
      .first<{ id: string; key_hash: string; key_prefix: string }>();
    expect(row!.key_hash).not.toContain(key!.slice(3));
    expect(row!.key_prefix).toBe(key!.slice(0, 9));

    const works = await api(s.w, "GET", "/api/v1/staff", undefined, key);
    expect(works.status).toBe(200);
    const page = await get(s.w, owner, "/console/settings/api-keys");
    const html = await page.text();
    expect(html).not.toContain(key!);
    expect(html).toContain(`<code>${key!.slice(0, 9)}`);
    expect(html).toContain("Warehouse sync");

    // Without JavaScript, the first press asks; only the confirmed one revokes.
    const asked = await postConsoleForm(s.w, owner, "/console/settings/api-keys", {
      intent: "revoke",
      id: row!.id,
      name: "Warehouse sync",
      confirm: "",
    });
    expect(await asked.text()).toContain("Yes, revoke it");
    expect((await api(s.w, "GET", "/api/v1/staff", undefined, key)).status).toBe(200);
    const revoked = await postConsoleForm(s.w, owner, "/console/settings/api-keys", {
      intent: "revoke",
      id: row!.id,
      name: "Warehouse sync",
      confirm: "yes",
    });
    expect(revoked.status).toBe(200);
    expect((await api(s.w, "GET", "/api/v1/staff", undefined, key)).status).toBe(401);
    expect((await (await get(s.w, owner, "/console/settings/api-keys")).text()).replace(/<!-- -->/g, "")).toMatch(/Revoked \d{4}-/);

    const { context, page: browserPage, problems } = await consoleBrowser(s.browser, s.w, ownerAccount);
    try {
      await browserPage.goto(`${s.w.url}/console/settings/api-keys`);
      await hydrated(browserPage);
      await browserPage.fill("#f-name", "Reporting");
      await browserPage.click("text=Create key");
      const shown = await browserPage.locator('[data-testid="new-api-key"]').textContent();
      expect(shown).toMatch(/^sk_/);
      expect((await api(s.w, "GET", "/api/v1/staff", undefined, shown!)).status).toBe(200);
      await expectAccessible(browserPage, "API keys");
      await shot(browserPage, "api-keys");
      await browserPage.goto(`${s.w.url}/console/staff`);
      await hydrated(browserPage);
      await expectAccessible(browserPage, "staff and roles");
      await shot(browserPage, "staff");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a member waiting for approval can sign in once approved in the console, and a blocked one cannot", { timeout: 60_000 }, async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const rules = await postConsoleForm(s.w, owner, "/console/settings/identity", { requireOwnerApproval: "on" });
    expect(rules.status).toBe(200);
    // Captcha cannot go on without a verifier: refused at its box, nothing changed.
    const captcha = await postConsoleForm(s.w, owner, "/console/settings/identity", { requireOwnerApproval: "on", captcha: "on" });
    expect(captcha.status).toBe(400);
    expect(await captcha.text()).toMatch(/id="f-captcha-error"/);

    const email = uniqueEmail("waiting");
    const password = "a long member password";
    const register = await api(s.w, "POST", "/_api/iam/authentication/v2/register", { loginId: { email }, password });
    expect((await register.json()) as { state: string }).toMatchObject({ state: "REQUIRE_OWNER_APPROVAL" });
    const login = () => api(s.w, "POST", "/_api/iam/authentication/v2/login", { loginId: { email }, password });
    expect(await (await login()).json()).toMatchObject({ state: "REQUIRE_OWNER_APPROVAL" });

    const { context, page, problems } = await consoleBrowser(s.browser, s.w, ownerAccount);
    try {
      await page.goto(`${s.w.url}/console/settings/members?status=PENDING&q=${encodeURIComponent(email.slice(0, 12))}`);
      await hydrated(page);
      await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
      await page.click(`button[aria-label="Approve ${email}"]`);
      await page.waitForSelector(`text=Approved ${email}: they can sign in now.`);
      expect(await (await login()).json()).toMatchObject({ state: "SUCCESS" });

      await page.goto(`${s.w.url}/console/settings/members?q=${encodeURIComponent(email)}`);
      await hydrated(page);
      await page.click(`button[aria-label="Block ${email}"]`);
      await page.waitForSelector(`text=Blocked ${email}`);
      const refused = await login();
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ details: { applicationError: { code: "MEMBER_BLOCKED" } } });
      await expectAccessible(page, "members");
      await shot(page, "members");
      await page.goto(`${s.w.url}/console/settings/identity`);
      await hydrated(page);
      await expectAccessible(page, "sign-up and sign-in");
      await shot(page, "identity");
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
    // Paging: 30 more members, 25 a page, the search across them all.
    const now = new Date().toISOString();
    await s.w.db.batch(
      Array.from({ length: 30 }, (_, i) =>
        s.w.db
          .prepare("INSERT INTO identities (id, email, status, role, created_date, updated_date) VALUES (?, ?, 'ACTIVE', 'MEMBER', ?, ?)")
          .bind(crypto.randomUUID(), `paging-${i}-${Date.now()}@example.test`, now, now),
      ),
    );
    const first = (await (await get(s.w, owner, "/console/settings/members?q=paging-")).text()).replace(/<!-- -->/g, "");
    expect(first).toContain("30 members matching “paging-”");
    expect(first).toContain("Page 1 of 2");
    const second = await (await get(s.w, owner, "/console/settings/members?q=paging-&page=2")).text();
    expect(new Set(second.match(/paging-\d+-\d+@example\.test/g)).size).toBe(5);
    await postConsoleForm(s.w, owner, "/console/settings/identity", { requireEmailVerification: "on" });
  });

  it("a staff member removed by the owner loses the console at their next request, and may be let back in", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const account = await consoleAccount(s.w, "STAFF", ["settings.manage"]);
    const cookie = await consoleCookie(s.w, account);
    expect((await get(s.w, cookie, "/console/settings")).status).toBe(200);
    const removed = await postConsoleForm(s.w, owner, "/console/staff", { intent: "block", id: account.id });
    expect(removed.status).toBe(200);
    const next = await get(s.w, cookie, "/console/settings");
    expect(next.status).toBe(302);
    expect(next.headers.get("location")).toMatch(/^\/console\/login/);
    const back = await postConsoleForm(s.w, owner, "/console/staff", { intent: "unblock", id: account.id });
    expect(await back.text()).toContain("they can sign in again");
    expect((await get(s.w, await consoleCookie(s.w, account), "/console/settings")).status).toBe(200);
  });

  it("staff without settings.manage see no write controls and get 403 from every action, which changes nothing", async (ctx) => {
    needsChromium(ctx);
    const s = store();
    const pages = {
      "/console/settings": "Save store settings",
      "/console/settings/api-keys": "Create key",
      "/console/settings/members": "Block",
      "/console/settings/identity": "Save rules",
    };
    for (const [p, control] of Object.entries(pages)) {
      const res = await get(s.w, viewer, p);
      expect(res.status, p).toBe(200);
      const html = await res.text();
      expect(html, p).not.toContain(`>${control}<`);
      expect(html, p).not.toMatch(/<input[^>]*type="(?:file|checkbox|radio)"/);
    }
    expect((await get(s.w, viewer, "/console/staff")).status).toBe(403);

    const before = await storeRow(s.w);
    const memberId = (await s.w.db.prepare("SELECT id FROM identities WHERE role = 'MEMBER' AND status = 'ACTIVE' LIMIT 1").first<{ id: string }>())!
      .id;
    const keyId = (await s.w.db.prepare("SELECT id FROM api_keys WHERE revoked_date IS NULL LIMIT 1").first<{ id: string }>())!.id;
    const attempts: [string, Record<string, string>][] = [
      ["/console/settings", { name: "Taken over", "checkoutHeader.logoSize": "SMALL", "checkoutHeader.alignment": "LEFT" }],
      ["/console/settings/api-keys", { intent: "create", name: "Mine", role: "OWNER" }],
      ["/console/settings/api-keys", { intent: "revoke", id: keyId, name: "x", confirm: "yes" }],
      ["/console/settings/api-keys", { intent: "revoke", id: keyId, name: "x" }],
      ["/console/settings/members", { intent: "block", id: memberId }],
      ["/console/settings/members", { intent: "approve", id: memberId }],
      ["/console/settings/identity", { captcha: "" }],
      ["/console/staff", { intent: "invite", email: uniqueEmail("sneaky"), permissions: "settings.manage" }],
    ];
    for (const [p, fields] of attempts) {
      const res = await postConsoleForm(s.w, viewer, p, fields);
      expect(res.status, `${p} ${fields.intent ?? ""}`).toBe(403);
    }
    expect(await storeRow(s.w)).toBe(before);
    expect(await s.w.db.prepare("SELECT revoked_date FROM api_keys WHERE id = ?").bind(keyId).first()).toEqual({ revoked_date: null });
    expect(await s.w.db.prepare("SELECT status FROM identities WHERE id = ?").bind(memberId).first()).toEqual({ status: "ACTIVE" });
    expect(await s.w.db.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE name = 'Mine'").first()).toEqual({ n: 0 });
  });
});

/** The local send_email binding's log: Miniflare writes what it was asked to send (From:, To:, Subject:). */
class MailLog extends Log {
  lines: string[] = [];
  constructor() {
    super(LogLevel.INFO);
  }
  protected log(message: string): void {
    this.lines.push(message);
  }
}

describe("the emails' sender (built Worker with sending on)", () => {
  let w: RunningWorker;
  const mail = new MailLog();
  beforeAll(async () => {
    w = await startWorker({ log: mail, bindings: { EMAIL_FROM: "shop@fernhill.example" } });
  });
  afterAll(async () => {
    await w?.dispose();
  });

  it("the sender name and address set in the console are the From: of the next email", async () => {
    const cookie = await consoleCookie(w, await consoleAccount(w, "OWNER"));
    const base = { name: "Fernhill Goods", "checkoutHeader.logoSize": "MEDIUM", "checkoutHeader.alignment": "LEFT", senderName: "Fernhill Orders" };
    // Another domain than the one the shop sends from would make every email fail: refused at the field.
    const elsewhere = await postConsoleForm(w, cookie, "/console/settings", { ...base, senderEmail: "orders@elsewhere.example" });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toMatch(/id="f-senderEmail-error"[^>]*>[^<]*fernhill\.example/);
    const saved = await postConsoleForm(w, cookie, "/console/settings", { ...base, senderEmail: "orders@fernhill.example" });
    expect(saved.status).toBe(200);

    const to = uniqueEmail("new-staff");
    expect((await postConsoleForm(w, cookie, "/console/staff", { intent: "invite", email: to })).status).toBe(200);
    await expect.poll(() => mail.lines.join("\n"), { timeout: 10_000 }).toContain(`To: ${to}`);
    const sent = mail.lines.find((l) => l.includes(`To: ${to}`))!;
    expect(sent).toContain('From: "Fernhill Orders" <orders@fernhill.example>');
    const row = await w.db.prepare('SELECT status, html FROM emails WHERE "to" = ?').bind(to).first<{ status: string; html: string }>();
    expect(row!.html).toContain("Fernhill Goods");
    await expect
      .poll(async () => (await w.db.prepare('SELECT status FROM emails WHERE "to" = ?').bind(to).first<{ status: string }>())!.status)
      .toBe("SENT");
  });
});
