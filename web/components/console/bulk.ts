import type { Problem } from "#web/components/ui/form";

/**
 * Bulk edits from the console's products table, shared by the server (bulk.server.ts) and the browser
 * (BulkBar.tsx): what can be done to many products at once, what input each action needs, and the limits.
 */

/** The id of the bulk form; the table's row checkboxes join it with the `form` attribute. */
export const BULK_FORM_ID = "products-bulk";

/**
 * "All matching the filter" resolves the filter to ids on the server, 100 at a time through the product query; a
 * filter matching more than this is refused (narrow it) rather than cut short silently.
 */
export const BULK_MAX = 5000;

/** Services take at most this many ids per call (the bulk request schemas' limit). */
export const BULK_CHUNK = 100;

/** What the value field means for an action: a price, an amount, a percentage, a text, or nothing. */
export type BulkInput = "price" | "amount" | "percent" | "ribbon" | "brand" | "collection" | "none";

export const BULK_ACTIONS = {
  "price-set": { group: "Price", label: "Set the price to", input: "price", done: "Set the price" },
  "price-up": { group: "Price", label: "Raise the price by an amount", input: "amount", done: "Raised the price" },
  "price-down": { group: "Price", label: "Lower the price by an amount", input: "amount", done: "Lowered the price" },
  "price-up-percent": { group: "Price", label: "Raise the price by a percentage", input: "percent", done: "Raised the price" },
  "price-down-percent": { group: "Price", label: "Lower the price by a percentage", input: "percent", done: "Lowered the price" },
  "ribbon-set": { group: "Ribbon", label: "Set the ribbon to", input: "ribbon", done: "Set the ribbon" },
  "ribbon-clear": { group: "Ribbon", label: "Remove the ribbon", input: "none", done: "Removed the ribbon" },
  "brand-set": { group: "Brand", label: "Set the brand to", input: "brand", done: "Set the brand" },
  "brand-clear": { group: "Brand", label: "Remove the brand", input: "none", done: "Removed the brand" },
  show: { group: "Visibility", label: "Show in the shop", input: "none", done: "Shown in the shop" },
  hide: { group: "Visibility", label: "Hide from the shop", input: "none", done: "Hidden from the shop" },
  "collection-add": { group: "Collection", label: "Add to a collection", input: "collection", done: "Added to a collection" },
  "collection-remove": { group: "Collection", label: "Remove from a collection", input: "collection", done: "Removed from a collection" },
  delete: { group: "Delete", label: "Delete…", input: "none", done: "Deleted" },
} as const satisfies Record<string, { group: string; label: string; input: BulkInput; done: string }>;

export type BulkOp = keyof typeof BULK_ACTIONS;

export function isBulkOp(value: unknown): value is BulkOp {
  return typeof value === "string" && Object.hasOwn(BULK_ACTIONS, value);
}

/** The value field's label for an action (the browser relabels the one field as the action changes). */
export const BULK_VALUE_LABELS: Record<BulkInput, string> = {
  price: "New price",
  amount: "Amount",
  percent: "Percentage (%)",
  ribbon: "Ribbon",
  brand: "Brand",
  collection: "Value",
  none: "Value",
};

/** The outcome of one bulk action, as the table page shows it after the redirect. */
export interface BulkResult {
  /** What was done, e.g. "Raised the price by 10 %". */
  what: string;
  /** "updated", or "deleted" for a delete. */
  verb: "updated" | "deleted";
  ok: number;
  failed: number;
  /** The first failures, each with the product's name and why (the rest are counted in `failed`). */
  failures: { name: string; why: string }[];
  /** When it happened (ms since the epoch): the summary is shown for a while, then dropped. */
  at: number;
}

/** How many failures the summary names (the rest are counted). */
export const BULK_FAILURES_SHOWN = 10;

/** How long a summary link keeps showing its result (a reload within this time shows it again). */
export const BULK_RESULT_TTL_MS = 15 * 60 * 1000;

/** What the form posted, kept to refill it after a problem (row ids included, so the ticks survive). */
export interface BulkValues {
  op: string;
  value: string;
  collection: string;
  scope: "selected" | "matching";
  ids: string[];
  allOnPage: boolean;
  /** The delete confirmation step's button was pressed. */
  confirmed: boolean;
}

export interface BulkConfirm {
  count: number;
  /** The first few names, so the merchant sees what goes. */
  names: string[];
  more: number;
  ids: string[];
}

export type BulkActionData = { problem: Problem | null; values: BulkValues; confirm: BulkConfirm | null };
