import { ApiError } from "#worker/platform/errors";
import { Hono } from "hono";
import { loadOrders } from "#worker/orders";
import { badField } from "#worker/platform/errors";
import { pathId, type AppEnv } from "#worker/platform/http";
import { loadStoreSettings } from "#worker/store";
import { availabilityOf, countDownload, downloadRefused, ownOrderDownloads } from "./delivery";
import { deleteProductFile, fileForLine, filesOfProducts, listProductFiles, uploadProductFile } from "./files";
import { verifyDownload } from "./signing";

/** The optional `variantId` query parameter: a variant's file instead of the product's. */
function variantOf(value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  if (value.length > 100) throw badField("variantId", "must be a variant id of at most 100 characters");
  return value;
}

/**
 * Merchant extension: the files of a digital product (GET lists them; PUT uploads one as the raw request body with
 * Content-Length, Content-Type and `?fileName=`, and `&variantId=` for a variant's own; DELETE removes one), and the
 * buyer's own order's download links.
 */
export const downloadsApi = new Hono<AppEnv>()
  .get("/products/:id/downloads", async (c) => c.json({ files: await listProductFiles(c.get("ctx"), pathId(c)) }))
  .put("/products/:id/downloads", async (c) => {
    const file = await uploadProductFile(
      c.get("ctx"),
      pathId(c),
      {
        variantId: variantOf(c.req.query("variantId")),
        fileName: c.req.query("fileName") ?? null,
        contentType: c.req.header("content-type") ?? null,
        length: c.req.header("content-length") ?? null,
      },
      c.req.raw.body,
    );
    return c.json({ file });
  })
  .delete("/products/:id/downloads", async (c) => c.json(await deleteProductFile(c.get("ctx"), pathId(c), variantOf(c.req.query("variantId")))))
  .get("/orders/:id/downloads", async (c) => c.json(await ownOrderDownloads(c.get("ctx"), pathId(c))));

/** `filename` for Content-Disposition: an ASCII fallback and the exact name in RFC 5987 form. */
function disposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * GET /downloads/{orderId}/{lineId}?expires=&sig=: a bought file, streamed from the private bucket. The signature
 * is the credential (the link works from the buyer's email on any device); every refusal is a 403 or 404 in the
 * API's error shape with no bytes: a forged or altered link, an expired one, an order not paid or refunded, a line
 * past its download limit.
 */
export const downloadFiles = new Hono<AppEnv>()
  .get("/:orderId/:lineId", async (c) => {
    const ctx = c.get("ctx");
    const orderId = pathId(c, "orderId");
    const lineId = pathId(c, "lineId");
    const expiresText = c.req.query("expires") ?? "";
    const expires = /^\d{1,12}$/.test(expiresText) ? Number(expiresText) : Number.NaN;
    const sig = c.req.query("sig") ?? "";
    if (!Number.isFinite(expires) || !(await verifyDownload(c.env, orderId, lineId, expires, sig)))
      throw downloadRefused(403, "DOWNLOAD_LINK_INVALID", "This download link is not valid: use the link from your order email or order page");
    if (expires * 1000 <= Date.now())
      throw downloadRefused(403, "DOWNLOAD_LINK_EXPIRED", "This download link has expired", { expiresDate: new Date(expires * 1000).toISOString() });
    const [o] = await loadOrders(ctx, [orderId]);
    const line = o?.lines.find((l) => l.id === lineId);
    if (!o || !line) throw downloadRefused(404, "DOWNLOAD_NOT_FOUND", "This order has no such item to download");
    const availability = availabilityOf(o.order);
    if (availability === "REFUNDED") throw downloadRefused(403, "DOWNLOAD_REFUNDED", "This order was refunded: its downloads are closed");
    if (availability !== "AVAILABLE") throw downloadRefused(403, "DOWNLOAD_NOT_PAID", "This order is not paid: its downloads open once it is");
    const file = fileForLine(await filesOfProducts(ctx, line.catalogItemId ? [line.catalogItemId] : []), line.catalogItemId, line.variantId);
    const object = file ? await c.env.DOWNLOADS.get(file.objectKey) : null;
    if (!file || !object) throw downloadRefused(404, "DOWNLOAD_NOT_FOUND", "The shop no longer has a file for this item: contact the shop");
    const headers = {
      "content-type": file.contentType,
      "content-length": String(object.size),
      "content-disposition": disposition(file.fileName),
      "cache-control": "private, no-store",
      // Bytes a merchant uploaded: never run as a page of the shop's origin.
      "content-security-policy": "default-src 'none'; sandbox",
    };
    // A HEAD (a link checker, a mail scanner) reads no bytes, so it uses up no download.
    if (c.req.method === "HEAD") {
      await object.body.cancel();
      return new Response(null, { status: 200, headers });
    }
    const { downloadLimit } = await loadStoreSettings(c.env);
    if (!(await countDownload(ctx, orderId, lineId, downloadLimit))) {
      await object.body.cancel();
      throw downloadRefused(403, "DOWNLOAD_LIMIT_REACHED", `This item was already downloaded ${downloadLimit} times, the most allowed`, {
        downloadLimit,
      });
    }
    return new Response(object.body, { status: 200, headers });
  })
  .all("*", () => {
    // Any other path under /downloads is a malformed link: the API's 404, never the shop's HTML page.
    throw new ApiError(404, "DOWNLOAD_NOT_FOUND", "No download at this address: use the link from your order email or order page", {
      message: "Not found",
    });
  });
