import type { AddressValues } from "./fields";

/** The checkout as the checkout page shows it (built on the server by checkout.server.ts; display strings only). */

export interface DeliveryOption {
  code: string;
  title: string;
  kind: "delivery" | "pickup";
  price: string;
  /** Delivery time, or where to pick up. */
  detail: string;
}

export interface SummaryLine {
  id: string;
  name: string;
  quantity: number;
  options: string[];
  image: { url: string; alt: string } | null;
  total: string;
  /** Why this line cannot be bought now, if it cannot. */
  problem: string | null;
}

export interface Totals {
  subtotal: string;
  discount: string | null;
  shipping: string;
  tax: string;
  total: string;
}

export interface CheckoutView {
  id: string;
  email: string;
  emailSaved: boolean;
  shipping: AddressValues;
  shippingSaved: boolean;
  billing: AddressValues;
  billingSame: boolean;
  /** Some item is shipped (a digital-only order needs no delivery method). */
  physical: boolean;
  options: DeliveryOption[];
  selectedCode: string | null;
  selectedTitle: string | null;
  lines: SummaryLine[];
  summary: Totals;
  coupon: string | null;
}
