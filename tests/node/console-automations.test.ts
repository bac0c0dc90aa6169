import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleBrowser, consoleCookie, postConsoleForm, unexpected } from "./console-fixtures";
import { expectAccessible, haveChromium, hydrated, useStore } from "./commerce-fixtures";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The console's automations pages (issue 13) on the built Worker: the outbox of emails (a failed one shows its error
 * and is sent again with Retry; the preview is a sandboxed frame), back-in-stock requests by item with "report back
 * in stock", and the merchant's tasks with done / reopen. Every action is refused (403) to staff without
 * automations.manage, who see no buttons; every page reads D1 at most 3 times and passes axe.
 */

const { store, needsChromium } = useStore("console automations");
const shots = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

const get = (w: RunningWorker, cookie: string, p: string) => w.fetch(p, { headers: { cookie, "user-agent": BROWSER_UA }, redirect: "manual" });
const roundTrips = (res: Response) => Number(/desc="(\d+) round trips"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? NaN);
const emailRow = async (w: RunningWorker, id: string) =>
  (await w.db.prepare("SELECT status, attempts, error, sent_date AS sentDate FROM emails WHERE id = ?").bind(id).first<{ status: string; attempts: number; error: string | null; sentDate: string | null }>())!;

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
    await until(async () => (await mail.db.prepare(`SELECT status FROM emails WHERE "to" = ?`).bind(invited).first<{ status: string }>())?.status === "FAILED");
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
