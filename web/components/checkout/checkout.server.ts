import { createCheckoutFrom, readCurrentCart } from "#worker/cart";
import type { ShopperClient } from "#worker/cart";
import { confirmHostedReturn, createOrder, placeOrderFrom, resumeHostedPayment } from "#worker/orders";
import { stripeSettings } from "#worker/payments";
import { isOwner, readCheckout, shapeOfRead, updateCheckout, updateCheckoutFrom, type CheckoutRead } from "#worker/orders";
import { createOrderRequest, updateCheckoutRequest } from "#worker/orders";
import { getOwnIdentity } from "#worker/identity";
import { isMerchant, type Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import type { AddressValues } from "./fields";
import type { Problem } from "#web/components/ui/form";
import { pageMessage, problemOf } from "#web/components/ui/form.server";
import { addressFieldOf, addressFrom, missingAddressFields, text } from "./form.server";
import type { CheckoutView, DeliveryOption, SummaryLine } from "./view";

/**
 * The checkout page's server side. The checkout is made from the shopper's current cart (createCheckout) and its id
 * kept on the cart, so the browser never names it (except a checkout id from a redirect session, shown only to its
 * owner). Each step saves through updateCheckout; placing the order (placeOrderFrom) re-prices and charges.
 *
 * D1 round trips: one batch reads the cart, its checkout, the catalogue rows and the pricing rules (readCurrentCart);
 * a new checkout is one more; placing the order is the order's own batch.
 */

type Checkout = Awaited<ReturnType<typeof shapeOfRead>>;

export type CheckoutState =
  | { kind: "empty" }
  | { kind: "blocked" }
  /** The shopper made more checkouts than the shop allows in a while (orders/limits.ts): try again later. */
  | { kind: "limited"; retryAfterSeconds: number }
  /** `read` is what the checkout was priced from, so the order can be placed without reading it again. */
  | { kind: "ready"; checkout: Checkout; read: CheckoutRead };

async function readOrNull(ctx: Ctx, id: string): Promise<CheckoutRead | null> {
  try {
    return await readCheckout(ctx, id);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 401)) return null;
    throw err;
  }
}

async function ready(ctx: Ctx, read: CheckoutRead): Promise<CheckoutState> {
  return { kind: "ready", checkout: await shapeOfRead(ctx, read), read };
}

/**
 * The open checkout of the shopper's cart: the one the cart already has while the cart has not changed since,
 * else created (or refreshed) from the cart — keeping what the shopper had entered on the old one.
 */
export async function currentCheckout(ctx: Ctx, handedOverId: string | null = null, client: ShopperClient = {}): Promise<CheckoutState> {
  if (ctx.auth.kind !== "visitor" && ctx.auth.kind !== "member") return { kind: "empty" };
  if (handedOverId) {
    // Only the shopper's own: staff may read others' checkouts through the API, never take them over here.
    const handed = await readOrNull(ctx, handedOverId);
    if (handed && handed.row.status !== "COMPLETED" && isOwner(ctx, handed.row)) return ready(ctx, handed);
  }
  const current = await readCurrentCart(ctx, { pricing: true, checkout: true });
  const cart = current.state.cart;
  if (!cart || current.state.lines.length === 0) return { kind: "empty" };
  const found = current.checkout && (isMerchant(ctx.auth) || isOwner(ctx, current.checkout.row)) ? current.checkout : null;
  const existing: CheckoutRead | null = found ? { row: found.row, products: current.products, pricing: found.pricing, orderId: null } : null;
  const open = existing && existing.row.status === "OPEN" ? existing : null;
  if (open && cart.updatedDate <= open.row.updatedDate) return ready(ctx, open);

  let created: Awaited<ReturnType<typeof createCheckoutFrom>>;
  try {
    created = await createCheckoutFrom(ctx, {}, current, client);
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return { kind: "limited", retryAfterSeconds: retryAfterOf(err) };
    if (err instanceof ApiError && err.code === "LINE_ITEMS_NOT_AVAILABLE") return { kind: "blocked" };
    if (err instanceof ApiError && (err.code === "EMPTY_CART" || err.code === "OWNED_CART_NOT_FOUND")) return { kind: "empty" };
    throw err;
  }
  const id = created.checkoutId;
  // Made from this read on the first attempt: priced from what was read, with no read back. A new checkout is the
  // row written; the open one the cart had was updated in place (it keeps its createdDate).
  const inPlace = open?.row.id === id;
  if (created.inputs && (!cart.checkoutId || inPlace)) {
    const read: CheckoutRead = {
      row: { ...created.row, createdDate: inPlace ? open!.row.createdDate : created.row.createdDate },
      products: created.inputs.products,
      pricing: created.inputs.pricing,
      orderId: null,
    };
    return ready(ctx, open ? await carryOver(ctx, read, await shapeOfRead(ctx, open)) : read);
  }
  if (open) await carryOver(ctx, (await readOrNull(ctx, id)) ?? undefined, await shapeOfRead(ctx, open));
  const fresh = await readOrNull(ctx, id);
  return fresh ? ready(ctx, fresh) : { kind: "empty" };
}

/**
 * Puts what the shopper entered on the previous version of the checkout back (the cart changed in between), on the
 * checkout as just read or written: one round trip (two when the old shipping option does not fit the new cart).
 * Answers the checkout as it then stands.
 */
async function carryOver<R extends CheckoutRead | undefined>(ctx: Ctx, read: R, old: Checkout): Promise<R> {
  if (!read) return read;
  const dest = old.shippingInfo.shippingDestination as { address?: Record<string, unknown>; contactDetails?: Record<string, unknown> };
  const billing = old.billingInfo as { address?: Record<string, unknown>; contactDetails?: Record<string, unknown> };
  const email = (old.buyerInfo as { email?: string }).email;
  const base = {
    ...(email ? { buyerInfo: { email } } : {}),
    ...(dest.address || dest.contactDetails ? { shippingInfo: { shippingDestination: dest } } : {}),
    ...(billing.address || billing.contactDetails ? { billingInfo: billing } : {}),
  };
  if (!Object.keys(base).length) return read;
  const code = (old.shippingInfo.selectedCarrierServiceOption as { code?: string } | null)?.code;
  try {
    return (
      await updateCheckoutFrom(
        ctx,
        read,
        parseWith(updateCheckoutRequest, {
          checkout: code ? { ...base, shippingInfo: { ...base.shippingInfo, selectedCarrierServiceOption: { code } } } : base,
        }),
      )
    ).read as R;
  } catch (err) {
    // The old shipping option may not fit the new cart: keep the rest.
    if (!(err instanceof ApiError)) throw err;
    return await updateCheckoutFrom(ctx, read, parseWith(updateCheckoutRequest, { checkout: base }))
      .then((r) => r.read as R)
      .catch(() => read);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The view

function addressValues(info: { address?: Record<string, unknown>; contactDetails?: Record<string, unknown> } | undefined): AddressValues {
  const a = (info?.address ?? {}) as Record<string, string | undefined>;
  const c = (info?.contactDetails ?? {}) as Record<string, string | undefined>;
  return {
    firstName: c.firstName,
    lastName: c.lastName,
    phone: c.phone,
    addressLine: a.addressLine,
    addressLine2: a.addressLine2,
    city: a.city,
    postalCode: a.postalCode,
    country: a.country,
    subdivision: a.subdivision,
  };
}

const sameAddress = (a: AddressValues, b: AddressValues) =>
  (["addressLine", "addressLine2", "city", "postalCode", "country", "subdivision"] as const).every((k) => (a[k] ?? "") === (b[k] ?? ""));

function describe(d: unknown): string | null {
  const line = d as { name?: { original?: string }; plainText?: { original?: string }; colorInfo?: { original?: string } };
  const value = line.plainText?.original ?? line.colorInfo?.original;
  return line.name?.original && value ? `${line.name.original}: ${value}` : null;
}

/** What the page shows of a checkout (display strings; prices as the server worked them out). */
export function checkoutView(c: Checkout, memberPrefill: { email?: string; shipping?: AddressValues } = {}): CheckoutView {
  const dest = c.shippingInfo.shippingDestination as { address?: Record<string, unknown>; contactDetails?: Record<string, unknown> };
  const shipping = addressValues(dest);
  const hasShipping = !!shipping.country;
  const billingInfo = c.billingInfo as { address?: Record<string, unknown>; contactDetails?: Record<string, unknown> };
  const billing = addressValues(billingInfo);
  const selected = c.shippingInfo.selectedCarrierServiceOption as { code: string } | null;
  const options: DeliveryOption[] = c.shippingInfo.carrierServiceOptions.flatMap((carrier) =>
    carrier.shippingOptions.map((o) => {
      const opt = o as {
        code: string;
        title: string;
        logistics: { deliveryTime?: string; instructions?: string; pickupDetails?: { address: Record<string, string> } };
        cost: { price: { formattedAmount: string; amount: string } };
      };
      const pickup = opt.logistics.pickupDetails;
      return {
        code: opt.code,
        title: opt.title,
        kind: pickup ? ("pickup" as const) : ("delivery" as const),
        price: Number(opt.cost.price.amount) === 0 ? "Free" : opt.cost.price.formattedAmount,
        detail: pickup
          ? `Pick up at ${[pickup.address.addressLine, pickup.address.city].filter(Boolean).join(", ")}${opt.logistics.deliveryTime ? ` · ${opt.logistics.deliveryTime}` : ""}`
          : (opt.logistics.deliveryTime ?? opt.logistics.instructions ?? ""),
      };
    }),
  );
  const calculated = new Map(
    (c.calculatedLineItems as { lineItemId: string; pricesBreakdown: { lineItemPrice: { formattedAmount: string } } }[]).map((l) => [
      l.lineItemId,
      l,
    ]),
  );
  const lineProblems = new Map<string, string>();
  for (const v of c.violations as { severity: string; description: string; target?: { lineItem?: { id: string } } }[]) {
    if (v.severity === "ERROR" && v.target?.lineItem?.id) lineProblems.set(v.target.lineItem.id, v.description);
  }
  const lines: SummaryLine[] = c.lineItems.map((l) => ({
    id: l.id,
    name: l.productName.original,
    quantity: l.quantity,
    options: (l.descriptionLines as unknown[]).map(describe).filter((x): x is string => !!x),
    image: "image" in l && l.image ? { url: l.image.url, alt: l.image.altText ?? "" } : null,
    total: calculated.get(l.id)?.pricesBreakdown.lineItemPrice.formattedAmount ?? l.lineItemPrice.formattedAmount,
    problem: lineProblems.get(l.id) ?? null,
  }));
  const s = c.priceSummary;
  const coupon = (c.appliedDiscounts as { coupon?: { code: string } }[]).find((d) => d.coupon)?.coupon?.code ?? null;
  const physical = c.lineItems.some((l) => l.physicalProperties.shippable);
  const email = (c.buyerInfo as { email?: string }).email ?? "";
  return {
    id: c.id,
    email: email || memberPrefill.email || "",
    emailSaved: !!email,
    shipping: hasShipping ? shipping : { ...shipping, ...memberPrefill.shipping },
    shippingSaved: hasShipping,
    billing,
    billingSame: !billingInfo.address || sameAddress(billing, shipping),
    physical,
    options,
    selectedCode: selected?.code ?? null,
    selectedTitle: options.find((o) => o.code === selected?.code)?.title ?? null,
    lines,
    summary: {
      subtotal: s.subtotal.formattedAmount,
      discount: Number(s.discount.amount) > 0 ? s.discount.formattedAmount : null,
      shipping: s.shipping.formattedAmount,
      tax: s.tax.formattedAmount,
      total: s.total.formattedAmount,
    },
    coupon,
  };
}

/** A member's saved email, name and first address, to fill the checkout forms with. */
export async function memberPrefill(ctx: Ctx): Promise<{ email?: string; shipping?: AddressValues }> {
  if (ctx.auth.kind !== "member") return {};
  const { identity } = await getOwnIdentity(ctx);
  const p = identity.identityProfile as {
    firstName?: string;
    lastName?: string;
    phones?: { phone: string }[];
    addresses?: { address: Record<string, string>; tag: string }[];
  };
  const saved = p.addresses?.find((a) => a.tag === "SHIPPING") ?? p.addresses?.[0];
  return {
    email: identity.email.address,
    shipping: {
      ...(saved ? addressValues({ address: saved.address }) : {}),
      firstName: p.firstName,
      lastName: p.lastName,
      phone: p.phones?.[0]?.phone,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The steps

export type Step = "contact" | "delivery" | "payment";

const fail = (message: string, fields: Record<string, string> = {}, code?: string): { problem: Problem } => ({ problem: { message, fields, code } });

function contactFieldOf(path: string): { name: string; label: string } | null {
  if (/buyerInfo\.email$/.test(path)) return { name: "email", label: "Email" };
  if (/shippingDestination/.test(path)) return addressFieldOf(path, "ship");
  if (/billingInfo/.test(path)) return addressFieldOf(path, "bill");
  return null;
}

/** Saves a step: on the checkout this request already read (one round trip, the write), else through updateCheckout. */
async function save(ctx: Ctx, id: string, req: Parameters<typeof updateCheckout>[2], read?: CheckoutRead): Promise<void> {
  if (read) await updateCheckoutFrom(ctx, read, req);
  else await updateCheckout(ctx, id, req);
}

/** Step 1: the buyer's email and the shipping address (the delivery choice is made again for the new address). */
export async function saveContact(ctx: Ctx, id: string, form: FormData, read?: CheckoutRead): Promise<{ problem: Problem | null }> {
  const email = text(form, "email");
  const missing = missingAddressFields(form, "ship");
  if (!email) missing.email = "Email is required.";
  if (Object.keys(missing).length) return fail("Please fill in the highlighted fields.", missing);
  const dest = addressFrom(form, "ship");
  try {
    const req = parseWith(updateCheckoutRequest, {
      checkout: {
        buyerInfo: { email },
        shippingInfo: { shippingDestination: dest, selectedCarrierServiceOption: null },
        // Billing follows the shipping address until the shopper gives another one at payment.
        billingInfo: dest,
      },
    });
    await save(ctx, id, req, read);
    return { problem: null };
  } catch (err) {
    return { problem: problemOf(err, { fieldOf: contactFieldOf }) };
  }
}

/** Step 2: delivery or pickup. */
export async function saveDelivery(ctx: Ctx, id: string, form: FormData, read?: CheckoutRead): Promise<{ problem: Problem | null }> {
  const code = text(form, "shippingOption");
  if (!code) return fail("Please choose how you want to get your order.", { shippingOption: "Choose a delivery or pickup option." });
  try {
    await save(ctx, id, parseWith(updateCheckoutRequest, { checkout: { shippingInfo: { selectedCarrierServiceOption: { code } } } }), read);
    return { problem: null };
  } catch (err) {
    return {
      problem: problemOf(err, { fieldOf: (p) => (/selectedCarrierServiceOption/.test(p) ? { name: "shippingOption", label: "This option" } : null) }),
    };
  }
}

function paymentFieldOf(path: string): { name: string; label: string } | null {
  if (path.endsWith("card.number")) return { name: "cardNumber", label: "Card number" };
  if (path.endsWith("card.expiry")) return { name: "cardExpiry", label: "Expiry date" };
  if (path.endsWith("card.cvc")) return { name: "cardCvc", label: "Security code" };
  return contactFieldOf(path);
}

/** Seconds until a refused shopper may try again (from a 429's data). */
export function retryAfterOf(err: ApiError): number {
  const s = Number((err.data as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds);
  return Number.isFinite(s) && s > 0 ? s : 60;
}

/** "about 12 minutes" / "about a minute": how long to wait, as a shopper reads it. */
export function waitText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return minutes <= 1 ? "about a minute" : `about ${minutes} minutes`;
}

/** Whether card payments go to Stripe's hosted page (Stripe connected): then the page never asks for a card. */
export function hostedPayments(ctx: Ctx): boolean {
  return !!stripeSettings(ctx.env);
}

/** The hosted payment page of the shopper's unpaid online order again (back from it without paying), or null. */
export async function resumePayment(ctx: Ctx, orderId: string): Promise<string | null> {
  try {
    return (await resumeHostedPayment(ctx, orderId)).paymentRedirectUrl ?? null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The shopper back on the confirmation page from the hosted page: when the webhook has not marked the order paid
 * yet, asks Stripe (the same change as the webhook's). Stripe unreachable leaves it to the webhook.
 */
export async function confirmReturn(ctx: Ctx, orderId: string, sessionId: string): Promise<boolean> {
  try {
    return await confirmHostedReturn(ctx, orderId, sessionId);
  } catch (err) {
    if (err instanceof ApiError) return false;
    throw err;
  }
}

/**
 * Step 3: billing address and payment, then the order. Answers the order id (and, paying online, the hosted payment
 * page to send the shopper to), or the problem by its field.
 */
export async function placeOrder(
  ctx: Ctx,
  checkout: CheckoutView,
  form: FormData,
  read?: CheckoutRead,
  client: ShopperClient = {},
): Promise<{ orderId: string | null; redirectUrl?: string | null; problem: Problem | null }> {
  const payment = text(form, "payment");
  const hosted = hostedPayments(ctx);
  const fields: Record<string, string> = {};
  if ((hosted ? payment !== "online" : payment !== "card") && payment !== "offline") fields.payment = "Choose how you want to pay.";
  const billingSame = text(form, "billingSame") !== "no";
  if (!billingSame) Object.assign(fields, missingAddressFields(form, "bill"));
  if (payment === "card") {
    if (!text(form, "cardNumber")) fields.cardNumber = "Card number is required.";
    if (!text(form, "cardExpiry")) fields.cardExpiry = "Expiry date is required.";
    if (!text(form, "cardCvc")) fields.cardCvc = "Security code is required.";
  }
  if (Object.keys(fields).length) return { orderId: null, ...fail("Please fill in the highlighted fields.", fields) };

  try {
    const paymentOption =
      payment === "card"
        ? { card: { number: text(form, "cardNumber"), expiry: text(form, "cardExpiry"), cvc: text(form, "cardCvc") } }
        : payment === "online"
          ? "ONLINE"
          : "OFFLINE";
    // Checked before anything is saved, so a mistyped card changes nothing.
    const orderReq = parseWith(createOrderRequest, { paymentOption });
    const billing = billingSame ? { address: shippingAddressOf(checkout), contactDetails: shippingContactOf(checkout) } : addressFrom(form, "bill");
    const billingReq = parseWith(updateCheckoutRequest, { checkout: { billingInfo: billing } });
    if (!read) {
      await updateCheckout(ctx, checkout.id, billingReq);
      const placed = await createOrder(ctx, checkout.id, orderReq, client);
      return { orderId: placed.orderId, redirectUrl: placed.paymentRedirectUrl ?? null, problem: null };
    }
    try {
      // The billing address is written by the order's batch: one round trip for the whole step.
      const placed = await placeOrderFrom(ctx, read, orderReq, billingReq, client);
      return { orderId: placed.orderId, redirectUrl: placed.paymentRedirectUrl ?? null, problem: null };
    } catch (err) {
      // As when billing was saved first: an order refused (a declined card, sold-out items) keeps the billing given.
      if (err instanceof ApiError) await updateCheckout(ctx, checkout.id, billingReq).catch(() => undefined);
      throw err;
    }
  } catch (err) {
    // The order is placed and its items reserved, but the payment page did not open: the resume page retries it.
    if (err instanceof ApiError && err.code === "PROVIDER_IS_DOWN" && typeof err.data.orderId === "string") {
      return { orderId: err.data.orderId, redirectUrl: null, problem: null };
    }
    return { orderId: null, problem: orderProblem(err, checkout) };
  }
}

function shippingAddressOf(c: CheckoutView) {
  const s = c.shipping;
  return Object.fromEntries(
    Object.entries({
      addressLine: s.addressLine,
      addressLine2: s.addressLine2,
      city: s.city,
      postalCode: s.postalCode,
      country: s.country,
      subdivision: s.subdivision,
    }).filter(([, v]) => v),
  );
}

function shippingContactOf(c: CheckoutView) {
  const s = c.shipping;
  return Object.fromEntries(Object.entries({ firstName: s.firstName, lastName: s.lastName, phone: s.phone }).filter(([, v]) => v));
}

function orderProblem(err: unknown, checkout: CheckoutView): Problem {
  if (err instanceof ApiError) {
    if (err.status === 429) {
      return {
        message: `You have placed several orders in a short time, so the shop is holding back new ones for a while. Nothing was charged. Please try again in ${waitText(retryAfterOf(err))}.`,
        fields: {},
      };
    }
    if (err.code === "PAYMENT_DECLINED") {
      const reason =
        (err.data as { reason?: string }).reason === "insufficient_funds" ? "The card has insufficient funds." : "The card was declined.";
      return {
        message: "Your payment did not go through. Nothing was charged.",
        fields: { cardNumber: `${reason} Try another card or pay offline.` },
        code: err.code,
      };
    }
    if (err.code === "PAYMENT_PROVIDER_NOT_CONFIGURED") {
      return {
        message: "This shop cannot take card payments at the moment. Please choose to pay offline.",
        fields: { payment: err.description },
        code: err.code,
      };
    }
    if (err.code === "LINE_ITEMS_NOT_AVAILABLE") {
      const items = (
        (err.data as { lineItems?: { id: string; productName: string; status: string; quantityAvailable: number }[] }).lineItems ?? []
      ).map((l) =>
        l.status === "PARTIALLY_AVAILABLE"
          ? `Only ${l.quantityAvailable} of ${l.productName} left.`
          : `${l.productName} is ${l.status === "NOT_FOUND" ? "no longer for sale" : "out of stock"}.`,
      );
      return {
        message: `Some items sold out while you were checking out: ${items.join(" ")} Update your cart to continue.`,
        fields: {},
        code: err.code,
      };
    }
    if (err.code.startsWith("COUPON_")) return { message: pageMessage(err), fields: {}, code: err.code };
  }
  return problemOf(err, {
    fieldOf: (path) => {
      const f = paymentFieldOf(path);
      if (f) return f;
      if (/shippingDestination\.address$/.test(path)) return { name: "ship.country", label: checkout.physical ? "A shipping address" : "Country" };
      return null;
    },
  });
}
