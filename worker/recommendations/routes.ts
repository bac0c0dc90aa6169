import { Hono } from "hono";
import type { AppEnv } from "#worker/platform/http";
import { readBody } from "#worker/platform/validation";
import { getRecommendation, listAvailableAlgorithms, recommendationRequest } from "./service";

/**
 * Wix eCommerce's Recommendations API, under /v1/recommendations and /ecom/v1/recommendations (both public):
 *
 *   GET  /algorithms   -> {availableAlgorithms: [{config: {name, description, algorithmType, algorithmId}, appId, catalogAppIds}]}
 *   POST /get          {algorithms: [{id, appId}], items: [{catalogItemId, appId}], minimumRecommendedItems}
 *                      -> {recommendation: {items: [{catalogItemId, appId}], algorithm: {id, appId}}, algorithmErrors}
 */
export const recommendationRoutes = new Hono<AppEnv>();

recommendationRoutes.get("/algorithms", (c) => c.json(listAvailableAlgorithms()));
recommendationRoutes.post("/get", async (c) => c.json(await getRecommendation(c.get("ctx"), await readBody(c, recommendationRequest))));
