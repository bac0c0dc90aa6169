import { eq } from "drizzle-orm";
import { z } from "zod";
import { nowIso, requireMerchant, requirePermission, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { invalidArgument } from "#worker/platform/errors";
import { settings } from "#worker/platform/tables";
import { uploadImage, type UploadFile } from "#worker/media";
import { cachedCatalogRead, purgeCatalogCache } from "#worker/catalog";
import { config } from "#worker/platform/config";
import { DEFAULT_UNPAID_ORDER_HOLD_HOURS, MAX_UNPAID_ORDER_HOLD_HOURS, LOGO_ALIGNMENTS, LOGO_SIZES, type StoreSettings } from "./settings-values";
import { DEFAULT_DOWNLOAD_LIMIT, DEFAULT_DOWNLOAD_LINK_DAYS, MAX_DOWNLOAD_LIMIT, MAX_DOWNLOAD_LINK_DAYS } from "./settings-values";

export {
  DEFAULT_DOWNLOAD_LIMIT,
  DEFAULT_DOWNLOAD_LINK_DAYS,
  MAX_DOWNLOAD_LIMIT,
  MAX_DOWNLOAD_LINK_DAYS,
  DEFAULT_UNPAID_ORDER_HOLD_HOURS,
  LOGO_ALIGNMENTS,
  LOGO_SIZES,
  MAX_UNPAID_ORDER_HOLD_HOURS,
  type LogoAlignment,
  type LogoSize,
  type StoreLogo,
  type StoreSettings,
} from "./settings-values";

/**
 * The store's own settings (D1 `settings`, key "store"): its name, contact email, logo, the checkout's brand header
 * (logo size and alignment) and the sender of its emails. Merchants read them; changing
 * them needs settings.manage. Read and changed at /api/v1/store-settings and on the console's Settings page.
 *
 * Every shop page and every email needs them, so a copy is kept in KV (SESSIONS, key "store:settings"): the shop
 * reads that copy (no D1 round trip; a repeated catalogue page must not touch D1), each change writes it again, and
 * the sweeper repairs it from D1 if a write was lost (syncStoreSettingsCopy). KV is read with a 60 s edge cache, so
 * a change reaches every location within about a minute (locally at once).
 *
 * The currency is not one of them: prices, carts and orders are kept in STORE_CURRENCY (configuration), and every
 * service reads it from the request's context (platform/context.ts storeCurrency), so it is a deploy-time choice.
 */

export const STORE_SETTINGS_KEY = "store";
const KV_KEY = "store:settings";

/** Whether a name is a time zone this runtime knows (IANA, e.g. Europe/Paris). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-CA", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "must be an email address" }).max(254));

/** What a merchant may change; every field optional (left out: unchanged; null clears an optional one). */
export const storeSettingsPatch = z
  .object({
    name: z.string().trim().min(1, "must not be empty").max(100),
    contactEmail: email.nullable(),
    checkoutHeader: z.object({ logoSize: z.enum(LOGO_SIZES), alignment: z.enum(LOGO_ALIGNMENTS) }).strict(),
    senderName: z
      .string()
      .trim()
      .min(1)
      .max(100)
      // A name with quotes or line breaks would break the From: header.
      .refine((s) => !/["\r\n<>]/.test(s), "must not contain quotes, angle brackets or line breaks")
      .nullable(),
    senderEmail: email.nullable(),
    timeZone: z.string().trim().max(64).refine(isTimeZone, "must be a time zone such as Europe/Paris or America/New_York").nullable(),
    unpaidOrderHoldHours: z
      .number({ error: "must be a whole number of hours" })
      .int("must be a whole number of hours")
      .min(0, "must be 0 (never) or more")
      .max(MAX_UNPAID_ORDER_HOLD_HOURS, `must be at most ${MAX_UNPAID_ORDER_HOLD_HOURS} hours (90 days)`),
    downloadLimit: z
      .number({ error: "must be a whole number of downloads" })
      .int("must be a whole number of downloads")
      .min(1, "must be at least 1")
      .max(MAX_DOWNLOAD_LIMIT, `must be at most ${MAX_DOWNLOAD_LIMIT}`),
    downloadLinkDays: z
      .number({ error: "must be a whole number of days" })
      .int("must be a whole number of days")
      .min(1, "must be at least 1 day")
      .max(MAX_DOWNLOAD_LINK_DAYS, `must be at most ${MAX_DOWNLOAD_LINK_DAYS} days`),
    /** Only a URL of this site's media (what an upload answers), or null to remove the logo. */
    logo: z
      .object({
        url: z.string().regex(/^\/media\/[0-9a-f]{64}\.(?:jpg|png|gif|webp|avif)$/, "must be an image uploaded to this shop"),
        width: z.number().int().positive().max(100_000).nullable(),
        height: z.number().int().positive().max(100_000).nullable(),
      })
      .strict()
      .nullable(),
  })
  .partial()
  .strict();

export type StoreSettingsPatch = z.output<typeof storeSettingsPatch>;

export function defaultStoreSettings(env: Env): StoreSettings {
  return {
    name: config(env).storeName,
    contactEmail: null,
    logo: null,
    checkoutHeader: { logoSize: "MEDIUM", alignment: "LEFT" },
    senderName: null,
    senderEmail: null,
    timeZone: null,
    unpaidOrderHoldHours: DEFAULT_UNPAID_ORDER_HOLD_HOURS,
    downloadLimit: DEFAULT_DOWNLOAD_LIMIT,
    downloadLinkDays: DEFAULT_DOWNLOAD_LINK_DAYS,
  };
}

/** The stored fields that still parse, each on its own: one that no longer does (or an unknown one) is left out. */
function storedFields(value: unknown): StoreSettingsPatch {
  const stored: Record<string, unknown> = {};
  if (!value || typeof value !== "object") return stored;
  for (const [key, field] of Object.entries(storeSettingsPatch.shape)) {
    const raw = (value as Record<string, unknown>)[key];
    if (raw === undefined) continue;
    const parsed = field.safeParse(raw);
    if (parsed.success && parsed.data !== undefined) stored[key] = parsed.data;
  }
  return stored as StoreSettingsPatch;
}

/** Stored settings over the defaults; a stored field that no longer parses falls back to its default. */
export function storeSettingsFrom(env: Env, value: unknown): StoreSettings {
  return { ...defaultStoreSettings(env), ...storedFields(value) };
}

const storeSettingsRead = (db: Db) => db.select({ value: settings.value }).from(settings).where(eq(settings.key, STORE_SETTINGS_KEY));

/**
 * The settings as the shop uses them (pages, emails, sweeps; no caller check): the KV copy, without a D1 round trip
 * and without writing anything (pages write nothing). No copy means none was ever saved: the defaults.
 */
export async function loadStoreSettings(env: Env): Promise<StoreSettings> {
  const cached = await env.SESSIONS.get<unknown>(KV_KEY, { type: "json", cacheTtl: 60 }).catch((err) => {
    console.error("store settings: KV read failed, using the defaults", err);
    return null;
  });
  return storeSettingsFrom(env, cached);
}

/**
 * Puts the D1 row into the KV copy when they differ (the sweeper, every minute): repairs a copy a failed write
 * left behind, or one lost. One D1 read and one KV read; a write only when something differs, and then the shop's
 * cached pages and page settings (pageShopSettings) are purged, as a settings change purges them.
 */
export async function syncStoreSettingsCopy(env: Env, db: Db): Promise<boolean> {
  const [[row], cached] = await Promise.all([storeSettingsRead(db), env.SESSIONS.get(KV_KEY)]);
  if (!row) return false;
  const value = JSON.stringify(row.value);
  if (cached === value) return false;
  await env.SESSIONS.put(KV_KEY, value);
  await purgeCatalogCache(env, new Date().toISOString());
  return true;
}

/** The shop's settings for a request's pages and emails. */
export function shopSettings(ctx: Ctx): Promise<StoreSettings> {
  return loadStoreSettings(ctx.env);
}

/**
 * The settings for a shopper's page: kept with the catalogue cache (catalog/cache.ts), whose version every settings
 * change bumps as it bumps it for a product edit (cached pages show the name and logo too), so a page rendered
 * afresh reads no KV. Before, that was one KV read for every page the edge cache did not hold. A copy read at a
 * location the change had not reached yet (KV takes up to a minute) lives no longer than a cached page does: five
 * minutes at most.
 */
export function pageShopSettings(ctx: Ctx): Promise<StoreSettings> {
  return cachedCatalogRead(ctx, "storeSettings", null, () => loadStoreSettings(ctx.env));
}

/** The settings for the console and the API: read from D1 (the source), so a merchant sees their last save. */
export async function getStoreSettings(ctx: Ctx): Promise<{ settings: StoreSettings; currency: string }> {
  requireMerchant(ctx);
  const [row] = await storeSettingsRead(ctx.db);
  return { settings: storeSettingsFrom(ctx.env, row?.value), currency: ctx.currency };
}

/** The address part of EMAIL_FROM (configuration), or null. */
function configuredFrom(env: Env): string | null {
  const from = config(env).emailFrom;
  return from ? from.replace(/^.*<([^>]+)>\s*$/, "$1").toLowerCase() : null;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1);

function checkSender(env: Env, patch: StoreSettingsPatch): void {
  const from = configuredFrom(env);
  if (patch.senderEmail && from && domainOf(patch.senderEmail) !== domainOf(from)) {
    throw invalidArgument([
      {
        field: "senderEmail",
        description: `must be an address at ${domainOf(from)}, the domain this shop sends from (EMAIL_FROM)`,
        violatedRule: "FORMAT",
        data: { domain: domainOf(from) },
      },
    ]);
  }
}

/**
 * Changes the settings (settings.manage): fields left out keep their value. A sender address must be on the domain
 * of EMAIL_FROM when that is configured: Cloudflare Email Service sends only from onboarded domains, and an address
 * elsewhere would make every email fail.
 */
export async function updateStoreSettings(ctx: Ctx, patch: StoreSettingsPatch): Promise<{ settings: StoreSettings; currency: string }> {
  requirePermission(ctx, "settings.manage");
  checkSender(ctx.env, patch);
  const [row] = await storeSettingsRead(ctx.db);
  const next: StoreSettingsPatch = storedFields(row?.value);
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
  const now = nowIso();
  await ctx.db
    .insert(settings)
    .values({ key: STORE_SETTINGS_KEY, value: next, updatedDate: now })
    .onConflictDoUpdate({ target: settings.key, set: { value: next, updatedDate: now } });
  // The shop reads the KV copy: write it before answering, so the merchant's next look at the shop shows the change.
  await ctx.env.SESSIONS.put(KV_KEY, JSON.stringify(next));
  return { settings: storeSettingsFrom(ctx.env, next), currency: ctx.currency };
}

/**
 * Uploads a new logo (settings.manage; JPEG, PNG, GIF, WebP or AVIF, checked by its bytes, at most 10 MB, stored in
 * R2 by the media service) and sets it with the other changes in `patch`. The old logo's object is not deleted here
 * (media objects are content-addressed and may be shared with products or collections): the hourly media sweep
 * (catalog/media.ts) removes it once nothing, this setting included, mentions it.
 */
export async function uploadStoreLogo(ctx: Ctx, file: UploadFile, patch: StoreSettingsPatch = {}, field = "logo") {
  requirePermission(ctx, "settings.manage");
  // Refused before anything is stored.
  checkSender(ctx.env, patch);
  const uploaded = await uploadImage(ctx, file, field, "settings.manage");
  return updateStoreSettings(ctx, { ...patch, logo: { url: uploaded.url, width: uploaded.width, height: uploaded.height } });
}

/** Who the shop's emails come from: the configured sender over EMAIL_FROM; null when no address is set at all. */
export function emailSender(env: Env, s: StoreSettings): { email: string; name: string } | null {
  const address = s.senderEmail ?? config(env).emailFrom;
  return address ? { email: address, name: s.senderName ?? s.name } : null;
}
