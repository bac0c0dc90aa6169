import { statusText } from "../account/order-view";
import { Badge } from "./badge";

/** What the console's order pages share between server and browser: the list's filter choices and the badges. */

export const PAYMENT_FILTERS = ["NOT_PAID", "PENDING", "PAID", "PARTIALLY_REFUNDED", "FULLY_REFUNDED"] as const;
export const FULFILLMENT_FILTERS = ["NOT_FULFILLED", "PARTIALLY_FULFILLED", "FULFILLED"] as const;
export const SORTS = {
  newest: { purchasedDate: "DESC" },
  oldest: { purchasedDate: "ASC" },
  "total-high": { "priceSummary.total.amount": "DESC" },
  "total-low": { "priceSummary.total.amount": "ASC" },
} as const;
export const SORT_LABELS: Record<keyof typeof SORTS, string> = {
  newest: "Newest first",
  oldest: "Oldest first",
  "total-high": "Highest total",
  "total-low": "Lowest total",
};

/** A status as a coloured badge: green when done, amber when the merchant has something to do. */
export function OrderBadge({ status }: { status: string }) {
  const tone = ["PAID", "FULFILLED", "APPROVED"].includes(status)
    ? "good"
    : ["NOT_PAID", "PENDING", "NOT_FULFILLED", "PARTIALLY_FULFILLED"].includes(status)
      ? "warn"
      : status === "CANCELED"
        ? "bad"
        : "";
  return <Badge tone={tone}>{statusText(status)}</Badge>;
}
