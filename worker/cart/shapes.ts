import type { StoredMedia, StoredOption, VariantRow } from "#worker/catalog";
import { formatMoney, toDecimalString } from "#worker/platform/money";
import { STORES_APP_ID } from "./schemas";
import type { CartOwnerKind, carts, cartLineItems, LineSnapshot, StoredAddress } from "./tables";

/**
 * Wire shapes of the current cart: the Wix ecom Cart and LineItem, with ecom money as decimal
 * strings, images as `{id, url, width, height, altText}` objects and page URLs as `{relativePath, url}`.
 */

export type CartRow = typeof carts.$inferSelect;
export type LineRow = typeof cartLineItems.$inferSelect;

/** The catalogue data a cart line needs: a slice of the product row and (some of) its variants. */
export interface CatalogProduct {
  id: string;
  name: string;
  slug: string;
  visible: boolean;
  productType: "physical" | "digital";
  price: number;
  discountType: "NONE" | "AMOUNT" | "PERCENT";
  discountValue: number;
  weight: number | null;
  sku: string | null;
  trackInventory: boolean;
  /** How far below zero tracked stock may go (preorder): 0 without preorder, negative with it. */
  preorderFloor: number;
  collectionIds: string[];
  productOptions: StoredOption[];
  media: StoredMedia[];
  variants: VariantRow[];
}

export type AvailabilityStatus = "AVAILABLE" | "NOT_FOUND" | "NOT_AVAILABLE" | "PARTIALLY_AVAILABLE";

/** A line as the cart shows it now: its stored row, re-read against the catalogue. */
export interface ResolvedLine {
  row: LineRow;
  status: AvailabilityStatus;
  /** Units that can be bought now; null when stock is not tracked (or the line is custom without a limit). */
  quantityAvailable: number | null;
  /** The product (null for custom lines and for products that are gone). */
  product: CatalogProduct | null;
}

/** Ecom money: decimal strings plus their display form (one currency: converted = original). */
export function ecomMoney(minor: number, currency: string) {
  const amount = toDecimalString(minor, currency);
  const formatted = formatMoney(minor, currency);
  return { amount, convertedAmount: amount, formattedAmount: formatted, formattedConvertedAmount: formatted };
}

export type EcomMoney = ReturnType<typeof ecomMoney>;

function absolute(url: string, origin: string): string {
  return url.startsWith("/") ? origin + url : url;
}

/** The image a line shows: the chosen choices' first image, else the product's first image. */
export function lineImage(p: CatalogProduct, choices: Record<string, string>, origin: string): LineSnapshot["image"] {
  const byId = new Map(p.media.map((m) => [m.id, m]));
  const choiceImage = p.productOptions
    .flatMap((o) => o.choices.filter((c) => choices[o.name] === c.description).flatMap((c) => c.mediaIds))
    .map((mid) => byId.get(mid))
    .find((m): m is StoredMedia => !!m && m.mediaType === "image");
  const image = choiceImage ?? p.media.find((m) => m.mediaType === "image");
  if (!image) return null;
  return { id: image.id, url: absolute(image.url, origin), width: image.width, height: image.height, altText: image.altText ?? p.name };
}

/** Description lines for the chosen options, in the product's option order (colour options carry their code). */
export function optionDescriptionLines(p: CatalogProduct, choices: Record<string, string>) {
  return p.productOptions
    .filter((o) => choices[o.name] !== undefined)
    .map((o) => {
      const choice = o.choices.find((c) => c.description === choices[o.name]);
      const value = choices[o.name];
      const name = { original: o.name, translated: o.name };
      return o.optionType === "color"
        ? { name, colorInfo: { original: value, translated: value, code: choice?.value ?? null }, lineItemPart: "CATALOG" }
        : { name, plainText: { original: value, translated: value }, lineItemPart: "CATALOG" };
    });
}

/** A line's page on the storefront. */
export function productUrl(slug: string, origin: string) {
  const relativePath = `/products/${slug}`;
  return { relativePath, url: origin + relativePath };
}

/** One line item in the Wix shape. `price` is the unit price after the catalogue discount. */
export function lineItemShape(line: ResolvedLine, currency: string, origin: string) {
  const { row } = line;
  const s = row.snapshot;
  const availability = { status: line.status, ...(line.quantityAvailable !== null ? { quantityAvailable: line.quantityAvailable } : {}) };
  const prices = {
    price: ecomMoney(row.price, currency),
    fullPrice: ecomMoney(row.fullPrice, currency),
    priceBeforeDiscounts: ecomMoney(row.price, currency),
    lineItemPrice: ecomMoney(row.price * row.quantity, currency),
  };
  const catalogReference = row.catalogItemId
    ? {
        appId: row.appId ?? STORES_APP_ID,
        catalogItemId: row.catalogItemId,
        ...(row.options && Object.keys(row.options).length ? { options: row.options } : {}),
      }
    : undefined;
  const physical = row.custom ? (s.shippable ?? s.itemType?.preset !== "DIGITAL") : s.productType !== "digital";
  return {
    id: row.id,
    quantity: row.quantity,
    ...(catalogReference ? { catalogReference } : {}),
    productName: { original: s.productName, translated: s.productName },
    ...(row.custom ? (s.url ? { url: s.url } : {}) : s.slug ? { url: productUrl(s.slug, origin) } : {}),
    ...prices,
    descriptionLines: s.descriptionLines ?? [],
    ...(s.image ? { image: s.image } : {}),
    availability,
    physicalProperties: { weight: s.weight ?? 0, ...(s.sku ? { sku: s.sku } : {}), shippable: physical },
    itemType: row.custom && s.itemType ? s.itemType : { preset: physical ? "PHYSICAL" : "DIGITAL" },
    paymentOption: s.paymentOption ?? "FULL_PAYMENT_ONLINE",
    ...(s.priceDescription ? { priceDescription: s.priceDescription } : {}),
    ...(row.catalogItemId ? { rootCatalogItemId: row.catalogItemId } : {}),
    customLineItem: row.custom,
    priceUndetermined: false,
    fixedQuantity: false,
    savePaymentMethod: false,
    membersOnly: false,
    policies: [],
    modifierGroups: [],
  };
}

export type LineItemShape = ReturnType<typeof lineItemShape>;

/** buyerInfo: who owns the cart (visitorId or memberId) and the contact details the shopper gave. */
export function buyerInfoShape(row: Pick<CartRow, "ownerKind" | "ownerId" | "buyerInfo">) {
  return {
    ...(row.ownerKind === "member" ? { memberId: row.ownerId } : { visitorId: row.ownerId }),
    ...(row.buyerInfo.contactId ? { contactId: row.buyerInfo.contactId } : {}),
    ...(row.buyerInfo.email ? { email: row.buyerInfo.email } : {}),
  };
}

/** The cart's own discounts: its coupon and merchant discounts (amounts are worked out by estimate-totals). */
function cartDiscounts(row: CartRow) {
  return [
    ...(row.couponCode ? [{ coupon: { code: row.couponCode } }] : []),
    ...row.merchantDiscounts.map((d) => ({
      merchantDiscount: {
        ...(d.amount !== undefined ? { amount: ecomMoney(d.amount, row.currency) } : {}),
        ...(d.percentage !== undefined ? { percentage: d.percentage } : {}),
      },
    })),
  ];
}

/** The cart in the Wix shape. */
export function cartShape(row: CartRow, lines: ResolvedLine[], origin: string) {
  const { currency } = row;
  return {
    id: row.id,
    lineItems: lines.map((l) => lineItemShape(l, currency, origin)),
    ...(row.buyerNote ? { buyerNote: row.buyerNote } : {}),
    buyerInfo: buyerInfoShape(row),
    currency,
    conversionCurrency: currency,
    paymentCurrency: currency,
    buyerLanguage: "en",
    siteLanguage: "en",
    taxIncludedInPrices: false,
    weightUnit: row.weightUnit,
    ...(row.checkoutId ? { checkoutId: row.checkoutId } : {}),
    appliedDiscounts: cartDiscounts(row),
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    ...(row.contactInfo ? { contactInfo: row.contactInfo } : {}),
    ...(row.overrideCheckoutUrl ? { overrideCheckoutUrl: row.overrideCheckoutUrl } : {}),
    purchaseFlowId: row.purchaseFlowId,
    ...(row.selectedShippingOption ? { selectedShippingOption: row.selectedShippingOption } : {}),
    ...(row.businessLocationId ? { businessLocationId: row.businessLocationId } : {}),
    revision: String(row.revision),
  };
}

export type CartShape = ReturnType<typeof cartShape>;

/** Cart event types, as the Wix platform names them (domain events). */
export const CartEventType = {
  created: "wix.ecom.v1.cart_created",
  updated: "wix.ecom.v1.cart_updated",
  deleted: "wix.ecom.v1.cart_deleted",
  checkoutCreated: "wix.ecom.v1.checkout_created",
} as const;

/** Queue messages are at most 128 KB: a large cart's event carries its line items in a short form. */
const MAX_ENTITY_BYTES = 60_000;

function eventEntity(cart: CartShape): Record<string, unknown> {
  if (JSON.stringify(cart).length <= MAX_ENTITY_BYTES) return cart;
  return {
    ...cart,
    lineItems: cart.lineItems.map((l) => ({
      id: l.id,
      quantity: l.quantity,
      ...(l.catalogReference ? { catalogReference: { catalogItemId: l.catalogReference.catalogItemId } } : {}),
      lineItemPrice: { amount: l.lineItemPrice.amount },
    })),
  };
}

/** Domain-event data: `{entityId, entityFqdn, slug, createdEvent | updatedEvent | deletedEvent}`. */
export function cartEventData(kind: "created" | "updated" | "deleted", cart: CartShape | { id: string }, extra: Record<string, unknown> = {}) {
  const base = { entityId: cart.id, entityFqdn: "wix.ecom.v1.cart", slug: kind, ...extra };
  if (kind === "created") return { ...base, createdEvent: { entity: eventEntity(cart as CartShape) } };
  if (kind === "updated") return { ...base, updatedEvent: { currentEntity: eventEntity(cart as CartShape) } };
  return { ...base, deletedEvent: {} };
}

/** Who owns a cart, for the checkout's buyerInfo. */
export function ownerBuyerInfo(kind: CartOwnerKind, id: string, email?: string | null, contactId?: string | null): Record<string, string> {
  return {
    ...(kind === "member" ? { memberId: id } : { visitorId: id }),
    ...(email ? { email } : {}),
    ...(contactId ? { contactId } : {}),
  };
}

/** An address for the wire: only the keys that hold something. */
export function cleanAddress(a: StoredAddress | undefined | null): StoredAddress | undefined {
  if (!a) return undefined;
  const out = Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined && v !== null && v !== "")) as StoredAddress;
  return Object.keys(out).length ? out : undefined;
}
