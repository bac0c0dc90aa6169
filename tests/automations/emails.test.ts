import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { retryDueEmails } from "#worker/email/retries";
import { findSubscription, isUnsubscribed, sendEmail, unsubscribe, type EmailTransport } from "#worker/email/send";
import { openDb } from "#worker/platform/db";
import { renderEmail } from "#worker/email/templates";
import { serviceCtx, unique } from "../helpers";

/** The automations' emails: the two templates, and marketing sends (unsubscribe link and headers, suppression, idempotency). */

const shop = { storeName: "Fernhill Goods", origin: "https://shop.test" };

/** A service context for an anonymous caller, with env overrides (e.g. a fake transport). */
const testCtx = (overrides: Record<string, unknown> = {}) => serviceCtx({ kind: "anonymous" }, overrides);

const rowsWithKey = (key: string) => env.DB.prepare("SELECT * FROM emails WHERE idempotency_key = ?").bind(key).all<Record<string, any>>();

const cart = {
  name: "Ada",
  step: 1,
  recoveryUrl: "https://shop.test/cart/recover/abcDEF123_-xyz",
  total: "$64.50",
  items: [
    { name: "Stoneware Mug", quantity: 2, price: "$30.00", imageUrl: "https://images.example/mug.jpg", options: "Colour: Sand" },
    { name: `Tea <script>alert(1)</script>`, quantity: 1, price: "$34.50" },
  ],
  unsubscribeUrl: "https://shop.test/email/unsubscribe?token=tok_123456789012345",
};

describe("abandoned-cart and back-in-stock templates", () => {
  it("abandoned cart: items with images, prices and options, the total, the recovery link and the unsubscribe link, in both parts", () => {
    const m = renderEmail("abandoned-cart", cart, shop);
    expect(m.subject).toBe("You left something in your Fernhill Goods cart");
    expect(m.html).toContain("Hi Ada,");
    expect(m.html).toContain('<img src="https://images.example/mug.jpg" alt="Stoneware Mug"');
    expect(m.html).toContain("2 × Stoneware Mug");
    expect(m.html).toContain("Colour: Sand");
    expect(m.html).toContain("$64.50");
    expect(m.html.split('href="https://shop.test/cart/recover/abcDEF123_-xyz"')).toHaveLength(3);
    expect(m.html).toContain('href="https://shop.test/email/unsubscribe?token=tok_123456789012345"');
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("Tea &lt;script&gt;");
    expect(m.text).toContain("2 x Stoneware Mug (Colour: Sand): $30.00");
    expect(m.text).toContain("Total: $64.50");
    expect(m.text).toContain("Return to your cart: https://shop.test/cart/recover/abcDEF123_-xyz");
    expect(m.text).toContain("Unsubscribe from these reminders: https://shop.test/email/unsubscribe?token=tok_123456789012345");
    expect(renderEmail("abandoned-cart", { ...cart, step: 2 }, shop).subject).toBe("Still thinking it over? Your Fernhill Goods cart is saved");
  });

  it("back in stock: the item's name, options, price, image and link", () => {
    const m = renderEmail(
      "back-in-stock",
      {
        item: { name: "Linen Shirt", price: "$49.00", imageUrl: "https://images.example/shirt.jpg", options: "M / Navy" },
        itemUrl: "https://shop.test/products/linen-shirt",
      },
      shop,
    );
    expect(m.subject).toBe("Linen Shirt is back in stock at Fernhill Goods");
    expect(m.html).toContain("<strong>Linen Shirt</strong> (M / Navy) · $49.00");
    expect(m.html).toContain('src="https://images.example/shirt.jpg"');
    expect(m.html).toContain('href="https://shop.test/products/linen-shirt"');
    expect(m.text).toContain("Linen Shirt (M / Navy) is back in stock: $49.00");
    expect(m.text).toContain("See it in the shop: https://shop.test/products/linen-shirt");
  });
});

describe("marketing sends", () => {
  it("go through the real send_email binding with List-Unsubscribe and List-Unsubscribe-Post, recorded SENT", async () => {
    const { ctx } = testCtx({ EMAIL_FROM: "shop@shop.test" });
    const to = `real-${unique()}@example.com`;
    const result = await sendEmail(
      ctx,
      to,
      "abandoned-cart",
      { ...cart, unsubscribeUrl: undefined },
      { marketing: true, awaitDelivery: true, idempotencyKey: `t:${unique()}` },
    );
    expect(result).toMatchObject({ status: "SENT", duplicate: false });
    const row = await env.DB.prepare("SELECT * FROM emails WHERE id = ?").bind(result.id).first<Record<string, any>>();
    const headers = JSON.parse(row!.headers);
    expect(headers["List-Unsubscribe"]).toMatch(/^<https:\/\/shop\.test\/email\/unsubscribe\?token=[A-Za-z0-9_-]{32}>$/);
    expect(headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(row!.html).toContain(headers["List-Unsubscribe"].slice(1, -1));
    expect(row).toMatchObject({ status: "SENT", error: null });
  });

  it("hand the headers to the transport, once per idempotency key", async () => {
    const sent: Parameters<EmailTransport["send"]>[0][] = [];
    const transport: EmailTransport = { send: async (m) => void sent.push(m) };
    const { ctx, settled } = testCtx({ SEND_EMAIL: transport, EMAIL_FROM: "shop@shop.test" });
    const to = `once-${unique()}@example.com`;
    const key = `recovery-email:${unique()}`;
    const first = await sendEmail(ctx, to, "abandoned-cart", cart, { marketing: true, idempotencyKey: key });
    const second = await sendEmail(ctx, to, "abandoned-cart", cart, { marketing: true, idempotencyKey: key });
    await settled();
    expect(second).toMatchObject({ id: first.id, duplicate: true });
    expect(sent).toHaveLength(1);
    expect(sent[0].headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect((await rowsWithKey(key)).results).toHaveLength(1);
  });

  it("are suppressed after the address unsubscribes; other emails still go", async () => {
    const sent: string[] = [];
    const transport: EmailTransport = { send: async (m) => void sent.push(m.subject) };
    const { ctx, settled } = testCtx({ SEND_EMAIL: transport, EMAIL_FROM: "shop@shop.test" });
    const to = `Opt-Out-${unique()}@Example.com`;
    await sendEmail(
      ctx,
      to,
      "back-in-stock",
      { item: { name: "Lamp" }, itemUrl: "https://shop.test/products/lamp" },
      { marketing: true, awaitDelivery: true },
    );
    const row = await env.DB.prepare('SELECT headers FROM emails WHERE "to" = ?').bind(to).first<{ headers: string }>();
    const token = /token=([A-Za-z0-9_-]+)>/.exec(JSON.parse(row!.headers)["List-Unsubscribe"])![1];
    expect(await findSubscription(ctx, token)).toEqual({ email: to.toLowerCase(), unsubscribed: false });
    expect(await unsubscribe(ctx, token)).toEqual({ email: to.toLowerCase() });
    expect(await unsubscribe(ctx, token)).toEqual({ email: to.toLowerCase() });
    expect(await isUnsubscribed(ctx, to.toUpperCase())).toBe(true);
    const suppressed = await sendEmail(
      ctx,
      to,
      "back-in-stock",
      { item: { name: "Lamp" }, itemUrl: "https://shop.test/products/lamp" },
      { marketing: true, awaitDelivery: true },
    );
    expect(suppressed.status).toBe("SUPPRESSED");
    // Account emails are not marketing: they still arrive.
    await sendEmail(ctx, to, "verification-code", { code: "123456" });
    await settled();
    expect(sent).toEqual(["Lamp is back in stock at Edge Storefront", "Your Edge Storefront verification code: 123456"]);
    expect(await unsubscribe(ctx, "unknown-token-0000000000")).toBeNull();
    expect(await findSubscription(ctx, "bad token!")).toBeNull();
  });
});

describe("the email retry sweep", () => {
  const MIN = 60_000;
  const emailRow = (id: string) =>
    env.DB.prepare("SELECT status, attempts, next_attempt_at, error, sent_date FROM emails WHERE id = ?").bind(id).first<Record<string, any>>();
  /** A transport that fails the first `failures` hand-overs, recording every one. */
  const flaky = (failures: number) => {
    const calls: Parameters<EmailTransport["send"]>[0][] = [];
    const transport: EmailTransport = {
      send: async (m) => {
        calls.push(m);
        if (calls.length <= failures) throw new Error(`421 try again later (${calls.length})`);
      },
    };
    return { calls, transport, env: { ...env, SEND_EMAIL: transport, EMAIL_FROM: "shop@shop.test" } as Env };
  };
  const sweep = (e: Env, at: number) => retryDueEmails(e, openDb(env.DB), new Date(at));

  it("hands a failed email over again on a growing schedule until it is sent, with the same content and headers", async () => {
    const t = flaky(2);
    const { ctx } = testCtx({ SEND_EMAIL: t.transport, EMAIL_FROM: "shop@shop.test" });
    const to = `retry-${unique()}@example.com`;
    const start = Date.now();
    const first = await sendEmail(ctx, to, "abandoned-cart", cart, { marketing: true, awaitDelivery: true });
    expect(first.status).toBe("FAILED");
    const failed = (await emailRow(first.id))!;
    expect(failed).toMatchObject({ status: "FAILED", attempts: 1, error: "421 try again later (1)" });
    expect(Date.parse(failed.next_attempt_at) - start).toBeGreaterThanOrEqual(5 * MIN - 1000);

    // Not due yet: nothing is handed over.
    await sweep(t.env, start + 4 * MIN);
    expect(t.calls).toHaveLength(1);
    await sweep(t.env, start + 6 * MIN);
    expect(await emailRow(first.id)).toMatchObject({ status: "FAILED", attempts: 2, error: "421 try again later (2)" });
    expect(Date.parse((await emailRow(first.id))!.next_attempt_at)).toBe(start + 6 * MIN + 15 * MIN);
    await sweep(t.env, start + 22 * MIN);
    expect(await emailRow(first.id)).toMatchObject({ status: "SENT", attempts: 3, error: null, next_attempt_at: null });
    expect(t.calls.filter((m) => m.to === to)).toHaveLength(3);
    expect(new Set(t.calls.map((m) => m.html)).size).toBe(1);
    expect(t.calls[2].headers?.["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    // Sent: later sweeps leave it alone.
    await sweep(t.env, start + 600 * MIN);
    expect(t.calls.filter((m) => m.to === to)).toHaveLength(3);
  });

  it("gives up after five hand-overs and leaves the message FAILED with the last error", async () => {
    const t = flaky(99);
    const { ctx } = testCtx({ SEND_EMAIL: t.transport, EMAIL_FROM: "shop@shop.test" });
    const to = `hopeless-${unique()}@example.com`;
    const { id } = await sendEmail(ctx, to, "verification-code", { code: "654321" }, { awaitDelivery: true });
    let at = Date.now();
    for (let i = 0; i < 8; i++) await sweep(t.env, (at += 200 * MIN));
    expect(await emailRow(id)).toMatchObject({ status: "FAILED", attempts: 5, next_attempt_at: null });
    expect(t.calls.filter((m) => m.to === to)).toHaveLength(5);
  });

  it("sends an email whose first hand-over never reported back, once, even with two sweeps at the same time", async () => {
    // The Worker stopped while handing it over: the row stays QUEUED with its lease.
    const { ctx } = testCtx({ SEND_EMAIL: { send: () => new Promise(() => {}) } satisfies EmailTransport, EMAIL_FROM: "shop@shop.test" });
    const to = `stuck-${unique()}@example.com`;
    const start = Date.now();
    const { id } = await sendEmail(
      ctx,
      to,
      "back-in-stock",
      { item: { name: "Lamp" }, itemUrl: "https://shop.test/products/lamp" },
      { marketing: true },
    );
    expect(await emailRow(id)).toMatchObject({ status: "QUEUED", attempts: 1 });
    const t = flaky(0);
    await sweep(t.env, start + 5 * MIN);
    expect(t.calls.filter((m) => m.to === to)).toHaveLength(0);
    await Promise.all([sweep(t.env, start + 11 * MIN), sweep(t.env, start + 11 * MIN)]);
    expect(t.calls.filter((m) => m.to === to)).toHaveLength(1);
    expect(await emailRow(id)).toMatchObject({ status: "SENT", attempts: 2 });
  });

  it("does not retry a marketing email to an address that unsubscribed meanwhile; account emails still go", async () => {
    const t = flaky(1);
    const { ctx } = testCtx({ SEND_EMAIL: t.transport, EMAIL_FROM: "shop@shop.test" });
    const to = `Changed-Mind-${unique()}@Example.com`;
    const start = Date.now();
    const marketing = await sendEmail(
      ctx,
      to,
      "back-in-stock",
      { item: { name: "Lamp" }, itemUrl: "https://shop.test/products/lamp" },
      { marketing: true, awaitDelivery: true },
    );
    expect(marketing.status).toBe("FAILED");
    const { token } = (await env.DB.prepare("SELECT token FROM email_subscriptions WHERE email = ?")
      .bind(to.toLowerCase())
      .first<{ token: string }>())!;
    expect(await unsubscribe(ctx, token)).toEqual({ email: to.toLowerCase() });
    const account = await sendEmail(ctx, to, "verification-code", { code: "424242" }, { awaitDelivery: true });
    expect(account.status).toBe("SENT");
    await sweep(t.env, start + 60 * MIN);
    expect(await emailRow(marketing.id)).toMatchObject({ status: "SUPPRESSED", attempts: 1, next_attempt_at: null });
    expect(t.calls.map((m) => m.subject)).toEqual(["Lamp is back in stock at Edge Storefront", "Your Edge Storefront verification code: 424242"]);
  });

  it("without a transport (locally) nothing is due and nothing is sent", async () => {
    const { ctx } = testCtx();
    const { id } = await sendEmail(ctx, `local-${unique()}@example.com`, "verification-code", { code: "111222" });
    expect(await emailRow(id)).toMatchObject({ status: "QUEUED", attempts: 0, next_attempt_at: null });
    expect(await retryDueEmails(env, openDb(env.DB), new Date(Date.now() + 1000 * MIN))).toBe(0);
  });
});
