import { requirePermission, type Ctx, type Permission } from "#worker/platform/context";
import { ApiError, invalidArgument, type FieldViolation } from "#worker/platform/errors";

/**
 * Product media in R2 (binding MEDIA), uploaded through the Worker and served back by it (./routes.ts).
 *
 * Objects are content-addressed: the key is `media/<sha256 of the bytes>.<ext>`, so the same picture uploaded twice
 * is one object, and a URL never changes meaning, which is what lets it be cached for a year as immutable. Only
 * raster images whose bytes say so (magic numbers, not the file name or the browser's type) are accepted: SVG is
 * refused because it can carry script that would run on the shop's own origin.
 */

/** The largest image accepted: 10 MB. */
export const MAX_IMAGE_BYTES = 10 * 1_048_576;
/** The largest multipart form carrying uploads: one image at the limit plus room for the other fields and framing. */
export const MAX_UPLOAD_FORM_BYTES = MAX_IMAGE_BYTES + 1_048_576;
/** How long a browser or CDN may keep a media file: a year, never revalidated (the URL changes with the bytes). */
export const MEDIA_CACHE_CONTROL = "public, max-age=31536000, immutable";

export type ImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp" | "image/avif";

export const IMAGE_EXTENSIONS: Record<ImageType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};

/** A served file name: the hash and one of the extensions above (anything else is not ours: 404). */
export const MEDIA_FILE = /^[0-9a-f]{64}\.(?:jpg|png|gif|webp|avif)$/;

/** What the bytes are, and their pixel size when the header says so cheaply (null otherwise). */
export interface SniffedImage {
  type: ImageType;
  width: number | null;
  height: number | null;
}

/** An uploaded image: its URL on this site and its size in pixels (null when the header did not tell). */
export interface UploadedImage {
  url: string;
  width: number | null;
  height: number | null;
}

/** A file from a form: a File, or a Blob with the name and type a form would give it. */
export type UploadFile = Blob & { name?: string; type: string };

const ascii = (b: Uint8Array, at: number, text: string) => [...text].every((ch, i) => b[at + i] === ch.charCodeAt(0));
const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);

/** Identifies an image by its first bytes (JPEG, PNG, GIF, WebP, AVIF), or null for anything else, SVG included. */
export function sniffImage(b: Uint8Array): SniffedImage | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { type: "image/jpeg", ...jpegSize(b) };
  if (b.length >= 24 && ascii(b, 0, "\x89PNG\r\n\x1a\n") && ascii(b, 12, "IHDR"))
    return { type: "image/png", width: u32be(b, 16), height: u32be(b, 20) };
  if (b.length >= 10 && (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a"))) return { type: "image/gif", width: u16le(b, 6), height: u16le(b, 8) };
  if (b.length >= 16 && ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")) return { type: "image/webp", ...webpSize(b) };
  if (b.length >= 16 && ascii(b, 4, "ftyp") && isAvifBrand(b)) return { type: "image/avif", ...avifSize(b) };
  return null;
}

/** JPEG: the frame header (SOFn) after the APPn/DQT/… segments holds the size. */
function jpegSize(b: Uint8Array): { width: number | null; height: number | null } {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) break;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    // Markers without a length: TEM, RSTn, SOI.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // end of image / start of scan: no frame header before it
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
    at += 2 + u16be(b, at + 2);
  }
  return { width: null, height: null };
}

/** WebP: lossy (VP8), lossless (VP8L) or extended (VP8X) each keep the size in their own way. */
function webpSize(b: Uint8Array): { width: number | null; height: number | null } {
  if (ascii(b, 12, "VP8 ") && b.length >= 30) return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  if (ascii(b, 12, "VP8L") && b.length >= 25) {
    const [b0, b1, b2, b3] = [b[21], b[22], b[23], b[24]];
    return { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
  }
  if (ascii(b, 12, "VP8X") && b.length >= 30) return { width: 1 + u24le(b, 24), height: 1 + u24le(b, 27) };
  return { width: null, height: null };
}

/** AVIF: an ISO-BMFF `ftyp` box whose major or a compatible brand is avif (still) or avis (sequence). */
function isAvifBrand(b: Uint8Array): boolean {
  const boxEnd = Math.min(u32be(b, 0), b.length);
  for (let at = 8; at + 4 <= boxEnd; at += 4) {
    if (at === 12) continue; // the minor version, not a brand
    if (ascii(b, at, "avif") || ascii(b, at, "avis")) return true;
  }
  return false;
}

/** AVIF: the first image spatial extents (`ispe`) property, near the start of the file. */
function avifSize(b: Uint8Array): { width: number | null; height: number | null } {
  const end = Math.min(b.length, 65_536) - 16;
  for (let at = 4; at < end; at++) {
    if (ascii(b, at, "ispe")) return { width: u32be(b, at + 8), height: u32be(b, at + 12) };
  }
  return { width: null, height: null };
}

/** Lowercase hex SHA-256 of the bytes (WebCrypto). */
async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((x) => x.toString(16).padStart(2, "0")).join("");
}

interface CheckedImage {
  bytes: Uint8Array<ArrayBuffer>;
  image: SniffedImage;
}

function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = new TextDecoder().decode(bytes.subarray(0, 1024)).toLowerCase();
  return /<svg[\s>]/.test(head) || (head.trimStart().startsWith("<?xml") && head.includes("svg"));
}

function megabytes(n: number): string {
  return `${(n / 1_048_576).toFixed(1).replace(/\.0$/, "")} MB`;
}

/** Reads and checks one file; a problem is pushed as a violation of `field` (nothing is stored). */
async function checkFile(file: UploadFile, field: string, violations: FieldViolation[]): Promise<CheckedImage | null> {
  const label = file.name ? `"${file.name}"` : "The file";
  if (file.size === 0) {
    violations.push({ field, description: `${label} is empty`, violatedRule: "MIN_SIZE", data: {} });
    return null;
  }
  if (file.size > MAX_IMAGE_BYTES) {
    violations.push({
      field,
      description: `${label} is ${megabytes(file.size)}: images may be at most ${megabytes(MAX_IMAGE_BYTES)}`,
      violatedRule: "MAX_SIZE",
      data: { maxBytes: MAX_IMAGE_BYTES },
    });
    return null;
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const image = sniffImage(bytes);
  if (!image) {
    const why = looksLikeSvg(bytes)
      ? "is an SVG drawing, which is not accepted (it can carry scripts): export it as PNG or WebP"
      : "is not an image this shop accepts: upload a JPEG, PNG, GIF, WebP or AVIF file";
    violations.push({ field, description: `${label} ${why}`, violatedRule: "FORMAT", data: {} });
    return null;
  }
  return { bytes, image };
}

/** Stores checked bytes under their content address (a second upload of the same bytes rewrites the same object). */
async function store(ctx: Ctx, { bytes, image }: CheckedImage): Promise<UploadedImage> {
  const name = `${await sha256Hex(bytes)}.${IMAGE_EXTENSIONS[image.type]}`;
  await ctx.env.MEDIA.put(`media/${name}`, bytes, {
    httpMetadata: { contentType: image.type, cacheControl: MEDIA_CACHE_CONTROL },
    customMetadata: image.width && image.height ? { width: String(image.width), height: String(image.height) } : {},
  });
  return { url: `/media/${name}`, width: image.width, height: image.height };
}

/**
 * Uploads one image (catalog.write, or the permission of the setting it is for, e.g. the store's logo):
 * checked by its bytes (JPEG, PNG, GIF, WebP or AVIF; at most 10 MB), stored in R2 under its SHA-256. Bad input is
 * an INVALID_ARGUMENT on `field` ("file") and stores nothing.
 */
export async function uploadImage(ctx: Ctx, file: UploadFile, field = "file", permission: Permission = "catalog.write"): Promise<UploadedImage> {
  return (await uploadImages(ctx, [file], field, permission))[0];
}

/**
 * Uploads several images at once (catalog.write): every file is checked before any is stored, so one bad file
 * stores none. Violations name `field` (the form's file field), each saying which file and why.
 */
export async function uploadImages(
  ctx: Ctx,
  files: UploadFile[],
  field = "file",
  permission: Permission = "catalog.write",
): Promise<UploadedImage[]> {
  requirePermission(ctx, permission);
  if (!files.length) throw invalidArgument([{ field, description: "Choose at least one image to upload", violatedRule: "REQUIRED_FIELD", data: {} }]);
  const violations: FieldViolation[] = [];
  const checked: CheckedImage[] = [];
  for (const file of files) {
    const ok = await checkFile(file, field, violations);
    if (ok) checked.push(ok);
  }
  if (violations.length) {
    // One message per field: the form shows them together next to the file input.
    throw invalidArgument([{ ...violations[0], description: violations.map((v) => v.description).join("; ") }]);
  }
  return Promise.all(checked.map((c) => store(ctx, c)));
}

/**
 * Makes sure the objects behind these URLs exist, storing the bytes again if not: an upload attached to a product
 * re-checks after the attach committed, because a removal running at the same moment may have found the URL
 * unreferenced and deleted the (shared, content-addressed) object in between.
 */
export async function ensureStored(ctx: Ctx, files: UploadFile[], uploaded: UploadedImage[]): Promise<void> {
  await Promise.all(
    uploaded.map(async (u, i) => {
      const key = mediaKeyOf(u.url, ctx.origin);
      if (!key || (await ctx.env.MEDIA.head(key))) return;
      const bytes = new Uint8Array(await files[i].arrayBuffer());
      const image = sniffImage(bytes);
      if (image) await store(ctx, { bytes, image });
    }),
  );
}

/** The R2 key behind one of our media URLs (`/media/<hash>.<ext>`, relative or on this origin), or null. */
export function mediaKeyOf(url: string, origin: string): string | null {
  let path = url;
  if (!url.startsWith("/")) {
    try {
      const u = new URL(url);
      if (u.origin !== origin) return null;
      path = u.pathname;
    } catch {
      return null;
    }
  } else if (url.startsWith("//")) {
    return null;
  }
  const m = /^\/media\/([^/?#]+)(?:[?#].*)?$/.exec(path);
  return m && MEDIA_FILE.test(m[1]) ? `media/${m[1]}` : null;
}

/**
 * Deletes media objects by key. Never throws: the catalogue has already committed the change that made them unused,
 * so a failed delete only leaves an orphan behind (logged), which a later sweep may collect.
 */
export async function deleteMediaObjects(env: Env, keys: string[]): Promise<void> {
  if (!keys.length) return;
  try {
    await env.MEDIA.delete(keys);
  } catch (err) {
    console.error(`media: could not delete ${keys.length} unused object(s) (${keys.join(", ")})`, err);
  }
}

/** An ApiError for a page or API caller who sent no multipart form. */
export function notMultipart(): ApiError {
  return new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", 'Send the image as multipart/form-data with the file in the field "file"');
}
