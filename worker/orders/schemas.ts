import { z } from "zod";
import { addressSchema, contactDetailsSchema } from "#worker/cart";
import { emailSchema } from "#worker/identity";
import { httpUrl } from "#worker/platform/validation";

/** Wire schemas of the checkout and order calls (the Wix ecom REST shapes). Unknown keys are dropped, as the Wix APIs do. */

const text = (max: number) => z.string().trim().max(max);

const contactInfo = z.object({ address: addressSchema.nullable().optional(), contactDetails: contactDetailsSchema.nullable().optional() });

/** PATCH /ecom/v1/checkouts/{id}: the fields a buyer may set. */
export const updateCheckoutRequest = z.object({
  checkout: z
    .object({
      buyerInfo: z.object({ email: emailSchema.nullable().optional() }).nullable().optional(),
      shippingInfo: z
        .object({
          shippingDestination: contactInfo.nullable().optional(),
          selectedCarrierServiceOption: z
            .object({ code: text(200).min(1), carrierId: text(100).nullable().optional() })
            .nullable()
            .optional(),
        })
        .nullable()
        .optional(),
      billingInfo: contactInfo.nullable().optional(),
      buyerNote: text(1000).nullable().optional(),
    })
    .default({}),
});
export type UpdateCheckoutRequest = z.output<typeof updateCheckoutRequest>;

/** A card as the local test provider takes it. */
export const cardSchema = z.object({
  number: z
    .string()
    .trim()
    .transform((s) => s.replace(/[\s-]/g, ""))
    .pipe(z.string().regex(/^\d{12,19}$/, "must be 12 to 19 digits")),
  expiry: z
    .string()
    .trim()
    .regex(/^(0[1-9]|1[0-2])\/(\d{2}|\d{4})$/, 'must be MM/YY, e.g. "12/30"'),
  cvc: z
    .string()
    .trim()
    .regex(/^\d{3,4}$/, "must be 3 or 4 digits"),
});
export type CardInput = z.output<typeof cardSchema>;

/**
 * POST /ecom/v1/checkouts/{id}/create-order. Default payment: OFFLINE. ONLINE: the provider's hosted page (Stripe
 * Checkout), answered as `paymentRedirectUrl`; a card is taken only by the local test provider.
 */
export const createOrderRequest = z.object({
  id: text(100).optional(),
  paymentOption: z.union([z.literal("OFFLINE"), z.literal("ONLINE"), z.object({ card: cardSchema })]).optional(),
});
export type CreateOrderRequest = z.output<typeof createOrderRequest>;

export const searchOrdersRequest = z.object({
  search: z
    .object({
      filter: z.unknown().optional(),
      sort: z.unknown().optional(),
      cursorPaging: z
        .object({ limit: z.number().int().min(0).max(100).nullable().optional(), cursor: text(500).nullable().optional() })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});
export type SearchOrdersRequest = z.output<typeof searchOrdersRequest>;

export const cancelOrderRequest = z.object({
  id: text(100).optional(),
  sendOrderCanceledEmail: z.boolean().nullable().optional(),
  restockAllItems: z.boolean().nullable().optional(),
});

export const fulfillmentRequest = z.object({
  fulfillment: z
    .object({
      lineItems: z
        .array(z.object({ id: text(100).min(1), quantity: z.number().int().min(1).max(9999) }))
        .min(1)
        .max(300)
        .nullable()
        .optional(),
      trackingInfo: z
        .object({
          trackingNumber: text(100).nullable().optional(),
          shippingProvider: text(100).nullable().optional(),
          trackingLink: httpUrl().nullable().optional(),
        })
        .nullable()
        .optional(),
    })
    .optional(),
  lineItems: z
    .array(z.object({ id: text(100).min(1), quantity: z.number().int().min(1).max(9999) }))
    .min(1)
    .max(300)
    .nullable()
    .optional(),
  trackingInfo: z
    .object({
      trackingNumber: text(100).nullable().optional(),
      shippingProvider: text(100).nullable().optional(),
      trackingLink: httpUrl().nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type FulfillmentRequest = z.output<typeof fulfillmentRequest>;

export const refundStatusRequest = z.object({ status: z.enum(["PARTIALLY_REFUNDED", "FULLY_REFUNDED"]) });

/** POST /ecom/v1/orders/{id}/refunds: lines (and how many of each), an amount (decimal string), or neither for everything left. */
export const refundRequest = z.object({
  lineItems: z
    .array(z.object({ lineItemId: text(100).min(1), quantity: z.number().int().min(1).max(9999) }))
    .min(1)
    .max(300)
    .nullable()
    .optional(),
  amount: z
    .union([
      z
        .string()
        .trim()
        .regex(/^\d{1,9}(\.\d{1,3})?$/, "must be an amount, such as 19.99"),
      z.number().positive().max(999_999_999),
    ])
    .nullable()
    .optional(),
  restock: z.boolean().nullable().optional(),
});
export type RefundRequest = z.output<typeof refundRequest>;
