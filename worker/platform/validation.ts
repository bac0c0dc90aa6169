import type { Context } from "hono";
import { z } from "zod";
import { BodyTooLarge, readText } from "./body";
import { ApiError, badField, invalidArgument, type FieldViolation, type ViolatedRule } from "./errors";
import { isHttpUrl, isSitePath } from "./urls";

/** Largest JSON body the API accepts. Bulk calls of 100 full products fit well inside it. */
export const MAX_BODY_BYTES = 1_048_576;

/** Field path in the wire's notation: `product.productOptions[0].choices[1].value`. */
export function fieldPath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function ruleFor(issue: z.core.$ZodIssue, input: unknown): ViolatedRule {
  switch (issue.code) {
    case "invalid_type":
      return input === undefined ? "REQUIRED_FIELD" : "VALIDATION";
    case "too_big":
      return issue.origin === "string" ? "MAX_LENGTH" : issue.origin === "array" || issue.origin === "set" ? "MAX_SIZE" : "MAX";
    case "too_small":
      if (issue.origin === "string") return issue.minimum === 1 && typeof input === "string" && input.trim() === "" ? "REQUIRED_FIELD" : "MIN_LENGTH";
      return issue.origin === "array" || issue.origin === "set" ? "MIN_SIZE" : "MIN";
    case "invalid_value":
      return "INVALID_ENUM_VALUE";
    case "invalid_format":
      return "FORMAT";
    case "unrecognized_keys":
      return "FIELD_NOT_ALLOWED";
    default:
      return "VALIDATION";
  }
}

function inputAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const part of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

/** Turns zod issues into the wire's field violations. */
export function violationsFrom(error: z.ZodError, input: unknown, prefix = ""): FieldViolation[] {
  const out: FieldViolation[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        out.push({ field: fieldPath([...issue.path, key], prefix), description: "is not allowed", violatedRule: "FIELD_NOT_ALLOWED", data: {} });
      }
      continue;
    }
    const value = inputAt(input, issue.path);
    const rule = ruleFor(issue, value);
    const description = rule === "REQUIRED_FIELD" ? "is required" : issue.message;
    out.push({ field: fieldPath(issue.path, prefix), description, violatedRule: rule, data: {} });
  }
  return out;
}

const MONEY_FIELD = /(price|cost|amount|fee|total|subtotal)$/i;
const KINDS: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "text",
  boolean: "yes or no",
  array: "a list",
  object: "a group of values",
  date: "a date",
};

/**
 * A field violation's description in plain words for a form (the API keeps the validator's own): "must be an
 * amount, such as 19.99" instead of "Invalid input: expected number, received string". Unknown wording is kept.
 */
export function plainViolation(field: string, description: string): string {
  const money = MONEY_FIELD.test(
    field
      .replace(/\[\d+\]$/, "")
      .split(".")
      .at(-1) ?? "",
  );
  const d = description.trim();
  let m = /^Invalid input: expected (\w+)/.exec(d);
  if (m) {
    if (money && (m[1] === "number" || m[1] === "int")) return "must be an amount, such as 19.99";
    return KINDS[m[1]] ? `must be ${KINDS[m[1]]}` : "is not valid";
  }
  m = /^Too (small|big): expected (number|int|bigint) to be ([<>]=?)(-?[\d.e+]+)/.exec(d);
  if (m) {
    const n = Number(m[4]);
    const amount = money ? (n === 0 ? "0" : n.toFixed(2)) : m[4];
    const [, , , op] = m;
    if (op === ">=") return n === 0 ? "cannot be negative" : `must be ${amount} or more`;
    if (op === ">") return `must be more than ${amount}`;
    if (op === "<=") return `must be ${amount} or less`;
    return `must be less than ${amount}`;
  }
  m = /^Too (small|big): expected string to have ([<>]=?)(\d+) characters?/.exec(d);
  if (m) {
    if (m[1] === "small") return m[3] === "1" ? "is required" : `must have at least ${m[3]} characters`;
    return `can have at most ${m[3]} characters`;
  }
  m = /^Too (small|big): expected (array|set) to have ([<>]=?)(\d+) items?/.exec(d);
  if (m) return m[1] === "small" ? `needs at least ${m[4]}` : `can have at most ${m[4]}`;
  m = /^Invalid option: expected one of (.+)$/.exec(d);
  if (m) return `must be one of ${m[1].replaceAll('"', "").split("|").join(", ")}`;
  if (/^Invalid (url|URL)/.test(d)) return "must be a web address, such as https://example.com";
  if (/^Invalid email/.test(d)) return "must be an email address";
  if (/^Invalid (string|input|format)/.test(d)) return "is not in the right form";
  return d;
}

/** Parses a value with a schema or throws INVALID_ARGUMENT with every violation. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw invalidArgument(violationsFrom(result.error, input, prefix));
  return result.data;
}

/**
 * Reads a JSON request body: application/json only, at most MAX_BODY_BYTES (counted while it streams in, so a
 * chunked body is refused at the limit, not after buffering it), UTF-8, well-formed.
 * An empty body counts as `{}` (the SDK sends none for some calls).
 */
export async function readJson(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  const isJson = /^application\/(.+\+)?json\b/i.test(type.trim());
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // A declared non-JSON body is refused before it is read.
  if (type && !isJson && declared > 0) throw unsupportedType(type);
  let text: string | null;
  try {
    text = await readText(c.req.raw, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw tooLarge();
    throw err;
  }
  if (text === null) throw badField("body", "is not UTF-8 text", "FORMAT");
  if (text.trim() === "") return {};
  if (!isJson) throw unsupportedType(type);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badField("body", `is not valid JSON: ${(err as Error).message}`, "FORMAT");
  }
}

/** Reads and validates a JSON body in one step. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  return parseWith(schema, await readJson(c));
}

function unsupportedType(type: string): ApiError {
  return new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", `Content-Type must be application/json (got "${type || "none"}")`, {
    message: "Unsupported media type",
  });
}

function tooLarge(): ApiError {
  return new ApiError(413, "PAYLOAD_TOO_LARGE", `Request body is larger than the limit of ${MAX_BODY_BYTES} bytes (1 MiB)`, {
    data: { limitBytes: MAX_BODY_BYTES },
    message: "Payload too large",
  });
}

/**
 * A URL field (urls.ts): an absolute http(s) URL, trimmed, at most `max` characters; with `sitePath`, a path on
 * this site too. Every URL the API or the console takes goes through it, so no script or local scheme is stored.
 */
export function httpUrl(opts: { max?: number; sitePath?: boolean } = {}) {
  const { max = 2048, sitePath = false } = opts;
  return z
    .string()
    .trim()
    .max(max)
    .superRefine((v, ctx) => {
      if (isHttpUrl(v) || (sitePath && isSitePath(v))) return;
      ctx.addIssue({
        code: "invalid_format",
        format: "url",
        input: v,
        message: sitePath ? "must be an http(s) URL or a path on this site" : "must be an http(s) URL",
      });
    });
}

/** A boolean query-string parameter (`?includeMerchantSpecificData=true`). */
export function queryFlag(c: Context, name: string): boolean {
  const v = c.req.query(name);
  return v === "true" || v === "1";
}
