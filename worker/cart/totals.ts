import type { Ctx } from "#worker/platform/context";
import {
  computePricing,
  estimateTotalsWire,
  priceCart,
  type PricingAddress,
  type PricingConfig,
  type PricingLine,
  type PricingResult,
  type Violation,
} from "#worker/pricing";
import type { EstimateTotalsRequest } from "./schemas";
import { cartShape, type CartRow, type CatalogProduct, type ResolvedLine } from "./shapes";
import type { StoredAddress } from "./tables";
import { resolveAll } from "./lines";
import { cartNotFound, cartOwnerOf, loadCarts, ownerKey, type OwnerState, readCurrentCart } from "./load";

/** A cart's totals: the pricing engine's input from its lines and addresses, and the estimate calls. */

// ---------------------------------------------------------------------------------------------------------------
// Totals

export interface TotalsOptions {
  selectedShippingOption?: { code: string } | null;
  shippingAddress?: StoredAddress | null;
  billingAddress?: StoredAddress | null;
  calculateTax?: boolean | null;
  calculateShipping?: boolean | null;
  calculateAdditionalFees?: boolean | null;
}

function pricingAddress(a: StoredAddress | null | undefined): PricingAddress | null {
  if (!a) return null;
  const out: PricingAddress = {};
  if (a.country) out.country = a.country;
  if (a.subdivision) out.subdivision = a.subdivision;
  if (a.city) out.city = a.city;
  if (a.postalCode) out.postalCode = a.postalCode;
  if (a.addressLine) out.addressLine = a.addressLine;
  return Object.keys(out).length ? out : null;
}

const purchasable = (r: ResolvedLine) => r.status === "AVAILABLE" || r.status === "PARTIALLY_AVAILABLE";

/** The pricing engine's input for a cart: the lines that can be bought, the cart's coupon and discounts, the options given. */
export function pricingInput(cart: CartRow, resolved: ResolvedLine[], opts: TotalsOptions) {
  const lines: PricingLine[] = resolved.filter(purchasable).map((r) => {
    const s = r.row.snapshot;
    const itemType = r.row.custom
      ? ((s.itemType?.preset as PricingLine["itemType"] | undefined) ?? (s.shippable ? "PHYSICAL" : "DIGITAL"))
      : s.productType === "digital"
        ? "DIGITAL"
        : "PHYSICAL";
    return {
      id: r.row.id,
      quantity: r.row.quantity,
      unitPrice: r.row.price,
      fullUnitPrice: r.row.fullPrice,
      weight: s.weight ?? 0,
      itemType,
      catalogItemId: r.row.custom ? null : r.row.catalogItemId,
      collectionIds: r.product?.collectionIds ?? [],
    };
  });
  const shipping = opts.selectedShippingOption ?? cart.selectedShippingOption;
  return {
    lines,
    couponCode: cart.couponCode,
    merchantDiscounts: cart.merchantDiscounts,
    shippingAddress: pricingAddress(opts.shippingAddress ?? cart.contactInfo?.address),
    billingAddress: pricingAddress(opts.billingAddress),
    selectedShippingOption: shipping ? { code: shipping.code } : null,
    ...(opts.calculateTax != null ? { calculateTax: opts.calculateTax } : {}),
    ...(opts.calculateShipping != null ? { calculateShipping: opts.calculateShipping } : {}),
    ...(opts.calculateAdditionalFees != null ? { calculateAdditionalFees: opts.calculateAdditionalFees } : {}),
  };
}

/** Violations for lines that cannot be bought as they are: gone or sold out (ERROR), fewer in stock (WARNING). */
function availabilityViolations(resolved: ResolvedLine[]): Violation[] {
  const out: Violation[] = [];
  for (const r of resolved) {
    const name = r.row.snapshot.productName;
    const target = { lineItem: { id: r.row.id, name: "LINE_ITEM_DEFAULT" as const } };
    if (r.status === "NOT_FOUND")
      out.push({
        severity: "ERROR",
        target,
        description: `${name} is no longer for sale. Remove it to continue.`,
        code: "ITEM_NOT_FOUND",
        suggestedFix: "REMOVE_LINE_ITEM",
      });
    else if (r.status === "NOT_AVAILABLE")
      out.push({
        severity: "ERROR",
        target,
        description: `${name} is out of stock. Remove it to continue.`,
        code: "ITEM_OUT_OF_STOCK",
        suggestedFix: "REMOVE_LINE_ITEM",
      });
    else if (r.status === "PARTIALLY_AVAILABLE")
      out.push({
        severity: "WARNING",
        target,
        description: `Only ${r.quantityAvailable} of ${name} left in stock.`,
        code: "ITEM_PARTIALLY_AVAILABLE",
      });
  }
  return out;
}

export interface CartTotals {
  /** The estimate-totals fields (everything but `cart`), in the wire shape. */
  wire: ReturnType<typeof estimateTotalsWire> & { membershipOptions: Record<string, unknown[]>; violations: Violation[] };
  result: PricingResult;
}

/**
 * The cart's totals: the pricing engine over the lines that can be bought (discount rules, coupon, merchant
 * discounts, shipping, tax, fees), plus violations for the lines that cannot. One D1 round trip (the pricing reads).
 */
export async function totalsFor(
  ctx: Ctx,
  cart: CartRow,
  resolved: ResolvedLine[],
  opts: TotalsOptions = {},
  preloaded?: PricingConfig,
): Promise<CartTotals> {
  // With the pricing rules already read (pricingReads batched with another read), no round trip is needed here.
  const input = pricingInput(cart, resolved, opts);
  const result = preloaded ? computePricing(preloaded, input, ctx.currency) : await priceCart(ctx, input);
  const wire = estimateTotalsWire(result);
  return {
    result,
    wire: {
      ...wire,
      membershipOptions: { eligibleMemberships: [], invalidMemberships: [], selectedMemberships: [] },
      violations: [...availabilityViolations(resolved), ...wire.violations],
    },
  };
}

/** POST estimate-totals: the cart with its price summary, shipping options, discounts, tax and violations. Writes nothing. */
export async function estimateTotals(ctx: Ctx, req: EstimateTotalsRequest) {
  const owner = cartOwnerOf(ctx);
  const loaded = await loadCarts(ctx, [owner], []);
  return estimateOf(ctx, loaded.states.get(ownerKey(owner))!, loaded.products, req);
}

/** estimate-totals with no options, for the cart page: one round trip (the cart and the pricing rules in one batch). */
export async function estimateCurrentCart(ctx: Ctx): Promise<Awaited<ReturnType<typeof estimateTotals>>> {
  const read = await readCurrentCart(ctx, { pricing: true });
  // Resolving refreshes the lines in place: work on copies, since the read is shared.
  return estimateOf(ctx, { ...read.state, lines: structuredClone(read.state.lines) }, read.products, {}, read.pricing ?? undefined);
}

async function estimateOf(ctx: Ctx, state: OwnerState, products: Map<string, CatalogProduct>, req: EstimateTotalsRequest, pricing?: PricingConfig) {
  if (!state.cart) throw cartNotFound();
  const resolved = resolveAll(ctx, { ...state, cart: state.cart, products });
  const totals = await totalsFor(
    ctx,
    state.cart,
    resolved,
    {
      selectedShippingOption: req.selectedShippingOption,
      shippingAddress: req.shippingAddress as StoredAddress | undefined,
      billingAddress: req.billingAddress as StoredAddress | undefined,
      calculateTax: req.calculateTax,
      calculateShipping: req.calculateShipping,
      calculateAdditionalFees: req.calculateAdditionalFees,
    },
    pricing,
  );
  return { cart: cartShape(state.cart, resolved, ctx.origin), ...totals.wire };
}
