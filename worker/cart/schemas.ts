import { z } from "zod";
import { emailSchema as email } from "#worker/identity";
import { httpUrl } from "#worker/platform/validation";

/**
 * Wire schemas of the current cart (the REST shapes the Wix SDK sends). Unknown keys are dropped, as
 * the Wix APIs do; wrong types and out-of-range values are field violations.
 */

/** The Wix Stores catalogue's app id: the only catalogue this store serves. */
export const STORES_APP_ID = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

/** Most units of one line item. */
export const MAX_QUANTITY = 9999;
/** Most line items in one cart (Wix's limit). */
export const MAX_LINE_ITEMS = 300;
/** Most line items one add-to-cart call may add (Wix's limit). */
export const MAX_ADDED_PER_CALL = 100;

const text = (max: number) => z.string().trim().max(max);
const id = text(100).min(1);

/** An ecom decimal string ("10", "10.5", "10.50"): at most 9 integer digits and the currency's precision. */
export const decimalString = z
  .string()
  .trim()
  .regex(/^\d{1,9}(\.\d{1,3})?$/, 'must be a decimal number such as "10.50"');

const quantity = z
  .number({ error: (issue) => (issue.input === undefined ? "is required" : "must be a number") })
  .int({ error: "must be a whole number" })
  .min(1, "must be at least 1")
  .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`);

export const catalogReferenceSchema = z.object({
  /** Defaults to Wix Stores, the one catalogue this store has. */
  appId: text(100).optional(),
  catalogItemId: id,
  options: z
    .object({
      variantId: text(100).optional(),
      options: z.record(text(50), text(50)).optional(),
      customTextFields: z.record(text(100), text(500)).optional(),
    })
    .nullable()
    .optional(),
});

export type CatalogReferenceInput = z.output<typeof catalogReferenceSchema>;

export const lineItemInputSchema = z.object({
  catalogReference: catalogReferenceSchema,
  quantity: quantity.default(1),
});

export type LineItemInput = z.output<typeof lineItemInputSchema>;

const translatable = (max: number) =>
  z.object({
    original: text(max).min(1),
    translated: text(max * 2)
      .nullable()
      .optional(),
  });

const descriptionLineSchema = z.object({
  name: translatable(100),
  plainText: translatable(600).optional(),
  colorInfo: z.object({ original: text(500).min(1), translated: text(500).nullable().optional(), code: text(50).nullable().optional() }).optional(),
});

/** An image as REST sends it (the SDK turns its `wix:image://` strings into this), or a plain URL. */
const imageSchema = z.union([
  httpUrl({ sitePath: true }),
  z.object({
    id: text(200).optional(),
    url: httpUrl({ sitePath: true }).optional(),
    width: z.number().int().min(0).max(20_000).optional(),
    height: z.number().int().min(0).max(20_000).optional(),
    altText: text(200).nullable().optional(),
    filename: text(200).nullable().optional(),
  }),
]);

const pageUrlSchema = z.union([
  httpUrl({ sitePath: true }),
  z.object({ relativePath: text(2048).optional(), url: httpUrl({ sitePath: true }).optional() }),
]);

export const ITEM_TYPE_PRESETS = ["PHYSICAL", "DIGITAL", "GIFT_CARD", "SERVICE"] as const;
export const PAYMENT_OPTIONS = ["FULL_PAYMENT_ONLINE", "FULL_PAYMENT_OFFLINE", "MEMBERSHIP", "DEPOSIT_ONLINE", "MEMBERSHIP_OFFLINE"] as const;

/** A custom line item: the caller sets name and price (staff only, see cart.ts). */
export const customLineItemInputSchema = z.object({
  quantity,
  price: decimalString,
  fullPrice: decimalString.nullable().optional(),
  productName: translatable(200),
  descriptionLines: z.array(descriptionLineSchema).max(10).optional(),
  media: imageSchema.optional(),
  url: pageUrlSchema.optional(),
  itemType: z.object({ preset: z.enum(ITEM_TYPE_PRESETS).optional(), custom: text(100).optional() }).optional(),
  physicalProperties: z
    .object({
      weight: z.number().finite().min(0).max(1_000_000).nullable().optional(),
      sku: text(100).nullable().optional(),
      shippable: z.boolean().optional(),
    })
    .optional(),
  paymentOption: z.enum(PAYMENT_OPTIONS).optional(),
  priceDescription: translatable(100).nullable().optional(),
  quantityAvailable: z.number().int().min(0).max(100_000).nullable().optional(),
  catalogReference: catalogReferenceSchema.optional(),
});

export type CustomLineItemInput = z.output<typeof customLineItemInputSchema>;

/** A REST address (the SDK maps its addressLine1/formatted/location onto addressLine/formattedAddress/geocode). */
export const addressSchema = z.object({
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "must be a two-letter ISO-3166 country code")
    .transform((c) => c.toUpperCase())
    .nullable()
    .optional(),
  subdivision: text(50).nullable().optional(),
  city: text(100).nullable().optional(),
  postalCode: text(50).nullable().optional(),
  addressLine: text(200).nullable().optional(),
  addressLine2: text(200).nullable().optional(),
  streetAddress: z.object({ number: text(50).optional(), name: text(200).optional(), apt: text(50).optional() }).optional(),
  formattedAddress: text(500).nullable().optional(),
  geocode: z
    .object({
      latitude: z.number().finite().min(-90).max(90).nullable().optional(),
      longitude: z.number().finite().min(-180).max(180).nullable().optional(),
    })
    .optional(),
  countryFullname: text(100).nullable().optional(),
  subdivisionFullname: text(100).nullable().optional(),
});

export type AddressInput = z.output<typeof addressSchema>;

export const contactDetailsSchema = z.object({
  firstName: text(100).nullable().optional(),
  lastName: text(100).nullable().optional(),
  phone: text(50).nullable().optional(),
  company: text(200).nullable().optional(),
  vatId: z.object({ id: text(50).optional(), type: z.enum(["UNSPECIFIED", "CPF", "CNPJ"]).optional() }).optional(),
});

export const selectedShippingOptionSchema = z.object({ code: text(200).min(1), carrierId: text(100).nullable().optional() });

/** The writable fields of a cart (cartInfo); its read-only fields (id, lineItems, dates, currency…) are ignored. */
export const cartInfoSchema = z.object({
  buyerNote: text(1000).nullable().optional(),
  buyerInfo: z.object({ email: email.nullable().optional(), contactId: text(100).nullable().optional() }).optional(),
  contactInfo: z.object({ address: addressSchema.optional(), contactDetails: contactDetailsSchema.optional() }).nullable().optional(),
  selectedShippingOption: selectedShippingOptionSchema.nullable().optional(),
  businessLocationId: text(100).nullable().optional(),
  overrideCheckoutUrl: httpUrl({ max: 1000, sitePath: true }).nullable().optional(),
});

export type CartInfoInput = z.output<typeof cartInfoSchema>;

export const CART_INFO_FIELDS = [
  "buyerNote",
  "buyerInfo",
  "contactInfo",
  "selectedShippingOption",
  "businessLocationId",
  "overrideCheckoutUrl",
] as const;

/** A merchant discount: an amount or a percentage, off the named lines or (none named) the whole cart. */
export const merchantDiscountSchema = z
  .object({
    amount: decimalString.optional(),
    percentage: z.number().finite().min(0.01).max(100).optional(),
    lineItemIds: z.array(id).max(MAX_LINE_ITEMS).optional(),
  })
  .refine((d) => (d.amount === undefined) !== (d.percentage === undefined), { message: "needs exactly one of amount and percentage" });

/** PATCH /v1/carts/current. `lineItems` and `customLineItems` are added, as in Wix's UpdateCurrentCart. */
export const updateCartRequest = z.object({
  cartInfo: cartInfoSchema.optional(),
  couponCode: text(100).min(1).nullable().optional(),
  merchantDiscounts: z.array(merchantDiscountSchema).max(10).optional(),
  lineItems: z.array(lineItemInputSchema).max(MAX_LINE_ITEMS).optional(),
  customLineItems: z.array(customLineItemInputSchema).max(MAX_LINE_ITEMS).optional(),
  /** Which cartInfo fields to write: "buyerNote,contactInfo" (the SDK's form) or {paths: [...]}. */
  cartFieldmask: z.union([text(1000), z.object({ paths: z.array(text(100)).max(20) })]).optional(),
});

export type UpdateCartRequest = z.output<typeof updateCartRequest>;

export const addToCartRequest = z.object({
  lineItems: z.array(lineItemInputSchema).max(MAX_ADDED_PER_CALL).optional(),
  customLineItems: z.array(customLineItemInputSchema).max(MAX_ADDED_PER_CALL).optional(),
  businessLocationId: text(100).nullable().optional(),
});

export type AddToCartRequest = z.output<typeof addToCartRequest>;

export const removeLineItemsRequest = z.object({
  lineItemIds: z.array(id).min(1).max(MAX_LINE_ITEMS),
});

export const updateQuantityRequest = z.object({
  lineItems: z
    .array(
      z.object({
        id,
        quantity: z
          .number()
          .int({ error: "must be a whole number" })
          .min(0, "must be at least 0 (0 removes the line)")
          .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`),
      }),
    )
    .min(1)
    .max(MAX_LINE_ITEMS),
});

export const CHANNEL_TYPES = [
  "UNSPECIFIED",
  "WEB",
  "POS",
  "EBAY",
  "AMAZON",
  "OTHER_PLATFORM",
  "WIX_APP_STORE",
  "WIX_INVOICES",
  "BACKOFFICE_MERCHANT",
  "WISH",
  "CLASS_PASS",
  "GLOBAL_E",
  "FACEBOOK",
  "ETSY",
  "TIKTOK",
  "FAIRE_COM",
  "PAYPAL_AGENTIC_CHECKOUT",
  "STRIPE_AGENTIC_CHECKOUT",
  "WIX_INVOICES_PLATFORM",
  "UCP_AGENTIC_CHECKOUT",
] as const;

export const createCheckoutRequest = z.object({
  channelType: z.enum(CHANNEL_TYPES).optional(),
  shippingAddress: addressSchema.optional(),
  billingAddress: addressSchema.optional(),
  selectedShippingOption: selectedShippingOptionSchema.optional(),
  email: email.optional(),
});

export type CreateCheckoutRequest = z.output<typeof createCheckoutRequest>;

export const selectedMembershipsSchema = z.object({
  memberships: z
    .array(z.object({ id: id, appId: text(100).min(1), lineItemIds: z.array(id).min(1).max(MAX_LINE_ITEMS) }))
    .max(MAX_LINE_ITEMS)
    .optional(),
});

export const estimateTotalsRequest = z.object({
  selectedShippingOption: selectedShippingOptionSchema.optional(),
  shippingAddress: addressSchema.optional(),
  billingAddress: addressSchema.optional(),
  selectedMemberships: selectedMembershipsSchema.optional(),
  calculateTax: z.boolean().nullable().optional(),
  calculateShipping: z.boolean().nullable().optional(),
  calculateAdditionalFees: z.boolean().nullable().optional(),
});

export type EstimateTotalsRequest = z.output<typeof estimateTotalsRequest>;
