import type { Context } from "hono";
import { uploadProductFile } from "#worker/downloads";
import { ApiError, errorBody } from "#worker/platform/errors";
import type { AppEnv } from "#worker/platform/http";
import { resolveConsoleSession } from "#web/console.server";

const UPLOAD_PATH = /^\/console\/products\/([^/]+)\/downloads$/;

/** Whether a request is the console's upload of a digital product's file (a raw-body PUT, not a form). */
export function isConsoleUpload(method: string, path: string): boolean {
  return method === "PUT" && UPLOAD_PATH.test(path);
}

/**
 * The console's upload of a digital product's file: the signed-in merchant's PUT, whose body streams to the
 * downloads service exactly as the API's does (catalog.write, size checked before reading). JSON in the API's shape.
 */
export async function consoleUpload(c: Context<AppEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const productId = decodeURIComponent(UPLOAD_PATH.exec(c.req.path)![1]);
  ctx.auth = (await resolveConsoleSession(c.env, ctx.db, c.req.raw)).auth;
  try {
    if (ctx.auth.kind === "anonymous") throw new ApiError(401, "UNAUTHENTICATED", "Sign in to the console first", { message: "Unauthenticated" });
    const file = await uploadProductFile(
      ctx,
      productId,
      {
        variantId: c.req.query("variantId") || null,
        fileName: c.req.query("fileName") ?? null,
        contentType: c.req.header("content-type") ?? null,
        length: c.req.header("content-length") ?? null,
      },
      c.req.raw.body,
    );
    return c.json({ file }, 200, { "cache-control": "no-store" });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return c.json(errorBody(err, c.get("requestId")), err.status, { "cache-control": "no-store" });
  }
}
