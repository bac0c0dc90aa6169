import { sql } from "drizzle-orm";

/**
 * The low-stock threshold is stored in the "automations" settings row (its field `lowStockThreshold`), which the
 * merchant changes at /api/v1/automation-settings; the catalogue only reads it.
 */
export const LOW_STOCK_SETTINGS_KEY = "automations";

/** A tracked variant whose quantity falls below this is low on stock, unless the merchant set another threshold. */
export const DEFAULT_LOW_STOCK_THRESHOLD = 5;

/** The threshold in SQL: the stored one, the default when none is stored, NULL when the merchant turned it off. */
export const lowStockThresholdSql =
  () => sql`(SELECT CASE WHEN s.value IS NULL OR json_type(s.value, '$.lowStockThreshold') IS NULL THEN ${DEFAULT_LOW_STOCK_THRESHOLD}
      WHEN json_type(s.value, '$.lowStockThreshold') = 'integer' THEN json_extract(s.value, '$.lowStockThreshold') END
    FROM (SELECT (SELECT value FROM settings WHERE key = ${LOW_STOCK_SETTINGS_KEY}) AS value) s)`;
