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
import { consoleAccount, consoleBrowser, unexpected } from "./console-fixtures";
import { BROWSER_UA } from "./worker";

/**
 * Digital delivery in Chromium: the merchant uploads a file to a digital product on the console's page (a
 * streamed PUT with a progress bar); a shopper buys it through Stripe Checkout (the local fake) and, back on the
 * confirmation page once paid, downloads exactly that file.
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

describe("digital delivery in the browser", () => {
  it("the demo's digital products come with a file, as the catalogue promises", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const rows = await q<{ slug: string; file_name: string | null }>(
      "SELECT p.slug, f.file_name FROM products p LEFT JOIN digital_files f ON f.product_id = p.id WHERE p.product_type = 'digital' ORDER BY p.slug",
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.file_name, r.slug).toBe(`${r.slug}.pdf`);
  });

  it("merchant uploads a file → shopper pays on Stripe's page → downloads it from the confirmation page", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const s = store!;
    const [journal] = await q<{ id: string; name: string }>("SELECT id, name FROM products WHERE slug = 'printable-trail-journal'");
    const content = `Trail journal, edition ${Date.now()}\n`.repeat(2000);

    // The merchant replaces the demo file on the product's Files page.
    const owner = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    await owner.page.goto(`${s.w.url}/console/products/${journal.id}`);
    await owner.page.getByRole("link", { name: "Files for download →" }).click();
    await owner.page.waitForURL(`**/console/products/${journal.id}/downloads`);
    await hydrated(owner.page);
    await expect.poll(() => owner.page.locator("table").textContent()).toContain("printable-trail-journal.pdf");
    await owner.page
      .getByLabel("File for The product", { exact: true })
      .setInputFiles({ name: "trail-journal.txt", mimeType: "text/plain", buffer: Buffer.from(content) });
    await owner.page.getByRole("button", { name: "Replace" }).click();
    await expect.poll(() => owner.page.getByRole("status").last().textContent()).toContain("Uploaded trail-journal.txt");
    await expect.poll(() => owner.page.locator("table").textContent()).toContain("trail-journal.txt");
    expect(unexpected(owner.problems)).toEqual([]);
    await owner.context.close();

    // The shopper buys it (with a physical item) through Stripe Checkout.
    const { context, page, problems } = await shopper(s);
    const email = uniqueEmail("digital");
    await addToCart(page, s, { productId: journal.id, quantity: "1" });
    await addToCart(page, s, { productId: s.plain.id, quantity: "1" });
    await toPaymentStep(page, s, email);
    await page.getByRole("button", { name: /Place order/ }).click();
    await page.waitForURL((u) => u.origin === fake.origin && u.pathname.startsWith("/pay/cs_test_"));
    const [order] = await q<{ id: string }>("SELECT id FROM orders WHERE buyer_email = ?", email);
    // Not paid yet: no link exists for it.
    expect(await q("SELECT id FROM emails WHERE idempotency_key = ?", `digital-delivery:${order.id}`)).toHaveLength(0);

    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((u) => u.pathname === `/orders/${order.id}/confirmation`);
    await hydrated(page);
    await expect.poll(() => page.locator("#payment-state").textContent()).toContain("Paid");
    const link = page.getByRole("link", { name: `Download ${journal.name}` });
    await expect.poll(() => link.count()).toBe(1);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("trail-journal.txt");
    const chunks: Buffer[] = [];
    for await (const chunk of (await download.createReadStream())!) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe(content);

    // One email with the same link, and the download counted.
    const mails = await waitFor(async () => {
      const rows = await q<{ text: string }>("SELECT text FROM emails WHERE \"to\" = ? AND template = 'digital-delivery'", email);
      return rows.length ? rows : null;
    }, "the delivery email");
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain(`/downloads/${order.id}/`);
    expect(await q("SELECT count FROM line_downloads WHERE order_id = ?", order.id)).toEqual([{ count: 1 }]);

    // The merchant refunds the whole order in the console: the same link now answers 403 and no bytes.
    const href = await link.getAttribute("href");
    const merchant = await consoleBrowser(s.browser, s.w, await consoleAccount(s.w, "OWNER"));
    await merchant.page.goto(`${s.w.url}/console/orders/${order.id}`);
    await hydrated(merchant.page);
    const refund = merchant.page.locator("form", { has: merchant.page.getByRole("heading", { name: "Refund", exact: true }) });
    await refund.getByLabel(/Refund everything left/).check();
    await refund.getByLabel("Yes, give this money back to the buyer").check();
    await refund.getByRole("button", { name: "Refund", exact: true }).click();
    await expect.poll(() => merchant.page.locator("h1").textContent()).toContain("Refunded");
    expect(unexpected(merchant.problems)).toEqual([]);
    await merchant.context.close();
    const dead = await fetch(new URL(href!, s.w.url), { headers: { "user-agent": BROWSER_UA } });
    expect(dead.status).toBe(403);
    expect(((await dead.json()) as { details: { applicationError: { code: string } } }).details.applicationError.code).toBe("DOWNLOAD_REFUNDED");
    expect(await q("SELECT count FROM line_downloads WHERE order_id = ?", order.id)).toEqual([{ count: 1 }]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
