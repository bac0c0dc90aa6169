import { sql } from "drizzle-orm";
import { isUniqueViolation } from "#worker/platform/batch";
import { ApiError } from "#worker/platform/errors";
import type { FieldMap } from "#worker/platform/query";
import { moneyOut, MoneyReader, resource } from "./resource";
import { additionalFeeInputSchema, type AdditionalFeeInput } from "./schemas";
import { additionalFees } from "./tables";

/**
 * Additional fees (merchant API at /api/v1/additional-fees): HANDLING_FEE or INSURANCE, a fixed amount or a
 * percentage of the subtotal after discounts, charged from an optional minimum subtotal (fees.ts).
 */

type Row = typeof additionalFees.$inferSelect;
type Values = Omit<Row, "id" | "revision" | "createdDate" | "updatedDate">;

export const additionalFeeService = resource<Row, AdditionalFeeInput, Values>({
  entity: "Additional fee",
  notFoundCode: "ADDITIONAL_FEE_NOT_FOUND",
  wrapper: "additionalFee",
  plural: "additionalFees",
  table: additionalFees,
  schema: additionalFeeInputSchema,
  toValues(ctx, input) {
    const money = new MoneyReader(ctx.currency);
    const values: Values = {
      code: input.code,
      name: input.name,
      type: input.type,
      amount: money.minorOrNull(input.amount, "additionalFee.amount"),
      percentage: input.percentage ?? null,
      minimumSubtotal: money.minorOrNull(input.minimumSubtotal, "additionalFee.minimumSubtotal"),
      active: input.active,
    };
    money.check();
    return values;
  },
  // Naming amount or percentage in a patch replaces the other.
  merge(current, patch) {
    const base = { ...current };
    if ("amount" in patch || "percentage" in patch) {
      delete base.amount;
      delete base.percentage;
    }
    return { ...base, ...patch };
  },
  conflict(err, values) {
    if (!isUniqueViolation(err, "additional_fees.code")) return null;
    return new ApiError(409, "DUPLICATE_FEE_CODE", `Another additional fee already uses the code ${values.code}`, {
      data: { code: values.code },
      message: "Fee code already in use",
    });
  },
  shape: (ctx, row) => ({
    id: row.id,
    revision: String(row.revision),
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    code: row.code,
    name: row.name,
    type: row.type,
    ...(row.amount !== null ? { amount: moneyOut(row.amount, ctx.currency) } : { percentage: row.percentage }),
    minimumSubtotal: moneyOut(row.minimumSubtotal, ctx.currency),
    active: row.active,
  }),
  fields: (): FieldMap => ({
    id: { sql: additionalFees.id, type: "string", sortable: true },
    code: { sql: additionalFees.code, type: "string", sortable: true },
    name: { sql: additionalFees.name, type: "string", sortable: true },
    type: { sql: additionalFees.type, type: "string", sortable: true },
    active: { sql: additionalFees.active, type: "boolean" },
    createdDate: { sql: additionalFees.createdDate, type: "date", sortable: true },
    updatedDate: { sql: additionalFees.updatedDate, type: "date", sortable: true },
  }),
  defaultSort: () => [sql`${additionalFees.createdDate} ASC`],
});
