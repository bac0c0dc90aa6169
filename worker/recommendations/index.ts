/** Recommendations: what to suggest besides some products (same collections, bought together, best sellers). */
export { ALGORITHMS, BEST_SELLERS, BOUGHT_TOGETHER, SAME_COLLECTIONS } from "./algorithms";
export { recommendationRoutes } from "./routes";
export { firstSufficient, getRecommendation, listAvailableAlgorithms, MAX_RECOMMENDED_ITEMS, rankingsFor } from "./service";
