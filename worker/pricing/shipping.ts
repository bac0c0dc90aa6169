import { sql } from "drizzle-orm";
import type { FieldMap } from "#worker/platform/query";
import { isoOrNull, moneyOut, MoneyReader, resource } from "./resource";
import { shippingRegionInputSchema, type ShippingRegionInput } from "./schemas";
import { shippingRegions, type StoredShippingOption } from "./tables";

/**
 * Shipping regions (merchant API at /api/v1/shipping-regions): countries (optionally narrowed to subdivisions) or
 * "rest of world", each with its shipping and pickup options, their rules and free-shipping thresholds (shipping.ts
 * says how they are priced). Money is written as decimal strings (or numbers), including a PRICE rule's value.
 */

type Row = typeof shippingRegions.$inferSelect;
type Values = Omit<Row, "id" | "revision" | "createdDate" | "updatedDate">;

export const shippingRegionService = resource<Row, ShippingRegionInput, Values>({
  entity: "Shipping region",
  notFoundCode: "SHIPPING_REGION_NOT_FOUND",
  wrapper: "shippingRegion",
  plural: "shippingRegions",
  table: shippingRegions,
  schema: shippingRegionInputSchema,
  toValues(ctx, input) {
    const money = new MoneyReader(ctx.currency);
    const options: StoredShippingOption[] = input.options.map((o, i) => {
      const at = `shippingRegion.options[${i}]`;
      return {
        code: o.code,
        title: o.title,
        kind: o.kind,
        deliveryTime: o.deliveryTime || null,
        instructions: o.instructions || null,
        deliveryTimeSlot: o.deliveryTimeSlot ? { from: isoOrNull(o.deliveryTimeSlot.from)!, to: isoOrNull(o.deliveryTimeSlot.to)! } : null,
        pickupDetails:
          o.kind === "PICKUP" && o.pickupDetails ? { address: o.pickupDetails.address, pickupMethod: o.pickupDetails.pickupMethod } : null,
        rate: money.minor(o.rate, `${at}.rate`),
        rules: o.rules.map((r, j) => ({
          basis: r.basis,
          operator: r.operator,
          value: r.basis === "PRICE" ? money.minor(r.value, `${at}.rules[${j}].value`) : r.value,
          rate: money.minor(r.rate, `${at}.rules[${j}].rate`),
        })),
        freeShippingThreshold: money.minorOrNull(o.freeShippingThreshold, `${at}.freeShippingThreshold`),
      };
    });
    money.check();
    return {
      name: input.name,
      countries: [...new Set(input.countries)],
      subdivisions: [...new Set(input.subdivisions)],
      restOfWorld: input.restOfWorld,
      options,
    };
  },
  shape(ctx, row) {
    return {
      id: row.id,
      revision: String(row.revision),
      createdDate: row.createdDate,
      updatedDate: row.updatedDate,
      name: row.name,
      countries: row.countries,
      subdivisions: row.subdivisions,
      restOfWorld: row.restOfWorld,
      options: row.options.map((o) => ({
        code: o.code,
        title: o.title,
        kind: o.kind,
        deliveryTime: o.deliveryTime,
        instructions: o.instructions,
        deliveryTimeSlot: o.deliveryTimeSlot,
        pickupDetails: o.pickupDetails,
        rate: moneyOut(o.rate, ctx.currency),
        rules: o.rules.map((r) => ({
          basis: r.basis,
          operator: r.operator,
          value: r.basis === "PRICE" ? moneyOut(r.value, ctx.currency) : r.value,
          rate: moneyOut(r.rate, ctx.currency),
        })),
        freeShippingThreshold: moneyOut(o.freeShippingThreshold, ctx.currency),
      })),
    };
  },
  fields(): FieldMap {
    return {
      id: { sql: shippingRegions.id, type: "string", sortable: true },
      name: { sql: shippingRegions.name, type: "string", sortable: true },
      restOfWorld: { sql: shippingRegions.restOfWorld, type: "boolean" },
      countries: {
        kind: "set",
        hasSome: (values) =>
          sql`EXISTS (SELECT 1 FROM json_each(${shippingRegions.countries}) c WHERE c.value IN (SELECT value FROM json_each(${JSON.stringify(values)})))`,
        hasAll: (values) =>
          sql`NOT EXISTS (SELECT 1 FROM json_each(${JSON.stringify(values)}) v WHERE v.value NOT IN (SELECT value FROM json_each(${shippingRegions.countries})))`,
      },
      createdDate: { sql: shippingRegions.createdDate, type: "date", sortable: true },
      updatedDate: { sql: shippingRegions.updatedDate, type: "date", sortable: true },
    };
  },
  defaultSort: () => [sql`${shippingRegions.createdDate} ASC`],
});
