/** The cart as the cart page shows it (built on the server by cart.server.ts; display strings only). */

export interface LineView {
  id: string;
  name: string;
  href: string | null;
  image: { url: string; alt: string; width: number; height: number } | null;
  options: { name: string; value: string }[];
  quantity: number;
  unitPrice: string;
  /** The price before the catalogue discount, when there is one. */
  fullUnitPrice: string | null;
  lineTotal: string;
  status: "AVAILABLE" | "NOT_FOUND" | "NOT_AVAILABLE" | "PARTIALLY_AVAILABLE";
  quantityAvailable: number | null;
  /** What stops or limits buying this line, and the fix to offer: remove it, or take what is left. */
  warning: { severity: "error" | "warning"; message: string; fix: "remove" | "reduce" | null } | null;
}

export interface CartView {
  id: string;
  /** Units in the cart. */
  count: number;
  lines: LineView[];
  /** Cart-wide notes from the pricing (not tied to a line). */
  general: string[];
  /** Some line cannot be bought as it is: checkout waits until it is fixed. */
  blocked: boolean;
  coupon: { code: string; amount: string | null; problem: string | null } | null;
  discounts: { label: string; amount: string }[];
  summary: { subtotal: string; discount: string | null; shipping: string; tax: string; total: string };
  shipping: { country: string; subdivision: string; option: { title: string; price: string } | null; optionCount: number };
}
