import { eq, sql } from "drizzle-orm";
import { deleteMediaObjects, mediaKeyOf } from "../media/store";
import { requireMerchant, type Ctx } from "../platform/context";
import { notFound } from "../platform/errors";
import { products, type StoredMedia, type StoredOption } from "./tables";

/**
 * The catalogue's side of uploaded media (worker/media/store.ts keeps the files): which R2 objects products and
 * collections still use, so removing a product or a media item deletes the files nobody else shows, and the
 * console's read of one product's media.
 */

/**
 * Deletes the R2 objects behind these URLs that no product (its media, and so its choices' media, which are ids into
 * it) and no collection image still references. Call it after the D1 batch that dropped the references committed
 * (usually through ctx.waitUntil); never throws: a failure is logged and leaves an orphan, never a failed request.
 */
export async function releaseUnusedMedia(ctx: Ctx, urls: string[]): Promise<void> {
  const keys = [...new Set(urls.map((u) => mediaKeyOf(u, ctx.origin)).filter((k): k is string => !!k))];
  if (!keys.length) return;
  try {
    // A file name (`<sha256>.<ext>`) is unique enough to look for as text in the JSON columns; that also finds
    // absolute URLs of this origin and thumbnailUrl. One statement for every key.
    const names = JSON.stringify(keys.map((k) => k.slice("media/".length)));
    const used = await ctx.db.all<{ name: string }>(
      sql`SELECT k.value AS name FROM json_each(${names}) k
          WHERE EXISTS (SELECT 1 FROM products p WHERE instr(p.media, k.value) > 0)
             OR EXISTS (SELECT 1 FROM collections c WHERE c.media IS NOT NULL AND instr(c.media, k.value) > 0)`,
    );
    const stillUsed = new Set(used.map((r) => `media/${r.name}`));
    await deleteMediaObjects(ctx.env, keys.filter((k) => !stillUsed.has(k)));
  } catch (err) {
    console.error(`media: could not check ${keys.length} object(s) for other uses`, err);
  }
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
    .select({ id: products.id, name: products.name, slug: products.slug, visible: products.visible, media: products.media, productOptions: products.productOptions })
    .from(products)
    .where(eq(products.id, id))
    .limit(1);
  if (!row) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  return row;
}
