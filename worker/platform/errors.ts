import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The rule a field broke: the Wix API's list of server-side violation kinds. */
export type ViolatedRule =
  | "VALIDATION"
  | "MAX"
  | "MIN"
  | "MAX_LENGTH"
  | "MIN_LENGTH"
  | "MAX_SIZE"
  | "MIN_SIZE"
  | "FORMAT"
  | "DECIMAL_LT"
  | "DECIMAL_GT"
  | "DECIMAL_LTE"
  | "DECIMAL_GTE"
  | "REQUIRED_FIELD"
  | "FIELD_NOT_ALLOWED"
  | "INVALID_ENUM_VALUE"
  | "OTHER";

export interface FieldViolation {
  field: string;
  description: string;
  violatedRule: ViolatedRule;
  /** Always an object: the SDK's register() crashes on a violation without one. */
  data: Record<string, unknown>;
}

/**
 * The one error type services and routes throw. `app.onError` turns it into the Wix error
 * shape: an application error or a validation error.
 */
export class ApiError extends HTTPException {
  readonly code: string;
  readonly description: string;
  readonly data: Record<string, unknown>;
  readonly fieldViolations?: FieldViolation[];
  /** Extra response headers (e.g. Retry-After on a 429). */
  readonly headers: Record<string, string>;
  /** Answered as `{message, details: {}}`: the SDK then reports the HTTP status as the application error code. */
  readonly bare: boolean;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    description: string,
    opts: {
      data?: Record<string, unknown>;
      fieldViolations?: FieldViolation[];
      message?: string;
      headers?: Record<string, string>;
      bare?: boolean;
    } = {},
  ) {
    super(status, { message: opts.message ?? description });
    this.code = code;
    this.description = description;
    this.data = opts.data ?? {};
    this.fieldViolations = opts.fieldViolations;
    this.headers = opts.headers ?? {};
    this.bare = opts.bare ?? false;
  }
}

/** 400 INVALID_ARGUMENT with field violations sorted by field, message 'INVALID_ARGUMENT: "field" description, …' (as the SDK prints it). */
export function invalidArgument(violations: FieldViolation[]): ApiError {
  const sorted = [...violations].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  const text = sorted.map((v) => `"${v.field}" ${v.description}`).join(", ");
  return new ApiError(400, "INVALID_ARGUMENT", text, { fieldViolations: sorted, message: `INVALID_ARGUMENT: ${text}` });
}

/** Shorthand for one bad field. */
export function badField(
  field: string,
  description: string,
  violatedRule: ViolatedRule = "VALIDATION",
  data: Record<string, unknown> = {},
): ApiError {
  return invalidArgument([{ field, description, violatedRule, data }]);
}

/** 404 whose body is `{message, details: {}}` (the Wix SDK maps it to `applicationError.code === 404`), as Wix answers some misses. */
export function bareNotFound(message: string): ApiError {
  return new ApiError(404, "NOT_FOUND", message, { message, bare: true });
}

/** 404 in the application-error shape, e.g. notFound("PRODUCT_NOT_FOUND", "Product", id). */
export function notFound(code: string, entity: string, id: string, dataKey = "id"): ApiError {
  return new ApiError(404, code, `${entity} ${id} not found`, { data: { [dataKey]: id }, message: `${entity} not found` });
}

export function unauthenticated(description: string): ApiError {
  return new ApiError(401, "UNAUTHENTICATED", description, { message: "Unauthenticated" });
}

export function forbidden(description: string): ApiError {
  return new ApiError(403, "PERMISSION_DENIED", description, { message: "Permission denied" });
}

/** The JSON body of an error response. */
export function errorBody(err: ApiError, requestId: string) {
  if (err.bare) return { message: err.message, details: {} };
  if (err.fieldViolations) {
    return {
      message: err.message,
      details: {
        validationError: { fieldViolations: err.fieldViolations },
        applicationError: { code: err.code, description: err.description, data: { requestId } },
      },
    };
  }
  return {
    message: err.message,
    details: { applicationError: { code: err.code, description: err.description, data: err.data } },
  };
}

export function systemErrorBody(requestId: string) {
  const message = `System error occurred, request-id: ${requestId}`;
  return { message, details: { applicationError: { code: "INTERNAL", description: message, data: { requestId } } } };
}
