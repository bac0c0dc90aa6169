import { describe, expect, it } from "vitest";
import { config, DEFAULT_WEBHOOK_RETRY_SCHEDULE, parseConfig } from "#worker/platform/config";
import { ApiError } from "#worker/platform/errors";

// wrangler.toml's [vars], as a deployment without secrets sees them.
const wranglerVars = { ENVIRONMENT: "production", STORE_NAME: "Edge Storefront", EMAIL_FROM: "", PUBLIC_URL: "", EVENT_RETRY_BASE_SECONDS: "30" };

function failure(vars: Record<string, unknown>): ApiError {
  try {
    parseConfig(vars);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected the configuration to be refused");
}

describe("configuration", () => {
  it("has the documented defaults when nothing optional is set", () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      environment: null,
      production: false,
      storeName: "Edge Storefront",
      storeCurrency: "USD",
      emailFrom: null,
      publicUrl: null,
      publicOrigin: null,
      eventRetryBaseSeconds: 30,
      webhookRetrySchedule: DEFAULT_WEBHOOK_RETRY_SCHEDULE,
      webhookTimeoutSeconds: 10,
      webhookDisableAfter: 3,
      webhookSigningKey: null,
      ownerApiKey: null,
      oauthClientId: null,
      turnstileSecretKey: null,
      turnstileSiteKey: null,
    });
    expect(parseConfig(wranglerVars)).toMatchObject({ production: true, emailFrom: null, publicUrl: null, eventRetryBaseSeconds: 30 });
  });

  it("reads empty values as unset and trims text, but not passwords or keys", () => {
    const c = parseConfig({
      STORE_NAME: "  ",
      OWNER_EMAIL: " Owner@Example.com ",
      OWNER_PASSWORD: " pass word ",
      TURNSTILE_SECRET_KEY: " s3 ",
      OAUTH_CLIENT_ID: "",
    });
    expect(c.storeName).toBe("Edge Storefront");
    expect(c.ownerEmail).toBe("Owner@Example.com");
    expect(c.ownerPassword).toBe(" pass word ");
    expect(c.turnstileSecretKey).toBe("s3");
    expect(c.oauthClientId).toBeNull();
  });

  it("parses numbers and the webhook schedule, capped as before", () => {
    const c = parseConfig({
      WEBHOOK_RETRY_SCHEDULE: "1, 1.4,100000",
      WEBHOOK_TIMEOUT_SECONDS: "90",
      WEBHOOK_DISABLE_AFTER: "2",
      EVENT_RETRY_BASE_SECONDS: "0",
    });
    expect(c.webhookRetrySchedule).toEqual([1, 1, 12 * 3600]);
    expect(c.webhookTimeoutSeconds).toBe(30);
    expect(c.webhookDisableAfter).toBe(2);
    expect(c.eventRetryBaseSeconds).toBe(0);
  });

  it("keeps PUBLIC_URL without trailing slashes and gives its origin", () => {
    const c = parseConfig({ PUBLIC_URL: " https://shop.example.com/ " });
    expect(c.publicUrl).toBe("https://shop.example.com");
    expect(c.publicOrigin).toBe("https://shop.example.com");
  });

  it("refuses a bad value with a system error naming the variable, not its value", () => {
    const disable = failure({ WEBHOOK_DISABLE_AFTER: "three" });
    expect(disable.status).toBe(500);
    expect(disable.code).toBe("CONFIGURATION_INVALID");
    expect(disable.description).toBe("WEBHOOK_DISABLE_AFTER must be a positive whole number");
    expect(disable.message).toBe("Invalid configuration: WEBHOOK_DISABLE_AFTER must be a positive whole number");
    expect(disable.data).toEqual({ variable: "WEBHOOK_DISABLE_AFTER" });
    expect(failure({ PUBLIC_URL: "shop.example.com" }).description).toMatch(/^PUBLIC_URL must be an absolute http\(s\) URL/);
    expect(failure({ PUBLIC_URL: "ftp://shop.example.com" }).description).toMatch(/^PUBLIC_URL /);
    expect(failure({ WEBHOOK_RETRY_SCHEDULE: "60,soon" }).description).toBe("WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds, each 0 or more");
    expect(failure({ EVENT_RETRY_BASE_SECONDS: "-1" }).description).toMatch(/^EVENT_RETRY_BASE_SECONDS /);
    expect(failure({ STORE_CURRENCY: "usd" }).description).toMatch(/^STORE_CURRENCY /);
    const secret = failure({ OWNER_API_KEY: 42 });
    expect(secret.description).toBe("OWNER_API_KEY must be a string");
    expect(JSON.stringify(secret)).not.toContain("42");
  });

  it("turns the strict checks on only for ENVIRONMENT=production", () => {
    expect(parseConfig({ ENVIRONMENT: "production" }).production).toBe(true);
    for (const environment of ["development", "test", "Production", ""]) expect(parseConfig({ ENVIRONMENT: environment }).production).toBe(false);
  });

  it("parses once per env object and fails every use of a bad one", () => {
    const env = { ...wranglerVars, STORE_NAME: "First" } as unknown as Env;
    expect(config(env)).toBe(config(env));
    const bad = { ...wranglerVars, WEBHOOK_TIMEOUT_SECONDS: "0" } as unknown as Env;
    expect(() => config(bad)).toThrow("WEBHOOK_TIMEOUT_SECONDS must be a positive number of seconds");
    expect(() => config(bad)).toThrow(ApiError);
  });
});
