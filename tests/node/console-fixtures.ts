import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { hashPassword } from "#worker/identity/passwords";
import type { Permission } from "#worker/platform/context";
import { BROWSER_UA, type RunningWorker } from "./worker";
import { newContext } from "./chromium";

/**
 * Set-up of the merchant console's tests: owner and staff accounts with passwords and permissions, written straight
 * to the built Worker's D1 (what an accepted invitation leaves behind), and signing in through the console's own
 * sign-in page, in a browser or with plain form posts.
 */

export interface ConsoleAccount {
  id: string;
  email: string;
  password: string;
  role: "OWNER" | "STAFF" | "MEMBER";
}

let counter = 0;

/** An ACTIVE owner, staff member (with these permissions) or shopper account with a known password. */
export async function consoleAccount(w: RunningWorker, role: ConsoleAccount["role"], permissions: Permission[] = []): Promise<ConsoleAccount> {
  const id = crypto.randomUUID();
  const email = `${role.toLowerCase()}-${Date.now()}-${++counter}@example.test`;
  const password = `console password ${counter}`;
  const now = new Date().toISOString();
  await w.db
    .prepare(
      "INSERT INTO identities (id, email, password_hash, status, role, permissions, email_verified, created_date, updated_date) VALUES (?, ?, ?, 'ACTIVE', ?, ?, 1, ?, ?)",
    )
    .bind(id, email, await hashPassword(password), role, JSON.stringify(permissions), now, now)
    .run();
  return { id, email, password, role };
}

/** The `name=value` of a Set-Cookie header, for sending it back. */
export function cookieOf(setCookie: string | null | undefined): string {
  return (setCookie ?? "").split(";")[0];
}

/**
 * Signs in with a plain form post to /console/login (no browser) and returns the console cookie to send back
 * (`cookie` header), e.g. to post console forms the way a browser without JavaScript does.
 */
export async function consoleCookie(w: RunningWorker, account: Pick<ConsoleAccount, "email" | "password">): Promise<string> {
  const res = await w.fetch("/console/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: w.url, "user-agent": BROWSER_UA },
    body: new URLSearchParams({ email: account.email, password: account.password, returnTo: "/console" }).toString(),
    redirect: "manual",
  });
  expect(res.status, await res.clone().text()).toBe(302);
  const set = res.headers.getSetCookie().find((c) => c.startsWith("__Host-console="));
  expect(set).toBeTruthy();
  return cookieOf(set);
}

/** Posts a console form (urlencoded, same origin) with a console cookie; answers the raw response (redirects not followed). */
export async function postConsoleForm(w: RunningWorker, cookie: string, path: string, fields: Record<string, string | string[]>): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  return w.fetch(path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: w.url, cookie, "user-agent": BROWSER_UA },
    body: body.toString(),
    redirect: "manual",
  });
}

/** A merchant's browser (1280 px laptop) signed in to the console through its sign-in page. */
export async function consoleBrowser(
  browser: Browser,
  w: RunningWorker,
  account: Pick<ConsoleAccount, "email" | "password">,
  opts: { javaScriptEnabled?: boolean; width?: number } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await newContext(browser, {
    userAgent: BROWSER_UA,
    javaScriptEnabled: opts.javaScriptEnabled ?? true,
    viewport: { width: opts.width ?? 1280, height: 900 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  await page.goto(`${w.url}/console/login`);
  await page.fill("#email", account.email);
  await page.fill("#password", account.password);
  await Promise.all([page.waitForURL((u) => u.pathname === "/console"), page.click("button[type=submit]")]);
  return { context, page, problems };
}

/**
 * The browser problems a test should fail on: page errors and console errors, except the browser's own note about
 * a 4xx answer, which is how a console form reports bad input or a refused action (by design, as the API would).
 */
export function unexpected(problems: string[]): string[] {
  return problems.filter((p) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(p));
}

/** Calls the built Worker's API with a JSON body (and this Authorization header): its status and JSON answer. */
export async function jsonCall(w: RunningWorker, method: string, path: string, body: unknown, authorization?: string) {
  const res = await w.fetch(path, {
    method,
    headers: { "content-type": "application/json", "cf-connecting-ip": "198.18.2.7", ...(authorization ? { authorization } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
