import { sql } from "drizzle-orm";
import { isUniqueViolation } from "#worker/platform/batch";
import { ApiError, invalidArgument } from "#worker/platform/errors";
import type { FieldMap } from "#worker/platform/query";
import { resource } from "./resource";
import { taxGroupInputSchema, taxRegionInputSchema, type TaxGroupInput, type TaxRegionInput } from "./schemas";
import { taxGroups, taxRegions } from "./tables";

/**
 * Tax groups and tax regions (merchant API at /api/v1/tax-groups and /api/v1/tax-regions). A tax group gathers
 * products (by product or collection) that a region may tax at their own rate; everything else is in the default
 * group, taxed at the region's defaultRate. One region per country, and one per subdivision of it.
 */

type GroupRow = typeof taxGroups.$inferSelect;
type RegionRow = typeof taxRegions.$inferSelect;

export const taxGroupService = resource<GroupRow, TaxGroupInput, Omit<GroupRow, "id" | "revision" | "createdDate" | "updatedDate">>({
  entity: "Tax group",
  notFoundCode: "TAX_GROUP_NOT_FOUND",
  wrapper: "taxGroup",
  plural: "taxGroups",
  table: taxGroups,
  schema: taxGroupInputSchema,
  toValues: (_ctx, input) => ({
    name: input.name,
    catalogItemIds: [...new Set(input.catalogItemIds)],
    collectionIds: [...new Set(input.collectionIds)],
  }),
  shape: (_ctx, row) => ({
    id: row.id,
    revision: String(row.revision),
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    name: row.name,
    catalogItemIds: row.catalogItemIds,
    collectionIds: row.collectionIds,
  }),
  fields: (): FieldMap => ({
    id: { sql: taxGroups.id, type: "string", sortable: true },
    name: { sql: taxGroups.name, type: "string", sortable: true },
    createdDate: { sql: taxGroups.createdDate, type: "date", sortable: true },
    updatedDate: { sql: taxGroups.updatedDate, type: "date", sortable: true },
  }),
  defaultSort: () => [sql`${taxGroups.createdDate} ASC`],
});

export const taxRegionService = resource<RegionRow, TaxRegionInput, Omit<RegionRow, "id" | "revision" | "createdDate" | "updatedDate">>({
  entity: "Tax region",
  notFoundCode: "TAX_REGION_NOT_FOUND",
  wrapper: "taxRegion",
  plural: "taxRegions",
  table: taxRegions,
  schema: taxRegionInputSchema,
  async toValues(ctx, input) {
    // Rates must name tax groups that exist (one read; groups are few).
    const ids = input.groupRates.map((g) => g.taxGroupId);
    if (ids.length) {
      const found = await ctx.db
        .select({ id: taxGroups.id })
        .from(taxGroups)
        .where(sql`${taxGroups.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
      const known = new Set(found.map((g) => g.id));
      const missing = ids.map((id, i) => [id, i] as const).filter(([id]) => !known.has(id));
      if (missing.length) {
        throw invalidArgument(
          missing.map(([id, i]) => ({
            field: `taxRegion.groupRates[${i}].taxGroupId`,
            description: `is not a tax group (${id})`,
            violatedRule: "VALIDATION" as const,
            data: {},
          })),
        );
      }
    }
    return {
      name: input.name || input.subdivision || input.country,
      country: input.country,
      subdivision: input.subdivision ?? "",
      defaultRate: input.defaultRate,
      groupRates: input.groupRates,
      taxShipping: input.taxShipping,
      calculation: input.calculation,
    };
  },
  conflict(err, values) {
    if (!isUniqueViolation(err, "tax_regions.country")) return null;
    const place = values.subdivision || values.country;
    return new ApiError(409, "DUPLICATE_TAX_REGION", `A tax region for ${place} already exists`, {
      data: { country: values.country, subdivision: values.subdivision || null },
      message: "Tax region already exists",
    });
  },
  shape: (_ctx, row) => ({
    id: row.id,
    revision: String(row.revision),
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    name: row.name,
    country: row.country,
    subdivision: row.subdivision || null,
    defaultRate: row.defaultRate,
    groupRates: row.groupRates,
    taxShipping: row.taxShipping,
    calculation: row.calculation,
  }),
  fields: (): FieldMap => ({
    id: { sql: taxRegions.id, type: "string", sortable: true },
    name: { sql: taxRegions.name, type: "string", sortable: true },
    country: { sql: taxRegions.country, type: "string", sortable: true },
    subdivision: { sql: sql`nullif(${taxRegions.subdivision}, '')`, type: "string", sortable: true },
    createdDate: { sql: taxRegions.createdDate, type: "date", sortable: true },
    updatedDate: { sql: taxRegions.updatedDate, type: "date", sortable: true },
  }),
  defaultSort: () => [sql`${taxRegions.country} ASC`, sql`${taxRegions.subdivision} ASC`],
});
