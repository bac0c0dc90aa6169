import { eq } from "drizzle-orm";
import { z } from "zod";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { settings } from "#worker/platform/tables";
import { DEFAULT_LOW_STOCK_THRESHOLD, LOW_STOCK_SETTINGS_KEY } from "#worker/catalog";

/** The automations' settings (D1 `settings`, key "automations"): merchant read and change at /api/v1/automation-settings. */

export const AUTOMATION_SETTINGS_KEY = LOW_STOCK_SETTINGS_KEY;

export interface AutomationSettings {
  /** Abandoned-cart detection and recovery emails on or off. */
  abandonedCartEnabled: boolean;
  /** A cart idle this long (minutes) with items and a contact email is abandoned. */
  abandonedCartIdleMinutes: number;
  /** Recovery emails, in minutes after abandonment (default 1 hour, 24 hours, 72 hours). */
  recoveryEmailDelaysMinutes: number[];
  /** An abandoned cart whose total (store currency, major units) is at least this gets a merchant task; null: never. */
  highValueCartTotal: number | null;
  /** A tracked variant whose quantity falls below this gets a LOW_STOCK task; null: never. */
  lowStockThreshold: number | null;
  /** A recovery link restores the cart for this many days after abandonment. */
  recoveryLinkDays: number;
}

export const DEFAULT_AUTOMATION_SETTINGS: AutomationSettings = {
  abandonedCartEnabled: true,
  abandonedCartIdleMinutes: 60,
  recoveryEmailDelaysMinutes: [60, 24 * 60, 72 * 60],
  highValueCartTotal: 200,
  lowStockThreshold: DEFAULT_LOW_STOCK_THRESHOLD,
  recoveryLinkDays: 30,
};

const MINUTES_IN_30_DAYS = 30 * 24 * 60;

/** The settings a merchant may change; every field optional (left out: unchanged). */
export const automationSettingsPatch = z
  .object({
    abandonedCartEnabled: z.boolean().optional(),
    abandonedCartIdleMinutes: z.number().int().min(1).max(MINUTES_IN_30_DAYS).optional(),
    recoveryEmailDelaysMinutes: z
      .array(z.number().int().min(0).max(MINUTES_IN_30_DAYS))
      .max(5)
      .refine((a) => a.every((m, i) => i === 0 || m > a[i - 1]), "must be in increasing order")
      .optional(),
    highValueCartTotal: z.number().min(0).max(1_000_000_000).nullable().optional(),
    lowStockThreshold: z.number().int().min(0).max(1_000_000).nullable().optional(),
    recoveryLinkDays: z.number().int().min(1).max(365).optional(),
  })
  .strict();

export type AutomationSettingsPatch = z.output<typeof automationSettingsPatch>;

/** Stored settings over the defaults (a stored value that no longer parses falls back to the default). */
export function automationSettingsFrom(value: unknown): AutomationSettings {
  const parsed = automationSettingsPatch.safeParse(value ?? {});
  const stored = parsed.success ? parsed.data : {};
  return { ...DEFAULT_AUTOMATION_SETTINGS, ...Object.fromEntries(Object.entries(stored).filter(([, v]) => v !== undefined)) };
}

/** The read of the stored settings, to put in a caller's batch (then automationSettingsFrom(row?.value)). */
export const automationSettingsRead = (db: Db) =>
  db.select({ value: settings.value }).from(settings).where(eq(settings.key, AUTOMATION_SETTINGS_KEY));

/** The settings, for the automations themselves (no caller check). */
export async function loadAutomationSettings(db: Db): Promise<AutomationSettings> {
  const [row] = await automationSettingsRead(db);
  return automationSettingsFrom(row?.value);
}

export async function getAutomationSettings(ctx: Ctx): Promise<{ settings: AutomationSettings }> {
  requireMerchant(ctx);
  return { settings: await loadAutomationSettings(ctx.db) };
}

/** Changes the settings; fields left out keep their value, null switches a threshold off. */
export async function updateAutomationSettings(ctx: Ctx, patch: AutomationSettingsPatch): Promise<{ settings: AutomationSettings }> {
  requirePermission(ctx, "automations.manage");
  const next: AutomationSettings = { ...(await loadAutomationSettings(ctx.db)) };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
  const now = nowIso();
  await ctx.db
    .insert(settings)
    .values({ key: AUTOMATION_SETTINGS_KEY, value: next, updatedDate: now })
    .onConflictDoUpdate({ target: settings.key, set: { value: next, updatedDate: now } });
  return { settings: next };
}
