import { and, eq, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, type EventEnvelope, type Statement } from "#worker/events";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure, isUniqueViolation } from "#worker/platform/batch";
import { nowIso, type Ctx } from "#worker/platform/context";
import { invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { MAX_LINE_ITEMS } from "./schemas";
import { CartEventType, cartEventData, cartShape, type CartShape, type ResolvedLine } from "./shapes";
import { cartLineItems, carts } from "./tables";
import { type CartDraft, checkRaisedStock, draftOf, resolveAll } from "./lines";
import { cartNotFound, cartOwnerOf, loadCarts, ownerKey } from "./load";

/** Writing a changed cart: its statements and event, checked against the revision read, retried on a concurrent change. */

// ---------------------------------------------------------------------------------------------------------------
// Writing

const cartFields = [
  "buyerInfo",
  "contactInfo",
  "buyerNote",
  "selectedShippingOption",
  "businessLocationId",
  "overrideCheckoutUrl",
  "couponCode",
  "merchantDiscounts",
  "checkoutId",
] as const;

/** Whether the draft differs from what was read in anything the shopper changed (a refreshed snapshot alone is not a change). */
export function hasChanges(draft: CartDraft): boolean {
  if (!draft.base) return true;
  const base = draft.base;
  if (cartFields.some((f) => JSON.stringify(base[f] ?? null) !== JSON.stringify(draft.cart[f] ?? null))) return true;
  if (removedLineIds(draft).length) return true;
  return draft.lines.some((l) => !l.stored || !!l.movedFromCartId || l.stored.quantity !== l.quantity || l.stored.position !== l.position);
}

/** Lines the draft dropped, by id. */
function removedLineIds(draft: CartDraft): string[] {
  const kept = new Set(draft.lines.map((l) => l.id));
  return draft.storedLines.filter((l) => !kept.has(l.id)).map((l) => l.id);
}

/** Stamps the draft as a new revision: updatedDate, lastActivity and revision. */
export function stamp(draft: CartDraft, now = nowIso()): void {
  draft.cart.updatedDate = now;
  draft.cart.lastActivity = now;
  if (draft.base) draft.cart.revision = draft.base.revision + 1;
}

/**
 * The statements that write a draft: the cart row (inserted, or updated only if it is still the revision read),
 * removed, changed and new lines. End the batch with clearAssertions.
 */
export function cartStatements(ctx: Ctx, draft: CartDraft): Statement[] {
  const db = ctx.db;
  const out: Statement[] = [];
  const { cart } = draft;
  if (!draft.base) {
    out.push(db.insert(carts).values(cart));
  } else {
    const { id: _id, ownerKind: _k, ownerId: _o, createdDate: _c, purchaseFlowId: _p, currency: _cur, ...fields } = cart;
    out.push(
      db
        .update(carts)
        .set(fields)
        .where(and(eq(carts.id, cart.id), eq(carts.revision, draft.base.revision), eq(carts.status, "ACTIVE"))),
      assertPreviousChanged(db),
    );
  }
  const removed = removedLineIds(draft);
  if (removed.length) {
    out.push(
      db
        .delete(cartLineItems)
        .where(and(eq(cartLineItems.cartId, cart.id), sql`${cartLineItems.id} IN (SELECT value FROM json_each(${JSON.stringify(removed)}))`)),
    );
  }
  for (const l of draft.lines) {
    const { stored, movedFromCartId, raisedBy: _r, ...row } = l;
    if (!stored) {
      out.push(db.insert(cartLineItems).values(row));
    } else if (movedFromCartId) {
      out.push(
        db
          .update(cartLineItems)
          .set({
            cartId: cart.id,
            position: row.position,
            quantity: row.quantity,
            price: row.price,
            fullPrice: row.fullPrice,
            snapshot: row.snapshot,
          })
          .where(and(eq(cartLineItems.id, row.id), eq(cartLineItems.cartId, movedFromCartId))),
        assertPreviousChanged(db),
      );
    } else if (
      stored.quantity !== row.quantity ||
      stored.position !== row.position ||
      stored.price !== row.price ||
      stored.fullPrice !== row.fullPrice ||
      JSON.stringify(stored.snapshot) !== JSON.stringify(row.snapshot)
    ) {
      out.push(
        db
          .update(cartLineItems)
          .set({ position: row.position, quantity: row.quantity, price: row.price, fullPrice: row.fullPrice, snapshot: row.snapshot })
          .where(and(eq(cartLineItems.id, row.id), eq(cartLineItems.cartId, cart.id))),
      );
    }
  }
  return out;
}

/** cart_created for a new cart, cart_updated otherwise. */
export function cartChangeEvent(ctx: Ctx, draft: CartDraft, shape: CartShape): EventEnvelope {
  return draft.base
    ? newEvent(ctx, CartEventType.updated, shape.id, cartEventData("updated", shape))
    : newEvent(ctx, CartEventType.created, shape.id, cartEventData("created", shape));
}

/** Runs a read-change-write, again (up to three times) when a concurrent change got there first. */
export async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const raced = isAssertionFailure(err) || isUniqueViolation(err, "carts.owner") || isUniqueViolation(err, "cart_line_items.");
      if (!raced) throw err;
      if (attempt >= 2) throw conflict("The cart");
    }
  }
}

interface ChangeOptions {
  /** Whether the change may create the cart (adding items does; removing them does not). */
  create: boolean;
  /** Catalogue items the change adds (read in the same batch). */
  productIds?: string[];
  /** Works out the change on the draft; throws ApiError for bad input (nothing is written). */
  apply: (draft: CartDraft, violations: FieldViolation[]) => void;
  /** Runs after the stock check, before writing (e.g. coupon validation). */
  check?: (draft: CartDraft, resolved: ResolvedLine[]) => Promise<void>;
}

/** Changes the caller's cart: read, apply, validate, write with its event. Returns the cart as written. */
export async function changeCart(ctx: Ctx, opts: ChangeOptions): Promise<CartShape> {
  const owner = cartOwnerOf(ctx);
  return withRetry(async () => {
    const loaded = await loadCarts(ctx, [owner], opts.productIds ?? []);
    const state = loaded.states.get(ownerKey(owner))!;
    if (!state.cart && !opts.create) throw cartNotFound();
    const draft = draftOf(ctx, owner, state, loaded.products);
    const violations: FieldViolation[] = [];
    opts.apply(draft, violations);
    if (violations.length) throw invalidArgument(violations);
    if (draft.lines.length > MAX_LINE_ITEMS) {
      throw invalidArgument([
        {
          field: "lineItems",
          description: `would give the cart ${draft.lines.length} line items; at most ${MAX_LINE_ITEMS}`,
          violatedRule: "MAX_SIZE",
          data: { max: MAX_LINE_ITEMS },
        },
      ]);
    }
    const resolved = resolveAll(ctx, draft);
    checkRaisedStock(resolved, violations);
    if (violations.length) throw invalidArgument(violations);
    if (opts.check) await opts.check(draft, resolved);
    if (!hasChanges(draft)) return cartShape(draft.cart, resolved, ctx.origin);
    stamp(draft);
    const shape = cartShape(draft.cart, resolved, ctx.origin);
    const event = cartChangeEvent(ctx, draft, shape);
    await commit(ctx, [...cartStatements(ctx, draft), outboxInsert(ctx.db, event), clearAssertions(ctx.db)], [event]);
    return shape;
  });
}
