import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { requireMerchant } from "#worker/platform/context";
import { pathId, type AppEnv } from "#worker/platform/http";
import { readQueryRequest } from "#worker/platform/query";
import { readBody, readJson } from "#worker/platform/validation";
import { additionalFeeService } from "./fees";
import { couponService } from "./coupons";
import { discountRuleService } from "./discounts";
import type { resource } from "./resource";
import { pricingSettingsPatchSchema } from "./schemas";
import { getPricingSettings, updatePricingSettings } from "./settings";
import { shippingRegionService } from "./shipping";
import { taxGroupService, taxRegionService } from "./taxes";

/**
 * Merchant configuration of discounts, coupons, shipping, tax and fees (full paths; mounted at /):
 *   /ecom/v1/discount-rules      (Wix ecom Discount Rules)
 *   /api/v1/coupons, /api/v1/shipping-regions, /api/v1/tax-groups, /api/v1/tax-regions, /api/v1/additional-fees
 *   /api/v1/pricing-settings     (GET, PATCH)
 * Each resource: POST / (create), GET /:id, PATCH /:id, DELETE /:id, POST or GET(.r) /query, GET / (first page).
 */

/** The caller is checked before the body is read: an anonymous bad body gets 401, not a validation error. */
const merchantOnly = createMiddleware<AppEnv>(async (c, next) => {
  requireMerchant(c.get("ctx"));
  await next();
});

type Service = ReturnType<typeof resource<any, any, any>>;

function crud(service: Service) {
  return new Hono<AppEnv>()
    .use("*", merchantOnly)
    .post("/", async (c) => c.json(await service.create(c.get("ctx"), await readJson(c))))
    .on(["GET", "POST"], "/query", async (c) => c.json(await service.query(c.get("ctx"), await readQueryRequest(c))))
    .get("/", async (c) => c.json(await service.query(c.get("ctx"), {})))
    .get("/:id", async (c) => c.json(await service.get(c.get("ctx"), pathId(c))))
    .patch("/:id", async (c) => c.json(await service.update(c.get("ctx"), pathId(c), await readJson(c))))
    .delete("/:id", async (c) => c.json(await service.remove(c.get("ctx"), pathId(c))));
}

export const pricingRoutes = new Hono<AppEnv>()
  .route("/ecom/v1/discount-rules", crud(discountRuleService))
  .route("/api/v1/coupons", crud(couponService))
  .route("/api/v1/shipping-regions", crud(shippingRegionService))
  .route("/api/v1/tax-groups", crud(taxGroupService))
  .route("/api/v1/tax-regions", crud(taxRegionService))
  .route("/api/v1/additional-fees", crud(additionalFeeService))
  .route(
    "/api/v1/pricing-settings",
    new Hono<AppEnv>()
      .use("*", merchantOnly)
      .get("/", async (c) => c.json(await getPricingSettings(c.get("ctx"))))
      .patch("/", async (c) => {
        const { settings } = await readBody(c, z.object({ settings: pricingSettingsPatchSchema }));
        return c.json(await updatePricingSettings(c.get("ctx"), settings));
      }),
  );
