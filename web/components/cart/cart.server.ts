import {
  addToCurrentCart,
  estimateCurrentCart,
  type estimateTotals,
  removeCoupon,
  removeLineItems,
  updateCurrentCart,
  updateLineItemsQuantity,
} from "#worker/cart";
import { addToCartRequest, updateQuantityRequest } from "#worker/cart";
import type { Ctx } from "#worker/platform/context";
import { ApiError, invalidArgument } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { safeReturnTo } from "#web/auth.server";
import { text } from "#web/components/checkout/form.server";
import type { Problem } from "#web/components/ui/form";
import { pageMessage, problemOf } from "#web/components/ui/form.server";
import type { CartView, LineView } from "./view";

/**
 * The cart page's server side: the current cart priced by the server (estimate-totals: catalogue prices, discounts,
 * coupon, shipping and tax for the shopper's country), and the form intents that change it. Everything goes through
 * the cart service, the same functions the API calls.
 */

type Estimate = Awaited<ReturnType<typeof estimateTotals>>;

/**
 * The shopper's cart with its totals, or null when they have none (or are a bot without a session). One D1 round
 * trip, shared with the root loader's cart count (estimateCurrentCart reads the cart and the pricing rules together).
 */
export async function loadCartView(ctx: Ctx): Promise<CartView | null> {
  let est: Estimate;
  try {
    est = await estimateCurrentCart(ctx);
  } catch (err) {
    if (err instanceof ApiError && (err.code === "OWNED_CART_NOT_FOUND" || err.code === "UNAUTHENTICATED")) return null;
    throw err;
  }
  return cartView(est);
}

function descriptionOf(d: unknown): { name: string; value: string } | null {
  const line = d as { name?: { original?: string }; plainText?: { original?: string }; colorInfo?: { original?: string } };
  const name = line.name?.original;
  const value = line.plainText?.original ?? line.colorInfo?.original;
  return name && value ? { name, value } : null;
}

/** The estimate as the page shows it: display strings, per-line warnings with their suggested fix. */
export function cartView(est: Estimate): CartView {
  const { cart } = est;
  const byLine = new Map<string, Violation[]>();
  const general: string[] = [];
  for (const v of est.violations as { severity: string; description: string; suggestedFix?: string; target?: { lineItem?: { id: string } } }[]) {
    const id = v.target?.lineItem?.id;
    if (id) byLine.set(id, [...(byLine.get(id) ?? []), v]);
    else general.push(v.description);
  }
  const lines = cart.lineItems.map((l) => lineView(l, byLine.get(l.id) ?? []));
  const s = est.priceSummary;
  const couponDiscount = est.appliedDiscounts.find((d) => "coupon" in d && d.coupon) as
    | { coupon: { code: string; amount: { formattedAmount: string } } }
    | undefined;
  const couponCode = (cart.appliedDiscounts.find((d) => "coupon" in d) as { coupon: { code: string } } | undefined)?.coupon.code ?? null;
  const couponError = (est.calculationErrors as { couponCalculationError?: { applicationError: { description: string } } }).couponCalculationError;
  const selected = est.shippingInfo.selectedCarrierServiceOption as { title: string; cost: { price: { formattedAmount: string } } } | null;
  const address = (cart as { contactInfo?: { address?: { country?: string; subdivision?: string } } }).contactInfo?.address;
  return {
    id: cart.id,
    count: cart.lineItems.reduce((n, l) => n + l.quantity, 0),
    lines,
    general,
    blocked: lines.some((l) => l.warning?.severity === "error"),
    coupon: couponCode
      ? {
          code: couponCode,
          amount: couponDiscount?.coupon.amount.formattedAmount ?? null,
          problem: couponError?.applicationError.description ?? null,
        }
      : null,
    discounts: est.appliedDiscounts
      .filter((d) => !("coupon" in d && d.coupon))
      .map((d) => {
        const x = d as {
          discountRule?: { name: { original: string }; amount: { formattedAmount: string } };
          merchantDiscount?: { amount: { formattedAmount: string } };
        };
        return { label: x.discountRule?.name.original ?? "Store discount", amount: (x.discountRule ?? x.merchantDiscount)!.amount.formattedAmount };
      }),
    summary: {
      subtotal: s.subtotal.formattedAmount,
      discount: Number(s.discount.amount) > 0 ? s.discount.formattedAmount : null,
      shipping: s.shipping.formattedAmount,
      tax: s.tax.formattedAmount,
      total: s.total.formattedAmount,
    },
    shipping: {
      country: address?.country ?? "",
      subdivision: address?.subdivision ?? "",
      option: selected ? { title: selected.title, price: selected.cost.price.formattedAmount } : null,
      optionCount: est.shippingInfo.carrierServiceOptions.reduce((n, c) => n + c.shippingOptions.length, 0),
    },
  };
}

type Violation = { severity: string; description: string; suggestedFix?: string };

/** One line as the page shows it, with the first of its violations as a warning and that warning's fix. */
function lineView(l: Estimate["cart"]["lineItems"][number], problems: Violation[]): LineView {
  const available = "quantityAvailable" in l.availability ? (l.availability.quantityAvailable as number) : null;
  const warning = problems[0]
    ? {
        severity: problems[0].severity === "ERROR" ? ("error" as const) : ("warning" as const),
        message: problems[0].description,
        // REMOVE_LINE_ITEM is the service's suggested fix; fewer in stock than wanted is fixed by taking what is left.
        fix:
          problems[0].suggestedFix === "REMOVE_LINE_ITEM"
            ? ("remove" as const)
            : l.availability.status === "PARTIALLY_AVAILABLE" && available
              ? ("reduce" as const)
              : null,
      }
    : null;
  return {
    id: l.id,
    name: l.productName.original,
    href: "url" in l && l.url ? (l.url as { relativePath: string }).relativePath : null,
    image:
      "image" in l && l.image ? { url: l.image.url, alt: l.image.altText ?? "", width: l.image.width || 400, height: l.image.height || 400 } : null,
    options: (l.descriptionLines as unknown[]).map(descriptionOf).filter((d): d is { name: string; value: string } => !!d),
    quantity: l.quantity,
    unitPrice: l.price.formattedAmount,
    fullUnitPrice: l.fullPrice.amount !== l.price.amount ? l.fullPrice.formattedAmount : null,
    lineTotal: l.lineItemPrice.formattedAmount,
    status: l.availability.status,
    quantityAvailable: available,
    warning,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Intents

export type CartIntent = "add" | "quantity" | "remove" | "coupon" | "remove-coupon" | "estimate";
export const CART_INTENTS: CartIntent[] = ["add", "quantity", "remove", "coupon", "remove-coupon", "estimate"];

/**
 * Adds what a product form posted: `productId`, the variant as `variantId` or as `option.<Name>=<choice>` fields,
 * and `quantity` (default 1).
 */
export async function addFromForm(ctx: Ctx, form: FormData) {
  const options: Record<string, string> = {};
  for (const [k, v] of form) if (k.startsWith("option.") && typeof v === "string" && v) options[k.slice("option.".length)] = v;
  const variantId = text(form, "variantId");
  const quantityText = text(form, "quantity") || "1";
  const quantity = /^\d{1,5}$/.test(quantityText) ? Number(quantityText) : NaN;
  const catalogReference = {
    catalogItemId: text(form, "productId"),
    ...(variantId ? { options: { variantId } } : Object.keys(options).length ? { options: { options } } : {}),
  };
  if (Number.isNaN(quantity))
    throw invalidArgument([{ field: "lineItems[0].quantity", description: "must be a whole number", violatedRule: "VALIDATION", data: {} }]);
  const req = parseWith(addToCartRequest, { lineItems: [{ catalogReference, quantity }] });
  return addToCurrentCart(ctx, req);
}

/** Sets a line's quantity (0 removes it). */
export async function setQuantity(ctx: Ctx, form: FormData) {
  const q = text(form, "quantity");
  const quantity = /^\d{1,5}$/.test(q) ? Number(q) : NaN;
  if (Number.isNaN(quantity))
    throw invalidArgument([{ field: "lineItems[0].quantity", description: "must be a whole number", violatedRule: "VALIDATION", data: {} }]);
  const req = parseWith(updateQuantityRequest, { lineItems: [{ id: text(form, "lineItemId"), quantity }] });
  return updateLineItemsQuantity(ctx, req.lineItems);
}

export async function removeLine(ctx: Ctx, form: FormData) {
  return removeLineItems(ctx, [text(form, "lineItemId")]);
}

export async function applyCoupon(ctx: Ctx, form: FormData) {
  const code = text(form, "couponCode");
  if (!code) throw invalidArgument([{ field: "couponCode", description: "is required", violatedRule: "REQUIRED_FIELD", data: {} }]);
  if (code.length > 100)
    throw invalidArgument([{ field: "couponCode", description: "must be at most 100 characters", violatedRule: "MAX_LENGTH", data: {} }]);
  return updateCurrentCart(ctx, { couponCode: code });
}

export async function dropCoupon(ctx: Ctx) {
  return removeCoupon(ctx);
}

/** Where shipping and tax are estimated for: the country and region, kept on the cart (checkout starts from them). */
export async function setEstimateAddress(ctx: Ctx, form: FormData) {
  const country = text(form, "country");
  const subdivision = text(form, "subdivision");
  if (!/^[A-Za-z]{2}$/.test(country))
    throw invalidArgument([{ field: "country", description: "must be chosen from the list", violatedRule: "REQUIRED_FIELD", data: {} }]);
  const address = { country: country.toUpperCase(), ...(subdivision ? { subdivision } : {}) };
  return updateCurrentCart(ctx, { cartInfo: { contactInfo: { address } }, cartFieldmask: "contactInfo" });
}

/** Runs one intent; a service error becomes a problem tied to the field (or line) that caused it. */
export async function runCartIntent(ctx: Ctx, intent: string, form: FormData): Promise<{ problem: Problem | null }> {
  try {
    if (intent === "add") await addFromForm(ctx, form);
    else if (intent === "quantity") await setQuantity(ctx, form);
    else if (intent === "remove") await removeLine(ctx, form);
    else if (intent === "coupon") await applyCoupon(ctx, form);
    else if (intent === "remove-coupon") await dropCoupon(ctx);
    else if (intent === "estimate") await setEstimateAddress(ctx, form);
    else return { problem: { message: "This form asked for something the cart cannot do.", fields: {} } };
    return { problem: null };
  } catch (err) {
    return { problem: cartProblem(err, intent) };
  }
}

function cartProblem(err: unknown, intent: string): Problem {
  if (err instanceof ApiError && err.code === "OWNED_CART_NOT_FOUND")
    return { message: "Your cart is empty: add something first.", fields: {}, code: err.code };
  if (intent === "coupon" && err instanceof ApiError && !err.fieldViolations) {
    // The pricing's reasons read well on their own ("There is no coupon X", "The coupon X expired on …").
    return { message: "The coupon was not applied.", fields: { couponCode: pageMessage(err) }, code: err.code };
  }
  const problem = problemOf(err, {
    fieldOf: (path) => {
      if (/quantity$/.test(path)) return { name: "quantity", label: "Quantity" };
      if (path === "couponCode") return { name: "couponCode", label: "Coupon code" };
      if (path === "country") return { name: "country", label: "Country" };
      if (/catalogReference\.options/.test(path)) return { name: "options", label: "The choice" };
      if (/catalogItemId/.test(path)) return { name: "productId", label: "This product" };
      return null;
    },
  });
  // A product page shows one line by its button: the reasons themselves, not "correct the highlighted fields".
  if (intent === "add" && Object.keys(problem.fields).length) problem.message = Object.values(problem.fields).join(" ");
  return problem;
}

/** The same-site path to go back to after adding (with `added=1`), or null. */
export function returnAfterAdd(form: FormData): string | null {
  const back = safeReturnTo(form.get("returnTo"));
  if (!back) return null;
  const url = new URL(back, "https://return.invalid");
  url.searchParams.set("added", "1");
  return url.pathname + url.search + url.hash;
}
