import { z } from "zod";
import { ApiError, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { violationsFrom } from "#worker/platform/validation";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./passwords";

/**
 * Wire schemas of the identity calls (register, login, sign-on, verification, recovery), shared by the API routes
 * and the login pages. Unknown keys are dropped, as the Wix APIs do. The profile accepts both the REST shape and the
 * Wix SDK's (deprecated `emails: string[]`, `secondaryEmails`, `phonesV2`, SDK address names) and keeps one form.
 */

/** The rule for new passwords (register, change, reset): 8 to 128 characters. */
export const newPasswordSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

/** A login email: trimmed, lower-cased, at most 254 characters. */
export const emailSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .max(254, "must be at most 254 characters")
  .pipe(z.email({ error: "must be a valid email address" }))
  .transform((e) => e.toLowerCase());

export const loginIdSchema = z.object({ email: emailSchema });

// Email tags of the Wix members API (plus the SDK's UNTAGGED).
export const EMAIL_TAGS = ["UNTAGGED", "MAIN", "HOME", "WORK"] as const;
export const PHONE_TAGS = ["UNTAGGED", "MAIN", "HOME", "MOBILE", "WORK", "FAX"] as const;
export const ADDRESS_TAGS = ["UNTAGGED", "HOME", "WORK", "BILLING", "SHIPPING"] as const;

const profileEmail = z.union([
  z
    .string()
    .trim()
    .max(254)
    .pipe(z.email({ error: "must be a valid email address" }))
    .transform((email) => ({ email, tag: "UNTAGGED" as const })),
  z.object({
    email: z
      .string()
      .trim()
      .max(254)
      .pipe(z.email({ error: "must be a valid email address" })),
    tag: z.enum(EMAIL_TAGS).default("UNTAGGED"),
  }),
]);

const phoneNumber = z
  .string()
  .trim()
  .min(1, "is required")
  .max(50, "must be at most 50 characters")
  .regex(/^\+?[0-9 ().-]+$/, "must be a phone number (digits, spaces, + ( ) . -)");

const profilePhone = z.union([
  phoneNumber.transform((phone) => ({ phone, tag: "UNTAGGED" as const })),
  z.object({ phone: phoneNumber, countryCode: text(3).optional().nullable(), tag: z.enum(PHONE_TAGS).default("UNTAGGED") }),
]);

/** A postal address in the Wix REST shape; the SDK's names (addressLine1, formatted, location) are accepted too. */
export const addressSchema = z
  .object({
    country: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{2}$/, "must be an ISO-3166 alpha-2 country code")
      .optional()
      .nullable(),
    subdivision: text(50).optional().nullable(),
    city: text(100).optional().nullable(),
    postalCode: text(20).optional().nullable(),
    addressLine: text(200).optional().nullable(),
    addressLine1: text(200).optional().nullable(),
    addressLine2: text(200).optional().nullable(),
    formattedAddress: text(500).optional().nullable(),
    formatted: text(500).optional().nullable(),
    geocode: z
      .object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) })
      .optional()
      .nullable(),
    location: z
      .object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180) })
      .optional()
      .nullable(),
    streetAddress: z
      .object({ name: text(100).optional(), number: text(20).optional(), apt: text(20).optional() })
      .optional()
      .nullable(),
  })
  .transform(({ addressLine1, formatted, location, ...a }) => {
    const out: Record<string, unknown> = {};
    const merged = {
      ...a,
      addressLine: a.addressLine ?? addressLine1,
      formattedAddress: a.formattedAddress ?? formatted,
      geocode: a.geocode ?? location,
    };
    for (const [k, v] of Object.entries(merged)) if (v !== undefined && v !== null && v !== "") out[k] = v;
    return out;
  });

const customValue = z
  .object({
    strValue: text(2000).optional(),
    numValue: z.number().finite().optional(),
    dateValue: z.iso.datetime({ offset: true, error: "must be an ISO-8601 date-time" }).optional(),
    boolValue: z.boolean().optional(),
  })
  .refine((v) => Object.values(v).filter((x) => x !== undefined).length === 1, {
    message: "must hold exactly one of strValue, numValue, dateValue, boolValue",
  });

/** The member's profile (identityProfile). */
export const profileSchema = z
  .object({
    firstName: text(100).optional().nullable(),
    lastName: text(100).optional().nullable(),
    nickname: text(100).optional().nullable(),
    picture: z
      .string()
      .trim()
      .max(2048)
      .regex(/^https?:\/\//, "must be an http(s) URL")
      .optional()
      .nullable(),
    language: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a language code such as en or en-US")
      .optional()
      .nullable(),
    birthdate: z.iso.date({ error: "must be a date in YYYY-MM-DD format" }).optional().nullable(),
    company: text(1000).optional().nullable(),
    position: text(1000).optional().nullable(),
    privacyStatus: z.enum(["UNDEFINED", "PUBLIC", "PRIVATE"]).optional(),
    emails: z.array(profileEmail).max(20).optional(),
    secondaryEmails: z.array(profileEmail).max(20).optional(),
    phones: z.array(profilePhone).max(20).optional(),
    phonesV2: z.array(profilePhone).max(20).optional(),
    addresses: z
      .array(z.object({ address: addressSchema, tag: z.enum(ADDRESS_TAGS).default("UNTAGGED") }))
      .max(20)
      .optional(),
    customFields: z
      .array(z.object({ name: text(100).min(1, "is required"), value: customValue }))
      .max(100)
      .optional(),
  })
  .transform(({ secondaryEmails, phonesV2, ...p }) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p)) if (v !== undefined && v !== null && v !== "") out[k] = v;
    if (secondaryEmails?.length) out.emails = [...(p.emails ?? []), ...secondaryEmails];
    if (phonesV2?.length) out.phones = [...(p.phones ?? []), ...phonesV2];
    return out as StoredProfile;
  });

/** The profile as stored in `identities.profile`. */
export interface StoredProfile {
  firstName?: string;
  lastName?: string;
  nickname?: string;
  picture?: string;
  language?: string;
  birthdate?: string;
  company?: string;
  position?: string;
  privacyStatus?: string;
  emails?: { email: string; tag: string }[];
  phones?: { phone: string; tag: string; countryCode?: string | null }[];
  addresses?: { address: Record<string, unknown>; tag: string }[];
  customFields?: { name: string; value: Record<string, unknown> }[];
}

export const captchaTokenSchema = z.object({
  Turnstile: z.string().max(4096).optional(),
  Recaptcha: z.string().max(4096).optional(),
  InvisibleRecaptcha: z.string().max(4096).optional(),
  NoCaptcha: z.string().max(4096).optional(),
  recaptchaForClientSiteKey: z.object({ token: z.string().max(4096).optional(), siteKeyId: z.string().max(200).optional() }).optional(),
});
export type CaptchaTokenInput = z.infer<typeof captchaTokenSchema>;

const captchaTokens = z.array(captchaTokenSchema).max(5).optional();
const clientMetaData = z.record(z.string(), z.unknown()).optional().nullable();

export const registerRequest = z.object({
  loginId: loginIdSchema,
  password: newPasswordSchema,
  profile: profileSchema.optional(),
  captchaTokens,
  clientMetaData,
});
export type RegisterRequest = z.infer<typeof registerRequest>;

export const loginRequest = z.object({
  loginId: loginIdSchema,
  // Any length up to a sanity bound: an old password that predates today's rules must still log in.
  password: z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") }).max(1024, "must be at most 1024 characters"),
  captchaTokens,
  clientMetaData,
  stateToken: z.string().max(1000).optional().nullable(),
});
export type LoginRequest = z.infer<typeof loginRequest>;

export const changePasswordRequest = z.object({
  newPassword: newPasswordSchema,
  /** The password being replaced; may be left out right after a login (the Wix SDK sends none). */
  currentPassword: z.string({ error: "must be a string" }).max(1024, "must be at most 1024 characters").optional(),
});

export const signOnRequest = z.object({
  loginId: loginIdSchema,
  profile: profileSchema.optional(),
  verifyEmail: z.boolean().optional(),
  mergeExistingContact: z.boolean().optional(),
});
export type SignOnRequest = z.infer<typeof signOnRequest>;

const token = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, "is required")
  .max(512, "must be at most 512 characters");
const code = z
  .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, "is required")
  .max(100, "must be at most 100 characters");

export const verifyCodeRequest = z.object({ code, stateToken: token });

/** POST /v2/{factorType}/verify: the code comes in the factor's data (emailData.code), or at the top level. */
export const factorVerifyRequest = z
  .object({
    stateToken: token,
    code: code.optional(),
    emailData: z.object({ code: code.optional() }).optional(),
    rememberThisDevice: z.boolean().optional(),
  })
  .transform((r, zctx) => {
    const value = r.emailData?.code ?? r.code;
    if (!value) {
      zctx.addIssue({ code: "custom", path: ["emailData", "code"], message: "is required" });
      return z.NEVER;
    }
    return { stateToken: r.stateToken, code: value };
  });

export const startVerificationRequest = z.object({
  identityId: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "is required")
    .max(100),
  target: z.enum(["EMAIL", "AUTH_ONLY"]).default("EMAIL"),
});

export const resendRequest = z.object({ stateToken: token });

const redirect = z
  .object({ url: z.string().trim().max(2048).optional(), clientId: z.string().trim().max(200).optional() })
  .optional()
  .nullable();

export const sendRecoveryEmailRequest = z.object({
  email: emailSchema,
  language: z.string().max(20).optional().nullable(),
  redirect,
});

export const activationEmailRequest = z.object({
  identityId: z
    .string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "is required")
    .max(100),
  emailOptions: z
    .object({ redirect, language: z.string().max(20).optional().nullable() })
    .loose()
    .optional()
    .nullable(),
});

export const recoverRequest = z.object({ recoveryToken: token, password: newPasswordSchema });

export const identitySettingsPatch = z.object({
  requireEmailVerification: z.boolean().optional(),
  requireOwnerApproval: z.boolean().optional(),
  captcha: z.boolean().optional(),
});
export type IdentitySettingsPatch = z.infer<typeof identitySettingsPatch>;

export const identitySettingsRequest = z.object({ settings: identitySettingsPatch });

/**
 * Parses an identity request. A bad login email becomes a field violation with `data: {type: "EMAIL"}` (the SDK's
 * register() reports it as invalidEmail); the error carries an applicationError too (the SDK's login() needs one).
 */
export function parseIdentity<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const violations: FieldViolation[] = violationsFrom(result.error, input).map((v) =>
    v.field === "loginId.email" || v.field === "email" ? { ...v, data: { type: "EMAIL" } } : v,
  );
  throw invalidArgument(violations);
}

/**
 * The SDK's login() reads `details.applicationError.code` unguarded, and its error transform drops applicationError
 * whenever validationError is present (sdk-runtime transform-error.js), so a login answer with field violations makes
 * login() throw a TypeError. Login errors therefore carry the violations inside applicationError.data instead.
 */
export function withoutValidationShape(err: unknown): unknown {
  if (!(err instanceof ApiError) || !err.fieldViolations) return err;
  return new ApiError(err.status, err.code, err.description, {
    message: err.message,
    data: { fieldViolations: err.fieldViolations },
    headers: err.headers,
  });
}
