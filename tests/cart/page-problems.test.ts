import { describe, expect, it } from "vitest";
import { runCartIntent } from "#web/components/cart/cart.server";
import { pageMessage } from "#web/components/ui/form.server";
import { startsSession } from "#web/host/pages";
import { ApiError, forbidden, unauthenticated } from "#worker/platform/errors";
import { tooManyRequests } from "#worker/platform/rate-limit";
import { createProduct, serviceCtx, unique } from "../helpers";

/**
 * A shopper's action on a page: it starts a session whatever the browser's user agent, and whatever the services
 * refuse is told in a shopper's words, never in the API's (headers, tokens, field paths).
 */

const API_WORDS = /authori[sz]ation|access token|api key|token|header|grant|\w\[\d+\]/i;
const HEADLESS = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

describe("a page action", () => {
  it("starts a session for a post from any user agent; browsing and a bot's recovery-link preview start none", () => {
    for (const ua of [BROWSER, HEADLESS, "Googlebot/2.1 (+http://www.google.com/bot.html)", "curl/8.0", undefined]) {
      expect(startsSession("POST", "/cart", ua), String(ua)).toBe(true);
      expect(startsSession("POST", "/products/tee", ua), String(ua)).toBe(true);
      expect(startsSession("GET", "/products/tee", ua), String(ua)).toBe(false);
    }
    expect(startsSession("GET", "/cart/recover/abc", BROWSER)).toBe(true);
    expect(startsSession("GET", "/cart/recover/abc", HEADLESS)).toBe(false);
  });

  it("tells a shopper without a session why adding failed in their words, not the API's", async () => {
    const p = await createProduct({ name: `Page Tee ${unique()}` });
    const form = new FormData();
    form.set("productId", p.id);
    form.set("quantity", "1");
    const { problem } = await runCartIntent(serviceCtx({ kind: "anonymous" }).ctx, "add", form);
    expect(problem?.message).toBe("Your session has ended. Please try again.");
    expect(problem?.message).not.toMatch(API_WORDS);
  });

  it("words every refusal for people: sessions, permissions, limits and API-only descriptions", () => {
    const cases: [ApiError, string][] = [
      [
        unauthenticated("The current cart needs a visitor's or member's access token in the Authorization header"),
        "Your session has ended. Please try again.",
      ],
      [forbidden("This call needs the merchant's API key"), "This can't be done from this account."],
      [
        tooManyRequests({ key: "k", max: 1, windowSeconds: 600, what: "visitor token requests from this address" }, 600),
        "Too many requests from your connection. Please try again in 10 minutes.",
      ],
      [
        tooManyRequests({ key: "k", max: 1, windowSeconds: 900, what: "login attempts for this account" }, 30),
        "Too many login attempts for this account; try again in 30 seconds.",
      ],
      [new ApiError(400, "X", "lineItems[0].catalogReference.catalogItemId is not a product"), "Something went wrong. Please try again."],
      [new ApiError(400, "COUPON_EXPIRED", "The coupon SAVE has expired"), "The coupon SAVE has expired."],
    ];
    for (const [err, words] of cases) {
      expect(pageMessage(err), err.description).toBe(words);
      expect(pageMessage(err)).not.toMatch(API_WORDS);
    }
  });
});
