import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "#worker/identity/passwords";
import { api } from "../helpers";
import { expectIdentityError, loginCall, newEmail, registerCall, resetIdentitySettings, setIdentitySettings } from "./member-fixtures";

/** Password hashing in the Workers runtime (PBKDF2-SHA-256 via WebCrypto) and the password rules at the API. */

describe("hashPassword / verifyPassword", () => {
  it("hashes with 100000 PBKDF2-SHA-256 iterations in workerd (its maximum) and a fresh salt each time", async () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    const a = await hashPassword("s3cret password");
    const b = await hashPassword("s3cret password");
    expect(a).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("s3cret");
    expect(await verifyPassword("s3cret password", a)).toBe(true);
    expect(await verifyPassword("s3cret password", b)).toBe(true);
    expect(await verifyPassword("s3cret passworD", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("never asks WebCrypto for more than 100000 iterations, the production Workers cap (local workerd does not enforce it)", async () => {
    const requested: number[] = [];
    const real = crypto.subtle.deriveBits.bind(crypto.subtle);
    const spy = vi.spyOn(crypto.subtle, "deriveBits").mockImplementation(async (algorithm, key, length) => {
      requested.push((algorithm as Pbkdf2Params).iterations);
      return real(algorithm, key, length);
    });
    try {
      const stored = await hashPassword("a password");
      await verifyPassword("a password", stored);
      // A stored hash claiming a higher count (forged, or from elsewhere) is refused without deriving at that count.
      expect(await verifyPassword("a password", stored.replace("$100000$", "$200000$"))).toBe(false);
    } finally {
      spy.mockRestore();
    }
    expect(requested.length).toBe(3);
    for (const n of requested) expect(n).toBeLessThanOrEqual(100_000);
  });

  it("verifies hashes made with fewer iterations (the count is stored with the hash)", async () => {
    // The same scheme at 1000 iterations, built by hand.
    const salt = crypto.getRandomValues(new Uint8Array(16));
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("older password"), "PBKDF2", false, ["deriveBits"]);
    const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: 1000 }, key, 256));
    const b64 = (u: Uint8Array) =>
      btoa(String.fromCharCode(...u))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    const stored = `pbkdf2-sha256$1000$${b64(salt)}$${b64(bits)}`;
    expect(await verifyPassword("older password", stored)).toBe(true);
    expect(await verifyPassword("other password", stored)).toBe(false);
  });

  it("answers false for a missing or malformed hash (and never throws)", async () => {
    for (const stored of [
      null,
      undefined,
      "",
      "plain-text",
      "md5$1$2$3",
      "pbkdf2-sha256$abc$AAAA$AAAA",
      "pbkdf2-sha256$999999999$AAAA$AAAA",
      "pbkdf2-sha256$100000$!!$!!",
    ]) {
      expect(await verifyPassword("anything", stored)).toBe(false);
    }
  });
});

describe("password rules", () => {
  beforeAll(async () => {
    await setIdentitySettings({ requireEmailVerification: false, requireOwnerApproval: false });
  });
  afterAll(async () => {
    await resetIdentitySettings();
  });

  it("accepts 8 to 128 characters", async () => {
    expect((await registerCall(newEmail(), "x".repeat(8))).body.state).toBe("SUCCESS");
    const email = newEmail();
    expect((await registerCall(email, "ü".repeat(128))).body.state).toBe("SUCCESS");
    expect((await loginCall(email, "ü".repeat(128))).body.state).toBe("SUCCESS");
  });

  it("refuses 7 and 129 characters with a password field violation", async () => {
    const short = await registerCall(newEmail(), "x".repeat(7));
    expectIdentityError(short, 400, "INVALID_ARGUMENT");
    expect(short.body.details.validationError.fieldViolations).toEqual([
      { field: "password", description: "must be at least 8 characters", violatedRule: "MIN_LENGTH", data: {} },
    ]);
    const long = await registerCall(newEmail(), "x".repeat(129));
    expectIdentityError(long, 400, "INVALID_ARGUMENT");
    expect(long.body.details.validationError.fieldViolations).toEqual([
      { field: "password", description: "must be at most 128 characters", violatedRule: "MAX_LENGTH", data: {} },
    ]);
    const missing = await api("POST", "/v2/register", { body: { loginId: { email: newEmail() } } });
    expect(missing.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "password", violatedRule: "REQUIRED_FIELD", data: {} });
  });
});
