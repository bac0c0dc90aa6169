import { eq, sql } from "drizzle-orm";
import { emailStatement } from "#worker/email";
import type { Processor } from "#worker/events";
import { isOwner, loadOrders, OrderEventType, type LoadedOrder } from "#worker/orders";
import { emailLinkOrigin, publicOrigin } from "#worker/platform/public-origin";
import { nowIso, type Ctx } from "#worker/platform/context";
import { ApiError, notFound } from "#worker/platform/errors";
import { runBatch } from "#worker/platform/unit-of-work";
import { loadStoreSettings, shopSettings } from "#worker/store";
import { fileForLine, filesOfProducts } from "./files";
import { downloadPath } from "./signing";
import { lineDownloads } from "./tables";

/**
 * Delivery of digital items. An order's downloads open when it is paid: each digital line (a line whose product or
 * variant has a file) gets a signed link valid for the store's `downloadLinkDays` after the payment, good for
 * `downloadLimit` downloads. The same link goes into the one email sent when the order is paid and onto the buyer's
 * order pages. A full refund or a cancellation closes them.
 */

/** Whether an order's downloads are open, and if not why. */
export type DownloadAvailability = "AVAILABLE" | "NOT_PAID" | "REFUNDED";

/** One digital line of an order, as the buyer sees it. */
export interface OrderDownload {
  lineItemId: string;
  productName: string;
  fileName: string;
  contentType: string;
  size: number;
  /** The signed link (absolute), or null while the downloads are not open or once the link expired. */
  url: string | null;
  expiresDate: string | null;
  downloadsUsed: number;
  downloadLimit: number;
}

export interface OrderDownloads {
  orderId: string;
  availability: DownloadAvailability;
  downloads: OrderDownload[];
}

/** Whether the order's downloads are open: paid (or partly refunded) and not cancelled. */
export function availabilityOf(order: { status: string; paymentStatus: string }): DownloadAvailability {
  if (order.paymentStatus === "FULLY_REFUNDED") return "REFUNDED";
  if (order.status === "CANCELED" || (order.paymentStatus !== "PAID" && order.paymentStatus !== "PARTIALLY_REFUNDED")) return "NOT_PAID";
  return "AVAILABLE";
}

/** When the order was paid: its first ORDER_PAID activity (the order's last change when it has none). */
function paidAt(o: LoadedOrder): string {
  const paid = o.activities.filter((a) => a.type === "ORDER_PAID").sort((a, b) => (a.createdDate < b.createdDate ? -1 : 1))[0];
  return paid?.createdDate ?? o.order.updatedDate;
}

/** The links' expiry (Unix seconds): the payment plus the store's validity days. */
export function expiryOf(o: LoadedOrder, days: number): number {
  return Math.floor(Date.parse(paidAt(o)) / 1000) + days * 86_400;
}

/** The digital lines of a loaded order with their links (no caller check: callers check who asks). */
export async function readDownloads(ctx: Ctx, o: LoadedOrder, origin: string): Promise<OrderDownloads> {
  const productIds = [...new Set(o.lines.map((l) => l.catalogItemId).filter((id): id is string => !!id))];
  const [files, counts] = await runBatch(ctx.db, [
    filesOfProducts(ctx, productIds),
    ctx.db.select().from(lineDownloads).where(eq(lineDownloads.orderId, o.order.id)),
  ]);
  const settings = await loadStoreSettings(ctx.env);
  const availability = availabilityOf(o.order);
  const expires = expiryOf(o, settings.downloadLinkDays);
  const live = availability === "AVAILABLE" && expires * 1000 > Date.now();
  const downloads: OrderDownload[] = [];
  for (const line of o.lines) {
    const file = fileForLine(files, line.catalogItemId, line.variantId);
    if (!file) continue;
    downloads.push({
      lineItemId: line.id,
      productName: line.name,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.size,
      url: live ? `${origin}${await downloadPath(ctx.env, o.order.id, line.id, expires)}` : null,
      expiresDate: availability === "AVAILABLE" ? new Date(expires * 1000).toISOString() : null,
      downloadsUsed: counts.find((c) => c.lineId === line.id)?.count ?? 0,
      downloadLimit: settings.downloadLimit,
    });
  }
  return { orderId: o.order.id, availability, downloads };
}

/**
 * GET /api/v1/orders/{id}/downloads: the caller's own order's downloads. Anyone else's order (another visitor or
 * member, a merchant, no caller) is a 404, so links are never minted for someone who did not buy.
 */
export async function ownOrderDownloads(ctx: Ctx, orderId: string): Promise<OrderDownloads> {
  const missing = () => notFound("ORDER_NOT_FOUND", "Order", orderId);
  if (ctx.auth.kind !== "visitor" && ctx.auth.kind !== "member") throw missing();
  const [o] = await loadOrders(ctx, [orderId]);
  if (!o || !isOwner(ctx, o.order)) throw missing();
  return readDownloads(ctx, o, publicOrigin(ctx));
}

const dateText = (iso: string) => new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/**
 * When an order becomes PAID (whichever way: the test card at checkout, Stripe's webhook or the buyer's return, the
 * merchant marking it paid), its buyer gets one email with a link for each digital line. The email's idempotency key
 * and the processed-event record, written together, keep it to one.
 */
export const digitalDeliveryProcessor: Processor = {
  name: "downloads:delivery",
  types: [OrderEventType.paymentStatusUpdated],
  async run(event, data, p) {
    const body = (data as { actionEvent?: { body?: { order?: { paymentStatus?: string } } } }).actionEvent?.body;
    if (body?.order?.paymentStatus !== "PAID") return;
    const [o] = await loadOrders(p.ctx, [event.entityId]);
    if (!o?.order.buyerEmail) return;
    const { availability, downloads } = await readDownloads(p.ctx, o, emailLinkOrigin(p.ctx));
    const links = downloads.filter((d) => d.url);
    if (availability !== "AVAILABLE" || !links.length) return;
    const shop = await shopSettings(p.ctx);
    const d = o.order.details as { billingInfo?: { contactDetails?: { firstName?: string } } };
    const email = emailStatement(
      p.ctx,
      o.order.buyerEmail,
      "digital-delivery",
      {
        orderNumber: String(o.order.number),
        name: d.billingInfo?.contactDetails?.firstName || undefined,
        downloads: links.map((l) => ({ name: l.productName, fileName: l.fileName, url: l.url! })),
        expires: dateText(links[0].expiresDate!),
        limit: links[0].downloadLimit,
      },
      { idempotencyKey: `digital-delivery:${o.order.id}`, shop },
    );
    const [result] = await runBatch(p.ctx.db, [email.statement, p.done()]);
    email.deliver(result);
  },
};

/**
 * Counts one download of a line, unless it already had `limit`: one guarded upsert, so parallel downloads can never
 * pass the limit together. Answers whether this download may go ahead.
 */
export async function countDownload(ctx: Ctx, orderId: string, lineId: string, limit: number): Promise<boolean> {
  const now = nowIso();
  const [rows] = await runBatch(ctx.db, [
    ctx.db
      .insert(lineDownloads)
      .values({ orderId, lineId, count: 1, lastDate: now })
      .onConflictDoUpdate({
        target: [lineDownloads.orderId, lineDownloads.lineId],
        set: { count: sql`${lineDownloads.count} + 1`, lastDate: now },
        setWhere: sql`${lineDownloads.count} < ${limit}`,
      })
      .returning({ count: lineDownloads.count }),
  ]);
  return rows.length > 0;
}

/** A refused download: 403 (or 404) in the API's error shape, naming why. */
export function downloadRefused(status: 403 | 404, code: string, description: string, data: Record<string, unknown> = {}): ApiError {
  return new ApiError(status, code, description, { data, message: "Download not available" });
}
