import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

/**
 * Transport and window-isolation headers on API answers: HSTS over https only, no Cross-Origin-Opener-Policy (that is
 * for pages, which tests/node/production.test.ts checks on the built Worker).
 */

describe("security headers", () => {
  it("send Strict-Transport-Security on answers over https, and never over plain http", async () => {
    for (const path of ["/api/health", "/v1/products/nope", "/oauth2/authorize"]) {
      const secure = await SELF.fetch(`https://shop.test${path}`, { redirect: "manual" });
      expect(secure.headers.get("strict-transport-security"), path).toBe("max-age=31536000; includeSubDomains");
      expect(secure.headers.get("cross-origin-opener-policy"), path).toBeNull();
      const plain = await SELF.fetch(`http://shop.test${path}`, { redirect: "manual" });
      expect(plain.headers.get("strict-transport-security"), path).toBeNull();
    }
  });
});
