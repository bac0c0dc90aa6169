import { sql, type SQL } from "drizzle-orm";
import { collectionProducts as cp } from "#worker/catalog";
import { orderLineItems, orders } from "#worker/orders";
import { STORES_APP_ID } from "#worker/cart";

/**
 * The recommendation algorithms the shop runs, under the ids Wix Stores gives the same algorithms, so a headless
 * client written for Wix asks for them unchanged. Each one is a ranking: an SQL query of `product_id, score` rows
 * (higher scores first) for the items asked about, which never names those items; visibility is checked by the
 * caller (catalog's rankedProductIds).
 */

export type AlgorithmType = "RELATED_ITEMS" | "GLOBAL";

export interface AlgorithmInfo {
  id: string;
  name: string;
  description: string;
  type: AlgorithmType;
  /** The ranking for the items asked about (an SQL subquery of product ids). */
  ranking: (items: SQL) => SQL;
}

/** Payment states of an order that counts as a sale. */
const SOLD = sql`${orders.paymentStatus} IN ('PAID', 'PARTIALLY_REFUNDED') AND ${orders.status} <> 'CANCELED'`;

/** How far back best sellers look: recent sales, read through the orders' purchase-date index. */
export const BEST_SELLER_DAYS = 90;

export const SAME_COLLECTIONS = "68ebce04-b96a-4c52-9329-08fc9d8c1253";
export const BOUGHT_TOGETHER = "d5aac1e1-2e53-4d11-85f7-7172710b4783";
export const BEST_SELLERS = "ba491fd2-b172-4552-9ea6-7202e01d1d3c";

export const ALGORITHMS: readonly AlgorithmInfo[] = [
  {
    id: SAME_COLLECTIONS,
    name: "From the same collections",
    description: "Products that share collections with the items, those sharing the most first.",
    type: "RELATED_ITEMS",
    ranking: (items) => sql`SELECT other.product_id AS product_id, count(*) AS score
      FROM ${cp} mine JOIN ${cp} other ON other.collection_id = mine.collection_id
      WHERE mine.product_id IN (${items}) AND other.product_id NOT IN (${items})
      GROUP BY other.product_id`,
  },
  {
    id: BOUGHT_TOGETHER,
    name: "Frequently bought together",
    description: "Products paid for in the same orders as the items, the most orders first.",
    type: "RELATED_ITEMS",
    ranking: (items) => sql`SELECT other.catalog_item_id AS product_id, count(DISTINCT other.order_id) AS score
      FROM ${orderLineItems} mine
      JOIN ${orders} ON ${orders.id} = mine.order_id AND ${SOLD}
      JOIN ${orderLineItems} other ON other.order_id = mine.order_id
      WHERE mine.catalog_item_id IN (${items}) AND other.catalog_item_id IS NOT NULL AND other.catalog_item_id NOT IN (${items})
      GROUP BY other.catalog_item_id`,
  },
  {
    id: BEST_SELLERS,
    name: "Best sellers",
    description: `The products sold most (units paid for and not refunded) in the last ${BEST_SELLER_DAYS} days.`,
    type: "GLOBAL",
    ranking: (items) => sql`SELECT li.catalog_item_id AS product_id, sum(li.quantity - li.refunded_quantity) AS score
      FROM ${orders} JOIN ${orderLineItems} li ON li.order_id = ${orders.id}
      WHERE ${orders.purchasedDate} >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`-${BEST_SELLER_DAYS} days`}) AND ${SOLD}
        AND li.catalog_item_id IS NOT NULL AND li.catalog_item_id NOT IN (${items})
      GROUP BY li.catalog_item_id HAVING score > 0`,
  },
];

/** The algorithm with this id and app, or undefined: only Wix Stores' catalogue is served. */
export function algorithmOf(id: string | undefined, appId: string | undefined): AlgorithmInfo | undefined {
  if (appId !== undefined && appId !== STORES_APP_ID) return undefined;
  return ALGORITHMS.find((a) => a.id === id);
}
