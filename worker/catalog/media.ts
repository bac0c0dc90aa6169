import { eq, sql } from "drizzle-orm";
import { deleteMediaObjects, MEDIA_FILE, mediaKeyOf } from "#worker/media";
import { requireMerchant, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { notFound } from "#worker/platform/errors";
import { products, type StoredMedia, type StoredOption } from "./tables";

/**
 * The catalogue's side of uploaded media (worker/media/store.ts keeps the files): which R2 objects products and
 * collections still use, so removing a product or a media item deletes the files nobody else shows, and the
 * console's read of one product's media.
 */

/**
 * Deletes the R2 objects behind these URLs that no product (its media, and so its choices' media, which are ids into
 * it), no collection image and not the store's logo (worker/store/settings.ts) still references. Call it after the D1 batch that dropped the references committed
 * (usually through ctx.waitUntil); never throws: a failure is logged and leaves an orphan for sweepUnusedMedia.
 */
export async function releaseUnusedMedia(ctx: Ctx, urls: string[]): Promise<void> {
  const keys = [...new Set(urls.map((u) => mediaKeyOf(u, ctx.origin)).filter((k): k is string => !!k))];
  if (!keys.length) return;
  try {
    await deleteMediaObjects(ctx.env, await unusedKeys(ctx.db, keys));
  } catch (err) {
    console.error(`media: could not check ${keys.length} object(s) for other uses`, err);
  }
}

/** Of these R2 keys (`media/<name>`), the ones no product's media, no collection image and not the store's logo mentions. */
async function unusedKeys(db: Db, keys: string[]): Promise<string[]> {
  const used = new Set<string>();
  for (let i = 0; i < keys.length; i += 200) {
    // A file name (`<sha256>.<ext>`) is unique enough to look for as text in the JSON columns; that also finds
    // absolute URLs of this origin and thumbnailUrl. One statement for up to 200 keys.
    const names = JSON.stringify(keys.slice(i, i + 200).map((k) => k.slice("media/".length)));
    const rows = await db.all<{ name: string }>(
      sql`SELECT k.value AS name FROM json_each(${names}) k
          WHERE EXISTS (SELECT 1 FROM products p WHERE instr(p.media, k.value) > 0)
             OR EXISTS (SELECT 1 FROM collections c WHERE c.media IS NOT NULL AND instr(c.media, k.value) > 0)
             OR EXISTS (SELECT 1 FROM settings s WHERE s.key = 'store' AND instr(s.value, k.value) > 0)`,
    );
    for (const r of rows) used.add(`media/${r.name}`);
  }
  return keys.filter((k) => !used.has(k));
}

/** How long an uploaded file may wait to be used: an API client uploads first and adds the URL to a product after. */
export const MEDIA_SWEEP_GRACE_MS = 24 * 3600_000;

/** The media sweep runs once an hour, at half past (the event retention runs on the hour). */
export function mediaSweepDue(now: Date): boolean {
  return now.getUTCMinutes() === 30;
}

/**
 * Deletes the files nothing references that were uploaded more than a day ago: what a failed delete, an API upload
 * never attached, or an update that replaced a product's or collection's images left behind. Each run looks at one
 * sixteenth of the bucket (the names starting with the hour's hex digit), at most 10,000 files, so a run stays short.
 */
export async function sweepUnusedMedia(env: Env, db: Db, now: Date): Promise<number> {
  const shard = (now.getUTCHours() % 16).toString(16);
  const cutoff = now.getTime() - MEDIA_SWEEP_GRACE_MS;
  let cursor: string | undefined;
  let deleted = 0;
  for (let page = 0; page < 10; page++) {
    const list = await env.MEDIA.list({ prefix: `media/${shard}`, cursor, limit: 1000 });
    const old = list.objects.filter((o) => o.uploaded.getTime() < cutoff && MEDIA_FILE.test(o.key.slice("media/".length))).map((o) => o.key);
    if (old.length) {
      const unused = await unusedKeys(db, old);
      await deleteMediaObjects(env, unused);
      deleted += unused.length;
    }
    if (!list.truncated) break;
    cursor = list.cursor;
  }
  return deleted;
}

/** One product's media as the console's media page shows it. */
export interface ProductMediaView {
  id: string;
  name: string;
  slug: string;
  visible: boolean;
  media: StoredMedia[];
  productOptions: StoredOption[];
}

/** A product's media, in order, and its options with each choice's media ids (merchants; one D1 round trip). */
export async function productMediaView(ctx: Ctx, id: string): Promise<ProductMediaView> {
  requireMerchant(ctx);
  const [row] = await ctx.db
    .select({
      id: products.id,
      name: products.name,
      slug: products.slug,
      visible: products.visible,
      media: products.media,
      productOptions: products.productOptions,
    })
    .from(products)
    .where(eq(products.id, id))
    .limit(1);
  if (!row) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return row;
}
