import { and, desc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { newEvent, outboxInsert, type EventEnvelope, type Statement } from "#worker/events";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure } from "#worker/platform/batch";
import { actorOf, isMerchant, nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { ApiError, badField, notFound, unauthenticated } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { compileQuery, type FieldMap } from "#worker/platform/query";
import { leftToShip, orderActionVerdicts, orderState, restockOf, type OrderAction } from "./actions";
import { isOwner } from "./checkout";
import { flushStockEvents, releaseStockStatements, type StockChange } from "#worker/catalog";

import type { FulfillmentRequest, SearchOrdersRequest } from "./schemas";
import { orderEventData, orderShape, OrderEventType, UNPAID_CANCEL_REASON, unpaidExpiry, type LoadedOrder, type OrderRow } from "./shapes";
import { orderActivities, orderFulfillments, orderLineItems, orderRefunds, orders, transactions, type PaymentStatus } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * Orders: the buyer reads their own, the merchant reads, searches and changes any. Every change is one D1 batch:
 * a guarded update of the order (checked against the state it read), an activity, the change's own rows (stock,
 * fulfilment, transaction) and its events.
 */

function orderNotFound(id: string): ApiError {
  return notFound("ORDER_NOT_FOUND", "Order", id);
}

/** An impossible change, with the Wix API's order-change validation code. */
function unsupported(code: string, description: string, data: Record<string, unknown> = {}): ApiError {
  return new ApiError(400, code, description, { data, message: "Order change not allowed" });
}

/** Orders with their lines, activities, fulfilments and transactions, in the order of `ids` (one D1 round trip). */
export async function loadOrders(ctx: Ctx, ids: string[]): Promise<LoadedOrder[]> {
  if (!ids.length) return [];
  const list = JSON.stringify(ids);
  const inIds = (col: unknown) => sql`${col} IN (SELECT value FROM json_each(${list}))`;
  const [orderRows, lines, activities, fulfillments, txs, refunds] = await runBatch(ctx.db, [
    ctx.db.select().from(orders).where(inIds(orders.id)),
    ctx.db.select().from(orderLineItems).where(inIds(orderLineItems.orderId)).orderBy(orderLineItems.position),
    ctx.db.select().from(orderActivities).where(inIds(orderActivities.orderId)).orderBy(orderActivities.createdDate, sql`rowid`),
    ctx.db.select().from(orderFulfillments).where(inIds(orderFulfillments.orderId)).orderBy(orderFulfillments.createdDate),
    ctx.db.select().from(transactions).where(inIds(transactions.orderId)).orderBy(transactions.createdDate),
    ctx.db.select().from(orderRefunds).where(inIds(orderRefunds.orderId)).orderBy(orderRefunds.createdDate, orderRefunds.id),
  ]);
  const byId = new Map(orderRows.map((o) => [o.id, o]));
  return ids
    .filter((id) => byId.has(id))
    .map((id) => ({
      order: byId.get(id)!,
      lines: lines.filter((l) => l.orderId === id),
      activities: activities.filter((a) => a.orderId === id),
      fulfillments: fulfillments.filter((f) => f.orderId === id),
      transactions: txs.filter((t) => t.orderId === id),
      refunds: refunds.filter((r) => r.orderId === id),
    }));
}

/** One order with its lines, activities, fulfilments, transactions and refunds; 404 ORDER_NOT_FOUND when there is none. */
export async function loadOrder(ctx: Ctx, id: string): Promise<LoadedOrder> {
  const [o] = await loadOrders(ctx, [id]);
  if (!o) throw orderNotFound(id);
  return o;
}

/** GET /ecom/v1/orders/{id}: the buyer (member or visitor who placed it) or the merchant; anyone else gets 404. */
export async function getOrder(ctx: Ctx, id: string) {
  if (ctx.auth.kind === "anonymous") throw unauthenticated("Reading an order needs the buyer's access token or a merchant's");
  const o = await loadOrder(ctx, id);
  if (!isMerchant(ctx.auth) && !isOwner(ctx, o.order)) throw orderNotFound(id);
  return { order: orderShape(o) };
}

function contactName(part: "firstName" | "lastName") {
  return sql`COALESCE(json_extract(${orders.details}, ${`$.billingInfo.contactDetails.${part}`}), json_extract(${orders.details}, ${`$.shippingInfo.logistics.shippingDestination.contactDetails.${part}`}))`;
}

const orderFields: FieldMap = {
  id: { sql: orders.id, type: "string" },
  number: { sql: orders.number, type: "number", sortable: true },
  paymentStatus: { sql: orders.paymentStatus, type: "string", sortable: true },
  fulfillmentStatus: { sql: orders.fulfillmentStatus, type: "string", sortable: true },
  status: { sql: orders.status, type: "string", sortable: true },
  purchasedDate: { sql: orders.purchasedDate, type: "date", sortable: true },
  createdDate: { sql: orders.createdDate, type: "date", sortable: true },
  updatedDate: { sql: orders.updatedDate, type: "date", sortable: true },
  "buyerInfo.email": { sql: orders.buyerEmail, type: "string", sortable: true },
  // The buyer's name as billed (the shipping contact when the order has no billing contact): the console finds
  // orders by name. Read from the order's snapshot, so a search by name scans; number and email use columns.
  "billingInfo.contactDetails.firstName": { sql: contactName("firstName"), type: "string" },
  "billingInfo.contactDetails.lastName": { sql: contactName("lastName"), type: "string" },
  "priceSummary.total.amount": { sql: orders.total, type: "money", sortable: true },
};

const encodeCursor = (offset: number) => btoa(JSON.stringify({ o: offset })).replace(/=+$/, "");
function decodeCursor(cursor: string): number {
  try {
    const v = JSON.parse(atob(cursor)) as { o?: unknown };
    if (typeof v.o === "number" && Number.isInteger(v.o) && v.o >= 0) return v.o;
  } catch {}
  throw badField("search.cursorPaging.cursor", "is not a cursor this API returned", "FORMAT");
}

/** POST /ecom/v1/orders/search: the merchant searches every order; a member or visitor only their own. */
export async function searchOrders(ctx: Ctx, req: SearchOrdersRequest) {
  const a = ctx.auth;
  if (a.kind === "anonymous") throw unauthenticated("Searching orders needs a merchant's API key or a buyer's access token");
  const s = req.search ?? {};
  const limit = s.cursorPaging?.limit || 50;
  const offset = s.cursorPaging?.cursor ? decodeCursor(s.cursorPaging.cursor) : 0;
  const q = compileQuery({ filter: s.filter, sort: s.sort, paging: { limit, offset } }, orderFields, {
    currency: ctx.currency,
    prefix: "search",
    tieBreaker: orders.id,
    defaultSort: [sql`${orders.purchasedDate} DESC`, sql`${orders.number} DESC`],
  });
  const scope = isMerchant(a)
    ? undefined
    : a.kind === "member"
      ? and(eq(orders.ownerKind, "member"), eq(orders.ownerId, a.identityId))
      : a.kind === "visitor"
        ? and(eq(orders.ownerKind, "visitor"), eq(orders.ownerId, a.visitorId))
        : undefined;
  const rows = await ctx.db
    .select({ id: orders.id })
    .from(orders)
    .where(and(q.where, scope))
    .orderBy(...q.orderBy)
    .limit(q.limit + 1)
    .offset(q.offset);
  const hasNext = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  const loaded = await loadOrders(
    ctx,
    page.map((r) => r.id),
  );
  return {
    orders: loaded.map(orderShape),
    metadata: {
      count: loaded.length,
      cursors: {
        ...(hasNext ? { next: encodeCursor(q.offset + q.limit) } : {}),
        ...(q.offset > 0 ? { prev: encodeCursor(Math.max(0, q.offset - q.limit)) } : {}),
      },
      hasNext,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Changes (merchant)

export interface Change {
  set: Partial<Pick<OrderRow, "status" | "paymentStatus" | "fulfillmentStatus">> & { fulfillmentStatusSql?: ReturnType<typeof sql> };
  activities: { type: string; details?: Record<string, unknown> | null }[];
  statements?: Statement[];
  /** Statements after the order update (e.g. one that reads the lines the change updated). */
  after?: Statement[];
  stock?: StockChange;
  /** Extra event types beyond order_updated. */
  events: { type: string; data: (orderId: string) => Record<string, unknown> }[];
}

/**
 * Writes a change of an order read in `o` as one batch, guarded on the order's state as read (409 CONFLICT when it
 * moved since); answers the order as it then stands.
 */
export async function applyChange(ctx: Ctx, o: LoadedOrder, change: Change) {
  await writeChange(ctx, o, change);
  return { order: orderShape(await loadOrder(ctx, o.order.id)) };
}

/** applyChange without reading the order back (the sweeps); answers the results of the change's `after` statements. */
export async function writeChange(ctx: Ctx, o: LoadedOrder, change: Change): Promise<unknown[]> {
  const now = nowIso();
  const actor = actorOf(ctx.auth);
  const id = o.order.id;
  const { fulfillmentStatusSql, ...set } = change.set;
  const events: EventEnvelope[] = [
    ...change.events.map((e) => newEvent(ctx, e.type, id, e.data(id))),
    newEvent(ctx, OrderEventType.updated, id, orderEventData("updated", { id, ...set, updatedDate: now })),
  ];
  const statements: Statement[] = [
    ...(change.statements ?? []),
    ctx.db
      .update(orders)
      .set({ ...set, ...(fulfillmentStatusSql ? { fulfillmentStatus: fulfillmentStatusSql as never } : {}), updatedDate: now })
      .where(
        and(
          eq(orders.id, id),
          eq(orders.updatedDate, o.order.updatedDate),
          eq(orders.status, o.order.status),
          eq(orders.paymentStatus, o.order.paymentStatus),
        ),
      ),
    assertPreviousChanged(ctx.db),
    ...(change.after ?? []),
    ...change.activities.map((a) =>
      ctx.db
        .insert(orderActivities)
        .values({ id: newId(), orderId: id, type: a.type, details: a.details ?? null, actorType: actor.type, actorId: actor.id, createdDate: now }),
    ),
    ...(change.stock?.statements ?? []),
    ...events.map((e) => outboxInsert(ctx.db, e)),
    clearAssertions(ctx.db),
  ];
  let results: unknown[];
  try {
    results = await runBatch(ctx.db, statements);
  } catch (err) {
    if (isAssertionFailure(err)) throw conflict("Order");
    throw err;
  }
  flushStockEvents(ctx, ...(change.stock ? [change.stock] : []), { statements: [], eventIds: events.map((e) => e.id) });
  const first = (change.statements?.length ?? 0) + 2;
  return results.slice(first, first + (change.after?.length ?? 0));
}

/** Refuses an action the order's state does not allow, with the spec's order-change code (actions.ts decides). */
function refuseUnless(o: LoadedOrder, action: OrderAction): void {
  const why = orderActionVerdicts(orderState(o))[action];
  if (why)
    throw unsupported(why.code, why.description, {
      status: o.order.status,
      paymentStatus: o.order.paymentStatus,
      fulfillmentStatus: o.order.fulfillmentStatus,
    });
}

/** The canceled event of an order the shop cancelled itself, its stock restocked, for `reason`. */
export const restockedCancelEvent = (reason: string) => ({
  type: OrderEventType.canceled,
  data: (id: string) => ({
    entityId: id,
    entityFqdn: "wix.ecom.v1.order",
    slug: "canceled",
    actionEvent: { body: { order: { id, status: "CANCELED" }, restockAllItems: true, reason } },
  }),
});

/** The payment_status_updated event of a change from `previous` to `next`. */
export const paymentEvent = (previous: PaymentStatus, next: PaymentStatus) => ({
  type: OrderEventType.paymentStatusUpdated,
  data: (id: string) => ({
    entityId: id,
    entityFqdn: "wix.ecom.v1.order",
    slug: "payment_status_updated",
    actionEvent: { body: { order: { id, paymentStatus: next }, previousPaymentStatus: previous } },
  }),
});

/** POST /ecom/v1/orders/{id}/cancel: status CANCELED; with restockAllItems the order's stock returns (REVERT_INVENTORY_CHANGE). */
export async function cancelOrder(ctx: Ctx, id: string, opts: { restockAllItems?: boolean | null; sendOrderCanceledEmail?: boolean | null }) {
  requirePermission(ctx, "orders.write");
  const o = await loadOrder(ctx, id);
  refuseUnless(o, "cancel");
  const lines = o.lines
    .filter((l) => l.catalogItemId && l.variantId)
    .map((l) => ({ productId: l.catalogItemId!, variantId: l.variantId!, quantity: l.quantity, name: l.name }));
  const stock = opts.restockAllItems && lines.length ? releaseStockStatements(ctx, lines, id, `Order ${o.order.number} canceled`) : undefined;
  return applyChange(ctx, o, {
    set: { status: "CANCELED" },
    activities: [{ type: "ORDER_CANCELED", details: { restockAllItems: !!opts.restockAllItems } }],
    stock,
    events: [
      {
        type: OrderEventType.canceled,
        data: (oid) => ({
          entityId: oid,
          entityFqdn: "wix.ecom.v1.order",
          slug: "canceled",
          actionEvent: {
            body: {
              order: { id: oid, status: "CANCELED" },
              restockAllItems: !!opts.restockAllItems,
              ...(opts.sendOrderCanceledEmail === false ? { sendOrderCanceledEmail: false } : {}),
            },
          },
        }),
      },
    ],
  });
}

/** POST /ecom/v1/orders/{id}/mark-as-paid: an offline order NOT_PAID (or PENDING) becomes PAID. */
export async function markAsPaid(ctx: Ctx, id: string) {
  requirePermission(ctx, "orders.write");
  const o = await loadOrder(ctx, id);
  const ps = o.order.paymentStatus;
  const expired = ps !== "PARTIALLY_REFUNDED" && ps !== "FULLY_REFUNDED" && o.order.status === "CANCELED" ? unpaidExpiry(o) : null;
  if (expired) {
    // Its stock may be sold to someone else by now: a late payment is refunded, or the buyer orders again.
    throw unsupported(
      "ORDER_STATUS_IS_NOT_SUPPORTED",
      `Order ${id} was canceled because it was not paid within ${expired.holdHours} hours, and its items went back into stock; it cannot be marked as paid. If the buyer has paid, refund them or ask them to place a new order.`,
      { status: o.order.status, reason: UNPAID_CANCEL_REASON },
    );
  }
  refuseUnless(o, "mark-paid");
  const now = nowIso();
  const txId = newId();
  return applyChange(ctx, o, {
    set: { paymentStatus: "PAID" },
    activities: [{ type: "ORDER_PAID", details: { transactionId: txId } }],
    after: [
      ctx.db.insert(transactions).values({
        id: txId,
        orderId: id,
        amount: o.order.total,
        currency: o.order.currency,
        status: "APPROVED",
        provider: "offline",
        providerTransactionId: null,
        createdDate: now,
      }),
    ],
    events: [paymentEvent(ps, "PAID")],
  });
}

/** POST /ecom/v1/orders/{id}/fulfillments: some lines (or everything left) leave, with tracking. */
export async function createFulfillment(ctx: Ctx, id: string, req: FulfillmentRequest) {
  requirePermission(ctx, "orders.write");
  const o = await loadOrder(ctx, id);
  refuseUnless(o, "fulfil");
  const requested = req.fulfillment?.lineItems ?? req.lineItems ?? null;
  const trackingInfo = req.fulfillment?.trackingInfo ?? req.trackingInfo ?? null;
  const items: { id: string; quantity: number }[] = [];
  if (requested) {
    const seen = new Map<string, number>();
    requested.forEach((r) => seen.set(r.id, (seen.get(r.id) ?? 0) + r.quantity));
    let i = 0;
    for (const [lineId, quantity] of seen) {
      const line = o.lines.find((l) => l.id === lineId);
      if (!line) throw badField(`lineItems[${i}].id`, "is not a line item of this order", "VALIDATION", { lineItemId: lineId });
      const left = leftToShip(line);
      if (quantity > left) throw badField(`lineItems[${i}].quantity`, `is more than the ${left} left to fulfil of "${line.name}"`, "MAX", { left });
      items.push({ id: lineId, quantity });
      i++;
    }
  } else {
    for (const l of o.lines) if (leftToShip(l) > 0) items.push({ id: l.id, quantity: leftToShip(l) });
  }
  const remaining = new Map(o.lines.map((l) => [l.id, leftToShip(l)]));
  for (const it of items) remaining.set(it.id, remaining.get(it.id)! - it.quantity);
  const full = [...remaining.values()].every((v) => v === 0);
  const fulfillmentStatus = full ? "FULFILLED" : "PARTIALLY_FULFILLED";
  const now = nowIso();
  const cleanTracking = trackingInfo ? Object.fromEntries(Object.entries(trackingInfo).filter(([, v]) => v != null)) : null;
  const lineUpdates: Statement[] = items.flatMap((it) => [
    ctx.db
      .update(orderLineItems)
      .set({ fulfilledQuantity: sql`${orderLineItems.fulfilledQuantity} + ${it.quantity}` })
      .where(
        and(
          eq(orderLineItems.id, it.id),
          eq(orderLineItems.orderId, id),
          sql`${orderLineItems.fulfilledQuantity} + ${orderLineItems.refundedQuantity} + ${it.quantity} <= ${orderLineItems.quantity}`,
        ),
      ),
    assertPreviousChanged(ctx.db),
  ]);
  return applyChange(ctx, o, {
    set: { fulfillmentStatus },
    statements: lineUpdates,
    after: [
      ctx.db.insert(orderFulfillments).values({
        id: newId(),
        orderId: id,
        lineItems: items,
        trackingInfo: cleanTracking && Object.keys(cleanTracking).length ? cleanTracking : null,
        createdDate: now,
      }),
    ],
    activities: [
      { type: full ? "ORDER_FULFILLED" : "ORDER_PARTIALLY_FULFILLED", details: { lineItems: items } },
      ...(cleanTracking?.trackingNumber ? [{ type: "TRACKING_NUMBER_ADDED", details: { trackingInfo: cleanTracking } }] : []),
    ],
    events: full
      ? [
          {
            type: OrderEventType.fulfilled,
            data: (oid) => ({
              entityId: oid,
              entityFqdn: "wix.ecom.v1.order",
              slug: "fulfilled",
              actionEvent: { body: { order: { id: oid, fulfillmentStatus } } },
            }),
          },
        ]
      : [],
  });
}

/** POST /ecom/v1/orders/{id}/refund-status: a refund made outside the store (manual), recorded on the order. */
export async function setRefundStatus(ctx: Ctx, id: string, status: "PARTIALLY_REFUNDED" | "FULLY_REFUNDED") {
  requirePermission(ctx, "orders.write");
  const o = await loadOrder(ctx, id);
  const ps = o.order.paymentStatus;
  const block = (reason: string, description: string) =>
    new ApiError(400, reason, description, { data: { reason, paymentStatus: ps }, message: "Refund not possible" });
  if (ps === "FULLY_REFUNDED") throw block("ALREADY_REFUNDED", `Order ${id} is already fully refunded`);
  if (o.order.status === "PENDING" || o.order.status === "INITIALIZED") throw block("ORDER_IS_PENDING", `Order ${id} is pending`);
  if (o.order.status === "REJECTED") throw block("ORDER_IS_REJECTED", `Order ${id} was rejected`);
  if (ps === "PENDING") throw block("PENDING_REFUND", `Order ${id} has a payment pending`);
  if (ps !== "PAID" && ps !== "PARTIALLY_REFUNDED" && ps !== "PARTIALLY_PAID")
    throw block("NOT_PAID", `Order ${id} is not paid (${ps}), so there is nothing to refund`);
  if (o.order.total === 0) throw block("ZERO_PRICE", `Order ${id} cost nothing, so there is nothing to refund`);
  // Fully refunded, the units not shipped will never ship: they go back to stock (once).
  const back = status === "FULLY_REFUNDED" ? restockOf(o, { lineItems: [], restock: false }, true) : [];
  const stockLines = back.map((r) => {
    const l = o.lines.find((x) => x.id === r.lineItemId)!;
    return { productId: l.catalogItemId!, variantId: l.variantId!, quantity: r.quantity, name: l.name };
  });
  return applyChange(ctx, o, {
    set: { paymentStatus: status },
    statements: back.map((r) =>
      ctx.db
        .update(orderLineItems)
        .set({ restockedQuantity: sql`${orderLineItems.restockedQuantity} + ${r.quantity}` })
        .where(eq(orderLineItems.id, r.lineItemId)),
    ),
    activities: [
      {
        type: status === "FULLY_REFUNDED" ? "ORDER_REFUNDED" : "ORDER_PARTIALLY_REFUNDED",
        details: { manual: true, ...(back.length ? { restockedLineItems: back } : {}) },
      },
    ],
    stock: stockLines.length ? releaseStockStatements(ctx, stockLines, id, `Order ${o.order.number} refunded`) : undefined,
    events: [paymentEvent(ps, status)],
  });
}

/** The buyer's own orders, newest first (account pages). */
export async function listOwnOrders(ctx: Ctx, limit = 20) {
  const a = ctx.auth;
  if (a.kind !== "member" && a.kind !== "visitor") return [];
  const owner = a.kind === "member" ? { kind: "member" as const, id: a.identityId } : { kind: "visitor" as const, id: a.visitorId };
  const rows = await ctx.db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.ownerKind, owner.kind), eq(orders.ownerId, owner.id)))
    .orderBy(desc(orders.purchasedDate))
    .limit(limit);
  return (
    await loadOrders(
      ctx,
      rows.map((r) => r.id),
    )
  ).map(orderShape);
}

/** An order's total and purchase date, for another domain's batch (the recovered revenue of an abandoned cart). */
export function orderTotalRead(db: Db, orderId: string) {
  return db.select({ total: orders.total, purchasedDate: orders.purchasedDate }).from(orders).where(eq(orders.id, orderId));
}

/**
 * Placed orders per UTC hour since `since` (count and sum of totals in `currency`; canceled and rejected orders are
 * not sales), for the dashboard's batch: hours, not days, so the report can fold them into the store's own days.
 */
export function salesByHourRead(db: Db, since: string, currency: string) {
  const hour = sql<string>`substr(${orders.purchasedDate}, 1, 13)`;
  return db
    .select({
      hour: hour.as("sales_hour"),
      orders: sql<number>`count(*)`.as("sales_orders"),
      total: sql<number>`coalesce(sum(${orders.total}), 0)`.as("sales_total"),
    })
    .from(orders)
    .where(and(sql`${orders.purchasedDate} >= ${since}`, eq(orders.currency, currency), sql`${orders.status} NOT IN ('CANCELED', 'REJECTED')`))
    .groupBy(hour);
}

/** The activities that record a refund: their `amount` (minor units) when known, else a full refund of what was left. */
const REFUND_ACTIVITIES = sql`('ORDER_REFUNDED', 'ORDER_PARTIALLY_REFUNDED')`;

/**
 * Money refunded per UTC hour since `since` (in `currency`), dated when the refund was recorded, for the dashboard's
 * batch. A refund names its amount; a full refund recorded by hand counts the order's total less the refunds before
 * it; a partial one recorded by hand has no amount and counts nothing. Refunds of canceled orders are not counted, as
 * those orders are not sales.
 */
export function refundsByHourRead(db: Db, since: string, currency: string) {
  const a = alias(orderActivities, "a");
  const hour = sql<string>`substr(${a.createdDate}, 1, 13)`;
  const stated = sql`json_extract(${a.details}, '$.amount')`;
  const before = sql`(SELECT coalesce(sum(json_extract(b.details, '$.amount')), 0) FROM order_activities b
    WHERE b.order_id = ${a.orderId} AND b.type IN ${REFUND_ACTIVITIES} AND b.id <> ${a.id})`;
  const amount = sql`CASE WHEN ${stated} IS NOT NULL THEN ${stated} WHEN ${a.type} = 'ORDER_REFUNDED' THEN max(0, ${orders.total} - ${before}) ELSE 0 END`;
  return db
    .select({ hour: hour.as("refund_hour"), total: sql<number>`coalesce(sum(${amount}), 0)`.as("refund_total") })
    .from(a)
    .innerJoin(orders, eq(orders.id, a.orderId))
    .where(
      and(
        sql`${a.type} IN ${REFUND_ACTIVITIES}`,
        sql`${a.createdDate} >= ${since}`,
        eq(orders.currency, currency),
        sql`${orders.status} NOT IN ('CANCELED', 'REJECTED')`,
      ),
    )
    .groupBy(hour);
}
