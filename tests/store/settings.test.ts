import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { catalogVersion } from "#worker/catalog/cache";
import {
  emailSender,
  getStoreSettings,
  loadStoreSettings,
  pageShopSettings,
  syncStoreSettingsCopy,
  updateStoreSettings,
} from "#worker/store/settings";
import { merchant, serviceCtx } from "../helpers";

/**
 * The store settings service (worker/store/settings.ts) and its API: settings.manage to change, the KV copy the shop
 * reads kept equal to D1, the sender the emails use, and bad input refused with nothing written.
 */

const staff = (permissions: string[]) =>
  serviceCtx({ kind: "member", identityId: "staff-1", visitorId: "v", clientId: "c", role: "STAFF", permissions: permissions as never });

describe("store settings", () => {
  it("PATCH /api/v1/store-settings changes the fields given; the shop's KV copy follows; GET reads them back", async () => {
    const res = await merchant("PATCH", "/api/v1/store-settings", {
      settings: { name: "  Fernhill Goods ", checkoutHeader: { logoSize: "LARGE", alignment: "RIGHT" }, timeZone: "Europe/Paris" },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings).toMatchObject({
      name: "Fernhill Goods",
      checkoutHeader: { logoSize: "LARGE", alignment: "RIGHT" },
      timeZone: "Europe/Paris",
      logo: null,
    });
    expect(res.body.currency).toBe("USD");
    expect((await loadStoreSettings(env)).name).toBe("Fernhill Goods");
    const again = await merchant("PATCH", "/api/v1/store-settings", { settings: { contactEmail: "Hello@Fernhill.example" } });
    expect(again.body.settings).toMatchObject({ name: "Fernhill Goods", contactEmail: "hello@fernhill.example" });
    expect((await merchant("GET", "/api/v1/store-settings")).body.settings.timeZone).toBe("Europe/Paris");
  });

  it("refuses a logo that is not this shop's media, an unknown time zone and unknown fields, writing nothing", async () => {
    const before = (await merchant("GET", "/api/v1/store-settings")).body.settings;
    for (const settings of [
      { logo: { url: "https://evil.example/logo.png", width: 10, height: 10 } },
      { timeZone: "Mars/Olympus" },
      { name: "x", colour: "red" },
      { checkoutHeader: { logoSize: "HUGE", alignment: "LEFT" } },
    ]) {
      const res = await merchant("PATCH", "/api/v1/store-settings", { settings });
      expect(res.status, JSON.stringify(settings)).toBe(400);
    }
    expect((await merchant("GET", "/api/v1/store-settings")).body.settings).toEqual(before);
  });

  it("the hold of unpaid offline orders: 48 hours by default, whole hours from 0 (never) to 90 days", async () => {
    expect((await merchant("GET", "/api/v1/store-settings")).body.settings.unpaidOrderHoldHours).toBe(48);
    const before = (await merchant("GET", "/api/v1/store-settings")).body.settings;
    for (const unpaidOrderHoldHours of [-1, 1.5, "12", 90 * 24 + 1, null]) {
      const res = await merchant("PATCH", "/api/v1/store-settings", { settings: { unpaidOrderHoldHours } });
      expect(res.status, JSON.stringify(unpaidOrderHoldHours)).toBe(400);
      expect(res.body.details.validationError.fieldViolations[0].field).toBe("settings.unpaidOrderHoldHours");
    }
    expect((await merchant("GET", "/api/v1/store-settings")).body.settings).toEqual(before);
    for (const hours of [0, 72, 48]) {
      const res = await merchant("PATCH", "/api/v1/store-settings", { settings: { unpaidOrderHoldHours: hours } });
      expect(res.body.settings.unpaidOrderHoldHours).toBe(hours);
      expect((await loadStoreSettings(env)).unpaidOrderHoldHours).toBe(hours);
    }
  });

  it("needs settings.manage to change them; any merchant reads them", async () => {
    const { ctx } = staff(["catalog.write"]);
    await expect(updateStoreSettings(ctx, { name: "Mine" })).rejects.toMatchObject({ status: 403 });
    expect((await getStoreSettings(ctx)).settings.name).not.toBe("Mine");
    const { ctx: manager } = staff(["settings.manage"]);
    expect((await updateStoreSettings(manager, { senderName: "Fernhill Orders" })).settings.senderName).toBe("Fernhill Orders");
  });

  it("emails come from the configured sender, over EMAIL_FROM and the store's name", async () => {
    const s = await loadStoreSettings(env);
    expect(emailSender({ ...env, EMAIL_FROM: "shop@fernhill.example" } as Env, { ...s, senderName: null, senderEmail: null })).toEqual({
      email: "shop@fernhill.example",
      name: s.name,
    });
    expect(
      emailSender({ ...env, EMAIL_FROM: "shop@fernhill.example" } as Env, { ...s, senderName: "Orders", senderEmail: "orders@fernhill.example" }),
    ).toEqual({ email: "orders@fernhill.example", name: "Orders" });
    // Another domain than EMAIL_FROM's would make every email fail.
    const { ctx } = serviceCtx(undefined, { EMAIL_FROM: "shop@fernhill.example" });
    await expect(updateStoreSettings(ctx, { senderEmail: "orders@elsewhere.example" })).rejects.toMatchObject({ status: 400 });
  });

  it("the sweeper puts back a lost KV copy from D1, and purges the pages' copy of it", async () => {
    const visitor = serviceCtx({ kind: "anonymous" }).ctx;
    expect((await pageShopSettings(visitor)).name).toBe("Fernhill Goods");
    await env.SESSIONS.delete("store:settings");
    expect((await loadStoreSettings(env)).name).toBe(env.STORE_NAME);
    // Pages keep what they read under the catalogue's version: a lost copy changes nothing until it is purged.
    expect((await pageShopSettings(visitor)).name).toBe("Fernhill Goods");
    const before = await catalogVersion(env);
    expect(await syncStoreSettingsCopy(env, serviceCtx().ctx.db)).toBe(true);
    expect(await catalogVersion(env)).not.toBe(before);
    expect((await loadStoreSettings(env)).name).toBe("Fernhill Goods");
    expect((await pageShopSettings(visitor)).name).toBe("Fernhill Goods");
    expect(await syncStoreSettingsCopy(env, serviceCtx().ctx.db)).toBe(false);
  });
});
