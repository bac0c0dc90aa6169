import { discountedPrice } from "#worker/catalog";
import { matching, type VariantRow } from "#worker/catalog";
import { nowIso, type Ctx } from "#worker/platform/context";
import type { FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { toMinor } from "#worker/platform/money";
import { MAX_QUANTITY, STORES_APP_ID, type CustomLineItemInput, type LineItemInput } from "./schemas";
import { lineImage, optionDescriptionLines, type CartRow, type CatalogProduct, type LineRow, type ResolvedLine } from "./shapes";
import type { LineSnapshot } from "./tables";
import { type CartOwner, type OwnerState, UNLIMITED_PREORDER } from "./load";

/** A cart worked on in memory: its draft, its lines resolved against the catalogue, and lines added to it. */

// ---------------------------------------------------------------------------------------------------------------
// Drafts: the cart worked out in memory before it is written

export interface LineDraft extends LineRow {
  /** The row as read (null for a new line). */
  stored: LineRow | null;
  /** Set when the line moves here from another cart (the member merge). */
  movedFromCartId?: string;
  /** The request field that raised this line's quantity (stock is checked for raised lines only). */
  raisedBy?: string;
}

export interface CartDraft {
  owner: CartOwner;
  /** The cart as read (null: this change creates it). */
  base: CartRow | null;
  cart: CartRow;
  lines: LineDraft[];
  /** The cart's lines as read. */
  storedLines: LineRow[];
  products: Map<string, CatalogProduct>;
}

/** A new, empty cart row for an owner. */
export function newCartRow(ctx: Ctx, owner: CartOwner, now = nowIso()): CartRow {
  return {
    id: newId(),
    ownerKind: owner.kind,
    ownerId: owner.id,
    status: "ACTIVE",
    currency: ctx.currency,
    weightUnit: "KG",
    buyerInfo: {},
    contactInfo: null,
    buyerNote: null,
    selectedShippingOption: null,
    businessLocationId: null,
    overrideCheckoutUrl: null,
    couponCode: null,
    merchantDiscounts: [],
    checkoutId: null,
    purchaseFlowId: newId(),
    revision: 1,
    createdDate: now,
    updatedDate: now,
    lastActivity: now,
    abandonChecked: null,
  };
}

export function draftOf(ctx: Ctx, owner: CartOwner, state: OwnerState, productMap: Map<string, CatalogProduct>): CartDraft {
  const cart = state.cart ? structuredClone(state.cart) : newCartRow(ctx, owner);
  return {
    owner,
    base: state.cart,
    cart,
    lines: state.lines.map((l) => ({ ...structuredClone(l), stored: l })),
    storedLines: state.lines,
    products: productMap,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Catalogue lines: resolving references, re-reading prices and stock

/** A catalogue product's variant the shopper may buy: both visible. */
function liveVariant(p: CatalogProduct | undefined, variantId: string | null): { p: CatalogProduct; v: VariantRow } | null {
  if (!p?.visible || !variantId) return null;
  const v = p.variants.find((x) => x.id === variantId);
  return v?.visible ? { p, v } : null;
}

function stockOf(p: CatalogProduct, v: VariantRow, quantity: number): { status: ResolvedLine["status"]; quantityAvailable: number | null } {
  if (p.trackInventory) {
    const q = Math.max(0, (v.quantity ?? 0) - p.preorderFloor);
    const status = q === 0 ? "NOT_AVAILABLE" : q < quantity ? "PARTIALLY_AVAILABLE" : "AVAILABLE";
    return { status, quantityAvailable: -p.preorderFloor >= UNLIMITED_PREORDER ? null : q };
  }
  return v.inStock ? { status: "AVAILABLE", quantityAvailable: null } : { status: "NOT_AVAILABLE", quantityAvailable: 0 };
}

function catalogSnapshot(p: CatalogProduct, v: VariantRow, origin: string): LineSnapshot {
  return {
    productName: p.name,
    slug: p.slug,
    productType: p.productType,
    image: lineImage(p, v.choices, origin),
    weight: v.weight ?? p.weight ?? 0,
    sku: v.sku ?? p.sku ?? null,
    descriptionLines: optionDescriptionLines(p, v.choices),
  };
}

/**
 * Re-reads a line against the catalogue: live price, name, image and stock when the item can still be bought;
 * otherwise NOT_FOUND with what the shopper last saw. The line's price and snapshot are refreshed in place.
 */
export function resolveLine(line: LineRow, productMap: Map<string, CatalogProduct>, currency: string, origin: string): ResolvedLine {
  if (line.custom) {
    const limit = line.snapshot.quantityAvailable ?? null;
    const status = limit === null || limit >= line.quantity ? "AVAILABLE" : limit === 0 ? "NOT_AVAILABLE" : "PARTIALLY_AVAILABLE";
    return { row: line, status, quantityAvailable: limit, product: null };
  }
  const live = liveVariant(productMap.get(line.catalogItemId ?? ""), line.variantId);
  if (!live) return { row: line, status: "NOT_FOUND", quantityAvailable: 0, product: null };
  const { p, v } = live;
  const base = v.price ?? p.price;
  line.fullPrice = base;
  line.price = discountedPrice(base, p.discountType, p.discountValue, currency);
  line.snapshot = catalogSnapshot(p, v, origin);
  return { row: line, ...stockOf(p, v, line.quantity), product: p };
}

export function resolveAll(ctx: Ctx, draft: { lines: LineRow[]; products: Map<string, CatalogProduct>; cart: CartRow }): ResolvedLine[] {
  return draft.lines.map((l) => resolveLine(l, draft.products, draft.cart.currency, ctx.origin));
}

/** The variant a catalogue reference names (by variantId, or by its choices), or violations saying why not. */
function resolveReference(
  input: LineItemInput,
  p: CatalogProduct | undefined,
  field: string,
  violations: FieldViolation[],
): { variant: VariantRow; product: CatalogProduct } | null {
  const ref = input.catalogReference;
  const bad = (f: string, description: string, rule: FieldViolation["violatedRule"] = "VALIDATION", data: Record<string, unknown> = {}) =>
    violations.push({ field: `${field}.catalogReference${f}`, description, violatedRule: rule, data });
  if (ref.appId !== undefined && ref.appId !== STORES_APP_ID) {
    bad(".appId", `is not a catalogue of this store (Wix Stores is ${STORES_APP_ID})`, "VALIDATION", { appId: ref.appId });
    return null;
  }
  if (!p?.visible) {
    bad(".catalogItemId", "is not a product of this store", "VALIDATION", { catalogItemId: ref.catalogItemId });
    return null;
  }
  const opts = ref.options ?? {};
  if (opts.customTextFields && Object.keys(opts.customTextFields).length) {
    bad(".options.customTextFields", "are not offered by this product");
    return null;
  }
  if (opts.variantId) {
    const v = p.variants.find((x) => x.id === opts.variantId && x.visible);
    if (!v) bad(".options.variantId", "is not a variant of this product", "VALIDATION", { variantId: opts.variantId });
    return v ? { variant: v, product: p } : null;
  }
  const selection = opts.options ?? {};
  if (p.productOptions.length === 0) {
    if (Object.keys(selection).length) {
      bad(".options.options", "name options, but this product has none");
      return null;
    }
    const v = p.variants.find((x) => x.visible);
    if (!v) bad(".catalogItemId", "is not for sale", "VALIDATION", { catalogItemId: ref.catalogItemId });
    return v ? { variant: v, product: p } : null;
  }
  let ok = true;
  for (const [name, choice] of Object.entries(selection)) {
    const option = p.productOptions.find((o) => o.name === name);
    if (!option) {
      bad(`.options.options.${name}`, "is not an option of this product");
      ok = false;
    } else if (!option.choices.some((c) => c.description === choice && c.visible)) {
      bad(`.options.options.${name}`, `has no choice "${choice}"`);
      ok = false;
    }
  }
  const missing = p.productOptions.filter((o) => selection[o.name] === undefined).map((o) => o.name);
  if (missing.length) {
    bad(".options", `must choose ${missing.join(" and ")} (options.options), or give options.variantId`, "REQUIRED_FIELD", {
      missingOptions: missing,
    });
    ok = false;
  }
  if (!ok) return null;
  const v = matching(p.variants, selection).find((x) => x.visible);
  if (!v) bad(".options.options", "is a combination this product does not sell");
  return v ? { variant: v, product: p } : null;
}

export function nextPosition(draft: CartDraft): number {
  return draft.lines.reduce((n, l) => Math.max(n, l.position + 1), 0);
}

/** Adds catalogue line items: an item already in the cart (same product and variant) gets the quantities added. */
export function addCatalogLines(draft: CartDraft, inputs: LineItemInput[], field: string, violations: FieldViolation[]): void {
  const now = nowIso();
  inputs.forEach((input, i) => {
    const at = `${field}[${i}]`;
    const found = resolveReference(input, draft.products.get(input.catalogReference.catalogItemId), at, violations);
    if (!found) return;
    const { product, variant } = found;
    const itemKey = `${product.id}:${variant.id}`;
    const existing = draft.lines.find((l) => l.itemKey === itemKey);
    if (existing) {
      const total = existing.quantity + input.quantity;
      if (total > MAX_QUANTITY) {
        violations.push({
          field: `${at}.quantity`,
          description: `would make ${total} of this item in the cart; at most ${MAX_QUANTITY}`,
          violatedRule: "MAX",
          data: { quantityInCart: existing.quantity, max: MAX_QUANTITY },
        });
        return;
      }
      existing.quantity = total;
      existing.raisedBy = `${at}.quantity`;
      return;
    }
    const options = input.catalogReference.options ?? null;
    // The resolved variant is part of the reference the cart shows (the shopper may have named choices instead).
    const shownOptions = product.productOptions.length
      ? { ...(options ?? {}), variantId: variant.id }
      : options && Object.keys(options).length
        ? options
        : null;
    draft.lines.push({
      id: newId(),
      cartId: draft.cart.id,
      position: nextPosition(draft),
      itemKey,
      appId: STORES_APP_ID,
      catalogItemId: product.id,
      variantId: variant.id,
      options: shownOptions,
      quantity: input.quantity,
      custom: false,
      price: 0,
      fullPrice: 0,
      snapshot: { productName: product.name },
      addedDate: now,
      stored: null,
      raisedBy: `${at}.quantity`,
    });
  });
}

/** Adds custom line items (the caller sets name and price; merchants only). They never merge. */
export function addCustomLines(draft: CartDraft, inputs: CustomLineItemInput[]): void {
  const now = nowIso();
  const currency = draft.cart.currency;
  for (const c of inputs) {
    const media = typeof c.media === "string" ? { url: c.media } : c.media;
    const url = typeof c.url === "string" ? { relativePath: safePath(c.url), url: c.url } : c.url;
    const preset = c.itemType?.preset ?? (c.itemType?.custom ? undefined : "PHYSICAL");
    draft.lines.push({
      id: newId(),
      cartId: draft.cart.id,
      position: nextPosition(draft),
      itemKey: null,
      appId: c.catalogReference?.appId ?? null,
      catalogItemId: c.catalogReference?.catalogItemId ?? null,
      variantId: c.catalogReference?.options?.variantId ?? null,
      options: c.catalogReference?.options ?? null,
      quantity: c.quantity,
      custom: true,
      price: toMinor(Number(c.price), currency),
      fullPrice: toMinor(Number(c.fullPrice ?? c.price), currency),
      snapshot: {
        productName: c.productName.original,
        descriptionLines: (c.descriptionLines ?? []).map((d) => ({ ...d, lineItemPart: "CATALOG" })),
        image: media?.url
          ? { id: media.id ?? "", url: media.url, width: media.width ?? 0, height: media.height ?? 0, altText: media.altText ?? null }
          : null,
        url: url?.url ? { relativePath: url.relativePath ?? safePath(url.url), url: url.url } : null,
        itemType: preset ? { preset } : { custom: c.itemType!.custom! },
        weight: c.physicalProperties?.weight ?? 0,
        sku: c.physicalProperties?.sku ?? null,
        shippable: c.physicalProperties?.shippable ?? preset === "PHYSICAL",
        paymentOption: c.paymentOption ?? "FULL_PAYMENT_ONLINE",
        priceDescription: c.priceDescription ?? null,
        quantityAvailable: c.quantityAvailable ?? null,
      },
      addedDate: now,
      stored: null,
    });
  }
}

function safePath(url: string): string {
  try {
    return new URL(url, "https://x.invalid").pathname;
  } catch {
    return "/";
  }
}

/** Stock check for the lines this change raised: at most what is in stock, and nothing that is sold out or gone. */
export function checkRaisedStock(resolved: ResolvedLine[], violations: FieldViolation[]): void {
  for (const r of resolved) {
    const line = r.row as LineDraft;
    if (!line.raisedBy) continue;
    const data = { lineItemId: line.id, quantityAvailable: r.quantityAvailable ?? 0 };
    if (r.status === "NOT_FOUND")
      violations.push({ field: line.raisedBy, description: "is for an item that is no longer for sale", violatedRule: "VALIDATION", data });
    else if (r.status === "NOT_AVAILABLE")
      violations.push({
        field: line.raisedBy,
        description: `is for ${line.snapshot.productName}, which is out of stock`,
        violatedRule: "VALIDATION",
        data,
      });
    else if (r.status === "PARTIALLY_AVAILABLE")
      violations.push({
        field: line.raisedBy,
        description: `is more than the ${r.quantityAvailable} of ${line.snapshot.productName} in stock`,
        violatedRule: "MAX",
        data,
      });
  }
}
