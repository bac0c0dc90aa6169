import { asc, sql } from "drizzle-orm";
import { unpaidOrderCanceledTask } from "#worker/tasks";
import { isAssertionFailure } from "#worker/platform/batch";
import { systemCtx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError } from "#worker/platform/errors";
import { formatMoney } from "#worker/platform/money";
import { loadStoreSettings } from "#worker/store";
import { releaseStockStatements } from "#worker/catalog";
import { loadOrders, restockedCancelEvent, writeChange } from "./orders";
import { UNPAID_CANCEL_REASON, type LoadedOrder } from "./shapes";
import { orders, UNPAID_OFFLINE_ORDER } from "./tables";

/**
 * Unpaid offline orders do not hold stock for ever. An order to be paid offline reserves its items when it is
 * placed; once it has waited longer than the store's hold (store settings `unpaidOrderHoldHours`, default 48, 0 for
 * never) without being marked as paid, the sweep cancels it: its reserved stock goes back on sale, the order gets an
 * ORDER_CANCELED activity with the reason, and the merchant gets a task. Cancelled, not merely unreserved, so the
 * buyer's order page and the merchant's console agree: the buyer owes nothing, and a late payment is refunded (a
 * cancelled order cannot be marked as paid). Free orders, fulfilled ones and paid ones are never touched.
 *
 * Each order is its own batch, guarded on the state read (a merchant marking it paid meanwhile wins), so a second
 * sweep finds nothing to do: the order has left the candidates (orders_unpaid_offline_idx).
 */

/** Most orders one sweep cancels; the next minute's sweep takes the rest. */
const PER_SWEEP = 50;

/** The unpaid offline orders placed before `cutoff` (ISO), oldest first, read through orders_unpaid_offline_idx. */
export function expiredUnpaidOrdersRead(db: Db, cutoff: string, limit = PER_SWEEP) {
  return db
    .select({ id: orders.id })
    .from(orders)
    .where(sql`${sql.raw(UNPAID_OFFLINE_ORDER)} AND ${orders.createdDate} < ${cutoff}`)
    .orderBy(asc(orders.createdDate))
    .limit(limit);
}

/** Cancels the offline orders unpaid for longer than the store's hold and releases their stock; answers how many. */
export async function cancelExpiredUnpaidOrders(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<number> {
  const holdHours = (await loadStoreSettings(env)).unpaidOrderHoldHours;
  if (!holdHours) return 0;
  const cutoff = new Date(now.getTime() - holdHours * 3_600_000).toISOString();
  const ids = (await expiredUnpaidOrdersRead(db, cutoff)).map((r) => r.id);
  if (!ids.length) return 0;
  const ctx = systemCtx(env, db, "orders:unpaid-orders", waitUntil);
  let canceled = 0;
  for (const o of await loadOrders(ctx, ids)) {
    try {
      await cancelUnpaid(ctx, o, holdHours);
      canceled++;
    } catch (err) {
      // Paid, shipped or cancelled by the merchant since the read: that change stands.
      if ((err instanceof ApiError && err.status === 409) || isAssertionFailure(err)) continue;
      console.error(`unpaid order ${o.order.id} could not be canceled; the next sweep retries`, err);
    }
  }
  return canceled;
}

async function cancelUnpaid(ctx: ReturnType<typeof systemCtx>, o: LoadedOrder, holdHours: number): Promise<void> {
  const { order } = o;
  const lines = o.lines
    .filter((l) => l.catalogItemId && l.variantId)
    .map((l) => ({ productId: l.catalogItemId!, variantId: l.variantId!, quantity: l.quantity, name: l.name }));
  const reason = `Order ${order.number} not paid within ${holdHours} hours`;
  const stock = lines.length ? releaseStockStatements(ctx, lines, order.id, reason) : undefined;
  const units = o.lines.reduce((n, l) => n + l.quantity, 0);
  await writeChange(ctx, o, {
    set: { status: "CANCELED" },
    activities: [{ type: "ORDER_CANCELED", details: { reason: UNPAID_CANCEL_REASON, holdHours, restockAllItems: true } }],
    after: [
      unpaidOrderCanceledTask(ctx.db, {
        orderId: order.id,
        number: order.number,
        buyerEmail: order.buyerEmail,
        total: formatMoney(order.total, order.currency),
        units,
        holdHours,
      }),
    ],
    stock,
    events: [restockedCancelEvent(UNPAID_CANCEL_REASON)],
  });
}
