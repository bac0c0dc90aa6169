import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentCart } from "wix-ecom-1-0-943";
import { redirects } from "wix-redirects-1-0-73";
import { createClient, OAuthStrategy } from "wix-sdk-1-15";
import type { StripeFake } from "../payments/stripe-fake";
import { closeStore, fillContact, haveChromium, hydrated, openStripeStore, shopper, SKIP_NOTE, type Store, uniqueEmail } from "./commerce-fixtures";
import { OWNER_KEY } from "./worker";

/**
 * The checkout hand-over across origins in Chromium. A "headless site" on another loopback port runs the Next.js
 * Commerce template's server calls with its SDK generation (cart, create-checkout, redirect session) and sends the
 * browser to the redirect session's URL. The shop's checkout opens signed in with that cart; the order is paid on
 * Stripe's (fake) hosted page, and the confirmation links back to the site's post-flow URL. The same URL twice fails.
 */

const STORES = "215238eb-22a5-4c36-9e7b-e7c08025e04e";
const WIX_HOSTS = new Set(["www.wixapis.com", "edge.wixapis.com"]);

let store: Store | undefined;
let fake: StripeFake;
let site: Server;
let siteOrigin = "";
let clientId = "";
/** The redirect sessions' URLs the site sent browsers to, newest last. */
const handedOut: string[] = [];
let realFetch: typeof fetch;

/** The site's server side: a visitor's cart with the product, a checkout from it, and the redirect session's URL. */
async function startCheckout(): Promise<string> {
  const sdk = createClient({ modules: { currentCart, redirects }, auth: OAuthStrategy({ clientId }) });
  await sdk.currentCart.addToCurrentCart({ lineItems: [{ catalogReference: { appId: STORES, catalogItemId: store!.plain.id }, quantity: 2 }] });
  const { checkoutId } = await sdk.currentCart.createCheckoutFromCurrentCart({ channelType: currentCart.ChannelType.OTHER_PLATFORM });
  const { redirectSession } = await sdk.redirects.createRedirectSession({
    ecomCheckout: { checkoutId: checkoutId! },
    callbacks: { postFlowUrl: `${siteOrigin}/thanks` },
  });
  return redirectSession!.fullUrl!;
}

function startSite(): Promise<void> {
  site = createServer((req, res) => {
    const page = (body: string) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><title>Headless site</title><main>${body}</main></html>`);
    };
    if (req.method === "POST" && req.url === "/checkout") {
      startCheckout().then(
        (url) => {
          handedOut.push(url);
          res.writeHead(303, { location: url });
          res.end();
        },
        (err) => {
          res.writeHead(500, { "content-type": "text/plain" });
          res.end(String(err?.message ?? err));
        },
      );
      return;
    }
    if (req.url === "/thanks") return page("<h1>Back on the headless site</h1>");
    page(`<h1>Headless site</h1><form method="post" action="/checkout"><button type="submit">Check out</button></form>`);
  });
  return new Promise((resolve) =>
    site.listen(0, "127.0.0.1", () => {
      siteOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  if (!haveChromium) return;
  ({ store, fake } = await openStripeStore());
  await startSite();
  // Only the SDK's host goes to the shop, as a headless site deployed against it would configure.
  realFetch = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!WIX_HOSTS.has(url.host)) return realFetch(input, init);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    return store!.w.fetch(`${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
  };
  // The site's client lists its post-flow URL: the shop sends the shopper back nowhere else.
  const res = await store.w.fetch("/api/v1/oauth-clients", {
    method: "POST",
    headers: { authorization: OWNER_KEY, "content-type": "application/json" },
    body: JSON.stringify({ client: { name: "Headless site", redirectUris: [`${siteOrigin}/thanks`] } }),
  });
  expect(res.status).toBe(200);
  clientId = ((await res.json()) as { client: { id: string } }).client.id;
}, 180_000);

afterAll(async () => {
  if (realFetch) globalThis.fetch = realFetch;
  await new Promise((resolve) => (site ? site.close(resolve) : resolve(null)));
  await closeStore(store);
  await fake?.close();
});

describe("checkout hand-over from a headless site", () => {
  it("lands signed in with the site's cart, pays on Stripe's page, and links back to the post-flow URL", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const { context, page, problems } = await shopper(store!);
    await page.goto(`${siteOrigin}/`);
    await page.getByRole("button", { name: "Check out" }).click();
    // The credential is used on arrival and leaves the address bar.
    await page.waitForURL((u) => u.origin === store!.w.url && u.pathname === "/checkout" && !u.searchParams.has("handover"));
    await hydrated(page);
    await expect.poll(() => page.locator(".commerce-aside").textContent()).toContain(store!.plain.name);
    expect(await page.getByText("Your cart is empty").count()).toBe(0);

    const email = uniqueEmail("headless");
    await fillContact(page, email);
    await page.getByRole("button", { name: "Continue to delivery" }).click();
    await page.waitForURL((u) => u.searchParams.get("step") === "delivery");
    await page.getByRole("button", { name: "Continue to payment" }).click();
    await page.waitForURL((u) => u.searchParams.get("step") === "payment");
    await page.getByRole("button", { name: /Place order/ }).click();
    await page.waitForURL((u) => u.origin === fake.origin && u.pathname.startsWith("/pay/cs_test_"));
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL((u) => u.origin === store!.w.url && /^\/orders\/[^/]+\/confirmation$/.test(u.pathname));
    await hydrated(page);
    await expect.poll(() => page.locator("#payment-state").textContent()).toContain("Paid");

    const back = page.locator("#post-flow-link");
    expect(await back.getAttribute("href")).toBe(`${siteOrigin}/thanks`);
    await back.click();
    await page.waitForURL(`${siteOrigin}/thanks`);
    expect(await page.locator("h1").textContent()).toBe("Back on the headless site");

    // The order is the site's visitor's: two of the product, paid.
    const order = await store!.w.db
      .prepare("SELECT o.payment_status AS paid, o.buyer_email AS email FROM orders o WHERE o.buyer_email = ?")
      .bind(email)
      .first<{ paid: string; email: string }>();
    expect(order).toEqual({ paid: "PAID", email });
    expect(problems).toEqual([]);
    await context.close();
  });

  it("refuses the same URL a second time with a clear page, and shows no checkout", async (ctx) => {
    if (!haveChromium) return ctx.skip(SKIP_NOTE);
    const { context, page } = await shopper(store!);
    await page.goto(`${siteOrigin}/`);
    await page.getByRole("button", { name: "Check out" }).click();
    await page.waitForURL((u) => u.origin === store!.w.url && u.pathname === "/checkout");
    const used = handedOut.at(-1)!;
    await context.close();

    const other = await shopper(store!);
    const res = await other.page.goto(used);
    expect(res?.status()).toBe(410);
    await expect.poll(() => other.page.locator("main").textContent()).toContain("This checkout link has expired or has already been used");
    expect(await other.page.locator(".commerce-aside").count()).toBe(0);
    await other.context.close();
  });
});
