import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleAccount, consoleCookie, postConsoleForm } from "./console-fixtures";
import { BROWSER_UA, startWorker, type RunningWorker } from "./worker";

/**
 * The login pages on the built Worker, used the way a browser without JavaScript uses them: GET the page, POST the
 * form (urlencoded), follow what comes back. Codes and links are read from the emails table, as a person reads mail.
 */

let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker();
});
afterAll(async () => {
  await w?.dispose();
});

const page = (path: string) => w.fetch(path, { headers: { "user-agent": BROWSER_UA } });

const post = (path: string, fields: Record<string, string>) =>
  w.fetch(path, {
    method: "POST",
    headers: { "user-agent": BROWSER_UA, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  });

const hidden = (html: string, name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1];

async function lastEmail(to: string, template: string) {
  return (await w.db
    .prepare('SELECT * FROM emails WHERE "to" = ? AND template = ? ORDER BY created_date DESC, rowid DESC')
    .bind(to, template)
    .first<{ text: string }>())!;
}

describe("login pages", () => {
  it("render plain, labelled forms that are never cached", async () => {
    for (const [path, inputs] of [
      ["/login", ["email", "password"]],
      ["/register", ["email", "password", "firstName"]],
      ["/forgot-password", ["email"]],
    ] as const) {
      const res = await page(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const html = await res.text();
      expect(html).toMatch(/<form [^>]*method="post"/);
      for (const name of inputs) {
        expect(html).toContain(`<label for="${name}"`);
        expect(html).toMatch(new RegExp(`<input id="${name}"[^>]* name="${name}"`));
      }
    }
  });

  it("keep only a same-origin relative returnTo", async () => {
    const ok = await (await page(`/login?returnTo=${encodeURIComponent("/oauth2/authorize?state=abc")}`)).text();
    expect(hidden(ok, "returnTo")).toBe("/oauth2/authorize?state=abc".replace("&", "&amp;"));
    for (const bad of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"]) {
      const html = await (await page(`/login?returnTo=${encodeURIComponent(bad)}`)).text();
      expect(hidden(html, "returnTo"), bad).toBeUndefined();
    }
  });

  it("register → code → verify continues to returnTo with a session token", async () => {
    const email = `page-${Date.now()}@example.test`;
    const reg = await post("/register", { email, password: "a good password", firstName: "Pat", returnTo: "/oauth2/authorize?state=xyz" });
    expect(reg.status).toBe(200);
    const html = await reg.text();
    expect(html).toContain("We emailed a 6-digit code");
    expect(html).toContain('action="/verify"');
    const stateToken = hidden(html, "stateToken")!;
    expect(stateToken).toBeTruthy();
    const code = (await lastEmail(email, "verification-code")).text.match(/\b(\d{6})\b/)![1];

    const wrong = await post("/verify", {
      intent: "verify",
      stateToken,
      email,
      code: code === "000000" ? "111111" : "000000",
      returnTo: "/oauth2/authorize?state=xyz",
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("The code is wrong");

    const ok = await post("/verify", { intent: "verify", stateToken, email, code, returnTo: "/oauth2/authorize?state=xyz" });
    expect(ok.status).toBe(302);
    const location = new URL(ok.headers.get("location")!, "https://x.invalid");
    expect(location.pathname).toBe("/oauth2/authorize");
    expect(location.searchParams.get("state")).toBe("xyz");
    expect(location.searchParams.get("sessionToken")).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  });

  it("login: a wrong password says so; the right one signs the storefront session in as the member, and logout ends it", async () => {
    const email = `login-${Date.now()}@example.test`;
    const reg = await (await post("/register", { email, password: "a good password" })).text();
    const code = (await lastEmail(email, "verification-code")).text.match(/\b(\d{6})\b/)![1];
    await post("/verify", { intent: "verify", stateToken: hidden(reg, "stateToken")!, email, code });

    const wrong = await post("/login", { email, password: "not the password" });
    expect(wrong.status).toBe(400);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain('role="alert"');
    expect(wrongHtml).toContain("The email or password is incorrect.");
    expect(wrongHtml).toContain(`value="${email}"`);

    const ok = await post("/login", { email, password: "a good password" });
    expect(ok.status).toBe(302);
    expect(ok.headers.get("location")).toBe("/");
    const setCookie = ok.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const cookie = setCookie.split(";")[0];
    const signedIn = await (await w.fetch("/", { headers: { "user-agent": BROWSER_UA, cookie } })).text();
    expect(signedIn).toContain("Log out");
    expect(signedIn).not.toContain(">Log in<");

    // A cross-site form post is refused and changes nothing.
    const forged = await w.fetch("/logout", {
      method: "POST",
      headers: { "user-agent": BROWSER_UA, cookie, origin: "https://evil.example" },
      redirect: "manual",
    });
    expect(forged.status).toBe(403);

    const out = await w.fetch("/logout", { method: "POST", headers: { "user-agent": BROWSER_UA, cookie }, redirect: "manual" });
    expect(out.status).toBe(302);
    expect(out.headers.getSetCookie().some((c) => c.startsWith("__Host-session=;") && /Max-Age=0/.test(c))).toBe(true);
    // The old cookie's tokens are revoked: the page is anonymous again and clears the stale cookie (browsing starts
    // no new session; the next action does).
    const after = await w.fetch("/", { headers: { "user-agent": BROWSER_UA, cookie } });
    const afterHtml = await after.text();
    expect(afterHtml).toContain(">Log in<");
    expect(after.headers.getSetCookie().some((c) => c.startsWith("__Host-session=;") && /Max-Age=0/.test(c))).toBe(true);
  });

  it("forgot password → link → reset password", async () => {
    const email = `reset-${Date.now()}@example.test`;
    const reg = await (await post("/register", { email, password: "a good password" })).text();
    const code = (await lastEmail(email, "verification-code")).text.match(/\b(\d{6})\b/)![1];
    await post("/verify", { intent: "verify", stateToken: hidden(reg, "stateToken")!, email, code });

    const sent = await post("/forgot-password", { email });
    expect(await sent.text()).toContain("If an account exists for");
    const link = new URL((await lastEmail(email, "recovery-link")).text.match(/https?:\/\/\S+/)![0]);
    const form = await (await page(link.pathname + link.search)).text();
    expect(form).toContain("Choose a new password");
    const token = hidden(form, "token")!;

    const mismatch = await post("/reset-password", { token, password: "new password 1", confirmPassword: "new password 2" });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain("The two passwords do not match.");
    const done = await post("/reset-password", { token, password: "new password 1", confirmPassword: "new password 1" });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Your password is set.");
    expect(await (await page(link.pathname + link.search)).text()).toContain("This link is invalid, has expired or was already used.");
    expect((await post("/login", { email, password: "new password 1" })).status).toBe(302);
  });
});

describe("ending sessions from the pages", () => {
  /** A member registered and verified through the pages, and a way to sign in another browser (its cookie). */
  async function pageMember(password = "a good password") {
    const email = `sessions-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.test`;
    const reg = await (await post("/register", { email, password })).text();
    const code = (await lastEmail(email, "verification-code")).text.match(/\b(\d{6})\b/)![1];
    await post("/verify", { intent: "verify", stateToken: hidden(reg, "stateToken")!, email, code });
    const signIn = async (pw = password) => {
      const res = await post("/login", { email, password: pw });
      expect(res.status).toBe(302);
      return res.headers
        .getSetCookie()
        .find((c) => c.startsWith("__Host-session="))!
        .split(";")[0];
    };
    return { email, signIn };
  }

  const withCookie = (cookie: string, path: string, fields?: Record<string, string>) =>
    w.fetch(path, {
      method: fields ? "POST" : "GET",
      headers: { "user-agent": BROWSER_UA, cookie, ...(fields && { "content-type": "application/x-www-form-urlencoded", origin: w.url }) },
      body: fields && new URLSearchParams(fields).toString(),
      redirect: "manual",
    });

  it("the account page changes the password only with the current one, and signs the other browsers out", async () => {
    const m = await pageMember();
    const here = await m.signIn();
    const other = await m.signIn();
    const account = await (await withCookie(here, "/account")).text();
    for (const name of ["currentPassword", "newPassword"]) {
      const input = account.match(new RegExp(`<input [^>]*name="${name}"[^>]*>`))?.[0];
      expect(input, name).toContain('type="password"');
      expect(account).toContain(`<label for="f-${name}"`);
    }

    const wrong = await withCookie(here, "/account", { intent: "password", currentPassword: "not my password", newPassword: "a newer password" });
    expect(wrong.status).toBe(400);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain("The current password is incorrect.");
    expect(wrongHtml).not.toContain("a newer password");
    expect((await withCookie(here, "/account", { intent: "password", currentPassword: "", newPassword: "a newer password" })).status).toBe(400);
    expect((await withCookie(other, "/account")).status).toBe(200);

    const changed = await withCookie(here, "/account", { intent: "password", currentPassword: "a good password", newPassword: "a newer password" });
    expect(changed.status).toBe(302);
    expect(changed.headers.get("location")).toBe("/account?saved=password");
    expect((await withCookie(here, "/account")).status).toBe(200);
    const signedOut = await withCookie(other, "/account");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toMatch(/^\/login\?returnTo=/);
    expect((await post("/login", { email: m.email, password: "a good password" })).status).toBe(400);

    const third = await m.signIn("a newer password");
    const done = await withCookie(here, "/account", { intent: "sign-out-others" });
    expect(done.headers.get("location")).toBe("/account?saved=signed-out");
    expect((await withCookie(third, "/account")).status).toBe(302);
    expect((await withCookie(here, "/account")).status).toBe(200);
  });

  it("the console's 'Sign out everywhere' ends the person's other console sessions; a reset ends them too", async () => {
    const staff = await consoleAccount(w, "STAFF");
    const here = await consoleCookie(w, staff);
    const elsewhere = await consoleCookie(w, staff);
    const frame = await (await withCookie(here, "/console")).text();
    expect(frame).toMatch(/<button [^>]*value="everywhere"[^>]*>Sign out everywhere<\/button>/);
    const out = await postConsoleForm(w, here, "/console/logout", { scope: "everywhere" });
    expect(out.status).toBe(302);
    expect(out.headers.get("location")).toBe("/console/login");
    expect((await withCookie(elsewhere, "/console")).status).toBe(302);
    expect((await withCookie(here, "/console")).status).toBe(302);

    const before = await consoleCookie(w, staff);
    expect((await withCookie(before, "/console")).status).toBe(200);
    await post("/forgot-password", { email: staff.email });
    const link = new URL((await lastEmail(staff.email, "recovery-link")).text.match(/https?:\/\/\S+/)![0]);
    const token = hidden(await (await page(link.pathname + link.search)).text(), "token")!;
    expect((await post("/reset-password", { token, password: "a reset password", confirmPassword: "a reset password" })).status).toBe(200);
    expect((await withCookie(before, "/console")).status).toBe(302);
    expect((await withCookie(await consoleCookie(w, { email: staff.email, password: "a reset password" }), "/console")).status).toBe(200);
  });
});
