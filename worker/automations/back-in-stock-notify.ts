import { and, eq, isNotNull, type sql } from "drizzle-orm";
import { discountedPrice } from "#worker/catalog";
import { loadProduct } from "#worker/catalog";
import { emailOutcomes, sendEmail } from "#worker/email";
import { flushRecorded, newEvent, outboxInsertIfChanged, type EventEnvelope, type Statement } from "#worker/events";
import { nowIso, type Ctx } from "#worker/platform/context";
import { formatMoney } from "#worker/platform/money";
import { publicOrigin } from "#worker/platform/public-origin";
import { AutomationEventType } from "./events";
import { backInStockRequests } from "./tables";
import { runBatch } from "#worker/platform/unit-of-work";
import { domainEvent, type BackInStockRow, shape } from "./back-in-stock-shape";

/** Notifying back-in-stock requests: each RECEIVED request gets one email and ends NOTIFICATION_SENT or FAILED. */

// ---------------------------------------------------------------------------------------------------------------
// Notifying

/**
 * Notifies the RECEIVED requests `match` selects, under `key` (the event or report that caused it): they move to
 * PROCESSING, each shopper gets one email (keyed by request and cause, so a redelivered event never sends twice),
 * and each ends NOTIFICATION_SENT, or FAILED with the reason. A redelivery finishes the requests its key claimed.
 */
export async function notifyRequests(ctx: Ctx, match: ReturnType<typeof sql>, key: string): Promise<{ sent: number; failed: number; held: number }> {
  const { db } = ctx;
  const now = nowIso();
  const received = await db
    .select()
    .from(backInStockRequests)
    .where(and(eq(backInStockRequests.status, "RECEIVED"), match))
    .limit(500);
  const events: EventEnvelope[] = [];
  if (received.length) {
    const statements: Statement[] = [];
    for (const r of received) {
      const e = newEvent(
        ctx,
        AutomationEventType.backInStockUpdated,
        r.id,
        domainEvent("updated", shape({ ...r, status: "PROCESSING", processingKey: key, updatedDate: now })),
      );
      statements.push(
        db
          .update(backInStockRequests)
          .set({ status: "PROCESSING", processingKey: key, updatedDate: now })
          .where(and(eq(backInStockRequests.id, r.id), eq(backInStockRequests.status, "RECEIVED"))),
        outboxInsertIfChanged(db, e),
      );
      events.push(e);
    }
    await runBatch(db, statements);
  }
  const mine = await db
    .select()
    .from(backInStockRequests)
    .where(and(eq(backInStockRequests.status, "PROCESSING"), eq(backInStockRequests.processingKey, key)));
  let sent = 0;
  let failed = 0;
  let held = 0;
  const products = new Map<string, Awaited<ReturnType<typeof loadProduct>>>();
  for (const r of mine) {
    if (!products.has(r.catalogItemId)) products.set(r.catalogItemId, await loadProduct(db, r.catalogItemId));
    const outcome = await notifyOne(ctx, r, products.get(r.catalogItemId) ?? null, key);
    if ("held" in outcome) {
      // The transport failed but the email sweep will try again: PROCESSING until that settles (settleWaitingRequests).
      await db
        .update(backInStockRequests)
        .set({ emailId: outcome.emailId, updatedDate: nowIso() })
        .where(and(eq(backInStockRequests.id, r.id), eq(backInStockRequests.status, "PROCESSING")));
      held++;
      continue;
    }
    const finish = finishRequest(ctx, r, outcome);
    await runBatch(db, finish.statements);
    events.push(finish.event);
    if (outcome.status === "NOTIFICATION_SENT") sent++;
    else failed++;
  }
  // Events whose guarded row did not change were never written: flushing only sends what exists.
  await flushRecorded(ctx, events);
  return { sent, failed, held };
}

/** A PROCESSING request's end (NOTIFICATION_SENT or FAILED) and its updated event, guarded on it still processing. */
function finishRequest(ctx: Ctx, r: BackInStockRow, outcome: Outcome): { statements: [Statement, Statement]; event: EventEnvelope } {
  const done = { ...r, ...outcome, updatedDate: nowIso() };
  const event = newEvent(ctx, AutomationEventType.backInStockUpdated, r.id, domainEvent("updated", shape(done)));
  const update = ctx.db
    .update(backInStockRequests)
    .set({
      status: outcome.status,
      reason: outcome.reason,
      autoNotified: outcome.autoNotified,
      emailId: outcome.emailId,
      updatedDate: done.updatedDate,
    })
    .where(
      and(
        eq(backInStockRequests.id, r.id),
        eq(backInStockRequests.status, "PROCESSING"),
        r.processingKey ? eq(backInStockRequests.processingKey, r.processingKey) : undefined,
      ),
    );
  return { statements: [update, outboxInsertIfChanged(ctx.db, event)], event };
}

/**
 * Sweep: requests whose email's first hand-over failed (PROCESSING with an email) end NOTIFICATION_SENT or FAILED
 * (SEND_FAILED) once the email sweep's retries settle it. Returns how many it settled.
 */
export async function settleWaitingRequests(ctx: Ctx): Promise<number> {
  const { db } = ctx;
  const waiting = await db
    .select()
    .from(backInStockRequests)
    .where(and(eq(backInStockRequests.status, "PROCESSING"), isNotNull(backInStockRequests.emailId)))
    .orderBy(backInStockRequests.updatedDate)
    .limit(100);
  if (!waiting.length) return 0;
  const outcomes = await emailOutcomes(
    db,
    waiting.map((r) => r.emailId!),
  );
  const statements: Statement[] = [];
  const events: EventEnvelope[] = [];
  for (const r of waiting) {
    const o = outcomes.get(r.emailId!);
    if (o?.retrying) continue;
    const outcome: Outcome =
      o?.status === "SENT"
        ? { status: "NOTIFICATION_SENT", reason: null, autoNotified: true, emailId: r.emailId }
        : o?.status === "SUPPRESSED"
          ? { status: "FAILED", reason: "UNSUBSCRIBED", autoNotified: null, emailId: r.emailId }
          : { status: "FAILED", reason: `SEND_FAILED: ${o?.error ?? "transport error"}`.slice(0, 500), autoNotified: null, emailId: r.emailId };
    const finish = finishRequest(ctx, r, outcome);
    statements.push(...finish.statements);
    events.push(finish.event);
  }
  if (!statements.length) return 0;
  await runBatch(db, statements);
  await flushRecorded(ctx, events);
  return events.length;
}

type Outcome = { status: "NOTIFICATION_SENT" | "FAILED"; reason: string | null; autoNotified: boolean | null; emailId: string | null };

async function notifyOne(
  ctx: Ctx,
  r: BackInStockRow,
  product: Awaited<ReturnType<typeof loadProduct>>,
  key: string,
): Promise<Outcome | { held: true; emailId: string }> {
  const variant = product?.variants.find((v) => (r.variantId ? v.id === r.variantId : v.visible));
  if (!product?.row.visible || !variant) return { status: "FAILED", reason: "ITEM_NOT_FOUND", autoNotified: null, emailId: null };
  const p = product.row;
  // Name, price, image and link come from the catalogue, never from what the form sent (no spoofed links in our mail).
  const price = discountedPrice(variant.price ?? p.price, p.discountType, p.discountValue, ctx.currency);
  const image = p.media.find((m) => m.mediaType === "image");
  const imageUrl = image ? (image.url.startsWith("/") ? publicOrigin(ctx) + image.url : image.url) : null;
  const options = Object.values(variant.choices).join(" / ");
  const result = await sendEmail(
    ctx,
    r.email,
    "back-in-stock",
    {
      item: { name: p.name, price: formatMoney(price, ctx.currency), imageUrl, options: r.variantId && options ? options : null },
      itemUrl: `${publicOrigin(ctx)}/products/${p.slug}`,
    },
    { idempotencyKey: `back-in-stock:${r.id}:${key}`, marketing: true, awaitDelivery: true },
  );
  if (result.status === "SUPPRESSED") return { status: "FAILED", reason: "UNSUBSCRIBED", autoNotified: null, emailId: result.id };
  if (result.retrying) return { held: true, emailId: result.id };
  if (result.status === "FAILED")
    return { status: "FAILED", reason: `SEND_FAILED: ${result.error ?? "transport error"}`.slice(0, 500), autoNotified: null, emailId: result.id };
  return { status: "NOTIFICATION_SENT", reason: null, autoNotified: true, emailId: result.id };
}

/** The stock-status event's variants that came back in stock (from out of stock). */
