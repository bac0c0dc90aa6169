import { z } from "zod";
import { describe, expect, it } from "vitest";
import { bulkUpdateRequest } from "#worker/catalog/schemas";
import { parseWith } from "#worker/platform/validation";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";

/** A refused form shows plain words under each field, never the validator's own text. */

const refusal = (schema: z.ZodType, input: unknown) => {
  try {
    parseWith(schema, input);
  } catch (err) {
    return problemOf(err, CONSOLE);
  }
  throw new Error("expected a refusal");
};

describe("form problems in plain words", () => {
  it("words a price that is negative or not a number as the CSV importer does", () => {
    expect(refusal(bulkUpdateRequest, { ids: ["a"], set: { price: -1 } }).fields).toEqual({ "set.price": "Cannot be negative" });
    expect(refusal(bulkUpdateRequest, { ids: ["a"], set: { price: "abc" } }).fields).toEqual({ "set.price": "Must be an amount, such as 19.99" });
  });

  it("words limits, choices, lengths and types", () => {
    const schema = z.object({
      name: z.string().min(1).max(50),
      quantity: z.number().int().min(1).max(99),
      kind: z.enum(["physical", "digital"]),
      visible: z.boolean(),
      link: z.url(),
    });
    const p = refusal(schema, { name: "x".repeat(51), quantity: 0, kind: "service", visible: "no", link: "nope" });
    expect(p.fields).toEqual({
      name: "Can have at most 50 characters",
      quantity: "Must be 1 or more",
      kind: "Must be one of physical, digital",
      visible: "Must be yes or no",
      link: "Must be a web address, such as https://example.com",
    });
    expect(refusal(schema, { name: "", quantity: 1.5, kind: "physical", visible: true, link: "https://a.example" }).fields).toEqual({
      name: "Is required",
      quantity: "Must be a whole number",
    });
    for (const text of Object.values(p.fields)) expect(text).not.toMatch(/expected|received|Too (small|big)|Invalid/);
  });
});
