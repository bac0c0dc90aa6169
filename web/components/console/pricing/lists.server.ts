import { additionalFeeService, couponService, discountRuleService, shippingRegionService, taxGroupService } from "#worker/pricing";
import { staffOnly } from "#web/console.server";
import type { AppLoadContext } from "react-router";
import type { AdditionalFee, Coupon, DiscountRule, ShippingRegion, TaxGroup } from "../pricing-items";
import { listPage } from "../pricing.server";
import type { KINDS } from "./lists";

/** The loaders of the pricing lists: each a page of the query the API answers (2 D1 round trips with the session). */

type Service = Parameters<typeof listPage>[0];

/** A staff-only loader of one list: a page of `plural` from the service, the store currency and the notice after an edit. */
function listLoader<T>(kind: keyof typeof KINDS, service: Service, plural: string) {
  return staffOnly(async ({ context, request }: { context: AppLoadContext; request: Request }) => ({
    ...(await listPage<T>(service, context.services, new URL(request.url), plural)),
    kind,
  }));
}

/** Coupon codes shoppers enter on their cart. */
export const couponsLoader = listLoader<Coupon>("coupons", couponService, "coupons");
/** Automatic discounts. */
export const discountsLoader = listLoader<DiscountRule>("discounts", discountRuleService, "discountRules");
/** Shipping regions with their options. */
export const shippingLoader = listLoader<ShippingRegion>("shipping", shippingRegionService, "shippingRegions");
/** Tax groups. */
export const taxGroupsLoader = listLoader<TaxGroup>("taxGroups", taxGroupService, "taxGroups");
/** Handling and insurance fees. */
export const feesLoader = listLoader<AdditionalFee>("fees", additionalFeeService, "additionalFees");
