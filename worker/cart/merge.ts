import { and, eq, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, type Statement } from "#worker/events";
import { assertPreviousChanged, clearAssertions } from "#worker/platform/batch";
import { nowIso, type Ctx } from "#worker/platform/context";
import { MAX_QUANTITY } from "./schemas";
import { cartChangeEvent, cartStatements, draftOf, loadCarts, nextPosition, ownerKey, resolveAll, stamp, withRetry, type CartOwner } from "./cart";
import { CartEventType, cartEventData, cartShape } from "./shapes";
import { cartLineItems, carts } from "./tables";

/**
 * Login merges the visitor's cart into the member's: the identity part calls `mergeVisitorCart` wherever it issues
 * member tokens for a browser that was a visitor (authorization_code and authorized_client grants).
 */

export interface MergeResult {
  /** The member's current cart after the merge (null when neither had one). */
  cartId: string | null;
  /** Visitor line items moved or combined into the member's cart. */
  merged: number;
}

/**
 * Moves the visitor's ACTIVE cart into the member's ACTIVE cart (created if the member has none): the same item
 * in both gets the quantities added (up to the per-line limit), other lines move over with their ids, and cart
 * details the member's cart lacks (contact, coupon, note…) come along. The visitor's cart is CLOSED. One D1 batch
 * with the events (member cart created or updated, visitor cart deleted). A failure is logged and never fails the
 * login: the visitor's cart then stays as it was.
 */
export async function mergeVisitorCart(ctx: Ctx, visitorId: string, identityId: string): Promise<MergeResult> {
  try {
    return await withRetry(() => mergeOnce(ctx, visitorId, identityId));
  } catch (err) {
    console.error("cart merge at login failed; the visitor's cart stays as it is", err);
    return { cartId: null, merged: 0 };
  }
}

async function mergeOnce(ctx: Ctx, visitorId: string, identityId: string): Promise<MergeResult> {
  const visitor: CartOwner = { kind: "visitor", id: visitorId };
  const member: CartOwner = { kind: "member", id: identityId };
  const loaded = await loadCarts(ctx, [visitor, member], []);
  const from = loaded.states.get(ownerKey(visitor))!;
  const into = loaded.states.get(ownerKey(member))!;
  if (!from.cart) return { cartId: into.cart?.id ?? null, merged: 0 };
  const source = from.cart;

  // Events of the merge are the member's doing (the token call itself carries no caller).
  const memberCtx: Ctx = { ...ctx, auth: { kind: "member", identityId, visitorId, clientId: "", role: "MEMBER" } };
  const now = nowIso();
  const statements: Statement[] = [];
  const events = [];

  let cartId = into.cart?.id ?? null;
  let merged = 0;
  const combined: string[] = [];
  if (from.lines.length) {
    const draft = draftOf(memberCtx, member, into, loaded.products);
    const target = draft.cart;
    // What the member's cart lacks comes from the visitor's.
    target.couponCode ??= source.couponCode;
    target.contactInfo ??= source.contactInfo;
    target.buyerNote ??= source.buyerNote;
    target.selectedShippingOption ??= source.selectedShippingOption;
    target.businessLocationId ??= source.businessLocationId;
    target.overrideCheckoutUrl ??= source.overrideCheckoutUrl;
    target.buyerInfo = { ...source.buyerInfo, ...target.buyerInfo };
    if (!target.merchantDiscounts.length) target.merchantDiscounts = source.merchantDiscounts;
    for (const line of from.lines) {
      const same = line.itemKey ? draft.lines.find((l) => l.itemKey === line.itemKey) : undefined;
      if (same) {
        same.quantity = Math.min(MAX_QUANTITY, same.quantity + line.quantity);
        combined.push(line.id);
      } else {
        draft.lines.push({ ...structuredClone(line), cartId: target.id, position: nextPosition(draft), stored: line, movedFromCartId: source.id });
      }
      merged++;
    }
    const resolved = resolveAll(memberCtx, draft);
    stamp(draft, now);
    const shape = cartShape(target, resolved, ctx.origin);
    const event = cartChangeEvent(memberCtx, draft, shape);
    statements.push(...cartStatements(memberCtx, draft));
    events.push(event);
    cartId = target.id;
  }

  // The visitor's cart is closed; lines combined into the member's go (the others moved).
  statements.push(
    ctx.db
      .update(carts)
      .set({ status: "CLOSED", updatedDate: now, revision: source.revision + 1 })
      .where(and(eq(carts.id, source.id), eq(carts.revision, source.revision), eq(carts.status, "ACTIVE"))),
    assertPreviousChanged(ctx.db),
  );
  if (combined.length) {
    statements.push(
      ctx.db
        .delete(cartLineItems)
        .where(and(eq(cartLineItems.cartId, source.id), sql`${cartLineItems.id} IN (SELECT value FROM json_each(${JSON.stringify(combined)}))`)),
    );
  }
  events.push(newEvent(memberCtx, CartEventType.deleted, source.id, cartEventData("deleted", { id: source.id }, { mergedIntoCartId: cartId })));
  await commit(ctx, [...statements, ...events.map((e) => outboxInsert(ctx.db, e)), clearAssertions(ctx.db)], events);
  return { cartId, merged };
}
