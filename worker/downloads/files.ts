import { and, eq, inArray } from "drizzle-orm";
import { products, variants } from "#worker/catalog";
import { nowIso, requireMerchant, requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, badField, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { runBatch } from "#worker/platform/unit-of-work";
import { digitalFiles } from "./tables";

/**
 * The files of digital products: uploaded by a merchant holding catalog.write, streamed into the private R2 bucket
 * DOWNLOADS as they arrive (never buffered whole), one for the product and at most one for each of its variants.
 */

/** The largest file accepted: 100 MB. */
export const MAX_DOWNLOAD_BYTES = 100 * 1_048_576;

/** A stored file as the API and the console show it. */
export interface DigitalFile {
  id: string;
  productId: string;
  /** null: the product's file, for every variant without its own. */
  variantId: string | null;
  fileName: string;
  contentType: string;
  size: number;
  createdDate: string;
}

type FileRow = typeof digitalFiles.$inferSelect;

export const fileShape = (r: FileRow): DigitalFile => ({
  id: r.id,
  productId: r.productId,
  variantId: r.variantId || null,
  fileName: r.fileName,
  contentType: r.contentType,
  size: r.size,
  createdDate: r.createdDate,
});

/** What an upload brings besides its bytes. */
export interface UploadInput {
  variantId: string | null;
  fileName: string | null;
  contentType: string | null;
  /** The Content-Length header as sent (null: none). */
  length: string | null;
}

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** Checks an upload's name, type and length before a byte of it is read; answers the checked values. */
export function checkUpload(input: UploadInput): { fileName: string; contentType: string; size: number } {
  if (input.length === null || input.length.trim() === "")
    throw new ApiError(411, "LENGTH_REQUIRED", "Send the file with a Content-Length header (the upload is streamed to storage)", {
      message: "Content-Length required",
    });
  const size = Number(input.length);
  if (!Number.isInteger(size) || size < 0) throw badField("Content-Length", "must be the body's size in bytes");
  if (size > MAX_DOWNLOAD_BYTES)
    throw new ApiError(413, "PAYLOAD_TOO_LARGE", `The file is larger than the limit of ${MAX_DOWNLOAD_BYTES / 1_048_576} MB`, {
      data: { limitBytes: MAX_DOWNLOAD_BYTES, size },
      message: "File too large",
    });
  if (size === 0) throw badField("file", "is empty: send the file's bytes as the request body", "REQUIRED_FIELD");
  const fileName = (input.fileName ?? "").trim();
  if (!fileName) throw badField("fileName", "is required: the name buyers' downloads are saved under, e.g. guide.pdf", "REQUIRED_FIELD");
  // Kept for the Content-Disposition header: no path parts, no control characters.
  const control = [...fileName].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127);
  if (fileName.length > 200 || control || /[/\\]/.test(fileName))
    throw badField("fileName", "must be a file name of at most 200 characters, without slashes or control characters");
  const contentType = (input.contentType ?? "").split(";")[0].trim().toLowerCase() || "application/octet-stream";
  if (!CONTENT_TYPE.test(contentType)) throw badField("Content-Type", "must be a media type such as application/pdf");
  return { fileName, contentType, size };
}

/** The product (digital, or a 4xx) and, when given, that variant of it. */
async function digitalProduct(ctx: Ctx, productId: string, variantId: string | null) {
  const [rows, variantRows] = await runBatch(ctx.db, [
    ctx.db.select({ id: products.id, productType: products.productType }).from(products).where(eq(products.id, productId)),
    ctx.db
      .select({ id: variants.id })
      .from(variants)
      .where(and(eq(variants.productId, productId), eq(variants.id, variantId ?? ""))),
  ]);
  const product = rows[0];
  if (!product) throw notFound("PRODUCT_NOT_FOUND", "Product", productId);
  if (product.productType !== "digital")
    throw new ApiError(400, "PRODUCT_NOT_DIGITAL", `Product ${productId} is a physical product: only a digital product takes a file`, {
      data: { productId },
      message: "Not a digital product",
    });
  if (variantId !== null && !variantRows.length) throw notFound("VARIANT_NOT_FOUND", "Variant", variantId, "variantId");
}

/** A product's files (staff read): the product's own first, then the variants'. */
export async function listProductFiles(ctx: Ctx, productId: string): Promise<DigitalFile[]> {
  requireMerchant(ctx);
  const rows = await ctx.db.select().from(digitalFiles).where(eq(digitalFiles.productId, productId)).orderBy(digitalFiles.variantId);
  return rows.map(fileShape);
}

/** The files of these products, for reading orders' lines (no caller check). */
export function filesOfProducts(ctx: Ctx, productIds: string[]) {
  return ctx.db
    .select()
    .from(digitalFiles)
    .where(inArray(digitalFiles.productId, productIds.length ? productIds : [""]));
}

/** The file a bought line gets: its variant's own, else the product's. */
export function fileForLine(files: FileRow[], productId: string | null, variantId: string | null): FileRow | null {
  if (!productId) return null;
  const own = files.find((f) => f.productId === productId && variantId && f.variantId === variantId);
  return own ?? files.find((f) => f.productId === productId && f.variantId === "") ?? null;
}

/**
 * Stores an uploaded file for a digital product (or one of its variants), replacing the one it had. The body goes
 * to R2 as it arrives; the row is written only once R2 has all of it, so a failed upload changes nothing. Two
 * uploads racing for the same slot: one wins, the other gets 409 and its object is removed.
 */
export async function uploadProductFile(
  ctx: Ctx,
  productId: string,
  input: UploadInput,
  body: ReadableStream<Uint8Array> | null,
): Promise<DigitalFile> {
  requirePermission(ctx, "catalog.write");
  const { fileName, contentType, size } = checkUpload(input);
  await digitalProduct(ctx, productId, input.variantId);
  const slot = input.variantId ?? "";
  const [before] = await ctx.db
    .select()
    .from(digitalFiles)
    .where(and(eq(digitalFiles.productId, productId), eq(digitalFiles.variantId, slot)));
  if (!body) throw badField("file", "is empty: send the file's bytes as the request body", "REQUIRED_FIELD");
  const id = newId();
  const objectKey = `downloads/${productId}/${id}`;
  const stored = await ctx.env.DOWNLOADS.put(objectKey, body, {
    httpMetadata: { contentType },
    customMetadata: { fileName },
  }).catch(() => null);
  if (!stored || stored.size !== size) {
    if (stored) await ctx.env.DOWNLOADS.delete(objectKey);
    throw new ApiError(400, "UPLOAD_INCOMPLETE", `The upload ended before its ${size} bytes arrived; nothing was stored`, {
      data: { size },
      message: "Upload incomplete",
    });
  }
  const row: FileRow = { id, productId, variantId: slot, objectKey, fileName, contentType, size, createdDate: nowIso() };
  // Insert when the slot was empty, else replace the very row read: a change made since refuses this one.
  const write = before
    ? ctx.db
        .update(digitalFiles)
        .set(row)
        .where(and(eq(digitalFiles.id, before.id), eq(digitalFiles.objectKey, before.objectKey)))
    : ctx.db.insert(digitalFiles).values(row).onConflictDoNothing();
  const [result] = await runBatch(ctx.db, [write]);
  if (!(result as D1Result).meta?.changes) {
    await ctx.env.DOWNLOADS.delete(objectKey);
    throw new ApiError(409, "CONFLICT", "The file was changed by another upload at the same time; reload and try again", { message: "Conflict" });
  }
  if (before) ctx.waitUntil(ctx.env.DOWNLOADS.delete(before.objectKey));
  return fileShape(row);
}

/** Removes the file of a product (variantId null) or of one of its variants; buyers' links to it stop working. */
export async function deleteProductFile(ctx: Ctx, productId: string, variantId: string | null): Promise<{ deleted: DigitalFile }> {
  requirePermission(ctx, "catalog.write");
  const [row] = await ctx.db
    .delete(digitalFiles)
    .where(and(eq(digitalFiles.productId, productId), eq(digitalFiles.variantId, variantId ?? "")))
    .returning();
  if (!row) throw notFound("DIGITAL_FILE_NOT_FOUND", "File of product", variantId ? `${productId} variant ${variantId}` : productId, "productId");
  ctx.waitUntil(ctx.env.DOWNLOADS.delete(row.objectKey));
  return { deleted: fileShape(row) };
}
