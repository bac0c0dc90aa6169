import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StripeFake } from "../payments/stripe-fake";
import { waitFor } from "../wait";
import {
  addToCart,
  closeStore,
  haveChromium,
  hydrated,
  openStripeStore,
  rowsOf,
  shopper,
  SKIP_NOTE,
  type Store,
  toPaymentStep,
  uniqueEmail,
} from "./commerce-fixtures";
import { consoleAccount, consoleCookie } from "./console-fixtures";
import { BROWSER_UA } from "./worker";

/**
 * A shopper pays with Stripe Checkout in Chromium: the built Worker with Stripe's keys, the official client talking
 * to the local fake, whose hosted page's Pay button posts the signed webhook to the shop and sends the browser back.
 */

let store: Store | undefined;
let fake: StripeFake;

beforeAll(async () => {
  if (!haveChromium) return;
  ({ store, fake } = await openStripeStore());
}, 60_000);

afterAll(async () => {
  await closeStore(store);
  await fake?.close();
});

const q = <T = Record<string, any>>(sql: string, ...bind: unknown[]) => rowsOf<T>(store!, sql, ...bind);

/** Cart → checkout's three steps → Place order: the browser ends on the fake's hosted page. Answers the order id. */
async function toHostedPage(page: import("playwright-core").Page, email: string): Promise<string> {
  const s = store!;
  await addToCart(page, s, { productId: s.plain.id, quantity: "2" });
  await toPaymentStep(page, s, email);
  // No card field of any kind: the card is typed on Stripe's page only.
  expect(await page.locator('input[autocomplete^="cc-"], input[name^="card"], #f-cardNumber').count()).toBe(0);
  await page.getByRole("button", { name: /Place order/ }).click();
  await page.waitForURL((u) => u.origin === fake.origin && u.pathname.startsWith("/pay/cs_test_"));
  const [order] = await q<{ id: string; total: number; status: string; payment_status: string }>(
    "SELECT id, total, status, payment_status FROM orders WHERE buyer_email = ?",
    email,
  );
  expect(order).toMatchObject({ status: "INITIALIZED", payment_status: "NOT_PAID" });
  expect(Number(await page.locator("#fake-amount").textContent())).toBe(order.total);
  return order.id;
}

describe("Stripe Checkout in the browser", () => {
  it("cart → checkout → Stripe's page → back: processing, then paid, once", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const { context, page, problems } = await shopper(store!);
    const email = uniqueEmail("stripe");
    const orderId = await toHostedPage(page, email);
    const payUrl = page.url();
    const sessionId = payUrl.split("/pay/")[1];

    // Back on the shop before paying (a second tab): the order is waiting for its payment.
    const early = await context.newPage();
    await early.goto(`${store!.w.url}/orders/${orderId}/confirmation?session_id=${sessionId}`);
    await expect.poll(() => early.locator("#payment-state").textContent()).toContain("Payment processing");
    await early.close();

    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((u) => u.pathname === `/orders/${orderId}/confirmation` && u.searchParams.get("session_id") === sessionId);
    await hydrated(page);
    await expect.poll(() => page.locator("#payment-state").textContent()).toContain("Paid");

    // The webhook (posted by the Pay button) and the return page both saw the payment: one change, one email.
    const [event] = await q<{ id: string }>("SELECT id FROM payment_events WHERE order_id = ? AND type = 'checkout.session.completed'", orderId);
    expect(event).toBeTruthy();
    await waitFor(
      async () => (await q("SELECT 1 FROM processed_events WHERE event_id = ? AND processor = 'orders:stripe-events'", `stripe:${event.id}`)).length,
      "the webhook processed",
    );
    expect(await q("SELECT status, payment_status FROM orders WHERE id = ?", orderId)).toEqual([{ status: "APPROVED", payment_status: "PAID" }]);
    expect(await q("SELECT id FROM order_activities WHERE order_id = ? AND type = 'ORDER_PAID'", orderId)).toHaveLength(1);
    expect(await q("SELECT id FROM emails WHERE idempotency_key = ?", `order-confirmation:${orderId}`)).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("confirms with Stripe when the webhook never comes", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    fake.shopOrigin = null;
    try {
      const { context, page } = await shopper(store!);
      const orderId = await toHostedPage(page, uniqueEmail("stripe-late"));
      await page.getByRole("button", { name: "Pay" }).click();
      await page.waitForURL((u) => u.pathname === `/orders/${orderId}/confirmation`);
      await expect.poll(() => page.locator("#payment-state").textContent()).toContain("Paid");
      expect(await q("SELECT id FROM payment_events WHERE order_id = ?", orderId)).toHaveLength(0);
      expect(await q("SELECT payment_status FROM orders WHERE id = ?", orderId)).toEqual([{ payment_status: "PAID" }]);
      await context.close();
    } finally {
      fake.shopOrigin = store!.w.url;
    }
  });

  it("shows the merchant the connection, the webhook URL and the last webhook; staff without settings.manage see nothing", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const w = store!.w;
    const page = async (cookie: string) => {
      const res = await w.fetch("/console/settings/payments", { headers: { cookie, "user-agent": BROWSER_UA } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const owner = await page(await consoleCookie(w, await consoleAccount(w, "OWNER")));
    expect(owner).toContain("Connected, test mode");
    expect(owner).toContain(`${w.url}/webhooks/stripe`);
    expect(owner).toMatch(/checkout\.session\.completed at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    const staff = await page(await consoleCookie(w, await consoleAccount(w, "STAFF", ["orders.write"])));
    expect(staff).toContain("needs the settings.manage permission");
    expect(staff).not.toContain("/webhooks/stripe");
  });
});
