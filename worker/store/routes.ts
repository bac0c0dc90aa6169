import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "#worker/platform/http";
import { readBody } from "#worker/platform/validation";
import { getStoreSettings, storeSettingsPatch, updateStoreSettings } from "./settings";

/**
 * The store's settings (merchant extension, mounted at /api/v1):
 *
 *   GET   /api/v1/store-settings                    → {settings, currency}  (any merchant)
 *   PATCH /api/v1/store-settings {settings:{…}}     → {settings, currency}  (settings.manage; fields left out keep
 *         their value; `logo.url` must be an image uploaded to this shop, e.g. by POST /api/media)
 */
export const storeRoutes = new Hono<AppEnv>()
  .get("/store-settings", async (c) => c.json(await getStoreSettings(c.get("ctx"))))
  .patch("/store-settings", async (c) => {
    const { settings } = await readBody(c, z.object({ settings: storeSettingsPatch }).strict());
    return c.json(await updateStoreSettings(c.get("ctx"), settings));
  });
