import { eq } from "drizzle-orm";
import { nowMs } from "#worker/platform/clock";
import { addToCurrentCart, cartOwnerOf, loadCarts, ownerKey, type CartOwner } from "#worker/cart";
import { nowIso, type Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { automationSettingsFrom, automationSettingsRead } from "./settings";
import { abandonedCheckouts } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
export {
  type AbandonedCheckoutRow,
  abandonedCheckoutShape,
  type ActivityRow,
  activityStatement,
  type ActivityType,
  customActivityType,
  type NotSentReason,
} from "./abandoned-activities";
export { detectAbandonedCarts } from "./abandoned-detection";
export { type CartAbandonedData, cartAbandonedSchema, cartRecoveredSchema, processCartAbandoned, processCartCompleted } from "./abandoned-processors";
export { sendDueRecoveryEmails, settleSendingRecoveryEmails } from "./recovery-emails";

/**
 * Abandoned carts:
 *   1. the sweep finds ACTIVE carts with items and a contact email, idle past the store's threshold, and emits
 *      CartAbandonedEvent through the outbox, once per idle period (cart_abandonment_marks);
 *   2. its processor makes the abandoned checkout (ABANDONED, a recovery link) with its activities, schedules the
 *      recovery emails as rows, and opens a merchant task for a high-value cart;
 *   3. the sweep sends the emails that fall due (or records why not);
 *   4. an order from the cart (or from the cart the recovery link restored) emits CartRecoveredEvent, marks it
 *      RECOVERED and cancels the emails still scheduled.
 */

// ---------------------------------------------------------------------------------------------------------------
// 5. The recovery link (/cart/recover/:token)

export type RestoreOutcome =
  | { ok: true; cartId: string; restored: number; skipped: string[] }
  | { ok: false; reason: "NOT_FOUND" | "EXPIRED" | "ALREADY_RECOVERED" | "NOTHING_TO_RESTORE" };

/**
 * Puts an abandoned cart back as the caller's current cart (the recovery link's page): in the shopper's own browser
 * the cart is simply still there; in another browser its items are added to that browser's cart through the cart
 * service (items no longer for sale or out of stock are left out and named), and the record remembers that cart so
 * an order from it counts as a recovery. Opening the link again changes nothing.
 */
export async function restoreAbandonedCart(ctx: Ctx, token: string): Promise<RestoreOutcome> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return { ok: false, reason: "NOT_FOUND" };
  const owner = cartOwnerOf(ctx);
  const [[record], [stored]] = await runBatch(ctx.db, [
    ctx.db.select().from(abandonedCheckouts).where(eq(abandonedCheckouts.recoveryToken, token)),
    automationSettingsRead(ctx.db),
  ]);
  if (!record) return { ok: false, reason: "NOT_FOUND" };
  if (record.status === "RECOVERED") return { ok: false, reason: "ALREADY_RECOVERED" };
  const { recoveryLinkDays } = automationSettingsFrom(stored?.value);
  if (nowMs() - Date.parse(record.abandonTime) > recoveryLinkDays * 24 * 3600_000) return { ok: false, reason: "EXPIRED" };
  const source: CartOwner = { kind: record.ownerKind, id: record.ownerId };
  const loaded = await loadCarts(ctx, ownerKey(source) === ownerKey(owner) ? [owner] : [owner, source], []);
  const mine = loaded.states.get(ownerKey(owner))!;
  // The shopper's own browser (or a second click in this one): the cart is already the current one.
  if (mine.cart && (mine.cart.id === record.cartId || mine.cart.id === record.restoredCartId))
    return { ok: true, cartId: mine.cart.id, restored: 0, skipped: [] };
  const theirs = loaded.states.get(ownerKey(source))!;
  const live = theirs.cart?.id === record.cartId ? theirs.lines : null;
  const wanted = live
    ? live
        .filter((l) => !l.custom && l.catalogItemId)
        .map((l) => ({ catalogItemId: l.catalogItemId!, variantId: l.variantId, quantity: l.quantity, name: l.snapshot.productName }))
    : record.lineItems
        .map(
          (l) =>
            l as {
              quantity?: number;
              catalogReference?: { catalogItemId?: string; options?: { variantId?: string } };
              productName?: { original?: string };
            },
        )
        .filter((l) => l.catalogReference?.catalogItemId)
        .map((l) => ({
          catalogItemId: l.catalogReference!.catalogItemId!,
          variantId: l.catalogReference!.options?.variantId ?? null,
          quantity: l.quantity ?? 1,
          name: l.productName?.original ?? "",
        }));
  let items = wanted;
  const skipped: string[] = [];
  for (let attempt = 0; attempt < 3 && items.length; attempt++) {
    try {
      const { cart } = await addToCurrentCart(ctx, {
        lineItems: items.map((i) => ({
          catalogReference: { catalogItemId: i.catalogItemId, ...(i.variantId ? { options: { variantId: i.variantId } } : {}) },
          quantity: i.quantity,
        })),
      });
      await ctx.db.update(abandonedCheckouts).set({ restoredCartId: cart.id, updatedDate: nowIso() }).where(eq(abandonedCheckouts.id, record.id));
      return { ok: true, cartId: cart.id, restored: items.length, skipped };
    } catch (err) {
      // Items that can no longer be bought are left out; the rest are restored.
      if (!(err instanceof ApiError) || !err.fieldViolations) throw err;
      const bad = new Set(err.fieldViolations.map((v) => Number(/^lineItems\[(\d+)\]/.exec(v.field)?.[1] ?? -1)).filter((i) => i >= 0));
      if (!bad.size) throw err;
      skipped.push(...items.filter((_, i) => bad.has(i)).map((i) => i.name));
      items = items.filter((_, i) => !bad.has(i));
    }
  }
  return { ok: false, reason: "NOTHING_TO_RESTORE" };
}
