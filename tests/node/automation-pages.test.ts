import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, OWNER_KEY, startWorker, type RunningWorker } from "./worker";

/**
 * The pages behind the automations' email links, on the built Worker with its real queue and sweeps: the recovery
 * link of an abandoned-cart email restores the cart in another browser, and the unsubscribe link (page form and
 * one-click POST) stops later marketing emails.
 */

let w: RunningWorker;
beforeAll(async () => {
  w = await startWorker();
});
afterAll(async () => {
  await w?.dispose();
});

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const apiCall = (method: string, path: string, key: string, body?: unknown) =>
  w
    .fetch(path, {
      method,
      headers: { authorization: key, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    .then(json);

/** The session cookie a page response set, and the access token inside it (for API calls as that browser). */
function sessionOf(res: Response) {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!;
  const value = cookie.split(";")[0];
  return { cookie: value, token: value.split("=")[1].split(".")[1] };
}

async function until<T>(read: () => Promise<T | null | undefined>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("email link pages", () => {
  it("the recovery link restores the abandoned cart in another browser and goes to /cart; a bad link gets a friendly page", async () => {
    const created = await apiCall("POST", "/v1/products", OWNER_KEY, {
      product: { name: "Recovered Teapot", priceData: { price: 42 }, stock: { trackInventory: true, quantity: 9 } },
    });
    expect(created.status).toBe(200);
    const productId = created.body.product.id;

    // A shopper's browser: a visitor session, two teapots in the cart, an email given.
    // Browsing starts no session; adding to the cart (a page form post) does.
    const first = sessionOf(
      await w.fetch("/cart", {
        method: "POST",
        headers: { "user-agent": BROWSER_UA, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "add", productId, quantity: "2" }).toString(),
        redirect: "manual",
      }),
    );
    const added = await apiCall("GET", "/v1/carts/current", first.token);
    expect(added.status).toBe(200);
    const cartId = added.body.cart.id;
    expect((await apiCall("PATCH", "/v1/carts/current", first.token, { cartInfo: { buyerInfo: { email: "teapot@example.com" } } })).status).toBe(200);

    // Two hours idle (the clock is the database's here), then the sweep: the real queue makes the record.
    await w.db
      .prepare("UPDATE carts SET last_activity = ? WHERE id = ?")
      .bind(new Date(Date.now() - 2 * 3600_000).toISOString(), cartId)
      .run();
    expect((await apiCall("POST", "/api/v1/events/sweep", OWNER_KEY, {})).body.automations.abandonedCarts).toBe(1);
    const record = await until(
      () =>
        w.db
          .prepare("SELECT id, recovery_token FROM abandoned_checkouts WHERE cart_id = ?")
          .bind(cartId)
          .first<{ id: string; recovery_token: string }>(),
      "the abandoned checkout",
    );
    // The first reminder falls due; the next sweep sends it with the recovery link.
    await w.db
      .prepare("UPDATE recovery_emails SET due_date = ? WHERE abandoned_checkout_id = ? AND step = 1")
      .bind(new Date(Date.now() - 1000).toISOString(), record.id)
      .run();
    await apiCall("POST", "/api/v1/events/sweep", OWNER_KEY, {});
    const mail = (await w.db
      .prepare("SELECT text FROM emails WHERE \"to\" = 'teapot@example.com' AND template = 'abandoned-cart'")
      .first<{ text: string }>())!;
    const link = /Return to your cart: (\S+)/.exec(mail.text)![1];
    expect(link).toBe(`http://localhost:8787/cart/recover/${record.recovery_token}`);

    // Another browser opens the link: redirected to /cart, whose cart now holds the teapots.
    const opened = await w.fetch(new URL(link).pathname, { headers: { "user-agent": BROWSER_UA }, redirect: "manual" });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/cart");
    const second = sessionOf(opened);
    expect(second.token).not.toBe(first.token);
    const cart = await apiCall("GET", "/v1/carts/current", second.token);
    expect(cart.body.cart.lineItems.map((l: any) => [l.productName.original, l.quantity])).toEqual([["Recovered Teapot", 2]]);
    const page = await (await w.fetch("/cart", { headers: { "user-agent": BROWSER_UA, cookie: second.cookie } })).text();
    expect(page).toContain("Recovered Teapot");

    const bad = await w.fetch("/cart/recover/not-a-real-token-000000", { headers: { "user-agent": BROWSER_UA } });
    expect(bad.status).toBe(200);
    const html = await bad.text();
    expect(html).toContain("We couldn&#x27;t restore that cart");
    expect(html).toContain("This cart link is not valid");
    expect(html).toContain('href="/shop"');
  });

  it("unsubscribe: the link asks first, the form and the one-click POST unsubscribe, a bad token says so", async () => {
    const email = "unsub-page@example.com";
    const token = "page-test-token-0123456789abcdef";
    await w.db
      .prepare("INSERT INTO email_subscriptions (email, token, unsubscribed_date, created_date) VALUES (?, ?, NULL, ?)")
      .bind(email, token, new Date().toISOString())
      .run();
    const ask = await w.fetch(`/email/unsubscribe?token=${token}`, { headers: { "user-agent": BROWSER_UA } });
    expect(ask.status).toBe(200);
    expect(ask.headers.get("cache-control")).toBe("no-store");
    const html = await ask.text();
    expect(html).toContain("Unsubscribe from marketing emails?");
    expect(html).toContain(email);
    expect(html).toMatch(/<form[^>]*method="post"/);
    // Opening the page changes nothing (mail scanners follow links).
    expect(
      (await w.db
        .prepare("SELECT unsubscribed_date FROM email_subscriptions WHERE email = ?")
        .bind(email)
        .first<{ unsubscribed_date: string | null }>())!.unsubscribed_date,
    ).toBeNull();

    // A mail client's one-click unsubscribe (RFC 8058): POST to the List-Unsubscribe address.
    const oneClick = await w.fetch(`/email/unsubscribe?token=${token}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain("You are unsubscribed");
    expect(
      (await w.db
        .prepare("SELECT unsubscribed_date FROM email_subscriptions WHERE email = ?")
        .bind(email)
        .first<{ unsubscribed_date: string | null }>())!.unsubscribed_date,
    ).not.toBeNull();

    // The page's own form posts the token as a field.
    const other = "page-test-token-fedcba9876543210";
    await w.db
      .prepare("INSERT INTO email_subscriptions (email, token, unsubscribed_date, created_date) VALUES (?, ?, NULL, ?)")
      .bind("second@example.com", other, new Date().toISOString())
      .run();
    const form = await w.fetch("/email/unsubscribe", {
      method: "POST",
      headers: { "user-agent": BROWSER_UA, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: other }).toString(),
    });
    const done = await form.text();
    expect(done).toContain("You are unsubscribed");
    expect(done).toMatch(/second@example\.com(<!-- -->)? will no longer get cart reminders/);

    const badPage = await (await w.fetch("/email/unsubscribe?token=nope", { headers: { "user-agent": BROWSER_UA } })).text();
    expect(badPage).toContain("This unsubscribe link is not valid");
  });
});
