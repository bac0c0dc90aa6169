import { eq } from "drizzle-orm";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { badField } from "#worker/platform/errors";
import { settings } from "#worker/platform/tables";
import { pricingSettingsFrom, type PricingSettings } from "./engine/config";
import { PRICING_SETTINGS_KEY } from "./load";
import type { PricingSettingsPatch } from "./schemas";
import { shippingRegions } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/** The store's pricing settings (D1 `settings`, key "pricing"): merchant read and change at /api/v1/pricing-settings. */

export async function getPricingSettings(ctx: Ctx): Promise<{ settings: PricingSettings }> {
  requireMerchant(ctx);
  const [row] = await ctx.db.select({ value: settings.value }).from(settings).where(eq(settings.key, PRICING_SETTINGS_KEY));
  return { settings: pricingSettingsFrom(row?.value) };
}

/** Changes the settings; fields left out keep their value, null clears businessAddress / defaultShippingRegionId. */
export async function updatePricingSettings(ctx: Ctx, patch: PricingSettingsPatch): Promise<{ settings: PricingSettings }> {
  requirePermission(ctx, "settings.manage");
  if (patch.businessAddress && !patch.businessAddress.country) throw badField("settings.businessAddress.country", "is required", "REQUIRED_FIELD");
  const [[row], regions] = await runBatch(ctx.db, [
    ctx.db.select({ value: settings.value }).from(settings).where(eq(settings.key, PRICING_SETTINGS_KEY)),
    ctx.db
      .select({ id: shippingRegions.id })
      .from(shippingRegions)
      .where(eq(shippingRegions.id, patch.defaultShippingRegionId ?? "")),
  ]);
  if (patch.defaultShippingRegionId && !regions.length)
    throw badField("settings.defaultShippingRegionId", `is not a shipping region (${patch.defaultShippingRegionId})`);
  const next: PricingSettings = { ...pricingSettingsFrom(row?.value) };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
  const now = nowIso();
  await ctx.db
    .insert(settings)
    .values({ key: PRICING_SETTINGS_KEY, value: next, updatedDate: now })
    .onConflictDoUpdate({ target: settings.key, set: { value: next, updatedDate: now } });
  return { settings: next };
}
