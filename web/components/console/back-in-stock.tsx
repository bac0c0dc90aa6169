import { Badge } from "./badge";

/** Pieces of the console's back-in-stock pages: an item's name, its page's address, and its stock now. */

export interface BackInStockItemView {
  productId: string;
  variantId: string;
  productName: string | null;
  choices: Record<string, string>;
  quantity: number | null;
  inStock: boolean;
}

export function backInStockItemPath(i: { productId: string; variantId: string }): string {
  const p = new URLSearchParams({ productId: i.productId });
  if (i.variantId) p.set("variantId", i.variantId);
  return `/console/automations/back-in-stock/item?${p}`;
}

/** "Everyday Tee — Forest / XS", "Everyday Tee (any variant)", or the ids of an item no longer in the catalogue. */
export function itemText(i: BackInStockItemView): string {
  const name = i.productName ?? `Deleted product ${i.productId}`;
  if (!i.variantId) return `${name} (any variant)`;
  const choices = Object.values(i.choices).join(" / ");
  return choices ? `${name} — ${choices}` : `${name} — variant ${i.variantId}`;
}

export function BackInStockItemName({ item }: { item: BackInStockItemView }) {
  return <>{itemText(item)}</>;
}

export function StockNow({ item }: { item: BackInStockItemView }) {
  if (item.productName === null) return <span className="console-muted">Not in the catalogue</span>;
  if (item.quantity !== null) return <Badge tone={item.quantity > 0 ? "good" : "bad"}>{`${item.quantity} in stock`}</Badge>;
  return <Badge tone={item.inStock ? "good" : "bad"}>{item.inStock ? "In stock" : "Out of stock"}</Badge>;
}
