import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { FAKE_SECRET_KEY, FAKE_WEBHOOK_SECRET } from "../payments/stripe-events";
import { startStripeFake, type StripeFake } from "../payments/stripe-fake";
import { haveChromium, launchChromium, newContext, SKIP_NOTE } from "./chromium";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

export { chromiumPath, haveChromium, SKIP_NOTE } from "./chromium";

/**
 * Shared set-up of the cart, checkout and account browser tests: the built Worker with the demo catalogue and its
 * coupon and shipping options (delivery and pickup), Debian's chromium, and helpers
 * for what a shopper does (post a product form, read an email) and what a reviewer checks (axe, screenshots).
 */

export const COUPON = "WELCOME10";

export interface Store {
  w: RunningWorker;
  browser: Browser;
  /** The demo tee with colour and size options (tracked stock; White/XL has 3, Forest/XS none). */
  tee: { id: string; name: string; slug: string };
  /** A product without options. */
  plain: { id: string; name: string };
}

async function api(w: RunningWorker, method: string, p: string, body: unknown) {
  const res = await w.fetch(p, {
    method,
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  expect(res.status, `${method} ${p}: ${JSON.stringify(json)}`).toBe(200);
  return json as Record<string, unknown>;
}

/**
 * The store the tests shop in: the demo catalogue with its coupon and shipping options (delivery and pickup).
 * `bindings`: extra vars and secrets (e.g. Stripe's).
 */
export async function openStore(bindings?: Record<string, string>): Promise<Store> {
  const w = await startWorker({ port: 0, bindings });
  await api(w, "POST", "/api/v1/demo-catalogue", {});
  // The demo data brings the coupon and the shipping options (worker/pricing/demo.ts); the tests rely on them.
  const coupon = await api(w, "GET", `/api/v1/coupons`, undefined);
  expect(JSON.stringify(coupon)).toContain(COUPON);
  const tee = (await w.db
    .prepare("SELECT id, name, slug FROM products WHERE slug = 'everyday-organic-tee'")
    .first<{ id: string; name: string; slug: string }>())!;
  const plain = (await w.db
    .prepare(
      "SELECT id, name FROM products WHERE visible = 1 AND product_type = 'physical' AND product_options = '[]' AND track_inventory = 0 ORDER BY numeric_id LIMIT 1",
    )
    .first<{ id: string; name: string }>())!;
  expect(tee?.id).toBeTruthy();
  expect(plain?.id).toBeTruthy();
  const browser = await launchChromium();
  return { w, browser, tee, plain };
}

/** A store whose Stripe client talks to a local Stripe fake, started here and told the shop's origin. */
export async function openStripeStore(): Promise<{ store: Store; fake: StripeFake }> {
  const fake = await startStripeFake();
  const store = await openStore({
    STRIPE_SECRET_KEY: FAKE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET,
    STRIPE_PUBLISHABLE_KEY: "pk_test_fakePublishableKey",
    STRIPE_API_BASE: fake.origin,
  });
  fake.shopOrigin = store.w.url;
  return { store, fake };
}

/** The rows one SQL statement reads from a store's D1. */
export async function rowsOf<T = Record<string, any>>(store: Store, sql: string, ...bind: unknown[]): Promise<T[]> {
  return (
    await store.w.db
      .prepare(sql)
      .bind(...bind)
      .all<T>()
  ).results;
}

export async function closeStore(store: Store | undefined) {
  await store?.browser.close();
  await store?.w.dispose();
}

/**
 * Opens the store for a test file (beforeAll) and closes it after (afterAll). `store()` is the open store; call
 * `needsChromium(ctx)` first in each test, which skips it, saying why, when there is no Chromium to drive.
 */
export function useStore(label: string) {
  let opened: Store | undefined;
  beforeAll(async () => {
    if (haveChromium) opened = await openStore();
  }, 60_000);
  afterAll(async () => {
    await closeStore(opened);
  });
  return {
    store: (): Store => opened!,
    needsChromium(ctx: { skip: (note: string) => void }) {
      if (haveChromium) return;
      console.warn(`${label} browser tests skipped: ${SKIP_NOTE}`);
      ctx.skip(SKIP_NOTE);
    },
  };
}

/** A browser context like a shopper's (desktop Chrome user agent: isbot treats HeadlessChrome as a bot). */
export async function shopper(
  store: Store,
  opts: { javaScriptEnabled?: boolean; width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await newContext(store.browser, {
    userAgent: BROWSER_UA,
    javaScriptEnabled: opts.javaScriptEnabled ?? true,
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error: ${msg.text()}`);
  });
  return { context, page, problems };
}

/** Waits until React has hydrated the page (root.tsx marks it), when JavaScript is on. */
export async function hydrated(page: Page) {
  await page.waitForSelector("html[data-hydrated]", { timeout: 15_000 });
}

/**
 * Posts a product form to /cart the way a product page does (`productId`, `option.<Name>`, `quantity`, `returnTo`):
 * a plain HTML form served at a path of the shop's own origin, submitted by clicking its button, so it works with
 * JavaScript off too.
 */
export async function addToCart(page: Page, store: Store, fields: Record<string, string>) {
  const formPath = "/__test/product-form";
  await page.route(`${store.w.url}${formPath}`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><html lang="en"><title>Product</title><form method="post" action="/cart">${Object.entries({ intent: "add", ...fields })
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/"/g, "&quot;")}">`)
        .join("")}<button type="submit">Add to cart</button></form></html>`,
    }),
  );
  await page.goto(`${store.w.url}${formPath}`);
  await Promise.all([page.waitForURL((u) => u.pathname !== formPath), page.click("text=Add to cart")]);
  await page.unroute(`${store.w.url}${formPath}`);
}

/** The newest email of a template to an address, from the outbox table (the local mailbox). */
export async function lastEmail(store: Store, to: string, template: string): Promise<string> {
  const row = await store.w.db
    .prepare('SELECT text FROM emails WHERE "to" = ? AND template = ? ORDER BY created_date DESC, rowid DESC')
    .bind(to, template)
    .first<{ text: string }>();
  expect(row, `an email ${template} to ${to}`).toBeTruthy();
  return row!.text;
}

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** Runs axe-core (WCAG 2.0–2.2 A and AA, best practices) on the page and expects no violations. */
export async function expectAccessible(page: Page, label: string) {
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: unknown,
          ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
    });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${label}`).toEqual([]);
}

const shotsDir = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");

/** Full-page screenshots of the current page at phone (375 px) and desktop (1280 px) widths. */
export async function screenshots(page: Page, name: string) {
  mkdirSync(shotsDir, { recursive: true });
  const before = page.viewportSize()!;
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
    await page.screenshot({ path: path.join(shotsDir, `${name}-${width}.png`), fullPage: true });
    // A phone must never have to scroll the page sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${name} at ${width}px scrolls sideways`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(before);
}

/** A unique email for one test run. */
export const uniqueEmail = (prefix: string) => `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.test`;

/** Fills the checkout's contact and shipping step. */
export async function fillContact(
  page: Page,
  email: string,
  a: { firstName?: string; lastName?: string; addressLine?: string; city?: string; postalCode?: string; country?: string } = {},
) {
  await page.fill("#f-email", email);
  await page.fill("#f-ship-firstName", a.firstName ?? "Robin");
  await page.fill("#f-ship-lastName", a.lastName ?? "Hart");
  await page.fill("#f-ship-addressLine", a.addressLine ?? "5 Harbour Road");
  await page.fill("#f-ship-city", a.city ?? "Seattle");
  await page.fill("#f-ship-postalCode", a.postalCode ?? "98101");
  await page.selectOption("#f-ship-country", a.country ?? "US");
}

/** Checkout's first two steps with the cart as it is (contact and shipping, then the default delivery): ends on payment. */
export async function toPaymentStep(page: Page, store: Store, email: string) {
  await page.goto(`${store.w.url}/checkout`);
  await hydrated(page);
  await fillContact(page, email);
  await page.getByRole("button", { name: "Continue to delivery" }).click();
  await page.waitForURL("**/checkout?step=delivery");
  await page.getByRole("button", { name: "Continue to payment" }).click();
  await page.waitForURL("**/checkout?step=payment");
}

/** Cart → checkout → card payment → the confirmation's order number. */
export async function checkOutByCard(page: Page, store: Store, email: string): Promise<string> {
  await toPaymentStep(page, store, email);
  await page.fill("#f-cardNumber", "4242 4242 4242 4242");
  await page.fill("#f-cardExpiry", "11/38");
  await page.fill("#f-cardCvc", "555");
  await page.getByRole("button", { name: /Place order/ }).click();
  await page.waitForURL(/\/orders\/[^/]+\/confirmation$/);
  await expect.poll(() => page.locator(".confirmation-head .order-number").count()).toBe(1);
  return (await page.locator(".confirmation-head .order-number").textContent())!;
}
