import { sql } from "drizzle-orm";
import { z } from "zod";
import { rankedProductIds } from "#worker/catalog";
import { STORES_APP_ID } from "#worker/cart";
import type { Ctx } from "#worker/platform/context";
import { runBatch } from "#worker/platform/unit-of-work";
import { ALGORITHMS, algorithmOf, type AlgorithmInfo } from "./algorithms";

/** Most items one recommendation holds (Wix's figure), unless the caller asks for a larger minimum. */
export const MAX_RECOMMENDED_ITEMS = 16;

const id = z.string().trim().min(1).max(100);
const reference = z.object({ catalogItemId: id, appId: id.optional(), options: z.record(z.string(), z.unknown()).nullish() });

/** The body of a GetRecommendation call, as the Wix SDK sends it. */
export const recommendationRequest = z.object({
  algorithms: z
    .array(z.object({ id, appId: id.optional() }))
    .min(1)
    .max(20),
  items: z.array(reference).max(100).default([]),
  minimumRecommendedItems: z.number().int().min(0).max(100).optional(),
});

export type RecommendationRequest = z.output<typeof recommendationRequest>;

interface AlgorithmRef {
  id: string;
  appId: string;
}

/** The wire shape of ListAvailableAlgorithms: every algorithm the shop runs, for the Wix Stores catalogue. */
export function listAvailableAlgorithms() {
  return {
    availableAlgorithms: ALGORITHMS.map((a) => ({
      config: { name: a.name, description: a.description, algorithmType: a.type, algorithmId: a.id },
      appId: STORES_APP_ID,
      catalogAppIds: [STORES_APP_ID],
    })),
  };
}

/**
 * The rankings of the algorithms for the items (product ids), one SQL subquery each, for a caller that batches the
 * reads itself (the storefront's product page).
 */
export function rankingsFor(algorithmIds: readonly string[], items: ReturnType<typeof sql>) {
  return algorithmIds.flatMap((aid) => algorithmOf(aid, STORES_APP_ID)?.ranking(items) ?? []);
}

/**
 * GetRecommendation: runs every algorithm asked for in one D1 round trip and answers with the first one (in the
 * order asked) that finds at least `minimumRecommendedItems` products, or no items when none does. Algorithms the
 * shop does not run (or of another app) are listed in `algorithmErrors`. The items asked about and hidden products
 * are never recommended; items of other catalogues are ignored.
 */
export async function getRecommendation(ctx: Ctx, req: RecommendationRequest) {
  const minimum = req.minimumRecommendedItems ?? 1;
  const run: { ref: AlgorithmRef; algorithm: AlgorithmInfo }[] = [];
  const algorithmErrors: { algorithm: AlgorithmRef; errorCode: string; errorMessage: string }[] = [];
  for (const asked of req.algorithms) {
    const ref = { id: asked.id, appId: asked.appId ?? STORES_APP_ID };
    const algorithm = algorithmOf(asked.id, asked.appId);
    if (algorithm) run.push({ ref, algorithm });
    else
      algorithmErrors.push({
        algorithm: ref,
        errorCode: "RECOMMENDATION_ALGORITHM_NOT_SUPPORTED",
        errorMessage: `This shop does not run algorithm ${asked.id} of app ${ref.appId}`,
      });
  }
  const itemIds = [...new Set(req.items.filter((i) => (i.appId ?? STORES_APP_ID) === STORES_APP_ID).map((i) => i.catalogItemId))];
  const items = sql`SELECT value FROM json_each(${JSON.stringify(itemIds)})`;
  const limit = Math.max(MAX_RECOMMENDED_ITEMS, minimum);
  const lists = (await runBatch(
    ctx.db,
    run.map((r) => rankedProductIds(ctx.db, r.algorithm.ranking(items), limit)),
  )) as { id: string }[][];
  const found = lists.findIndex((list) => list.length > 0 && list.length >= minimum);
  if (found < 0) return { recommendation: { items: [] }, algorithmErrors };
  return {
    recommendation: {
      items: lists[found].map((p) => ({ catalogItemId: p.id, appId: STORES_APP_ID })),
      algorithm: run[found].ref,
    },
    algorithmErrors,
  };
}

/**
 * The list a page shows among several rankings' results (in the order asked): the first with at least `wanted`
 * products, else the first with any.
 */
export function firstSufficient<T>(lists: readonly (readonly T[])[], wanted: number): readonly T[] {
  return lists.find((l) => l.length >= wanted) ?? lists.find((l) => l.length > 0) ?? [];
}
