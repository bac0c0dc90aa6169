import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "#worker/platform/validation";
import { api, catalogueSnapshot, merchant } from "../helpers";

describe("HTTP conventions", () => {
  it("puts x-wix-request-id on every response, API and errors alike", async () => {
    const ok = await api("GET", "/api/health");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, events: { waiting: expect.any(Number), oldestWaitingSeconds: expect.any(Number) } });
    expect(ok.headers.get("x-wix-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await api("GET", "/v1/products/does-not-exist");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-wix-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers an unknown id with 404 in the application-error shape", async () => {
    const res = await api("GET", "/stores-reader/v1/products/nope?id=nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      message: "Product not found",
      details: { applicationError: { code: "PRODUCT_NOT_FOUND", description: "Product nope not found", data: { productId: "nope" } } },
    });
  });

  it("answers an API path nobody serves with a JSON 404, not a page", async () => {
    const res = await api("POST", "/v1/no-such-call", { body: {} });
    expect(res.status).toBe(404);
    expect(res.body.details.applicationError.code).toBe("NOT_FOUND");
    // Under every API prefix, with or without credentials, for any method: no router's guard claims the path.
    for (const [method, path] of [
      ["GET", "/v1/no-such-call"],
      ["GET", "/api/v1/no-such-call"],
      ["POST", "/ecom/v1/no-such-call"],
      ["GET", "/back-in-stock-service/v1/nope/nope"],
      ["GET", "/webhooks"],
    ]) {
      const anon = await api(method, path);
      expect(anon.status, `${method} ${path}`).toBe(404);
      expect((await api(method, path, { key: "test-owner-key" })).status, `${method} ${path} (merchant)`).toBe(404);
    }
  });

  it("refuses malformed JSON with INVALID_ARGUMENT and changes nothing", async () => {
    const before = await catalogueSnapshot();
    const res = await api("POST", "/v1/products", { rawBody: '{"product": {"name": "x",', key: "test-owner-key" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^INVALID_ARGUMENT: "body" is not valid JSON/);
    expect(res.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "body", violatedRule: "FORMAT", data: {} });
    expect(await catalogueSnapshot()).toEqual(before);
  });

  it("refuses a body that is not JSON by content type with 415", async () => {
    const res = await api("POST", "/v1/products", { rawBody: "name=x", contentType: "application/x-www-form-urlencoded", key: "test-owner-key" });
    expect(res.status).toBe(415);
    expect(res.body.details.applicationError.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("refuses an oversized body with 413 and says what the limit is", async () => {
    const res = await api("POST", "/v1/products", {
      rawBody: JSON.stringify({ product: { name: "x".repeat(MAX_BODY_BYTES) } }),
      key: "test-owner-key",
    });
    expect(res.status).toBe(413);
    expect(res.body.details.applicationError.description).toContain(String(MAX_BODY_BYTES));
  });

  it("refuses a chunked body (no Content-Length) at the limit while it streams in", async () => {
    const before = await catalogueSnapshot();
    let sent = 0;
    const chunk = new TextEncoder().encode("x".repeat(65_536));
    // 4 MiB in 64 KiB chunks, without a length: the Worker must stop at 1 MiB, not buffer it all and then refuse.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"product":{"name":"'));
        if (sent >= 4 * 1_048_576) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await SELF.fetch("https://shop.test/v1/products", {
      method: "POST",
      headers: { authorization: "test-owner-key", "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).details.applicationError.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await catalogueSnapshot()).toEqual(before);
  });

  it("answers an API path with broken percent-encoding with 400 in the error shape, never a 500", async () => {
    for (const [method, path] of [
      ["DELETE", "/stores/v1/products/%E0%A4%A"],
      ["GET", "/v1/products/%E0%A4%A"],
      ["DELETE", "/v1/collections/%ZZ"],
      ["GET", "/back-in-stock-service/v1/back-in-stock-requests/%C3%28"],
    ]) {
      const res = await api(method, path, { key: "test-owner-key" });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "path", violatedRule: "FORMAT" });
    }
    // Pages (the not-found page) are covered on the built Worker: tests/node/hostile.test.ts.
  });

  it("sorts field violations by field and prints them the way the SDK does", async () => {
    const res = await merchant("POST", "/v1/products", { product: { priceData: { price: -1 }, name: "", weight: "heavy" } });
    expect(res.status).toBe(400);
    const fields = res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field);
    expect(fields).toEqual([...fields].sort());
    expect(fields).toEqual(["product.name", "product.priceData.price", "product.weight"]);
    expect(res.body.message).toBe(
      `INVALID_ARGUMENT: ${res.body.details.validationError.fieldViolations.map((v: { field: string; description: string }) => `"${v.field}" ${v.description}`).join(", ")}`,
    );
    for (const v of res.body.details.validationError.fieldViolations) expect(v.data).toEqual({});
    expect(res.body.details.validationError.fieldViolations[0].violatedRule).toBe("REQUIRED_FIELD");
  });

  it("reports D1 round trips in Server-Timing", async () => {
    const res = await api("GET", "/api/health");
    expect(res.headers.get("server-timing")).toMatch(/d1;dur=\d+;desc="1 round trips"/);
  });
});
