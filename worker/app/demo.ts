import { sql } from "drizzle-orm";
import { commit, type EventEnvelope, type Statement } from "#worker/events";
import { nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import { settings } from "#worker/platform/tables";
import {
  collectionInputSchema,
  demoCollections,
  demoProducts,
  prepareCreateCollection,
  prepareCreateProduct,
  productInputSchema,
} from "#worker/catalog";
import { attachDemoFiles } from "#worker/downloads";
import { runBatch } from "#worker/platform/unit-of-work";

const MARKER = "demo_catalogue";

/**
 * Loads the demo catalogue into an empty store, as one batch (all of it or nothing). Idempotent and safe: it does
 * nothing once the demo was loaded or when the merchant has any product or collection of their own, and two
 * concurrent calls cannot both load it (the marker row's primary key refuses the second batch). `alongside` adds
 * other domains' demo rows to the same batch (the composition root hands in the pricing demo).
 */
export async function loadDemoCatalogue(
  ctx: Ctx,
  alongside: (ctx: Ctx) => Statement[] = () => [],
): Promise<{ loaded: boolean; products: number; collections: number; reason?: string }> {
  requirePermission(ctx, "catalog.write");
  const [[state]] = await runBatch(ctx.db, [
    ctx.db
      .select({
        products: sql<number>`(SELECT count(*) FROM products)`,
        collections: sql<number>`(SELECT count(*) FROM collections WHERE id <> '00000000-000000-000000-000000000001')`,
        marker: sql<number>`(SELECT count(*) FROM settings WHERE key = ${MARKER})`,
      })
      .from(sql`(SELECT 1)`),
  ]);
  if (state.marker) return { loaded: false, products: 0, collections: 0, reason: "the demo catalogue was loaded before" };
  if (state.products || state.collections) return { loaded: false, products: 0, collections: 0, reason: "the store already has its own catalogue" };

  const statements: Statement[] = [ctx.db.insert(settings).values({ key: MARKER, value: { loadedAt: nowIso() }, updatedDate: nowIso() })];
  const events: EventEnvelope[] = [];
  const idsBySlug = new Map<string, string[]>();
  for (const p of demoProducts) {
    const prepared = prepareCreateProduct(ctx, productInputSchema.parse(p), p.slug);
    statements.push(...prepared.statements);
    events.push(...prepared.events);
    for (const c of p.collections) idsBySlug.set(c, [...(idsBySlug.get(c) ?? []), prepared.row.id]);
  }
  for (const c of demoCollections) {
    const prepared = prepareCreateCollection(ctx, collectionInputSchema.parse(c), c.slug, idsBySlug.get(c.slug) ?? []);
    statements.push(...prepared.statements);
    events.push(...prepared.events);
  }
  statements.push(...alongside(ctx));
  try {
    await commit(ctx, statements, events);
  } catch (err) {
    if (String(err).includes("UNIQUE constraint failed: settings.key"))
      return { loaded: false, products: 0, collections: 0, reason: "another request is loading it" };
    throw err;
  }
  // The demo's digital products promise a download: each gets a small PDF.
  await attachDemoFiles(ctx);
  return { loaded: true, products: demoProducts.length, collections: demoCollections.length };
}
