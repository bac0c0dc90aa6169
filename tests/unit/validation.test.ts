import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ApiError } from "#worker/platform/errors";
import { fieldPath, httpUrl, parseWith, violationsFrom } from "#worker/platform/validation";

// Schema failures as the wire's field violations, without a request.
const product = z
  .object({
    name: z.string().min(1).max(5),
    price: z.number().min(0),
    kind: z.enum(["PHYSICAL", "DIGITAL"]).optional(),
    options: z
      .array(z.object({ name: z.string() }))
      .max(1)
      .optional(),
    email: z.email().optional(),
  })
  .strict();

function violations(input: unknown, prefix = "product") {
  const result = product.safeParse(input);
  if (result.success) throw new Error("expected the input to be refused");
  return violationsFrom(result.error, input, prefix).map((v) => [v.field, v.violatedRule, v.description]);
}

describe("validation", () => {
  it("writes field paths in the wire's notation", () => {
    expect(fieldPath(["productOptions", 0, "choices", 1, "value"], "product")).toBe("product.productOptions[0].choices[1].value");
    expect(fieldPath(["name"])).toBe("name");
    expect(fieldPath([0, "x"])).toBe("[0].x");
  });

  it("names the rule each field broke", () => {
    expect(violations({ price: -1, kind: "OTHER", options: [{ name: "a" }, { name: "b" }], email: "nope", colour: "red" })).toEqual([
      ["product.name", "REQUIRED_FIELD", "is required"],
      ["product.price", "MIN", expect.any(String)],
      ["product.kind", "INVALID_ENUM_VALUE", expect.any(String)],
      ["product.options", "MAX_SIZE", expect.any(String)],
      ["product.email", "FORMAT", expect.any(String)],
      ["product.colour", "FIELD_NOT_ALLOWED", "is not allowed"],
    ]);
    expect(violations({ name: "", price: "1" })).toEqual([
      ["product.name", "REQUIRED_FIELD", "is required"],
      ["product.price", "VALIDATION", expect.any(String)],
    ]);
    expect(violations({ name: "too long", price: 1 })).toEqual([["product.name", "MAX_LENGTH", expect.any(String)]]);
  });

  it("parseWith returns the parsed value or throws INVALID_ARGUMENT with every violation", () => {
    expect(parseWith(product, { name: "Tee", price: 1 })).toEqual({ name: "Tee", price: 1 });
    try {
      parseWith(product, { price: -1 }, "product");
      throw new Error("expected a throw");
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      const e = err as ApiError;
      expect([e.status, e.fieldViolations!.map((v) => v.field)]).toEqual([400, ["product.name", "product.price"]]);
    }
  });

  it("httpUrl takes absolute http(s) URLs only", () => {
    const url = httpUrl();
    expect(url.safeParse("https://shop.example.com/a").success).toBe(true);
    expect(url.safeParse("javascript:alert(1)").success).toBe(false);
    expect(url.safeParse("/relative").success).toBe(false);
  });
});
