import { describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, cookieOf, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, useStore } from "./commerce-fixtures";
import { BROWSER_UA } from "./worker";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { newContext } from "./chromium";

/**
 * Signing in to the merchant console: its own HttpOnly cookie apart from the shopper's, an expiring
 * session that logout revokes, only the owner and staff admitted, and the owner's staff page where permissions are
 * granted — refused to staff by the service, not only hidden.
 */

const { store, needsChromium } = useStore("console sign-in");

const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const page = (cookie: string | null, p: string) =>
  store().w.fetch(p, { headers: { "user-agent": BROWSER_UA, ...(cookie ? { cookie } : {}) }, redirect: "manual" });

/**
 * The cookies that would start or carry a session: every Set-Cookie but the D1 bookmark (`__Host-d1`), which any
 * request that wrote to D1 gets (reads after it go to an up-to-date replica) and which identifies nobody.
 */
const sessionCookies = (res: Response) => res.headers.getSetCookie().filter((c) => !c.startsWith("__Host-d1="));

describe("console sign-in", () => {
  it("sends anyone without a console session to the sign-in page, and back where they were going afterwards", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const res = await page(null, "/console/staff?x=1");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/console/login?returnTo=%2Fconsole%2Fstaff%3Fx%3D1");
    // The sign-in page itself never starts a shopper session.
    const login = await page(null, "/console/login");
    expect(login.status).toBe(200);
    expect(sessionCookies(login)).toEqual([]);
    expect(login.headers.get("cache-control")).toBe("no-store");

    const owner = await consoleAccount(w, "OWNER");
    const signIn = await postConsoleForm(w, "", "/console/login", { email: owner.email, password: owner.password, returnTo: "/console/staff?x=1" });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("location")).toBe("/console/staff?x=1");
    const [cookie] = sessionCookies(signIn);
    expect(cookie).toMatch(/^__Host-console=cs_[\w-]+; Path=\/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
    // Somewhere outside the console is never a place to return to.
    const offsite = await postConsoleForm(w, "", "/console/login", {
      email: owner.email,
      password: owner.password,
      returnTo: "//evil.example/console",
    });
    expect(offsite.headers.get("location")).toBe("/console");
  });

  it("refuses a wrong password and a shopper's account, and starts no session", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const staff = await consoleAccount(w, "STAFF");
    const wrong = await postConsoleForm(w, "", "/console/login", { email: staff.email, password: "not the password" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("The email or password is incorrect.");
    expect(sessionCookies(wrong)).toEqual([]);

    const shopper = await consoleAccount(w, "MEMBER");
    const refused = await postConsoleForm(w, "", "/console/login", { email: shopper.email, password: shopper.password });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("no access to the console");
    expect(sessionCookies(refused)).toEqual([]);
  });

  it("keeps the console session apart from the shopper's, and logout revokes it even for a copied cookie", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const staff = await consoleAccount(w, "STAFF", ["catalog.write"]);
    const cookie = await consoleCookie(w, staff);
    const home = await page(cookie, "/console");
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain(staff.email);
    expect(html).not.toContain('data-testid="cart-count"');
    // A console page never sets or reads the shopper's cookie.
    expect(sessionCookies(home)).toEqual([]);
    // The shopper's cookie does not sign anyone in to the console.
    const shopperPage = await page(null, "/");
    const shopperCookie = cookieOf(shopperPage.headers.getSetCookie().find((c) => c.startsWith("__Host-session=")));
    expect((await page(shopperCookie, "/console")).status).toBe(302);

    const copied = cookie;
    const out = await postConsoleForm(w, cookie, "/console/logout", {});
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toBe("/console/login");
    expect(out.headers.getSetCookie()[0]).toMatch(/^__Host-console=; Path=\/; Max-Age=0; HttpOnly; Secure; SameSite=Strict/);
    expect((await page(copied, "/console")).status).toBe(302);
  });

  it("a blocked staff member's session stops working on the next request", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const staff = await consoleAccount(w, "STAFF");
    const cookie = await consoleCookie(w, staff);
    expect((await page(cookie, "/console")).status).toBe(200);
    await w.db.prepare("UPDATE identities SET status = 'BLOCKED' WHERE id = ?").bind(staff.id).run();
    expect((await page(cookie, "/console")).status).toBe(302);
  });

  it("a console page costs at most 3 D1 round trips", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const owner = await consoleAccount(w, "OWNER");
    const cookie = await consoleCookie(w, owner);
    for (const p of ["/console", "/console/staff"]) {
      const res = await page(cookie, p);
      expect(res.status, p).toBe(200);
      const trips = Number(/(\d+) round trips/.exec(res.headers.get("server-timing") ?? "")?.[1]);
      expect(trips, p).toBeLessThanOrEqual(3);
    }
  });
});

describe("the owner's staff page", () => {
  it("the owner invites a staff member with permissions in a browser; the page is accessible", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const owner = await consoleAccount(w, "OWNER");
    const { context, page: tab, problems } = await consoleBrowser(store().browser, w, owner);
    try {
      await tab.click("text=Staff");
      await tab.waitForURL((u) => u.pathname === "/console/staff");
      const email = `invitee-${Date.now()}@example.test`;
      await tab.fill("#f-email", email);
      await tab.check('form:has(#f-email) input[value="orders.write"]');
      await tab.getByRole("button", { name: "Send invitation", exact: true }).click();
      await tab.waitForSelector(`text=Invited ${email}`);
      const row = await w.db
        .prepare("SELECT role, status, permissions FROM identities WHERE email = ?")
        .bind(email)
        .first<{ role: string; status: string; permissions: string }>();
      expect(row).toEqual({ role: "STAFF", status: "PENDING", permissions: '["orders.write"]' });
      expect(await tab.textContent("table")).toContain(email);
      await expectAccessible(tab, "console staff page");
      mkdirSync(shots, { recursive: true });
      await tab.screenshot({ path: path.join(shots, "console-staff-1280.png"), fullPage: true });

      // A bad email: the error next to the field, the names kept, nothing written.
      const before = await w.db.prepare("SELECT COUNT(*) AS n FROM identities").first<{ n: number }>();
      await tab.fill("#f-email", "not-an-email@");
      await tab.fill("#f-firstName", "Ada");
      await tab.evaluate(() => document.querySelector<HTMLInputElement>("#f-email")!.setAttribute("type", "text"));
      await tab.getByRole("button", { name: "Send invitation", exact: true }).click();
      await tab.waitForSelector("#f-email-error");
      expect(await tab.inputValue("#f-firstName")).toBe("Ada");
      expect(await tab.getAttribute("#f-email", "aria-invalid")).toBe("true");
      expect(await w.db.prepare("SELECT COUNT(*) AS n FROM identities").first<{ n: number }>()).toEqual(before);
      expect(unexpected(problems)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("the sign-in page is accessible", async (ctx) => {
    needsChromium(ctx);
    const context = await newContext(store().browser, { userAgent: BROWSER_UA, viewport: { width: 1280, height: 900 } });
    try {
      const tab = await context.newPage();
      await tab.goto(`${store().w.url}/console/login`);
      await expectAccessible(tab, "console sign-in");
      mkdirSync(shots, { recursive: true });
      await tab.screenshot({ path: path.join(shots, "console-login-1280.png"), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it("staff cannot manage staff: the page answers 403 and its actions are refused by the service", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const staff = await consoleAccount(w, "STAFF", ["catalog.write", "inventory.write", "orders.write", "automations.manage", "settings.manage"]);
    const cookie = await consoleCookie(w, staff);
    expect((await page(cookie, "/console/staff")).status).toBe(403);
    const target = await consoleAccount(w, "STAFF");
    const res = await postConsoleForm(w, cookie, "/console/staff", { intent: "permissions", id: target.id, permissions: ["orders.write"] });
    expect(res.status).toBe(403);
    const row = await w.db.prepare("SELECT permissions FROM identities WHERE id = ?").bind(target.id).first<{ permissions: string }>();
    expect(row?.permissions).toBe("[]");
    // The nav offers no Staff link to staff.
    expect(await (await page(cookie, "/console")).text()).not.toContain('href="/console/staff"');
  });

  it("the owner's permission change applies to the staff member's next console request", async (ctx) => {
    needsChromium(ctx);
    const w = store().w;
    const owner = await consoleAccount(w, "OWNER");
    const staff = await consoleAccount(w, "STAFF");
    const ownerCookie = await consoleCookie(w, owner);
    const staffCookie = await consoleCookie(w, staff);
    expect(await (await page(staffCookie, "/console")).text()).toContain("has not given you any permission");
    const res = await postConsoleForm(w, ownerCookie, "/console/staff", {
      intent: "permissions",
      id: staff.id,
      permissions: ["orders.write", "catalog.write"],
    });
    expect(res.status).toBe(200);
    const row = await w.db.prepare("SELECT permissions FROM identities WHERE id = ?").bind(staff.id).first<{ permissions: string }>();
    expect(JSON.parse(row!.permissions).sort()).toEqual(["catalog.write", "orders.write"]);
    expect(await (await page(staffCookie, "/console")).text()).not.toContain("has not given you any permission");
  });
});
