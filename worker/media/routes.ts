import { Hono } from "hono";
import { requirePermission } from "#worker/platform/context";
import { BodyTooLarge, readBytes } from "#worker/platform/body";
import { ApiError, badField, notFound } from "#worker/platform/errors";
import type { AppEnv } from "#worker/platform/http";
import { MAX_UPLOAD_FORM_BYTES, MEDIA_CACHE_CONTROL, MEDIA_FILE, notMultipart, uploadImage } from "./store";

/**
 * GET /media/<sha256>.<ext>: uploaded product media, straight from R2. The name is the content's hash, so the
 * answer never changes: a year's immutable caching, and a 304 for a browser that already has it.
 */
export const mediaFiles = new Hono<AppEnv>().get("*", async (c) => {
  // Everything under /media/ is this route's, even an empty or nested name, so none of it falls through to the
  // storefront's HTML 404 page.
  const file = c.req.path.slice("/media/".length);
  // Unknown and malformed names alike: a 404 in the API's error shape (as every other route of the Worker's own).
  const missing = () => notFound("MEDIA_NOT_FOUND", "Media file", file.slice(0, 100), "file");
  if (!MEDIA_FILE.test(file)) throw missing();
  const object = await c.env.MEDIA.get(`media/${file}`, { onlyIf: c.req.raw.headers });
  if (!object) throw missing();
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set("etag", object.httpEtag);
  headers.set("cache-control", MEDIA_CACHE_CONTROL);
  // Bytes checked as raster images at upload; still, never let a browser run anything from here.
  headers.set("content-security-policy", "default-src 'none'; sandbox");
  // R2 answers a matching If-None-Match with the object's metadata and no body.
  if (!("body" in object) || !object.body) return new Response(null, { status: 304, headers });
  headers.set("content-length", String(object.size));
  return new Response(object.body, { status: 200, headers });
});

/**
 * POST /api/media (merchant extension): an image for an API client, as multipart/form-data with the file in
 * "file". Answers { url, width, height }; give the url to addProductMedia. Same checks and limit as the console.
 */
export const mediaApi = new Hono<AppEnv>().post("/media", async (c) => {
  const ctx = c.get("ctx");
  // Refuse before reading up to 11 MB from a caller who may not upload.
  requirePermission(ctx, "catalog.write");
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) throw notMultipart();
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await readBytes(c.req.raw, MAX_UPLOAD_FORM_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge)
      throw new ApiError(413, "PAYLOAD_TOO_LARGE", `The upload is larger than the limit of ${MAX_UPLOAD_FORM_BYTES / 1_048_576} MB`);
    throw err;
  }
  let form: FormData;
  try {
    form = await new Request(c.req.url, { method: "POST", headers: { "content-type": type }, body: bytes }).formData();
  } catch {
    throw badField("file", "could not be read: the multipart body is malformed");
  }
  const file = form.get("file");
  if (!file || typeof file === "string") throw badField("file", 'is required: send the image as a file part named "file"', "REQUIRED_FIELD");
  return c.json(await uploadImage(ctx, file));
});
