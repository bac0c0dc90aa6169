import { and, eq, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsertIfChanged, type EventEnvelope, type Statement } from "#worker/events";
import { hasPermission, nowIso, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, forbidden, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { toMinor } from "#worker/platform/money";
import { priceCart } from "#worker/pricing";
import { CART_INFO_FIELDS, type AddToCartRequest, type CartInfoInput, type UpdateCartRequest } from "./schemas";
import { CartEventType, cartEventData, cartShape, cleanAddress, type CartShape, type ResolvedLine } from "./shapes";
import { cartLineItems, carts, checkouts, type StoredAddress } from "./tables";
import { addCatalogLines, addCustomLines, type CartDraft, resolveAll } from "./lines";
import { activeCart, cartNotFound, cartOwnerOf, loadCarts, ownerKey, readCurrentCart } from "./load";
import { changeCart } from "./persist";
import { pricingInput } from "./totals";
export {
  cartNotFound,
  type CartOwner,
  cartOwnerOf,
  cartReads,
  type CurrentCartRead,
  type CurrentCartWants,
  loadCarts,
  type Loaded,
  ownerKey,
  type OwnerState,
  pricingReadsFor,
  readCurrentCart,
} from "./load";
export { addCatalogLines, addCustomLines, type CartDraft, draftOf, type LineDraft, newCartRow, nextPosition, resolveAll, resolveLine } from "./lines";
export { cartChangeEvent, cartStatements, hasChanges, stamp, withRetry } from "./persist";
export { type CartTotals, estimateCurrentCart, estimateTotals, totalsFor, type TotalsOptions } from "./totals";
export { createCheckout, createCheckoutFrom } from "./create-checkout";

/**
 * The current cart service: one ACTIVE cart per visitor or member, created on first use. A read is one D1 batch
 * (cart, lines, and the catalogue rows they refer to); a change reads the same way, works out the new cart in
 * memory, and writes it as one batch with its event, checked against the revision it read (a concurrent change
 * makes the batch fail and the change is worked out again).
 */

// ---------------------------------------------------------------------------------------------------------------
// The nine calls

/** GET: the caller's current cart, re-priced from the catalogue. 404 OWNED_CART_NOT_FOUND when there is none. */
export async function getCurrentCart(ctx: Ctx): Promise<{ cart: CartShape }> {
  const owner = cartOwnerOf(ctx);
  const loaded = await loadCarts(ctx, [owner], []);
  const state = loaded.states.get(ownerKey(owner))!;
  if (!state.cart) throw cartNotFound();
  return { cart: cartShape(state.cart, resolveAll(ctx, { ...state, cart: state.cart, products: loaded.products }), ctx.origin) };
}

/**
 * The current cart, or null when the caller has none (for pages that show an empty cart). Read with readCurrentCart,
 * so the page's own loader reading the cart too costs no second round trip.
 */
export async function findCurrentCart(ctx: Ctx): Promise<CartShape | null> {
  const { state, products } = await readCurrentCart(ctx);
  if (!state.cart) return null;
  // Resolving refreshes the lines in place: work on copies, since the read is shared.
  return cartShape(state.cart, resolveAll(ctx, { lines: structuredClone(state.lines), cart: state.cart, products }), ctx.origin);
}

function fieldMaskPaths(mask: UpdateCartRequest["cartFieldmask"]): string[] | null {
  if (mask === undefined) return null;
  const paths = typeof mask === "string" ? mask.split(",") : mask.paths;
  return paths.map((p) => p.trim()).filter(Boolean);
}

/** Writes cartInfo onto the draft: every field given (null clears it), or with a field mask exactly the fields it names. */
function applyCartInfo(draft: CartDraft, info: CartInfoInput, mask: string[] | null, violations: FieldViolation[]): void {
  let fields: readonly string[] = CART_INFO_FIELDS;
  if (mask) {
    const tops = new Set<string>();
    mask.forEach((path, i) => {
      const top = path.replace(/^cartInfo\./, "").split(".")[0];
      if ((CART_INFO_FIELDS as readonly string[]).includes(top)) tops.add(top);
      else
        violations.push({
          field: `cartFieldmask.paths[${i}]`,
          description: `names no writable cart field (${CART_INFO_FIELDS.join(", ")})`,
          violatedRule: "VALIDATION",
          data: {},
        });
    });
    fields = [...tops];
  }
  const has = (f: string) => fields.includes(f) && (mask !== null || (info as Record<string, unknown>)[f] !== undefined);
  const cart = draft.cart;
  if (has("buyerNote")) cart.buyerNote = info.buyerNote ?? null;
  if (has("buyerInfo")) {
    const b = info.buyerInfo ?? {};
    const next = mask ? {} : { ...cart.buyerInfo };
    if (b.email !== undefined) (next as Record<string, unknown>).email = b.email ?? undefined;
    if (b.contactId !== undefined) (next as Record<string, unknown>).contactId = b.contactId ?? undefined;
    cart.buyerInfo = JSON.parse(JSON.stringify(next));
  }
  if (has("contactInfo")) {
    const address = cleanAddress(info.contactInfo?.address as StoredAddress | undefined);
    const contactDetails = info.contactInfo?.contactDetails
      ? Object.fromEntries(Object.entries(info.contactInfo.contactDetails).filter(([, v]) => v !== null && v !== undefined))
      : undefined;
    cart.contactInfo =
      address || (contactDetails && Object.keys(contactDetails).length)
        ? { ...(address ? { address } : {}), ...(contactDetails ? { contactDetails } : {}) }
        : null;
  }
  if (has("selectedShippingOption"))
    cart.selectedShippingOption = info.selectedShippingOption
      ? {
          code: info.selectedShippingOption.code,
          ...(info.selectedShippingOption.carrierId ? { carrierId: info.selectedShippingOption.carrierId } : {}),
        }
      : null;
  if (has("businessLocationId")) cart.businessLocationId = info.businessLocationId ?? null;
  if (has("overrideCheckoutUrl")) cart.overrideCheckoutUrl = info.overrideCheckoutUrl ?? null;
}

/** Custom line items and merchant discounts set prices: only the owner, or staff granted orders.write, may send them. */
function requirePricingFor(ctx: Ctx, field: string): void {
  if (!hasPermission(ctx.auth, "orders.write"))
    throw forbidden(`${field} set prices, so only the store's owner or staff with the orders.write permission may send them`);
}

/** A coupon code the pricing refuses is a clear 400 with its reason (unknown, expired, used up, …). */
async function checkCoupon(ctx: Ctx, draft: CartDraft, resolved: ResolvedLine[]): Promise<void> {
  const code = draft.cart.couponCode;
  if (!code || code === draft.base?.couponCode) return;
  const result = await priceCart(ctx, pricingInput(draft.cart, resolved, {}));
  if (result.couponProblem) {
    throw new ApiError(400, result.couponProblem.code, result.couponProblem.description, {
      data: { couponCode: code },
      message: "Coupon not applied",
    });
  }
}

/** PATCH: cartInfo, couponCode, merchantDiscounts (staff), and line items and custom line items to add. Creates the cart if needed. */
export async function updateCurrentCart(ctx: Ctx, req: UpdateCartRequest): Promise<{ cart: CartShape }> {
  if (req.customLineItems?.length) requirePricingFor(ctx, "customLineItems");
  if (req.merchantDiscounts) requirePricingFor(ctx, "merchantDiscounts");
  const mask = fieldMaskPaths(req.cartFieldmask);
  const cart = await changeCart(ctx, {
    create: true,
    productIds: (req.lineItems ?? []).map((l) => l.catalogReference.catalogItemId),
    apply(draft, violations) {
      if (req.cartInfo) applyCartInfo(draft, req.cartInfo, mask, violations);
      else if (mask?.length)
        violations.push({ field: "cartInfo", description: "is required with cartFieldmask", violatedRule: "REQUIRED_FIELD", data: {} });
      if (req.couponCode !== undefined) draft.cart.couponCode = req.couponCode;
      if (req.lineItems?.length) addCatalogLines(draft, req.lineItems, "lineItems", violations);
      if (req.customLineItems?.length) addCustomLines(draft, req.customLineItems);
      if (req.merchantDiscounts) {
        const ids = new Set(draft.lines.map((l) => l.id));
        draft.cart.merchantDiscounts = req.merchantDiscounts.map((d, i) => {
          (d.lineItemIds ?? []).forEach((id, j) => {
            if (!ids.has(id))
              violations.push({
                field: `merchantDiscounts[${i}].lineItemIds[${j}]`,
                description: "is not a line item of this cart",
                violatedRule: "VALIDATION",
                data: {},
              });
          });
          return {
            ...(d.amount !== undefined ? { amount: toMinor(Number(d.amount), draft.cart.currency) } : {}),
            ...(d.percentage !== undefined ? { percentage: d.percentage } : {}),
            ...(d.lineItemIds?.length ? { lineItemIds: d.lineItemIds } : {}),
          };
        });
      }
    },
    check: (draft, resolved) => checkCoupon(ctx, draft, resolved),
  });
  return { cart };
}

/** POST add-to-cart: adds catalogue line items (merging with the same item already there) and custom line items. */
export async function addToCurrentCart(ctx: Ctx, req: AddToCartRequest): Promise<{ cart: CartShape }> {
  if (!req.lineItems?.length && !req.customLineItems?.length) {
    throw invalidArgument([{ field: "lineItems", description: "must hold at least one line item to add", violatedRule: "REQUIRED_FIELD", data: {} }]);
  }
  if (req.customLineItems?.length) requirePricingFor(ctx, "customLineItems");
  const cart = await changeCart(ctx, {
    create: true,
    productIds: (req.lineItems ?? []).map((l) => l.catalogReference.catalogItemId),
    apply(draft, violations) {
      if (req.lineItems?.length) addCatalogLines(draft, req.lineItems, "lineItems", violations);
      if (req.customLineItems?.length) addCustomLines(draft, req.customLineItems);
      if (req.businessLocationId !== undefined) draft.cart.businessLocationId = req.businessLocationId ?? null;
    },
  });
  return { cart };
}

/** POST remove-line-items. Every id must be a line of the cart. */
export async function removeLineItems(ctx: Ctx, lineItemIds: string[]): Promise<{ cart: CartShape }> {
  const cart = await changeCart(ctx, {
    create: false,
    apply(draft, violations) {
      const ids = new Set(draft.lines.map((l) => l.id));
      lineItemIds.forEach((id, i) => {
        if (!ids.has(id))
          violations.push({
            field: `lineItemIds[${i}]`,
            description: "is not a line item of this cart",
            violatedRule: "VALIDATION",
            data: { lineItemId: id },
          });
      });
      const gone = new Set(lineItemIds);
      draft.lines = draft.lines.filter((l) => !gone.has(l.id));
    },
  });
  return { cart };
}

/** POST update-line-items-quantity: new quantities by line id; 0 removes the line. Raising one is checked against stock. */
export async function updateLineItemsQuantity(ctx: Ctx, items: { id: string; quantity: number }[]): Promise<{ cart: CartShape }> {
  const cart = await changeCart(ctx, {
    create: false,
    apply(draft, violations) {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        const line = draft.lines.find((l) => l.id === item.id);
        if (!line)
          violations.push({
            field: `lineItems[${i}].id`,
            description: "is not a line item of this cart",
            violatedRule: "VALIDATION",
            data: { lineItemId: item.id },
          });
        else if (seen.has(item.id))
          violations.push({
            field: `lineItems[${i}].id`,
            description: "appears more than once",
            violatedRule: "VALIDATION",
            data: { lineItemId: item.id },
          });
        seen.add(item.id);
        if (!line) return;
        if (item.quantity > line.quantity) line.raisedBy = `lineItems[${i}].quantity`;
        line.quantity = item.quantity;
      });
      draft.lines = draft.lines.filter((l) => l.quantity > 0);
    },
  });
  return { cart };
}

/** POST remove-coupon. */
export async function removeCoupon(ctx: Ctx): Promise<{ cart: CartShape }> {
  const cart = await changeCart(ctx, {
    create: false,
    apply(draft) {
      draft.cart.couponCode = null;
    },
  });
  return { cart };
}

/** DELETE: removes the caller's current cart (its lines go with it). 404 when there is none. */
export async function deleteCurrentCart(ctx: Ctx): Promise<Record<string, never>> {
  const owner = cartOwnerOf(ctx);
  const [row] = await ctx.db
    .select({ id: carts.id })
    .from(carts)
    .where(and(eq(carts.ownerKind, owner.kind), eq(carts.ownerId, owner.id), activeCart))
    .limit(1);
  if (!row) throw cartNotFound();
  const event = newEvent(ctx, CartEventType.deleted, row.id, cartEventData("deleted", { id: row.id }));
  // The event is written only if this request deleted the cart (a concurrent delete may have got there first).
  const results = (await commit(
    ctx,
    [
      ctx.db.delete(cartLineItems).where(eq(cartLineItems.cartId, row.id)),
      ctx.db.delete(carts).where(eq(carts.id, row.id)),
      outboxInsertIfChanged(ctx.db, event),
    ],
    [event],
  )) as D1Result[];
  if (!results[1].meta.changes) throw cartNotFound();
  return {};
}

/**
 * For the order flow: the statements that mark a cart COMPLETED once an order is placed from it (put them in the
 * order's batch). The shopper's next add starts a new cart. The event (cart deleted, with the order id) is written
 * only if the cart was still ACTIVE.
 */
export function completeCartStatements(ctx: Ctx, cartId: string, orderId: string): { statements: Statement[]; events: EventEnvelope[] } {
  const now = nowIso();
  const event = newEvent(ctx, CartEventType.deleted, cartId, cartEventData("deleted", { id: cartId }, { completedByOrderId: orderId }));
  return {
    statements: [
      ctx.db
        .update(carts)
        .set({ status: "COMPLETED", updatedDate: now, lastActivity: now, revision: sql`${carts.revision} + 1` })
        .where(and(eq(carts.id, cartId), eq(carts.status, "ACTIVE"))),
      outboxInsertIfChanged(ctx.db, event),
    ],
    events: [event],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reads for other domains' batches (the automations read a cart's state and contact alongside their own rows)

/** A cart's owner, currency and status. */
export function cartSummaryRead(db: Db, cartId: string) {
  return db
    .select({ ownerKind: carts.ownerKind, ownerId: carts.ownerId, currency: carts.currency, status: carts.status })
    .from(carts)
    .where(eq(carts.id, cartId));
}

/** The buyer email given at checkout: of a checkout, or of a cart's current checkout. */
export function checkoutEmailRead(db: Db, of: { checkoutId: string } | { cartId: string }) {
  const email = sql<string | null>`json_extract(${checkouts.buyerInfo}, '$.email')`;
  return "checkoutId" in of
    ? db.select({ email }).from(checkouts).where(eq(checkouts.id, of.checkoutId))
    : db.select({ email }).from(checkouts).where(sql`${checkouts.id} = (SELECT checkout_id FROM carts WHERE id = ${of.cartId})`);
}
