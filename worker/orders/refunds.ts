import { and, asc, lt, sql } from "drizzle-orm";
import { releaseStockStatements, type StockLine } from "#worker/catalog";
import { emailStatement } from "#worker/email";
import type { Statement } from "#worker/events";
import { createRefund, isProviderDown, listProviderRefunds, stripeSettings, type ProviderRefund } from "#worker/payments";
import { assertPreviousChanged, clearAssertions, isAssertionFailure } from "#worker/platform/batch";
import { actorOf, isMerchant, nowIso, requireMerchant, requirePermission, systemCtx, type Ctx } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { ApiError, badField, notFound, unauthenticated } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { formatMoney, toDecimalString, toMinor } from "#worker/platform/money";
import { runBatch } from "#worker/platform/unit-of-work";
import { shopSettings } from "#worker/store";
import { orderActionVerdicts, orderState, paidAmount, refundedAmount, refundVerdict, restockOf, type Refusal, type RefundLine } from "./actions";
import { isOwner } from "./checkout";
import { loadOrder, loadOrders, paymentEvent, writeChange } from "./orders";
import type { RefundRequest } from "./schemas";
import { orderShape, type LoadedOrder, type RefundRow } from "./shapes";
import { orderRefunds, transactions, type PaymentStatus } from "./tables";

/**
 * Refunds: all or part of what the buyer paid, by line (line ids and quantities) or by amount, optionally putting
 * the refunded units back in stock. The amount is reserved first by one guarded batch (a refund row inserted only
 * when the refunds already counted plus this one stay within what was paid, and each line's refunded units within
 * its quantity), so two refunds at once can never give back more than was paid. Then the provider is asked (Stripe's
 * Refunds API, keyed by our refund id; a test or offline payment is refunded by the merchant's hand and recorded as
 * is), and the refund is completed in one change of the order: the refund transaction, the payment status, the
 * activity, the restock (once: the completion is guarded on the refund row's status) and the buyer's email. When
 * Stripe cannot be reached the reservation is removed (nothing recorded); when it refuses, the refund is FAILED.
 */

/** A refund as the API answers it (money as decimal strings, as the ecom API writes it). */
export function refundShape(r: RefundRow) {
  return {
    id: r.id,
    orderId: r.orderId,
    amount: { amount: toDecimalString(r.amount, r.currency), formattedAmount: formatMoney(r.amount, r.currency) },
    currency: r.currency,
    status: r.status,
    lineItems: r.lineItems,
    restock: r.restock,
    restockedLineItems: r.restockedLineItems ?? [],
    provider: r.provider,
    providerRefundId: r.providerRefundId,
    failureReason: r.failureReason,
    createdBy: { type: r.actorType, id: r.actorId },
    createdDate: r.createdDate,
    updatedDate: r.updatedDate,
  };
}

export type RefundShape = ReturnType<typeof refundShape>;

/** A refund-blocking reason in the spec's shape. */
function blocked(o: LoadedOrder, why: Refusal): ApiError {
  const status = why.code === "PROVIDER_IS_DOWN" ? 502 : 400;
  return new ApiError(status, why.code, why.description, {
    message: "Refund not possible",
    data: { reason: why.code, paymentStatus: o.order.paymentStatus },
  });
}

/** What a refund request asks for, checked against the order: the lines, the amount, and whether to restock. */
interface RefundPlan {
  lines: RefundLine[];
  amount: number;
  restock: boolean;
}

function planOf(o: LoadedOrder, req: RefundRequest, refundable: number): RefundPlan {
  const currency = o.order.currency;
  const lines: RefundLine[] = [];
  const requested = req.lineItems ?? null;
  if (requested) {
    const seen = new Map<string, { quantity: number; index: number }>();
    requested.forEach((r, index) => {
      const prev = seen.get(r.lineItemId);
      seen.set(r.lineItemId, { quantity: (prev?.quantity ?? 0) + r.quantity, index: prev?.index ?? index });
    });
    for (const [lineItemId, { quantity, index }] of seen) {
      const line = o.lines.find((l) => l.id === lineItemId);
      if (!line) throw badField(`lineItems[${index}].lineItemId`, "is not a line item of this order", "VALIDATION", { lineItemId });
      const left = line.quantity - line.refundedQuantity;
      if (quantity > left)
        throw badField(`lineItems[${index}].quantity`, `is more than the ${left} of "${line.name}" not refunded yet`, "MAX", { left });
      lines.push({ lineItemId, quantity });
    }
  }
  let amount: number;
  if (req.amount !== undefined && req.amount !== null) {
    amount = toMinor(Number(req.amount), currency);
    if (!(amount > 0)) throw badField("amount", "must be more than 0", "MIN");
    if (amount > refundable)
      throw badField("amount", `is more than the ${formatMoney(refundable, currency)} left to refund`, "MAX", {
        refundable: toDecimalString(refundable, currency),
      });
  } else if (requested) {
    const worth = lines.reduce((n, l) => n + o.lines.find((x) => x.id === l.lineItemId)!.price * l.quantity, 0);
    amount = Math.min(worth, refundable);
    if (!(amount > 0)) throw badField("lineItems", "are worth nothing, so there is nothing to refund; give an amount instead", "VALIDATION");
  } else {
    // Neither lines nor amount: everything left, with every unit not refunded yet.
    amount = refundable;
    for (const l of o.lines) if (l.quantity > l.refundedQuantity) lines.push({ lineItemId: l.id, quantity: l.quantity - l.refundedQuantity });
  }
  if (req.restock && lines.length === 0)
    throw badField("restock", "needs the refunded line items: an amount alone names nothing to restock", "VALIDATION");
  return { lines, amount, restock: !!req.restock };
}

/** The statements that move each refunded line's refunded units, guarded so no line is refunded beyond its quantity. */
function lineStatements(ctx: Ctx, orderId: string, lines: RefundLine[], sign: 1 | -1): Statement[] {
  return lines.flatMap((l) => [
    rawStatement(
      ctx.db,
      sql`UPDATE order_line_items SET refunded_quantity = refunded_quantity + ${sign * l.quantity}
        WHERE id = ${l.lineItemId} AND order_id = ${orderId} AND refunded_quantity + ${sign * l.quantity} BETWEEN 0 AND quantity`,
    ),
    assertPreviousChanged(ctx.db),
  ]);
}

/** The payment a refund gives back: the order's approved payment, and the provider that took it. */
function paymentOf(o: LoadedOrder) {
  const tx = [...o.transactions].reverse().find((t) => t.status === "APPROVED");
  return { provider: tx?.provider ?? "offline", paymentId: tx?.providerTransactionId ?? null };
}

/**
 * Reserves the refund: its row (STARTED) and the lines' refunded units, in one batch that writes nothing unless the
 * refunds counted so far plus this one stay within what was paid, no refund is pending, and the order is still paid.
 */
async function reserve(ctx: Ctx, o: LoadedOrder, plan: RefundPlan, provider: string): Promise<string> {
  const id = newId();
  const now = nowIso();
  const actor = actorOf(ctx.auth);
  const orderId = o.order.id;
  const paid = paidAmount(o);
  const insert = rawStatement(
    ctx.db,
    sql`INSERT INTO order_refunds (id, order_id, amount, currency, status, line_items, restock, provider, actor_type, actor_id, created_date, updated_date)
      SELECT ${id}, ${orderId}, ${plan.amount}, ${o.order.currency}, 'STARTED', ${JSON.stringify(plan.lines)}, ${plan.restock ? 1 : 0}, ${provider},
        ${actor.type}, ${actor.id}, ${now}, ${now}
      WHERE EXISTS (SELECT 1 FROM orders WHERE id = ${orderId} AND payment_status IN ('PAID', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED'))
        AND NOT EXISTS (SELECT 1 FROM order_refunds WHERE order_id = ${orderId} AND status = 'PENDING')
        AND (SELECT coalesce(sum(amount), 0) FROM order_refunds WHERE order_id = ${orderId} AND status IN ('STARTED', 'PENDING', 'SUCCEEDED')) + ${plan.amount} <= ${paid}`,
  );
  try {
    await runBatch(ctx.db, [...lineStatements(ctx, orderId, plan.lines, 1), insert, assertPreviousChanged(ctx.db), clearAssertions(ctx.db)]);
  } catch (err) {
    if (!isAssertionFailure(err)) throw err;
    // Another refund (or change) got there first: say why this one no longer fits, against the order as it is now.
    const now = await loadOrder(ctx, orderId);
    const state = orderState(now);
    const why = refundVerdict(state);
    if (why) throw blocked(now, why);
    planOf(now, { lineItems: plan.lines, amount: toDecimalString(plan.amount, now.order.currency), restock: plan.restock }, state.refundable);
    throw blocked(now, {
      code: "ALREADY_REFUNDED",
      description: `Another refund of order ${orderId} was made at the same time; look at the order again`,
    });
  }
  return id;
}

/** Takes a reservation back: its row goes (or becomes FAILED, with the provider's reason) and the lines' units return. */
async function unreserve(ctx: Ctx, orderId: string, refundId: string, plan: RefundPlan, failure: string | null) {
  const row =
    failure === null
      ? rawStatement(ctx.db, sql`DELETE FROM order_refunds WHERE id = ${refundId} AND status = 'STARTED'`)
      : rawStatement(
          ctx.db,
          sql`UPDATE order_refunds SET status = 'FAILED', failure_reason = ${failure}, updated_date = ${nowIso()} WHERE id = ${refundId} AND status IN ('STARTED', 'PENDING')`,
        );
  await runBatch(ctx.db, [row, assertPreviousChanged(ctx.db), ...lineStatements(ctx, orderId, plan.lines, -1), clearAssertions(ctx.db)]);
}

/** Marks a refund the provider has not settled yet as PENDING, with the provider's id, and notes it on the order. */
async function markPending(ctx: Ctx, o: LoadedOrder, refundId: string, providerRefundId: string, amount: number) {
  const actor = actorOf(ctx.auth);
  const now = nowIso();
  await runBatch(ctx.db, [
    rawStatement(
      ctx.db,
      sql`UPDATE order_refunds SET status = 'PENDING', provider_refund_id = ${providerRefundId}, updated_date = ${now} WHERE id = ${refundId} AND status = 'STARTED'`,
    ),
    rawStatement(
      ctx.db,
      sql`INSERT INTO order_activities (id, order_id, type, details, actor_type, actor_id, created_date)
        SELECT ${newId()}, ${o.order.id}, 'REFUND_PENDING', ${JSON.stringify({ refundId, amount, providerRefundId })}, ${actor.type}, ${actor.id}, ${now}
        WHERE changes() = 1`,
    ),
  ]);
}

/** The refund email of a completed refund (keyed by the refund, so sent once). */
async function refundEmail(ctx: Ctx, o: LoadedOrder, refund: Pick<RefundRow, "id" | "amount" | "lineItems">, totalRefunded: number, full: boolean) {
  const { order } = o;
  if (!order.buyerEmail) return null;
  const d = order.details as Record<string, any>;
  try {
    return emailStatement(
      ctx,
      order.buyerEmail,
      "order-refund",
      {
        orderNumber: String(order.number),
        orderId: order.id,
        name: d.recipientInfo?.contactDetails?.firstName ?? d.billingInfo?.contactDetails?.firstName ?? undefined,
        amount: toDecimalString(refund.amount, order.currency),
        totalRefunded: toDecimalString(totalRefunded, order.currency),
        currency: order.currency,
        lines: refund.lineItems.map((l) => ({ name: o.lines.find((x) => x.id === l.lineItemId)?.name ?? "Item", quantity: l.quantity })),
        full,
      },
      { shop: await shopSettings(ctx), idempotencyKey: `order-refund:${refund.id}` },
    );
  } catch (e) {
    console.error("refund email could not be recorded", e);
    return null;
  }
}

/** A refund to complete: one of ours (reserved), or one made in the provider's dashboard that the shop learns of now. */
export type Completion =
  | { refundId: string; providerRefundId: string | null }
  | { external: { amount: number; provider: string; providerRefundId: string | null; chargeId: string | null } };

/**
 * Completes a refund in one change of the order, on the order as it stands (again when another change moved it in
 * between): the refund row SUCCEEDED (guarded, so this happens once), a REFUNDED transaction, the payment status,
 * the activity, the restock and the buyer's email; `after` joins the batch (a processed-event record). Answers
 * whether it changed anything.
 */
export async function completeRefund(ctx: Ctx, orderId: string, what: Completion, after: () => Statement[] = () => []): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const [o] = await loadOrders(ctx, [orderId]);
    if (!o) return false;
    try {
      return await completeOn(ctx, o, what, after);
    } catch (err) {
      const moved = (err instanceof ApiError && err.status === 409) || isAssertionFailure(err);
      if (!moved || attempt >= 4) throw err;
    }
  }
}

/** The refund a completion is about: our reserved row (null once completed or failed), or a new row for a refund made elsewhere. */
function refundToComplete(ctx: Ctx, o: LoadedOrder, what: Completion, now: string): RefundRow | null {
  if ("refundId" in what) {
    const row = o.refunds.find((r) => r.id === what.refundId);
    if (!row || (row.status !== "STARTED" && row.status !== "PENDING")) return null;
    return { ...row, providerRefundId: what.providerRefundId ?? row.providerRefundId };
  }
  const actor = actorOf(ctx.auth);
  return {
    id: newId(),
    orderId: o.order.id,
    amount: what.external.amount,
    currency: o.order.currency,
    status: "SUCCEEDED",
    lineItems: [],
    restock: false,
    restockedLineItems: null,
    provider: what.external.provider,
    providerRefundId: what.external.providerRefundId,
    failureReason: null,
    actorType: actor.type,
    actorId: actor.id,
    createdDate: now,
    updatedDate: now,
  };
}

/** The refund row's write (ours: STARTED or PENDING to SUCCEEDED, guarded; one made elsewhere: inserted) and the lines' restocked units. */
function completionStatements(ctx: Ctx, refund: RefundRow, ours: boolean, restocked: RefundLine[], now: string): Statement[] {
  const row = ours
    ? [
        rawStatement(
          ctx.db,
          sql`UPDATE order_refunds SET status = 'SUCCEEDED', provider_refund_id = ${refund.providerRefundId},
            restocked_line_items = ${JSON.stringify(restocked)}, updated_date = ${now}
            WHERE id = ${refund.id} AND status IN ('STARTED', 'PENDING')`,
        ),
        assertPreviousChanged(ctx.db),
      ]
    : [
        rawStatement(
          ctx.db,
          sql`INSERT INTO order_refunds (id, order_id, amount, currency, status, line_items, restock, restocked_line_items, provider, provider_refund_id, actor_type, actor_id, created_date, updated_date)
            VALUES (${refund.id}, ${refund.orderId}, ${refund.amount}, ${refund.currency}, 'SUCCEEDED', '[]', 0, ${JSON.stringify(restocked)}, ${refund.provider},
              ${refund.providerRefundId}, ${refund.actorType}, ${refund.actorId}, ${now}, ${now})`,
        ),
      ];
  const lines = restocked.map((r) =>
    rawStatement(ctx.db, sql`UPDATE order_line_items SET restocked_quantity = restocked_quantity + ${r.quantity} WHERE id = ${r.lineItemId}`),
  );
  return [...row, ...lines];
}

async function completeOn(ctx: Ctx, o: LoadedOrder, what: Completion, after: () => Statement[]): Promise<boolean> {
  const { order } = o;
  const now = nowIso();
  const refund = refundToComplete(ctx, o, what, now);
  if (!refund) return false;
  const succeeded = o.refunds.filter((r) => r.status === "SUCCEEDED" && r.id !== refund.id).reduce((n, r) => n + r.amount, 0);
  const totalRefunded = succeeded + refund.amount;
  const full = totalRefunded >= paidAmount(o);
  const status: PaymentStatus = full ? "FULLY_REFUNDED" : "PARTIALLY_REFUNDED";
  const restocked = restockOf(o, refund, full);
  const stockLines: StockLine[] = restocked.map((r) => {
    const l = o.lines.find((x) => x.id === r.lineItemId)!;
    return { productId: l.catalogItemId!, variantId: l.variantId!, quantity: r.quantity, name: l.name };
  });
  const chargeId = "external" in what ? what.external.chargeId : null;
  const email = await refundEmail(ctx, o, refund, totalRefunded, full);
  const results = await writeChange(ctx, o, {
    set: { paymentStatus: status },
    statements: completionStatements(ctx, refund, "refundId" in what, restocked, now),
    activities: [
      {
        type: full ? "ORDER_REFUNDED" : "ORDER_PARTIALLY_REFUNDED",
        details: {
          refundId: refund.id,
          amount: refund.amount,
          currency: order.currency,
          totalRefunded,
          lineItems: refund.lineItems,
          restockedLineItems: restocked,
          provider: refund.provider,
          ...(chargeId ? { providerTransactionId: chargeId } : {}),
          ...(refund.providerRefundId ? { providerRefundId: refund.providerRefundId } : {}),
          by: { type: refund.actorType, id: refund.actorId },
        },
      },
    ],
    after: [
      ctx.db.insert(transactions).values({
        id: newId(),
        orderId: order.id,
        amount: refund.amount,
        currency: order.currency,
        status: "REFUNDED",
        provider: refund.provider,
        providerTransactionId: chargeId ?? refund.providerRefundId,
        createdDate: now,
      }),
      ...(email ? [email.statement as Statement] : []),
      ...after(),
    ],
    stock: stockLines.length ? releaseStockStatements(ctx, stockLines, order.id, `Order ${order.number} refunded`, `refund:${refund.id}`) : undefined,
    events: order.paymentStatus === status ? [] : [paymentEvent(order.paymentStatus, status)],
  });
  email?.deliver(results[1]);
  return true;
}

/** Marks one of our refunds FAILED when the provider reports it failed or canceled after it was pending. */
export async function failRefund(ctx: Ctx, o: LoadedOrder, refundId: string, reason: string): Promise<boolean> {
  const row = o.refunds.find((r) => r.id === refundId);
  if (!row || (row.status !== "STARTED" && row.status !== "PENDING")) return false;
  try {
    await unreserve(ctx, o.order.id, refundId, { lines: row.lineItems, amount: row.amount, restock: row.restock }, reason);
  } catch (err) {
    if (isAssertionFailure(err)) return false;
    throw err;
  }
  return true;
}

/**
 * POST /ecom/v1/orders/{id}/refunds: refunds lines (and how many of each), an amount, or (neither given) everything
 * left, optionally restocking the refunded lines. Answers the refund and the order as it then stands.
 */
export async function refundOrder(ctx: Ctx, id: string, req: RefundRequest) {
  try {
    requirePermission(ctx, "orders.write");
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) throw err;
    throw new ApiError(403, "FORBIDDEN", err.description, {
      message: "Refund not possible",
      data: { reason: "FORBIDDEN", permission: "orders.write" },
    });
  }
  const o = await loadOrder(ctx, id);
  const state = orderState(o);
  const why = refundVerdict(state);
  if (why) throw blocked(o, why);
  const plan = planOf(o, req, state.refundable);
  const { provider, paymentId } = paymentOf(o);
  const stripe = provider === "stripe" ? stripeSettings(ctx.env) : null;
  if (provider === "stripe" && (!stripe || !paymentId)) {
    throw blocked(
      o,
      stripe
        ? { code: "TRANSACTION_NOT_FOUND", description: `Order ${id} has no Stripe payment to refund` }
        : { code: "PROVIDER_IS_DOWN", description: "Stripe is not connected to this shop, so a Stripe payment cannot be refunded" },
    );
  }
  const refundId = await reserve(ctx, o, plan, provider);
  if (stripe && paymentId) {
    let answer: { id: string; status: string };
    try {
      answer = await createRefund(stripe, { refundId, orderId: id, paymentId, amount: plan.amount });
    } catch (err) {
      await unreserve(ctx, id, refundId, plan, isProviderDown(err) ? null : err instanceof ApiError ? err.description : "refused");
      throw err;
    }
    if (answer.status === "failed" || answer.status === "canceled") {
      await unreserve(ctx, id, refundId, plan, `Stripe answered ${answer.status}`);
      throw new ApiError(402, "REFUND_DECLINED", `Stripe did not make the refund (${answer.status})`, {
        message: "Refund not possible",
        data: { reason: "REFUND_DECLINED", provider: "stripe" },
      });
    }
    if (answer.status === "succeeded") await completeRefund(ctx, id, { refundId, providerRefundId: answer.id });
    else await markPending(ctx, o, refundId, answer.id, plan.amount);
  } else {
    await completeRefund(ctx, id, { refundId, providerRefundId: null });
  }
  const done = await loadOrder(ctx, id);
  return { refund: refundShape(done.refunds.find((r) => r.id === refundId)!), order: orderShape(done) };
}

/** GET /ecom/v1/orders/{id}/refunds: the order's refunds, oldest first (the buyer's own order, or any for staff). */
export async function listRefunds(ctx: Ctx, id: string) {
  if (ctx.auth.kind === "anonymous") throw unauthenticated("Reading an order's refunds needs the buyer's access token or a merchant's");
  const o = await loadOrder(ctx, id);
  if (!isMerchant(ctx.auth) && !isOwner(ctx, o.order)) throw notFound("ORDER_NOT_FOUND", "Order", id);
  const paid = paidAmount(o);
  const refunded = refundedAmount(o);
  return {
    refunds: o.refunds.map(refundShape),
    summary: {
      paid: toDecimalString(paid, o.order.currency),
      refunded: toDecimalString(refunded, o.order.currency),
      refundable: toDecimalString(Math.max(0, paid - refunded), o.order.currency),
      currency: o.order.currency,
    },
  };
}

/**
 * An order as the console's order page shows it (staff only, one read): the order, its refunds, the actions its
 * state allows (the same verdicts the API enforces), what is left to refund, and each line's refunded units.
 */
export async function orderWithRefunds(ctx: Ctx, id: string) {
  requireMerchant(ctx);
  const o = await loadOrder(ctx, id);
  const state = orderState(o);
  return {
    order: orderShape(o),
    refunds: o.refunds.map(refundShape),
    actions: orderActionVerdicts(state),
    refundable: { amount: toDecimalString(state.refundable, o.order.currency), formattedAmount: formatMoney(state.refundable, o.order.currency) },
    lines: o.lines.map((l) => ({ id: l.id, refunded: l.refundedQuantity, unitPrice: formatMoney(l.price, o.order.currency) })),
  };
}

/** How long a refund may stay STARTED (reserved, Stripe not answered yet) before the sweep looks at it. */
const STARTED_MINUTES = 5;

/** How long Stripe keeps an Idempotency-Key: past it a retry would make a second refund, so the sweep looks it up instead. */
const KEY_HOURS = 24;

/** Most stuck refunds one sweep looks at; the next minute's sweep takes the rest. */
const REFUNDS_PER_SWEEP = 20;

/** How long a refund may stay PENDING at Stripe before the sweep asks about it (its webhook may have been lost). */
const PENDING_MINUTES = 60;

/** Refunds left STARTED (or PENDING) since before `cutoff` (ISO), oldest first, through their partial index. */
export function unsettledRefundsRead(db: Db, status: "STARTED" | "PENDING", cutoff: string, limit = REFUNDS_PER_SWEEP) {
  return db
    .select({ id: orderRefunds.id, orderId: orderRefunds.orderId, updatedDate: orderRefunds.updatedDate })
    .from(orderRefunds)
    .where(and(sql`${orderRefunds.status} = ${sql.raw(status === "STARTED" ? "'STARTED'" : "'PENDING'")}`, lt(orderRefunds.updatedDate, cutoff)))
    .orderBy(asc(orderRefunds.updatedDate))
    .limit(limit);
}

/**
 * What Stripe holds of a refund left STARTED: the same create again under its key while Stripe keeps keys (Stripe
 * answers the first call's result, or makes the refund if the first call never reached it), else the payment's
 * refunds matched by our id in their metadata (null: Stripe never made it). Throws PROVIDER_IS_DOWN.
 */
async function stripeAnswer(ctx: Ctx, o: LoadedOrder, row: RefundRow, paymentId: string, keyKept: boolean): Promise<ProviderRefund | null> {
  const stripe = stripeSettings(ctx.env)!;
  if (keyKept) {
    try {
      return await createRefund(stripe, { refundId: row.id, orderId: o.order.id, paymentId, amount: row.amount });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "IDEMPOTENCY_KEY_UNUSABLE") throw err;
    }
  }
  return (await listProviderRefunds(stripe, paymentId)).find((r) => r.refundId === row.id) ?? null;
}

/** A refund PENDING at Stripe for long: its current status from the payment's refunds, applied when Stripe settled it. */
async function settlePending(ctx: Ctx, o: LoadedOrder, row: RefundRow, paymentId: string | null): Promise<boolean> {
  const stripe = stripeSettings(ctx.env);
  if (row.provider !== "stripe" || !paymentId || !stripe) return false;
  const found = (await listProviderRefunds(stripe, paymentId)).find((r) => r.refundId === row.id || r.id === row.providerRefundId);
  if (found?.status === "succeeded") return completeRefund(ctx, o.order.id, { refundId: row.id, providerRefundId: found.id });
  if (found?.status === "failed" || found?.status === "canceled") return failRefund(ctx, o, row.id, `Stripe reported the refund ${found.status}`);
  return false;
}

/** Settles one refund left STARTED (or long PENDING); answers whether it changed. */
async function reconcileRefund(ctx: Ctx, refundId: string, orderId: string, now: Date): Promise<boolean> {
  const [o] = await loadOrders(ctx, [orderId]);
  const row = o?.refunds.find((r) => r.id === refundId);
  if (!o || !row || (row.status !== "STARTED" && row.status !== "PENDING")) return false;
  const { paymentId } = paymentOf(o);
  if (row.status === "PENDING") return settlePending(ctx, o, row, paymentId);
  if (row.provider !== "stripe" || !paymentId) {
    // Nothing outside the shop was asked: the refund did not happen, and the merchant may make it again.
    return failRefund(ctx, o, refundId, "The refund was interrupted before it was made");
  }
  if (!stripeSettings(ctx.env)) return false;
  const keyKept = now.getTime() - Date.parse(row.createdDate) < (KEY_HOURS - 1) * 3_600_000;
  let answer: ProviderRefund | null;
  try {
    answer = await stripeAnswer(ctx, o, row, paymentId, keyKept);
  } catch (err) {
    if (err instanceof ApiError && err.code === "REFUND_DECLINED") return failRefund(ctx, o, refundId, err.description);
    throw err;
  }
  if (!answer) return failRefund(ctx, o, refundId, "Stripe never received the refund");
  if (answer.status === "succeeded") return completeRefund(ctx, orderId, { refundId, providerRefundId: answer.id });
  if (answer.status === "failed" || answer.status === "canceled") return failRefund(ctx, o, refundId, `Stripe answered ${answer.status}`);
  await markPending(ctx, o, refundId, answer.id, row.amount);
  return true;
}

/**
 * The sweep of refunds left STARTED (the Worker stopped between reserving a refund and recording Stripe's answer):
 * past a few minutes each is settled by what Stripe holds of it, under its own key, so Stripe makes it at most once.
 * Made: recorded (or PENDING); refused or never made: FAILED and its reservation released. A refund PENDING for an
 * hour (its webhook lost) takes the status Stripe lists for it now. When Stripe cannot be reached the refund stays
 * as it is for the next sweep. Answers how many it settled.
 */
export async function reconcileStartedRefunds(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<number> {
  const before = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
  const stuck = [
    ...(await unsettledRefundsRead(db, "STARTED", before(STARTED_MINUTES))),
    ...(await unsettledRefundsRead(db, "PENDING", before(PENDING_MINUTES))),
  ];
  if (!stuck.length) return 0;
  const ctx = systemCtx(env, db, "orders:refund-sweep", waitUntil);
  let settled = 0;
  for (const r of stuck) {
    try {
      if (await reconcileRefund(ctx, r.id, r.orderId, now)) settled++;
    } catch (err) {
      if (isProviderDown(err)) console.log(`refund ${r.id}: Stripe could not be asked; the next sweep retries`);
      else console.error(`refund ${r.id} could not be settled; the next sweep retries`, err);
    }
  }
  return settled;
}
