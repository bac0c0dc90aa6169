import { eq, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, type Statement } from "#worker/events";
import { identities } from "#worker/identity";
import { clearAssertions, isAssertionFailure } from "#worker/platform/batch";
import type { Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { inBatchLimitStatements, limitRefusal } from "#worker/platform/rate-limit";
import { checkoutLimits, type ShopperClient } from "./limits";
import type { PricingConfig } from "#worker/pricing";
import type { CreateCheckoutRequest } from "./schemas";
import {
  CartEventType,
  cartEventData,
  cartShape,
  cleanAddress,
  ownerBuyerInfo,
  type CartShape,
  type CatalogProduct,
  type ResolvedLine,
} from "./shapes";
import { checkouts, type CheckoutLine, type StoredAddress } from "./tables";
import { draftOf, resolveAll } from "./lines";
import { cartNotFound, cartOwnerOf, type CurrentCartRead, loadCarts, ownerKey } from "./load";
import { cartStatements, stamp, withRetry } from "./persist";
import { totalsFor } from "./totals";

import type { EventEnvelope } from "#worker/events";
import type { CartRow } from "./shapes";
import type { CartOwner } from "./load";
import type { CartTotals } from "./totals";

/** create-checkout: a checkout made from the current cart, its lines and totals snapshotted. */

// ---------------------------------------------------------------------------------------------------------------
// Checkout

/**
 * POST create-checkout: a checkout holding a snapshot of the cart's lines and totals, the buyer's email and
 * addresses and the shipping option. A cart that already has an open checkout updates it (same id), as Wix does.
 * Refused when the cart is empty or holds items that cannot be bought as they are.
 */
export async function createCheckout(ctx: Ctx, req: CreateCheckoutRequest, client: ShopperClient = {}): Promise<{ checkoutId: string }> {
  const { checkoutId } = await createCheckoutFrom(ctx, req, undefined, client);
  return { checkoutId };
}

/**
 * create-checkout, answering the checkout row as written too. With `preloaded` (a readCurrentCart with pricing and
 * checkout, read earlier in this request), the first attempt works from it and costs one round trip (the write); a
 * retry after a concurrent change reads afresh. A shopper's checkouts count against orders/limits.ts in the write's
 * batch (429 TOO_MANY_REQUESTS over them, with nothing written).
 */
export async function createCheckoutFrom(
  ctx: Ctx,
  req: CreateCheckoutRequest,
  preloaded?: CurrentCartRead,
  client: ShopperClient = {},
): Promise<{
  checkoutId: string;
  row: typeof checkouts.$inferSelect;
  inputs: { products: Map<string, CatalogProduct>; pricing: PricingConfig } | null;
}> {
  const owner = cartOwnerOf(ctx);
  let given = preloaded?.pricing ? preloaded : undefined;
  return withRetry(async () => {
    const memberEmail =
      owner.kind === "member" ? [ctx.db.select({ email: identities.email }).from(identities).where(eq(identities.id, owner.id)).limit(1)] : [];
    const loaded = given
      ? {
          states: new Map([[ownerKey(owner), given.state]]),
          products: given.products,
          extra: [given.memberEmail ? [{ email: given.memberEmail }] : []],
        }
      : await loadCarts(ctx, [owner], [], memberEmail);
    const pricing = given?.pricing ?? undefined;
    given = undefined;
    const state = loaded.states.get(ownerKey(owner))!;
    if (!state.cart) throw cartNotFound();
    const draft = draftOf(ctx, owner, state, loaded.products);
    const resolved = resolveAll(ctx, draft);
    refuseUnavailable(resolved);
    const cart = draft.cart;
    const shippingAddress = cleanAddress((req.shippingAddress as StoredAddress | undefined) ?? cart.contactInfo?.address) ?? null;
    const billingAddress = cleanAddress(req.billingAddress as StoredAddress | undefined) ?? shippingAddress;
    const selectedShippingOption = req.selectedShippingOption ?? cart.selectedShippingOption ?? null;
    const totals = await totalsFor(ctx, cart, resolved, { selectedShippingOption, shippingAddress, billingAddress }, pricing);
    const email = req.email ?? cart.buyerInfo.email ?? (loaded.extra[0] as { email: string }[] | undefined)?.[0]?.email ?? null;

    stamp(draft);
    const checkoutId = cart.checkoutId ?? newId();
    cart.checkoutId = checkoutId;
    const shape = cartShape(cart, resolved, ctx.origin);
    const values = checkoutValues(owner, cart, { req, email, shippingAddress, billingAddress, selectedShippingOption }, resolved, shape, totals);
    const { id: _id, createdDate: _c, ...changes } = values;
    const cartEvent = newEvent(ctx, CartEventType.updated, cart.id, cartEventData("updated", shape));
    const checkoutEvent = checkoutCreatedEvent(ctx, values, shape, totals);
    const limits = checkoutLimits(ctx, client);
    await commit(
      ctx,
      [
        ...(inBatchLimitStatements(ctx.db, limits) as Statement[]),
        ...cartStatements(ctx, draft),
        ctx.db
          .insert(checkouts)
          .values(values)
          .onConflictDoUpdate({ target: checkouts.id, set: changes, setWhere: sql`${checkouts.status} = 'OPEN'` }),
        outboxInsert(ctx.db, cartEvent),
        outboxInsert(ctx.db, checkoutEvent),
        clearAssertions(ctx.db),
      ],
      [cartEvent, checkoutEvent],
    ).catch(async (err) => {
      throw (limits.length && isAssertionFailure(err) ? await limitRefusal(ctx.db, limits).catch(() => null) : null) ?? err;
    });
    // The row as stored (JSON columns as they read back), for a new checkout: one updated in place keeps its createdDate.
    const row = JSON.parse(JSON.stringify(values)) as typeof checkouts.$inferSelect;
    // What it was priced from, when that was the preloaded read (a retry re-read the cart without the rules).
    return { checkoutId, row, inputs: pricing ? { products: loaded.products, pricing } : null };
  });
}

/** Refuses an empty cart, or one holding items that cannot be bought as they are. */
function refuseUnavailable(resolved: ResolvedLine[]): void {
  if (!resolved.length) throw new ApiError(400, "EMPTY_CART", "The cart has no line items to check out", { message: "Cart is empty" });
  const blocked = resolved.filter((r) => r.status !== "AVAILABLE");
  if (blocked.length) {
    const names = blocked.map(
      (r) =>
        `${r.row.snapshot.productName} (${r.status === "PARTIALLY_AVAILABLE" ? `only ${r.quantityAvailable} left` : r.status === "NOT_FOUND" ? "no longer for sale" : "out of stock"})`,
    );
    throw new ApiError(400, "LINE_ITEMS_NOT_AVAILABLE", `These items cannot be bought as they are: ${names.join(", ")}`, {
      data: {
        lineItems: blocked.map((r) => ({
          id: r.row.id,
          productName: r.row.snapshot.productName,
          status: r.status,
          quantityAvailable: r.quantityAvailable ?? 0,
        })),
      },
      message: "Items not available",
    });
  }
}

interface CheckoutGiven {
  req: CreateCheckoutRequest;
  email: string | null;
  shippingAddress: StoredAddress | null;
  billingAddress: StoredAddress | null;
  selectedShippingOption: { code: string; carrierId?: string | null } | null;
}

/** The checkout row a cart makes: its lines and totals snapshotted, with the buyer's email and addresses. */
function checkoutValues(owner: CartOwner, cart: CartRow, given: CheckoutGiven, resolved: ResolvedLine[], shape: CartShape, totals: CartTotals) {
  const { req, email, shippingAddress, billingAddress, selectedShippingOption } = given;
  const checkoutId = cart.checkoutId!;
  const lineItems: CheckoutLine[] = resolved.map((r, i) => ({
    lineItem: shape.lineItems[i],
    catalogItemId: r.row.catalogItemId,
    variantId: r.row.variantId,
    quantity: r.row.quantity,
    price: r.row.price,
    custom: r.row.custom,
  }));
  const now = cart.updatedDate;
  return {
    id: checkoutId,
    cartId: cart.id,
    ownerKind: owner.kind,
    ownerId: owner.id,
    status: "OPEN" as const,
    channelType: req.channelType ?? "WEB",
    currency: cart.currency,
    weightUnit: cart.weightUnit,
    lineItems,
    buyerInfo: ownerBuyerInfo(owner.kind, owner.id, email, cart.buyerInfo.contactId),
    shippingAddress,
    billingAddress,
    contactDetails: cart.contactInfo?.contactDetails ?? null,
    selectedShippingOption: selectedShippingOption
      ? { code: selectedShippingOption.code, ...(selectedShippingOption.carrierId ? { carrierId: selectedShippingOption.carrierId } : {}) }
      : null,
    couponCode: cart.couponCode,
    merchantDiscounts: cart.merchantDiscounts,
    totals: totals.wire as unknown as Record<string, unknown>,
    subtotal: totals.result.priceSummary.subtotal,
    total: totals.result.priceSummary.total,
    purchaseFlowId: cart.purchaseFlowId,
    createdDate: now,
    updatedDate: now,
  };
}

/** The checkout's created event, with the entity as written. */
function checkoutCreatedEvent(ctx: Ctx, values: ReturnType<typeof checkoutValues>, shape: CartShape, totals: CartTotals): EventEnvelope {
  const { id, cartId, buyerInfo, createdDate, updatedDate } = values;
  return newEvent(ctx, CartEventType.checkoutCreated, id, {
    entityId: id,
    entityFqdn: "wix.ecom.v1.checkout",
    slug: "created",
    createdEvent: { entity: { id, cartId, buyerInfo, lineItems: shape.lineItems, priceSummary: totals.wire.priceSummary, createdDate, updatedDate } },
  });
}
